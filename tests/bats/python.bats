#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The Python binding (python/udmabuf) against the real module, with
# Debian's own python3 and python3-numpy of the guest's architecture and
# the libudmabuf.so.1 built for it (tests/vm/run puts them in the guest
# for files with the line below): what the binding does, the same C and
# Python on every architecture.  What depends on the architecture (the
# import of its own libudmabuf, mappings, syncs, DMA by QEMU's edu device
# into numpy arrays) is python-dma.bats, which every arch runs.
# allocate() makes process-scoped buffers (/dev/udmabuf-cfs) unless a name
# or persistence is asked for; tests of configfs behaviour pass name=.
# vm: needs python
# check-all: weight 67

# Variables such as cfs come from helpers/common.bash, stderr from bats' run.
# shellcheck disable=SC2154
load helpers/common
load helpers/edu
load helpers/python

bats_require_minimum_version 1.5.0

# (Its addresses, and its slices': python-dma.bats, python/tests; a freed
# array's address and syncs being ValueError: python/tests.)
@test "allocate makes a configfs buffer of whole pages, enabled and zeroed; freebuffer removes it at once, the array stays usable" {
	py <<-'EOF'
		a = udmabuf.allocate((3, 1000), dtype=np.uint16, name="pyb")
		assert attr("pyb", "enable") == "1"
		# 6000 bytes, rounded up to whole pages.
		assert int(attr("pyb", "size")) == -(-6000 // PAGE) * PAGE, attr("pyb", "size")
		assert a.buffer.name == "pyb" and a.buffer.path == "/dev/pyb"
		assert not (a != 0).any(), "a new buffer is not zeroed"
		a[:] = 0x11
		a.freebuffer()
		assert not item_exists("pyb") and not device_exists("pyb")
		assert (a == 0x11).all()
		a[:] = 0x22
		assert (a == 0x22).all()
		a.freebuffer()
		del a
		gc.collect()
		print("OK")
	EOF
	# The memory went with the last mapping: nothing left to see or remove.
	run -0 udmabufctl list -n
	assert_output ""
}

@test "Buffer(NAME) opens a buffer made by udmabufctl by name or /dev path and does not remove it; a closed Buffer's arrays keep the mapping, which goes with the last of them" {
	run -0 udmabufctl create ub --size 64K --device-name ubdev
	py <<-'EOF'
		for n in ("ub", "ubdev", "/dev/ubdev"):
		    with udmabuf.Buffer(n) as b:
		        assert b.name == "ubdev" and b.size == 65536 and b.path == "/dev/ubdev", (n, b.name, b.path)
		        assert b.physical_address == ctl_dma_addr("ub")
		        assert b.sync_mode == 1 and b.driver_version
		        a = b.array()
		        assert a.shape == (65536,) and a.dtype == np.uint8
		        w = b.array((16, 4), "u8", offset=PAGE)
		        w[:] = 7
		        assert w.physical_address == b.physical_address + PAGE
		        raises(ValueError, None, b.array, (65536 // 8 + 1,), "u8")
		    assert b.closed and item_exists("ub")
		    raises(ValueError, None, lambda: b.physical_address)
		r = udmabuf.Buffer("ub", readonly=True)
		v = r.array((16, 4), "u8", offset=PAGE)
		assert (v == 7).all() and not v.flags.writeable
		r.close()
		def users():
		    with open(f"{CLASS}/ubdev/users") as f:
		        return int(f.read())
		del a, w, v
		gc.collect()
		assert users() == 0, users()
		b = udmabuf.Buffer("ub")
		a = b.array(dtype="u4")
		v = a[10:20]
		b.close()
		assert users() >= 1, users()
		a[:] = 3
		del a
		gc.collect()
		assert users() >= 1 and (v == 3).all(), users()
		del v
		gc.collect()
		assert users() == 0, users()
		print("OK")
	EOF
	assert_attr "$cfs/ub/enable" 1
	# Not mapped any more: the buffer can be disabled.
	run -0 udmabufctl delete ub
}

@test "a process-scoped array's addresses are its buffer's GET_INFO and sysfs ones; its memory goes with its last array" {
	py <<-'EOF'
		used0 = process_used()
		a = udmabuf.allocate((3, 1000), dtype=np.uint16)
		[name] = proc_bufs()
		assert cls_attr(name, "owner") == f"{os.getpid()} python3", cls_attr(name, "owner")
		# 6000 bytes, rounded up to whole pages.
		assert int(cls_attr(name, "size")) == -(-6000 // PAGE) * PAGE
		assert a.physical_address == a.device_address == int(cls_attr(name, "phys_addr"), 16)
		assert a.cpu_physical_address == a.physical_address, "no IOMMU in this guest"
		assert not os.path.exists(f"/dev/{name}") and configfs_items() == []
		assert sh("udmabufctl", "list", "-n", "-r", "-o", "NAME,ORIGIN") == f"{name} process"
		a[:] = 7
		a.flush()
		a.invalidate()
		v = a[2]
		a.freebuffer()
		# Closed, but the views still map it: the memory stays.
		assert proc_bufs() == [name] and cls_attr(name, "users") == "1"
		assert (v == 7).all()
		raises(ValueError, None, lambda: v.physical_address)
		del a, v
		gc.collect()
		assert proc_bufs() == [] and process_used() == used0, (proc_bufs(), process_used(), used0)
		print("OK")
	EOF
}

@test "process-scoped allocate: dma_mask, allocator and dma_device reach the buffer; a bad value is its errno" {
	edu_ready
	py <<-'EOF'
		dev = "pci/" + os.environ["UDMABUF_EDU"]
		a = udmabuf.allocate(16, dma_mask=64, allocator="page")
		assert cls_attr(a.buffer.name, "allocator") == "page"
		b = udmabuf.allocate(4 << 20, np.uint8, allocator="contig")
		assert cls_attr(b.buffer.name, "allocator") == "contig"
		c = udmabuf.allocate(16, target=dev)
		assert cls_attr(c.buffer.name, "dma_device") == dev
		assert c.physical_address == int(cls_attr(c.buffer.name, "phys_addr"), 16)
		d = udmabuf.allocate(16, dma_device=dev)
		assert cls_attr(d.buffer.name, "dma_device") == dev
		n = len(proc_bufs())
		raises(OSError, "ERANGE", udmabuf.allocate, 16, dma_mask=11)
		raises(OSError, "EINVAL", udmabuf.allocate, 16, allocator="nosuch")
		raises(OSError, "ENODEV", udmabuf.allocate, 16, dma_device="pci/0000:00:1f.7")
		assert len(proc_bufs()) == n and configfs_items() == []
		print("OK")
	EOF
}

# (That a member of group udmabuf may: the next test.)
@test "allocate as a user who may not create buffers, or whom the node refuses, is PermissionError naming the buffer or the node; nobody's after the node is group udmabuf's too" {
	# prog [NAME]: allocate as the user, a named buffer NAME if given.
	local prog='
import errno, sys, udmabuf
kw = {"name": sys.argv[1]} if sys.argv[1:] else {}
try:
    udmabuf.allocate(16, **kw)
except PermissionError as e:
    print(errno.errorcode[e.errno], kw.get("name", "udmabuf-cfs") in str(e))'
	run -0 --separate-stderr as_nobody env PYTHONPATH="$PYTHONPATH" python3 -c "$prog" pyb
	assert_output "EACCES True"
	assert [ ! -e "$cfs/pyb" ]
	run -0 --separate-stderr as_nobody env PYTHONPATH="$PYTHONPATH" python3 -c "$prog"
	assert_output "EACCES True"
	run -0 --separate-stderr as_pyuser env PYTHONPATH="$PYTHONPATH" python3 -c "$prog"
	assert_output "EACCES True"
	node_for_group
	run -0 --separate-stderr as_nobody env PYTHONPATH="$PYTHONPATH" python3 -c "$prog"
	assert_output "EACCES True"
}

# (That the memory itself, MemFree, and the user's locked memory come back
# when the owner goes: process.bats; edu's DMA into process-scoped arrays
# bound to it: python-dma.bats.)
@test "a non-root member of group udmabuf gets arrays bound to edu; kill -9 of it gives the memory back" {
	edu_ready
	node_for_group
	local out=$BATS_TEST_TMPDIR/prog.out big=$((128 << 20))
	local used0 line bg pid uid name bigname
	used0=$(process_used)
	# The program: 16 bytes bound to edu, written and flushed, 128 MiB more,
	# then sleeps until killed.  Its buffers count against its user's
	# RLIMIT_MEMLOCK, which an administrator raises for the group
	# (limits.conf) as here: 8 MiB, the default, is too little.
	(ulimit -l $((256 << 10)) && exec su -s /bin/sh -c 'exec "$0" "$@"' -- "$PYUSER" env PYTHONPATH="$PYTHONPATH" python3 -c '
import os, signal, sys
import numpy as np
import udmabuf
a = udmabuf.allocate(16, np.uint8, sys.argv[1])
a[:] = 5
a.flush()
big = udmabuf.allocate(int(sys.argv[2]), np.uint8)
print("ready", os.getpid(), os.getuid(), a.buffer.name, big.buffer.name, flush=True)
while True:
    signal.pause()
' "pci/$UDMABUF_EDU" "$big") >"$out" 2>&1 </dev/null &
	bg=$!
	line=$(wait_line "$out" '^ready ' "$bg")
	read -r _ pid uid name bigname <<<"$line"
	[ "$uid" = "$PYUSER_UID" ] || fail "the program ran as uid $uid"
	run -0 grep '^Groups:' "/proc/$pid/status"
	assert_output --regexp "[[:space:]]$PYGROUP_GID([[:space:]]|\$)"
	assert_attr "$CLASS/$name/owner" "$pid python3"
	assert_attr "$CLASS/$name/dma_device" "pci/$UDMABUF_EDU"
	assert_attr "$CLASS/$bigname/owner" "$pid python3"
	assert_attr "$CLASS/$bigname/size" "$big"
	assert_equal "$(process_used)" "$((used0 + $(cat "$CLASS/$name/size") + big))"
	kill -KILL "$pid"
	# su execs the shell, which execs python3: usually BG is PID.
	wait "$bg" || true
	for _ in $(seq 1 100); do
		[ -e "/proc/$pid" ] || break
		sleep 0.1
	done
	[ ! -e "/proc/$pid" ] || fail "process $pid still there after kill -9"
	wait_gone "$name"
	wait_gone "$bigname"
	[ -z "$(ls "$CLASS")" ] || fail "left in $CLASS: $(ls "$CLASS")"
	assert_equal "$(process_used)" "$used0"
}

# (A buffer goes with its last array or a with block: python/tests, the
# removal freebuffer's.)
@test "persistent=True makes a named configfs buffer that outlives freebuffer and the program; one not persistent still alive at the interpreter's exit goes then" {
	py <<-'EOF'
		a = udmabuf.allocate(16, persistent=True)
		name = a.buffer.name
		# (Its name and path: python/tests' test_persistent_buffer_stays.)
		assert configfs_items() == [name] and proc_bufs() == [], name
		assert a.physical_address == ctl_dma_addr(name)
		a[:] = 0x1234
		a.freebuffer()
		assert item_exists(name) and attr(name, "enable") == "1"
		b = udmabuf.allocate(16, persistent=True, name="keep", cacheable=False)
		assert b.buffer.name == "keep" and attr("keep", "sync_mode") == "1"
		b[:] = 0x5678
		b.flush()
		c = udmabuf.allocate(16, name="atexit")
		assert item_exists("atexit")
		print("OK")
	EOF
	assert [ ! -e "$cfs/atexit" ]
	run -0 udmabufctl list -n -o NAME
	assert_line keep
	assert_line --regexp '^pyudmabuf-[0-9]+-[0-9]+$'
	# What the program wrote is there for the next one.
	py <<-'EOF'
		with udmabuf.Buffer("keep") as b:
		    assert (b.array((16,), "u4") == 0x5678).all()
		[other] = [n for n in configfs_items() if n != "keep"]
		with udmabuf.Buffer(other) as b:
		    assert (b.array((16,), "u4") == 0x1234).all()
		print("OK")
	EOF
	run -0 udmabufctl delete keep
	run -0 udmabufctl list -n -o NAME
	run -0 udmabufctl delete "$output"
}
