#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# examples/soc-dma.c on a ZynqMP: QEMU's xlnx-zcu102, whose ZDMA channels
# are models of the real engines, booted with tests/dt/xlnx-zcu102.dts plus
# the example's fragment examples/soc-dma.dtsi (lane arm64-zynqmp):
#     tests/vm/run --lane arm64-zynqmp
# The buffer is the device tree's, the engine the SoC's own, driven from
# user space through /dev/mem as Documentation/admin-guide.rst tells.  What
# the example says is checked against what the buffer holds (read through
# its device node) and what the channel's registers hold (read through
# busybox devmem).  Not in tests/bats/: no other lane has the nodes.
# vm: needs python

# tests/bats is the guest's /tests (tests/vm/run).
load /tests/helpers/common

DT=/sys/firmware/devicetree/base
BUF=soc-dma
CHAN=0xfd500000
SIZE=1048576
HALF=524288

setup() {
	untrace_helpers
	[ -d "$DT/axi/soc-dma-buffer" ] ||
		skip "no soc-dma-buffer node: run in lane arm64-zynqmp"
	load_module || return 1
	kmsg_mark
}

teardown() {
	# Off again, whatever a test left (the sync checker's test turns it on).
	echo 0 >"$CLASS/$BUF/sync_check" 2>/dev/null || true
	# (Skipped before kmsg_mark: nothing to check.)
	[ -z "${KMSG_SEQ:-}" ] || teardown_kmsg_check
}

# reg OFFSET: the channel's 32-bit register at OFFSET, in decimal.
reg() {
	local v
	v=$(devmem $((CHAN + $1)) 32) || fail "devmem cannot read $CHAN + $1"
	echo $((v))
}

# half N: the buffer's half N (0 or 1) into $BATS_TEST_TMPDIR/halfN.
half() {
	dd if="/dev/$BUF" of="$BATS_TEST_TMPDIR/half$1" bs=$HALF skip="$1" count=1 2>/dev/null ||
		fail "cannot read half $1 of /dev/$BUF"
}

# assert_copied PROGRAM DMA: what PROGRAM (soc-dma or soc-dma.py) printed
# in $output, the buffer's halves and the channel's registers all say that
# the channel copied the first half of the buffer, at DMA address DMA,
# into the second half.
assert_copied() {
	local p=$1 dma=$2
	assert_line "$p: buffer /dev/$BUF, $SIZE bytes at DMA address $(printf '0x%x' "$dma"), ZDMA channel at $CHAN"
	assert_line "$p: ZDMA_CH_ISR 0x400 (DMA_DONE), ZDMA_CH_STATUS 0, ZDMA_CH_TOTAL_BYTE $HALF"
	assert_line "$p: $HALF bytes copied by the ZDMA channel from $(printf '0x%x' "$dma") to $(printf '0x%x' $((dma + HALF)))"

	# The buffer, read through its device node: both halves hold the
	# examples' pattern (bytes 3, 10, 17, 24, ... of the first half).
	half 0
	half 1
	cmp "$BATS_TEST_TMPDIR/half0" "$BATS_TEST_TMPDIR/half1" || fail "the halves differ"
	run -0 od -An -tu1 -N4 "$BATS_TEST_TMPDIR/half1"
	[ "$(echo $output)" = "3 10 17 24" ] || fail "the second half starts with $output"

	# The channel, read through its registers: done without an error,
	# disabled again, HALF bytes moved between the buffer's two halves.
	(( $(reg 0x100) & 0x400 )) || fail "ZDMA_CH_ISR $(reg 0x100): no DMA_DONE"
	(( ($(reg 0x11c) & 3) == 0 )) || fail "ZDMA_CH_STATUS $(reg 0x11c)"
	(( ($(reg 0x200) & 1) == 0 )) || fail "ZDMA_CH_CTRL2 EN still set"
	[ "$(reg 0x188)" = $HALF ] || fail "ZDMA_CH_TOTAL_BYTE $(reg 0x188)"
	[ "$(reg 0x128)" = $((dma & 0xffffffff)) ] || fail "source $(reg 0x128)"
	[ "$(reg 0x138)" = $(((dma + HALF) & 0xffffffff)) ] || fail "destination $(reg 0x138)"
	[ "$(reg 0x130)" = $HALF ] || fail "source size $(reg 0x130)"
}

