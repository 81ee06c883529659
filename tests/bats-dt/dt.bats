#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Buffers from the device tree (arm64 guest only).  Needs the nodes of
# tests/dt/udmabuf.dtsi in the guest's tree:
#     tests/vm/run --arch arm64 --dt tests/dt/udmabuf.dtsi tests/bats-dt/dt.bats
# Not in tests/bats/ so that the default suite, booted without the fragment,
# never runs it.
#
# The module is loaded once, in setup_file, with udmabuf5=1M (the DT node
# with minor-number 5 must then fail): the common per-test setup would
# unload a module with parameter buffers, so this file has its own.

# tests/bats is the guest's /tests (tests/vm/run).
load /tests/helpers/common
load /tests/helpers/edu

PDRV=/sys/bus/platform/drivers/udmabuf-cfs
PDEV=/sys/bus/platform/devices
PARAMS=(udmabuf5=1M)

# Every buffer the fragment must give (with the parameter one).
GOOD_DT=(dtplain dtbuf-named udmabuf21 dtsize64 dtcoherent dtsync dtmask dthigh dtcma
	dtnomap dtshare1 dtshare2)

setup_file() {
	[ -d "$PDEV/dtplain" ] ||
		skip "no DT nodes: run with --arch arm64 --dt tests/dt/udmabuf.dtsi"
	unload_module
	load_module "${PARAMS[@]}"
}

teardown_file() {
	unload_module
}

setup() {
	untrace_helpers
	[ -d "$PDEV/dtplain" ] ||
		skip "no DT nodes: run with --arch arm64 --dt tests/dt/udmabuf.dtsi"
	# shellcheck disable=SC2034 # used by the tests
	PAGE_SIZE=$("$UT" pagesize)
	load_module "${PARAMS[@]}" || return 1
	kmsg_mark
}

# Kill holders, rebind what a test unbound, fail on kernel warnings.
teardown() {
	local n rc=0
	kill_holders
	if module_loaded; then
		for n in dtplain dtnomap; do
			[ -e "$PDEV/$n/driver" ] && continue
			"$UT" write-attr "$PDRV/bind" "$n" >/dev/null 2>&1 || {
				printf '# teardown: cannot bind %s again\n' "$n" >&2
				rc=1
			}
		done
	fi
	# (Skipped before kmsg_mark: nothing to check.)
	[ -z "${KMSG_SEQ:-}" ] || teardown_kmsg_check || rc=1
	return "$rc"
}

# bind_dev NAME / unbind_dev NAME: one write to the driver's bind/unbind.
bind_dev() { set_attr "$PDRV/bind" "$1"; }
unbind_dev() { set_attr "$PDRV/unbind" "$1"; }

# assert_kmsg ERE: some kernel log line matches.
assert_kmsg() {
	dmesg | grep -qE "$1" || fail "no kernel log line matches /$1/"
}

# assert_probe_failed NODE PROPERTY_ERE [ERRNO]: the node's platform device
# has no driver, no buffer under it, no /dev node, and a log line names the
# property; with ERRNO (EINVAL or ERANGE), the probe failed with it, as
# the same mistake does every other way in (config.bats).
assert_probe_failed() {
	local node=$1 n
	[ -d "$PDEV/$node" ] || fail "no platform device $node"
	[ ! -e "$PDEV/$node/driver" ] || fail "$node is bound"
	[ ! -e "$PDEV/$node/udmabuf" ] || fail "$node has buffers: $(ls "$PDEV/$node/udmabuf")"
	assert_no_device "$node"
	assert_kmsg "udmabuf-cfs $node: .*$2"
	case ${3:-} in
	'') return 0 ;;
	EINVAL) n=22 ;;
	ERANGE) n=34 ;;
	*) fail "assert_probe_failed: no number for ${3}" ;;
	esac
	# The driver core's line: "probe of NODE failed with error -N" up to
	# 6.1, "NODE: probe with driver DRIVER failed with error -N" since.
	assert_kmsg "(probe of $node|$node: probe with driver udmabuf-cfs) failed with error -$n"
}

