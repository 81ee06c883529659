#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Non-coherent DMA on RISC-V: a device-tree buffer whose node is
# dma-noncoherent, on a CPU with Zicbom, in lane riscv64:
#     tests/vm/run --lane riscv64
# (QEMU's rv64 CPU with zicbom=on writes riscv,cbom-block-size = <64> and
# "zicbom" into its CPU nodes; tests/dt/riscv64.dtsi adds the nodes ncbuf,
# dma-noncoherent, and cbuf, coherent as RISC-V's DMA is by default.)
# The kernel's sync hooks, arch_sync_dma_for_device/_for_cpu, clean and
# invalidate with cbo.clean and cbo.inval there; kprobes record their calls
# (QEMU models no cache, so the data alone would prove nothing).  The CLI
# and the library, cross-built for riscv64, drive one of them.  Not in
# tests/bats/: no other lane has the nodes.

# tests/bats is the guest's /tests (tests/vm/run).
load /tests/helpers/common

DT=/sys/firmware/devicetree/base
GRP=udmabuf_rv
IO=udmabuf-ioctl
SZ=$((1024 * 1024))

setup_file() {
	[ -d /sys/bus/platform/devices/ncbuf ] || return 0
	kprobe_add p "$GRP/dev" arch_sync_dma_for_device 'addr=$arg1:x64 size=$arg2:u64 dir=$arg3:s32'
	kprobe_add p "$GRP/cpu" arch_sync_dma_for_cpu 'addr=$arg1:x64 size=$arg2:u64 dir=$arg3:s32'
}

teardown_file() {
	kprobe_del "$GRP/dev"
	kprobe_del "$GRP/cpu"
}

setup() {
	common_setup
	[ -d /sys/bus/platform/devices/ncbuf ] ||
		skip "no dma-noncoherent node ncbuf: run in lane riscv64"
	: >"$TRACEFS/trace"
}

# expect_seen BUF LINE...: exactly these calls were recorded for buffer
# BUF's memory, in this order ("dev|cpu OFFSET SIZE DIR"), each also shown
# in the lane's output with the hook it went through.
expect_seen() {
	local base
	base=$("$IO" info "/dev/$1" | sed -n 's/^phys_addr=//p')
	shift
	expect_sync_calls "$GRP" "$base" "$SZ" show "$@"
}

@test "the CPU has Zicbom with 64-byte cache blocks (riscv,cbom-block-size)" {
	local cpu
	run -0 grep -m1 '^isa' /proc/cpuinfo
	[[ $output == *_zicbom* ]] || fail "no zicbom in the CPU's ISA: $output"
	for cpu in "$DT"/cpus/cpu@*; do
		# One big-endian cell: 64.
		run -0 od -An -tx1 "$cpu/riscv,cbom-block-size"
		assert_equal "$(echo $output)" "00 00 00 40"
	done
}

@test "the dma-noncoherent node's buffer is not DMA-coherent; a plain node's and the module's own device's are" {
	assert_attr "$CLASS/ncbuf/origin" dt
	assert_attr "$CLASS/ncbuf/dma_coherent" 0
	assert_attr "$CLASS/cbuf/dma_coherent" 1
	make_buf own 64K
	assert_attr "$CLASS/own/dma_coherent" 1
	# A configfs buffer bound to the node's device takes its coherency.
	make_buf bound 64K dma_device=platform/ncbuf
	assert_attr "$CLASS/bound/dma_coherent" 0
}

@test "syncs of the dma-noncoherent buffer clean and invalidate: arch_sync_dma_for_device and arch_sync_dma_for_cpu on its range" {
	run -0 "$IO" sync /dev/ncbuf device 8192 4096 1
	expect_seen ncbuf "dev 8192 4096 1"
	run -0 "$IO" sync /dev/ncbuf cpu 8192 4096 2
	expect_seen ncbuf "cpu 8192 4096 2"
	# A range inside one 64-byte block: its line written back first, then
	# the whole line invalidated (the bytes beside it survive).
	run -0 "$IO" sync /dev/ncbuf cpu 100 28 2
	expect_seen ncbuf "dev 64 64 1" "cpu 64 64 2"
}

@test "syncs of the coherent buffer do no cache maintenance" {
	run -0 "$IO" sync /dev/cbuf device 0 4096 1
	run -0 "$IO" sync /dev/cbuf cpu 0 4096 2
	expect_seen cbuf
}

@test "udmabufctl and libudmabuf, cross-built, list the device-tree buffers and sync one" {
	run -0 udmabufctl list --json -o NAME,ORIGIN,COHERENT
	run -0 jq -r '.buffers[] | "\(.name) \(.origin) \(.coherent)"' <<<"$output"
	assert_line "ncbuf dt false"
	assert_line "cbuf dt true"
	run -0 udmabufctl sync ncbuf --for-device --offset 4096 --length 4096 --direction to-device
	expect_seen ncbuf "dev 4096 4096 1"
	# udmabufctl opens the node read-only: written back before invalidated.
	run -0 udmabufctl sync ncbuf --for-cpu --offset 4096 --length 4096 --direction from-device
	expect_seen ncbuf "dev 4096 4096 1" "cpu 4096 4096 2"
}
