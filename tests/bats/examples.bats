#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The user examples of examples/, run the way the admin guide tells a user
# to: the card bound to uio_pci_generic, which leaves its bus mastering off
# (turned off here again, in case an earlier test turned it on), then the
# program.  The data must go to the card and come back by DMA, behind the
# IOMMU in the -iommu lanes.
# vm: needs python

load helpers/common
load helpers/edu

setup() {
	common_setup
	EDU=$UDMABUF_EDU
	edu_present "$EDU" || return 1
	bus_master_off "$EDU"
}

teardown() {
	kprobe_del udmabuf/unmap_range
	edu_present "$EDU" || true
	common_teardown
}

# command_byte BDF: the low byte of the card's PCI command register.
command_byte() {
	od -An -tu1 -j4 -N1 "/sys/bus/pci/devices/$1/config" | tr -d ' '
}

bus_master_off() {
	local b
	b=$(command_byte "$1")
	# shellcheck disable=SC2059 # the format is the byte, as an octal escape
	printf "\\$(printf '%03o' $((b & ~4)))" |
		dd of="/sys/bus/pci/devices/$1/config" bs=1 seek=4 conv=notrunc 2>/dev/null
	(( ($(command_byte "$1") & 4) == 0 )) || fail "bus mastering of $1 stays on"
}

# assert_example_worked: what both examples print and leave.
assert_example_worked() {
	assert_line --regexp "buffer .*at DMA address 0x[0-9a-f]+ for $EDU\$"
	assert_line --partial "2048 bytes went to the card and came back by DMA"
	(( $(command_byte "$EDU") & 4 )) || fail "bus mastering is off after the example"
	run ls "$cfs"
	refute_line --regexp '^(pcie-dma|pyudmabuf-)'
}

# Each example (pcie-dma.py: allocate(target=...)) as it is, then under
# the sync checker, as a user checks a program before the board
# (UDMABUF_SYNC_CHECK: libudmabuf turns it on for every buffer the program
# makes): it works as before, the checker took the CPU's entries away at
# its syncs for the device (it was on), and it reported nothing.
@test "examples/pcie-dma.c and .py: bus mastering on, a buffer bound to the card, DMA to the card and back; under the sync checker as before, no missing sync" {
	local seq prog
	kprobe_add p udmabuf/unmap_range udmabuf_cfs:udmabuf_unmap_range
	for prog in pcie-dma "python3 /usr/bin/pcie-dma.py"; do
		# shellcheck disable=SC2086 # the program and its interpreter
		run -0 $prog "$EDU"
		assert_example_worked
		bus_master_off "$EDU"
		: >"$TRACEFS/trace"
		seq=$("$UT" kmsg-seq)
		# shellcheck disable=SC2086 # the program and its interpreter
		UDMABUF_SYNC_CHECK=report run -0 $prog "$EDU"
		assert_example_worked
		[ "$(grep -c 'unmap_range:' "$TRACEFS/trace")" -ge 1 ] ||
			fail "$prog: the sync checker was not on (no entry taken away)"
		run -0 "$UT" kmsg-since "$seq"
		refute_output --partial "sync check:"
	done
}

@test "the examples refuse to run without a card, with usage or a reason" {
	run -2 pcie-dma
	assert_output --partial "usage: pcie-dma BDF"
	run -1 pcie-dma 0000:ff:1f.7
	assert_output --partial "/sys/bus/pci/devices/0000:ff:1f.7/config"
	run -2 python3 /usr/bin/pcie-dma.py
	assert_output --partial "usage: pcie-dma.py BDF"
}