@test "exactly the valid DT nodes and the parameter buffer exist; each has origin dt, is bound to its platform device, its parent" {
	local want got n
	want=$(printf '%s\n' "${GOOD_DT[@]}" udmabuf5 | sort)
	got=$(cd "$CLASS" && printf '%s\n' * | sort)
	[ "$got" = "$want" ] || fail "$(printf 'expected:\n%s\ngot:\n%s' "$want" "$got")"
	for n in "${GOOD_DT[@]}"; do
		assert_device "$n"
		assert_attr "$CLASS/$n/origin" dt
	done
	for n in dtplain dtnamed dtminor dtsize64 dtcoherent dtsync dtmask dtcma dtnomap \
		dtshare1 dtshare2; do
		[ -e "$PDEV/$n/driver" ] || fail "platform device $n is not bound"
	done
	[ "$(readlink -f "$CLASS/dtplain/device")" = "$(readlink -f "$PDEV/dtplain")" ] ||
		fail "dtplain's parent is $(readlink -f "$CLASS/dtplain/device")"
}

@test "device-name names the buffer and minor-number still gives its minor; minor-number alone names it udmabuf<N>" {
	assert_device dtbuf-named
	assert_no_device dtnamed
	assert_no_device udmabuf20
	[ "$(minor_of "$(cat "$CLASS/dtbuf-named/dev")")" = 20 ] ||
		fail "dtbuf-named is $(cat "$CLASS/dtbuf-named/dev"), not minor 20"
	assert_device udmabuf21
	assert_no_device dtminor
	[ "$(minor_of "$(cat "$CLASS/udmabuf21/dev")")" = 21 ] ||
		fail "udmabuf21 is $(cat "$CLASS/udmabuf21/dev")"
}

@test "the properties set the buffer: u32 and u64 size, dma-coherent, sync-*, mode (octal), its platform device as DMA device; without them the defaults" {
	local n
	assert_attr "$CLASS/dtplain/size" 1048576
	assert_attr "$CLASS/dtbuf-named/size" 2097152
	assert_attr "$CLASS/dtsize64/size" 4194304
	assert_attr "$CLASS/dtcoherent/dma_coherent" 1
	for n in dtplain dtsize64 dtsync dtmask dtcma; do
		assert_attr "$CLASS/$n/dma_coherent" 0
	done
	assert_attr "$CLASS/dtsync/sync_mode" 6
	assert_attr "$CLASS/dtsync/sync_direction" 1
	assert_attr "$CLASS/dtsync/sync_offset" 4096
	assert_attr "$CLASS/dtsync/sync_size" 8192
	assert_attr "$CLASS/dtsync/size" 65536
	assert_attr "$CLASS/dtplain/sync_mode" 1
	assert_attr "$CLASS/dtplain/sync_direction" 0
	assert_attr "$CLASS/dtplain/sync_offset" 0
	assert_attr "$CLASS/dtplain/sync_size" 1048576
	assert_equal "$(stat -c %a /dev/dtsync)" 660
	assert_equal "$(stat -c %a /dev/dtplain)" 600
	assert_attr "$CLASS/dtplain/dma_device" platform/dtplain
	assert_attr "$CLASS/dtbuf-named/dma_device" platform/dtnamed
	assert_attr "$CLASS/dtnomap/dma_device" platform/dtnomap
}

@test "a dma-mask 32 buffer lies below 4 GiB, a dma-mask 40 one takes its pool above it, and both work" {
	local pa
	pa=$(cat "$CLASS/dtmask/phys_addr")
	((pa + 1048576 <= 1 << 32)) || fail "dtmask at $pa"
	run -0 "$UT" mmap-fill /dev/dtmask 0 1M 5
	run -0 "$UT" read-verify /dev/dtmask 0 1M 5
	# The pool's address comes from the device tree (its reg).  A no-map
	# pool is mapped by PFN, which pagemap does not show.
	pa=$(cat "$CLASS/dthigh/phys_addr")
	((pa == 0x110000000)) || fail "dthigh at $pa, not at its pool's 0x110000000"
	run -0 "$UT" mmap-fill /dev/dthigh 0 1M 6
	run -0 "$UT" read-verify /dev/dthigh 0 1M 6
}

