#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Cache maintenance observed, not trusted.  QEMU has no cache model, so the
# data tests of sync.bats would pass if no maintenance were done at all.
# Here kprobe events in tracefs record the calls that do it, with their
# range and direction, and every sync path is checked against them, with a
# negative control (the helpers' --no-sync) that must record nothing:
#
#   arm64 and 32-bit ARM, whose buffers are not DMA-coherent here: the
#   architecture's own cache maintenance,
#   arch_sync_dma_for_device/_for_cpu(paddr, size, dir), the CPU physical
#   range (phys_addr_t and size_t are 32 bits wide on armmp);
#   riscv64, whose DMA is coherent unless the device tree says otherwise:
#   the same hooks, which clean and invalidate with the Zicbom cache-block
#   operations (cbo.clean, cbo.inval), for a buffer bound to the device of
#   a dma-noncoherent node (dma_device=platform/ncbuf, tests/dt/riscv64.dtsi;
#   tests/bats-dt/riscv64.bats checks that node and the CPU's Zicbom);
#   amd64, where DMA is coherent and the architecture has none to do: the
#   DMA API's entry, dma_sync_single_for_device/_for_cpu(dev, addr, size,
#   dir), the DMA address range; where the kernel inlines them and makes no
#   call for a coherent device (6.12), there is nothing to observe: skipped.
#
# Directions as the DMA API numbers them: 0 bidirectional, 1 to the device,
# 2 from the device.  Stock kernels only: the debug kernel is built without
# kprobe events.

load helpers/common
load helpers/edu

GRP=udmabuf_sync
IO=udmabuf-ioctl
SZ=$((1024 * 1024))
# riscv64: the platform device of tests/dt/riscv64.dtsi's dma-noncoherent
# node, which the buffers are bound to (the module's own device is
# coherent there).
NC_DEV=ncbuf

# Set up once per file (see kprobe_add).
setup_file() {
	no_kprobes_reason >/dev/null && return 0
	case $UDMABUF_ARCH in
	arm64 | riscv64)
		probe dev arch_sync_dma_for_device 'addr=$arg1:x64 size=$arg2:u64 dir=$arg3:s32'
		probe cpu arch_sync_dma_for_cpu 'addr=$arg1:x64 size=$arg2:u64 dir=$arg3:s32'
		;;
	armhf)
		# The arguments in r0..r2 (AAPCS).
		probe dev arch_sync_dma_for_device 'addr=%r0:x32 size=%r1:u32 dir=%r2:s32'
		probe cpu arch_sync_dma_for_cpu 'addr=%r0:x32 size=%r1:u32 dir=%r2:s32'
		;;
	*)
		probe dev dma_sync_single_for_device 'addr=$arg2:x64 size=$arg3:u64 dir=$arg4:s32'
		probe cpu dma_sync_single_for_cpu 'addr=$arg2:x64 size=$arg3:u64 dir=$arg4:s32'
		;;
	esac
}

teardown_file() {
	kprobe_del "$GRP/dev"
	kprobe_del "$GRP/cpu"
}

# no_kprobes_reason: why these tests cannot run here (status 0), if so.
no_kprobes_reason() {
	if [ "$UDMABUF_KERNEL_FLAVOUR" = debug ]; then
		echo "the debug kernel has no kprobe events"
	elif [ "$UDMABUF_ARCH" = riscv64 ] && [ ! -e /sys/bus/platform/devices/$NC_DEV ]; then
		echo "no dma-noncoherent node $NC_DEV: run in lane riscv64 (--dt tests/dt/riscv64.dtsi)"
	elif [ "$UDMABUF_ARCH" = amd64 ] &&
		grep -q " __dma_sync_single_for_device\$" /proc/kallsyms; then
		# Since 6.11 dma_sync_single_for_*() are inline and call the
		# DMA API only for devices that need syncs: a coherent one
		# makes no call at all, and nothing is left to observe.
		echo "this kernel makes no sync call for a coherent device (dma_dev_need_sync)"
	else
		return 1
	fi
}

setup() {
	local why
	common_setup
	if why=$(no_kprobes_reason); then
		skip "$why"
	fi
	[ -e "$TRACEFS/events/$GRP/dev/enable" ] || fail "the kprobes of setup_file are missing"
	if [ "$UDMABUF_ARCH" = riscv64 ]; then
		make_buf tbuf "$SZ" sync_mode=0 dma_device=platform/$NC_DEV
		assert_attr "$CLASS/tbuf/dma_coherent" 0
	else
		make_buf tbuf "$SZ" sync_mode=0
	fi
	BASE=$(base_addr)
	: >"$TRACEFS/trace"
}