# fill_buffer: the whole buffer 0xa5, left over from before: not what a
# copy must leave.
fill_buffer() {
	dd if=/dev/zero bs=$SIZE count=1 2>/dev/null | tr '\0' '\245' >"/dev/$BUF" ||
		fail "cannot fill /dev/$BUF"
}

@test "the fragment's buffer probed next to the DMA channel, which no driver holds" {
	assert_device "$BUF"
	assert_attr "$CLASS/$BUF/origin" dt
	assert_attr "$CLASS/$BUF/size" $SIZE
	# Not coherent: the example's syncs are cache maintenance.
	assert_attr "$CLASS/$BUF/dma_coherent" 0
	[ "$(readlink -f "$CLASS/$BUF/device/of_node")" = "$DT/axi/soc-dma-buffer" ] ||
		fail "$BUF's device is $(readlink -f "$CLASS/$BUF/device/of_node")"
	[ -d "$DT/axi/dma-controller@fd500000" ] || fail "no DMA channel next to the buffer"
	[ "$(tr -d '\0' <"$DT/axi/dma-controller@fd500000/status")" = disabled ] ||
		fail "the channel's node is not disabled"
	# The DMA address: page-aligned, within the 32-bit dma-mask.
	run -0 cat "$CLASS/$BUF/phys_addr"
	((output % 4096 == 0 && output + SIZE <= 1 << 32)) || fail "DMA address $output"
}

# Both examples (soc-dma.py: udmabuf.Buffer()) as they are, then under the
# sync checker (the device tree's buffer: its sync_check attribute, as the
# admin guide turns it on): each page they hand to the engine comes back
# before the CPU touches it, so nothing is reported, and the buffer is the
# CPU's when they end.
@test "examples/soc-dma.c and .py: the ZDMA channel copies the first half of the DT buffer into the second; under the sync checker the same, no missing sync" {
	local dma seq prog check
	dma=$(cat "$CLASS/$BUF/phys_addr")
	seq=$("$UT" kmsg-seq)
	for check in 0 1; do
		echo "$check" >"$CLASS/$BUF/sync_check"
		for prog in soc-dma "python3 /usr/bin/soc-dma.py"; do
			fill_buffer
			# shellcheck disable=SC2086 # the program and its interpreter
			run -0 $prog
			assert_copied "${prog##*/}" "$dma"
		done
	done
	run -0 "$UT" kmsg-since "$seq"
	refute_output --partial "sync check:"
	assert_attr "$CLASS/$BUF/sync_violations" 0
}

@test "soc-dma starts from a clean channel: a second run reports the same" {
	run -0 soc-dma "$BUF" "$CHAN"
	run -0 soc-dma "$BUF" "$CHAN"
	assert_line "soc-dma: ZDMA_CH_ISR 0x400 (DMA_DONE), ZDMA_CH_STATUS 0, ZDMA_CH_TOTAL_BYTE $HALF"
	[ "$(reg 0x188)" = $HALF ] || fail "ZDMA_CH_TOTAL_BYTE $(reg 0x188) after two runs"
}

@test "without the engine nothing is copied: soc-dma says so and the second half stays zero" {
	# No DMA channel at this address (between GDMA channel 7 and the APU
	# control registers): its registers read 0, DMA_DONE never comes.
	run -1 soc-dma "$BUF" 0xfd5f0000
	assert_output --partial "soc-dma: the DMA engine (no DMA_DONE): Connection timed out"
	refute_output --partial "bytes copied"
	half 1
	cmp "$BATS_TEST_TMPDIR/half1" <(dd if=/dev/zero bs=$HALF count=1 2>/dev/null) ||
		fail "the second half is not what the example left (zeros)"
}

@test "soc-dma refuses bad arguments with usage or a reason" {
	run -2 soc-dma -h
	assert_output --partial "usage: soc-dma [BUFFER [CHANNEL]]"
	run -2 soc-dma "$BUF" nowhere
	assert_output --partial "'nowhere' is not an address"
	run -1 soc-dma "$BUF" 0xfd500100
	assert_output --partial "is not page-aligned"
	run -1 soc-dma no-such-buffer
	assert_output --partial "soc-dma: open:"
	assert_output --partial "no-such-buffer"
	run -2 python3 /usr/bin/soc-dma.py -h
	assert_output --partial "usage: soc-dma.py [BUFFER [CHANNEL]]"
	run -1 python3 /usr/bin/soc-dma.py "$BUF" 0xfd5f0000
	assert_output --partial "soc-dma.py: the DMA engine (no DMA_DONE)"
}