# ---------------------------------------------------------------------------
# Reserved memory

# pool_base KIND MIB: the address of the reserved-memory pool the kernel
# reported at boot ("created CMA memory pool" / "created DMA memory pool").
pool_base() {
	dmesg | sed -nE "s/.*created $1 memory pool at (0x[0-9a-f]+), size $2 MiB.*/\1/p" | head -n 1
}

@test "the 160 MiB buffer from the reusable pool (larger than the default CMA) lies inside its 192 MiB pool and is whole" {
	local base pa
	base=$(pool_base CMA 192)
	[ -n "$base" ] || fail "no 'created CMA memory pool' line at boot"
	pa=$(cat "$CLASS/dtcma/phys_addr")
	((pa >= base && pa + 167772160 <= base + 192 * 1048576)) ||
		fail "dtcma at $pa, pool at $base"
	assert_attr "$CLASS/dtcma/size" 167772160
	local off
	for off in 0 40M 80M 120M; do
		run -0 "$UT" mmap-fill /dev/dtcma "$off" 40M 31
	done
	for off in 0 40M 80M 120M; do
		run -0 "$UT" mmap-verify /dev/dtcma "$off" 40M 31
	done
	run -0 "$UT" read-verify /dev/dtcma 150M 10M 31
}

@test "the reusable-pool DT buffer (CMA) is mapped by PFN: vmsplice and long-term pins fail at once with EFAULT; rmmod is not held" {
	assert_attr "$CLASS/dtcma/allocator" cma
	run -0 udmabuf-ioctl info /dev/dtcma
	assert_line pages=0
	# A page of it in a pipe once held the module; none can get there now.
	run timeout -s KILL 60 udmabuf-zc vmsplice /dev/dtcma
	assert_output EFAULT
	# IORING_REGISTER_BUFFERS pins for good (FOLL_LONGTERM), which for a
	# CMA page spun in the kernel: refused at once now.
	run timeout -s KILL 60 udmabuf-zc iouring /dev/dtcma
	[ "$status" -ne 137 ] || fail "the long-term pin of dtcma did not return in 60 s"
	assert_output EFAULT
	unload_module || fail "rmmod after the refused pins: $(cat /sys/module/$MODNAME/refcnt)"
	load_module "${PARAMS[@]}"
}

@test "two buffers of one no-map pool each report their own address inside it" {
	local base a b
	base=$(pool_base DMA 2)
	[ -n "$base" ] || fail "no 'created DMA memory pool ... size 2 MiB' line at boot"
	a=$(cat "$CLASS/dtshare1/phys_addr")
	b=$(cat "$CLASS/dtshare2/phys_addr")
	[ "$a" != "$b" ] || fail "both buffers report $a"
	((a >= base && a + 1048576 <= base + 2097152)) || fail "dtshare1 at $a, pool at $base"
	((b >= base && b + 1048576 <= base + 2097152)) || fail "dtshare2 at $b, pool at $base"
	edu_roundtrip /dev/dtshare1 0
	edu_roundtrip /dev/dtshare2 "$(last_chunk 1048576)"
}

@test "the no-map buffer is the start of its pool, mapped dma-coherent with and without O_SYNC, and round-trips through mmap and read()" {
	local base
	base=$(pool_base DMA 16)
	[ -n "$base" ] || fail "no 'created DMA memory pool' line at boot"
	(($(cat "$CLASS/dtnomap/phys_addr") == base)) ||
		fail "dtnomap at $(cat "$CLASS/dtnomap/phys_addr"), pool at $base"
	assert_attr "$CLASS/dtnomap/cache_mode" dma-coherent
	assert_attr "$CLASS/dtnomap/cache_mode_sync" dma-coherent
	assert_attr "$CLASS/dtnomap/size" 16777216
	run -0 "$UT" mmap-fill /dev/dtnomap 0 16M 41
	run -0 "$UT" read-verify /dev/dtnomap 0 16M 41
	run -0 "$UT" write-fill /dev/dtnomap 4096 64K 42
	run -0 "$UT" mmap-verify /dev/dtnomap 4096 64K 42
}

