#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#
# Host test of libudmabuf.so's public API and of the example program, with
# fake-configfs.so preloaded (a tree of plain files for configfs, regular
# files answering the ioctls for device nodes; see fake-configfs.c). The
# real behaviour is tested in the guests.
#
# usage: test-lib.sh BUILDDIR PATH/TO/fake-configfs.so   (prints TAP)
set -u
OUT=$(cd "$1" && pwd)
SHIM=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
T=$(mktemp -d "${TMPDIR:-/tmp}/libudmabuf-test.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
T=$(cd "$T" && pwd -P)	# as /proc/self/fd shows it, for fake-configfs.so
status=0

# The unit tests print TAP with their own plan at the end; renumber both
# parts into one stream.
LD_LIBRARY_PATH=$OUT LD_PRELOAD=$SHIM "$OUT/tests/test_lib" "$T/unit" >"$T/unit.tap" || status=1
grep -v '^1\.\.' "$T/unit.tap"
n=$(grep -c '^\(not \)\?ok ' "$T/unit.tap")

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); status=1; echo "not ok $n - $1"; sed 's/^/#   /' "$T/out"; }
# COND; check NAME
check() { if [ $? -eq 0 ]; then ok "$1"; else not_ok "$1"; fi; }
# The example with ARGS, in the fake tree of $T/ex, its output in $T/out.
example() {
	UDMABUF_CONFIGFS_DIR=$C UDMABUF_SYSFS_DIR=$T/ex/class/udmabuf \
	UDMABUF_DEV_DIR=$T/ex/dev UDMABUF_FAKE_DEV_DIR=$T/ex/dev \
	UDMABUF_FAKE_LOG=$T/ex/log LD_LIBRARY_PATH=$OUT LD_PRELOAD=$SHIM \
	"$OUT/examples/udmabuf-example" "$@" >"$T/out" 2>&1
}

# The example: create, open, map, flush (for the device, to it) and
# invalidate (for the CPU, from the device), destroy.
C=$T/ex/config/udmabuf
mkdir -p "$C" "$T/ex/class/udmabuf" "$T/ex/dev"
printf 'size,minor,device_name,sync_mode,dma_mask,mode,dma_device,enable,phys_addr,dev\n' >"$C/features"
head -c 8192 /dev/zero >"$T/ex/dev/ex0"	# the device node of the buffer to be
example --create 8K ex0 &&
	grep -q "ex0: /dev/ex0, 8192 bytes at DMA address 0x3f000000, not coherent, module fake" "$T/out" &&
	grep -q "wrote, synced and read back 8192 bytes" "$T/out"
check "the example creates, maps, syncs and destroys a buffer"
cat >"$T/expected" <<EOT
size=8192
mode=0600
enable=1
ioctl=get_info
ioctl=get_info
ioctl=get_info
ioctl=sync_for_device 0 0 1
ioctl=sync_for_cpu 0 0 2
enable=0
EOT
diff "$T/expected" "$T/ex/log" >"$T/out" 2>&1 && [ ! -e "$C/ex0" ]
check "the example's configfs writes and ioctls are the expected ones"
# The example's --alloc: a process-scoped buffer from DEV_DIR/udmabuf-cfs.
: >"$T/ex/dev/udmabuf-cfs"
rm -f "$T/ex/log"
example --alloc 8K &&
	grep -q "^proc-[0-9]*-1: process-scoped, 8192 bytes at DMA address 0x3f000000" "$T/out" &&
	grep -q "wrote, synced and read back 8192 bytes" "$T/out" &&
	grep -q "^ioctl=alloc 8192 " "$T/ex/log" &&
	grep -q "^ioctl=sync_for_device 0 0 1\$" "$T/ex/log" &&
	grep -q "^ioctl=sync_for_cpu 0 0 2\$" "$T/ex/log" ||
	{ cat "$T/ex/log" >>"$T/out" 2>/dev/null; false; }
check "the example's --alloc allocates, maps, flushes and invalidates a process-scoped buffer"
echo "1..$n"
exit $status