probe() {
	kprobe_add p "$GRP/$1" "$2" "$3" || return 1
	# Which function the lane's output says was observed.
	echo "# syncobs: $1 = kprobe on $2" >&3
}

# The address the probed calls see for the buffer's first byte.
base_addr() {
	local key=dma_addr
	[ "$UDMABUF_ARCH" != amd64 ] && key=phys_addr
	"$IO" info /dev/tbuf | sed -n "s/^$key=//p"
}

# seen: the calls recorded for tbuf, "dev|cpu OFFSET SIZE DIR" a line.
seen() {
	sync_calls "$GRP" "$BASE" "$SZ"
}

# expect_seen LINE...: exactly these calls were recorded for tbuf, in this
# order.
expect_seen() {
	expect_sync_calls "$GRP" "$BASE" "$SZ" - "$@"
}

@test "SYNC_FOR_DEVICE and SYNC_FOR_CPU do cache maintenance on exactly their range and direction; a refused one does none" {
	local r
	# The ioctl's words, then the call it must make (size 0: to the end).
	for r in "device 8192 4096 1=dev 8192 4096 1" "device 0 0 0=dev 0 $SZ 0" \
		"device 100 28 2=dev 100 28 2" "cpu 65536 8192 2=cpu 65536 8192 2" \
		"cpu 4096 0 0=cpu 4096 $((SZ - 4096)) 0"; do
		# shellcheck disable=SC2086 # four words: DIRECTION OFFSET SIZE DIR
		run -0 "$IO" sync /dev/tbuf ${r%=*}
		expect_seen "${r#*=}"
	done
	# A refused sync does none.
	run "$IO" sync /dev/tbuf device "$SZ" 1 1
	assert_output EINVAL
	run "$IO" sync /dev/tbuf cpu 0 16 3
	assert_output EINVAL
	expect_seen
}

# dma_line: dma_get_cache_alignment() of this kernel.  arm64 before 6.5:
# ARCH_DMA_MINALIGN, 128; since 6.5: cache_line_size(), the CPU's cache
# writeback granule (CTR_EL0.CWG), 64 on the guests' Cortex-A53.  32-bit
# ARM: the L1 line (64 for armmp).  riscv64: ARCH_DMA_MINALIGN, 64, where
# the CPU has Zicbom (riscv,cbom-block-size, 64 on QEMU's rv64).  amd64:
# 1, DMA is coherent.
dma_line() {
	case $UDMABUF_ARCH in
	arm64)
		if kernel_before 6 5; then
			echo 128
		else
			echo 64
		fi
		;;
	armhf | riscv64) echo 64 ;;
	*) echo 1 ;;
	esac
}

# expect_cpu_sync OFFSET SIZE DIR: the calls a SYNC_FOR_CPU of that range
# must make: towards the CPU from the device, the range widened to whole
# cache lines, each line it covers only in part written back first (the
# CPU's bytes beside the range must survive the invalidation).
expect_cpu_sync() {
	local off=$1 size=$2 dir=$3 line start end calls=()
	line=$(dma_line)
	if (( dir == 1 || line == 1 )); then
		expect_seen "cpu $off $size $dir"
		return
	fi
	start=$(( off / line * line ))
	end=$(( (off + size + line - 1) / line * line ))
	(( start != off )) && calls+=("dev $start $line 1")
	(( end != off + size && (end - line != start || start == off) )) &&
		calls+=("dev $((end - line)) $line 1")
	expect_seen "${calls[@]}" "cpu $start $((end - start)) $dir"
}

@test "SYNC_FOR_CPU of a range covering cache lines in part: the lines at its ends written back, then whole lines" {
	local r
	# Within one line; across lines, both ends partial; one end partial;
	# bidirectional; towards the device (no invalidation, as asked).
	for r in "100 28 2" "100 300 2" "4096 100 2" "4000 96 2" "100 300 0" "100 28 1"; do
		# shellcheck disable=SC2086 # three words: OFFSET SIZE DIR
		set -- $r
		run -0 "$IO" sync /dev/tbuf cpu "$1" "$2" "$3"
		expect_cpu_sync "$1" "$2" "$3"
	done
	# Whole lines stay as they are.
	run -0 "$IO" sync /dev/tbuf cpu 256 512 2
	expect_seen "cpu 256 512 2"
}

@test "the sysfs one-write form and the shared values sync what they say" {
	assert_write OK "$CLASS/tbuf/sync_for_device" "12288 4096 1"
	expect_seen "dev 12288 4096 1"
	set_attr "$CLASS/tbuf/sync_offset" 4096
	set_attr "$CLASS/tbuf/sync_size" 8192
	set_attr "$CLASS/tbuf/sync_direction" 2
	assert_write OK "$CLASS/tbuf/sync_for_cpu" 1
	expect_seen "cpu 4096 8192 2"
}