@test "the no-map buffer has no struct pages: PFN mappings, no dma-buf export; its sync triggers succeed (sysfs and ioctl)" {
	run -0 udmabuf-ioctl info /dev/dtnomap
	assert_line pages=0
	run udmabuf-zc export /dev/dtnomap 0 0 rdwr
	assert_output EOPNOTSUPP
	# A CMA pool's buffer has pages, which it exports, though its own
	# mappings are by PFN.
	run -0 udmabuf-ioctl info /dev/dtcma
	assert_line pages=0
	run -0 udmabuf-zc dmabuf /dev/dtcma 0 0
	assert_output OK
	assert_write OK "$CLASS/dtnomap/sync_for_device" 1
	assert_attr "$CLASS/dtnomap/sync_owner" 1
	assert_write OK "$CLASS/dtnomap/sync_for_cpu" 1
	assert_attr "$CLASS/dtnomap/sync_owner" 0
	assert_write OK "$CLASS/dtnomap/sync_for_device" "4096 8192 1"
	run -0 udmabufctl sync dtnomap --for-device --offset 0 --length 1M
	run -0 udmabufctl sync dtnomap --for-cpu --offset 0 --length 1M
}

# ---------------------------------------------------------------------------
# Real DMA (the guest's edu PCI device, tests/bats/dma.bats): a DT buffer's
# DMA device is its own platform device, which has no IOMMU here, so its
# address is the bus address the edu uses too.

EDU=$UDMABUF_EDU

@test "DT buffers, the no-map pool's and the 160 MiB reusable pool's among them: the edu DMA master reads and writes them at both ends" {
	local n
	run -0 "$ED" --pci "$EDU" probe
	for n in dtplain dtsize64 dtcoherent dtsync dtmask dtnomap; do
		edu_roundtrip "/dev/$n" 0
		edu_roundtrip "/dev/$n" "$(last_chunk "$(cat "$CLASS/$n/size")")" --sync
	done
	# Contiguous for the device: its first and last page.
	edu_roundtrip /dev/dtcma 0
	edu_roundtrip /dev/dtcma "$(last_chunk 167772160)"
}

@test "negative control: a DT buffer whose data was never sent does not arrive" {
	run -0 "$ED" --pci "$EDU" send /dev/dtplain 0 "$CHUNK" 11
	run -0 "$ED" --pci "$EDU" send /dev/dtplain 0 "$CHUNK" 12 --no-dma
	run -2 "$ED" --pci "$EDU" recv /dev/dtsize64 0 "$CHUNK" 12
}

# Node | what its log line says (ERE) | the errno of the same mistake every
# way in (config.bats), if the probe fails with one.
@test "invalid nodes fail with a log line, the errno of the same mistake every way in, and leave nothing" {
	local node ere errno
	while IFS='|' read -r node ere errno; do
		assert_probe_failed "$node" "$ere" "$errno"
	done <<-'EOF'
		bad-nosize|size: missing|
		bad-size0|size: |EINVAL
		bad-size3|size: |
		bad-syncmode|sync-mode: |ERANGE
		bad-syncdir|sync-direction: |EINVAL
		bad-syncoff|sync-offset: |EINVAL
		bad-dmamask|dma-mask: |ERANGE
		bad-mode|mode: must be permissions|ERANGE
		bad-highmask|memory-region dt-high-pool@110000000: 0x0*110000000\+0x0*400000 is beyond the dma-mask \(32 bits\)|
		bad-region|memory-region dt-plain-region: neither no-map nor reusable|
		bad-devname|device-name "bad name!"|
	EOF
	[ ! -e "$CLASS/bad name!" ] || fail "'bad name!' exists"
}

@test "a minor-number taken by a module parameter fails the DT buffer, not the parameter one" {
	assert_probe_failed dtclash 'cannot create dtclash .*minor-number is taken.*EBUSY'
	assert_device udmabuf5
	assert_attr "$CLASS/udmabuf5/origin" param
	assert_attr "$CLASS/udmabuf5/size" 1048576
	[ "$(minor_of "$(cat "$CLASS/udmabuf5/dev")")" = 5 ] || fail "udmabuf5 is not minor 5"
}

@test "udmabufctl list shows the DT buffers with origin dt" {
	local n
	run -0 --separate-stderr udmabufctl list -n -r -o NAME,ORIGIN
	for n in "${GOOD_DT[@]}"; do
		assert_line "$n dt"
	done
	assert_line "udmabuf5 param"
}

@test "unbind while mapped: the device goes, the mapping keeps its data, bind makes a new buffer, which does mmap and read/write like a configfs one; unbind and bind of an idle one" {
	start_holder /dev/dtplain 0 1048576 51
	local pid=$HOLDER_PID
	unbind_dev dtplain
	assert_no_device dtplain
	[ ! -e "$PDEV/dtplain/driver" ] || fail "dtplain still bound"
	kill -0 "$pid" || fail "the holder died"
	bind_dev dtplain
	assert_device dtplain
	assert_attr "$CLASS/dtplain/origin" dt
	assert_attr "$CLASS/dtplain/size" 1048576
	stop_holder_intact "$pid"
	run -0 "$UT" mmap-fill /dev/dtplain 0 1M 52
	run -0 "$UT" read-verify /dev/dtplain 0 1M 52
	run -0 "$UT" write-fill /dev/dtplain 0 1M 53
	run -0 "$UT" mmap-verify /dev/dtplain 0 1M 53
	assert_errno EINVAL "$UT" mmap-try /dev/dtplain 0 2M
	# And of an idle one.
	unbind_dev dtsize64
	assert_no_device dtsize64
	bind_dev dtsize64
	assert_device dtsize64
	assert_attr "$CLASS/dtsize64/size" 4194304
}

@test "no-map pool: a rebind fails while an old mapping holds the pool, works after" {
	start_holder /dev/dtnomap 0 16777216 61
	local pid=$HOLDER_PID
	unbind_dev dtnomap
	assert_no_device dtnomap
	kmsg_mark
	run "$UT" write-attr "$PDRV/bind" dtnomap
	[ "$output" != OK ] || fail "bind succeeded while the pool is held"
	assert_no_device dtnomap
	[ ! -e "$PDEV/dtnomap/driver" ] || fail "dtnomap bound while the pool is held"
	"$UT" kmsg-since "$KMSG_SEQ" | grep -qE 'cannot create dtnomap .*not enough contiguous memory.*ENOMEM' ||
		fail "no ENOMEM line for dtnomap: $("$UT" kmsg-since "$KMSG_SEQ")"
	kill -0 "$pid" || fail "the holder died"
	stop_holder_intact "$pid"
	bind_dev dtnomap
	assert_device dtnomap
	assert_attr "$CLASS/dtnomap/origin" dt
	run -0 "$UT" mmap-fill /dev/dtnomap 0 16M 62
	run -0 "$UT" read-verify /dev/dtnomap 0 16M 62
}

@test "the module unloads with DT buffers and loads again with all of them" {
	unload_module
	[ ! -e "$CLASS" ] || [ -z "$(ls "$CLASS")" ] || fail "left: $(ls "$CLASS")"
	local n
	for n in dtplain dtcma dtnomap; do
		[ ! -e "$PDEV/$n/driver" ] || fail "$n still bound"
		assert_no_device "$n"
	done
	load_module "${PARAMS[@]}"
	for n in "${GOOD_DT[@]}" udmabuf5; do
		assert_device "$n"
	done
	unload_module
}