@test "negative control: a transfer without syncs records none, one with them exactly its own" {
	run -0 "$IO" cpu-to-device /dev/tbuf 0 4096 7 --uncached-view --no-sync
	expect_seen
	# The CPU takes the range before it writes, then hands it over.
	run -0 "$IO" cpu-to-device /dev/tbuf 0 4096 7 --uncached-view
	expect_seen "cpu 0 4096 2" "dev 0 4096 1"
}

@test "read() and write() with sync_mode 4 (sync always) sync around the copy" {
	local rw
	set_attr "$CLASS/tbuf/sync_mode" 4
	run -0 "$UT" write-fill /dev/tbuf 8192 4096 3
	expect_seen "dev 8192 4096 1"
	exec {rw}<>/dev/tbuf
	run -0 "$UT" read-verify "fd:$rw" 8192 4096 3
	exec {rw}<&-
	expect_seen "cpu 8192 4096 2"
	# Read-only, as the next test says.
	run -0 "$UT" read-verify /dev/tbuf 8192 4096 3
	expect_seen "dev 8192 4096 1" "cpu 8192 4096 2"
}

# Whoever may only read the buffer must not throw away what another
# program wrote through a cached mapping and has not handed to the device
# yet: a read-only file's and dma-buf's syncs write back before they
# invalidate, and towards the device only write back.
@test "a read-only file's and dma-buf's syncs invalidate no dirty line: written back first, or only" {
	local ro r calls
	exec {ro}</dev/tbuf
	for r in "cpu 8192 4096 2=dev 8192 4096 1,cpu 8192 4096 2" \
		"cpu 8192 4096 0=dev 8192 4096 1,cpu 8192 4096 0" \
		"cpu 8192 4096 1=cpu 8192 4096 1" "device 8192 4096 2=dev 8192 4096 1" \
		"device 8192 4096 0=dev 8192 4096 1" "device 8192 4096 1=dev 8192 4096 1"; do
		# shellcheck disable=SC2086 # four words: DIRECTION OFFSET SIZE DIR
		run -0 "$IO" sync "fd:$ro" ${r%=*}
		IFS=, read -ra calls <<<"${r#*=}"
		expect_seen "${calls[@]}"
	done
	exec {ro}<&-
	run -0 udmabuf-zc dmabuf-read /dev/tbuf $((4 * PAGE_SIZE)) $((2 * PAGE_SIZE))
	expect_seen "dev $((4 * PAGE_SIZE)) $((2 * PAGE_SIZE)) 1" \
		"cpu $((4 * PAGE_SIZE)) $((2 * PAGE_SIZE)) 2" \
		"dev $((4 * PAGE_SIZE)) $((2 * PAGE_SIZE)) 1"
}

# amd64 only: the ARM guests' PCI is DMA-coherent, so a buffer bound to the
# edu is coherent, before and after the edu goes, and has no maintenance to
# observe; on amd64 the probes are the DMA API's own calls.
@test "once the bound device is gone, the dma-buf's syncs still maintain the CPU's side (through the buffer's own device)" {
	requires_arch amd64
	local edu=$UDMABUF_EDU
	edu_present "$edu"
	make_buf bb "$SZ" dma_device="pci/$edu"
	BASE=$("$IO" info /dev/bb | sed -n "s/^dma_addr=//p")
	# Exported, then the device removed: the buffer is detached (no DMA
	# address any more), the dma-buf lives on, and its SYNC_START and
	# SYNC_END come after the trace is cleared.
	run -0 udmabuf-zc dmabuf-hold /dev/bb \
		"echo 1 >/sys/bus/pci/devices/$edu/remove && : >$TRACEFS/trace"
	echo 1 >/sys/bus/pci/rescan
	[[ $(seen) == *"cpu 0 $SZ 0"* ]] || fail "SYNC_START after the device went: $(seen)"
	[[ $(seen) == *"dev 0 $SZ 0"* ]] || fail "SYNC_END after the device went: $(seen)"
}

@test "the dma-buf's DMA_BUF_IOCTL_SYNC maintains the exported range" {
	run -0 udmabuf-zc dmabuf /dev/tbuf $((4 * PAGE_SIZE)) $((2 * PAGE_SIZE))
	[[ $(seen) == *"cpu $((4 * PAGE_SIZE)) $((2 * PAGE_SIZE)) 0"* ]] ||
		fail "SYNC_START: $(seen)"
	[[ $(seen) == *"dev $((4 * PAGE_SIZE)) $((2 * PAGE_SIZE)) 0"* ]] ||
		fail "SYNC_END: $(seen)"
}
