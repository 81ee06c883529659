#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Cache coherency in use: read()/write() on O_SYNC files, and the data
# path "CPU stores through a cached mapping -> sync_for_device -> device
# reads" and "device stores -> sync_for_cpu -> CPU reads its cached mapping".
#
# "The device" is played by read()/write() on an O_SYNC file (the kernel
# syncs around the copy) or, with --uncached-view, by an O_SYNC mapping
# (Normal non-cacheable on arm64 with sync_mode 1).  QEMU does not model CPU caches, so
# in the guests these tests catch wrong offsets, lengths, directions and
# errors, not a missing cache flush; on real non-coherent hardware the
# same commands catch that too.

load helpers/common

IO=udmabuf-ioctl
SZ=$((256 * 1024))

setup() {
	common_setup
	make_buf tbuf "$SZ"
	d=/dev/tbuf
	s=$CLASS/tbuf
}

# ---------------------------------------------------------------------------
# read() and write() with O_SYNC and sync_mode 4..7

@test "write() and read() on O_SYNC files round-trip an unaligned range; such a write() is seen through a cached and an O_SYNC mapping, what an O_SYNC mapping stored such a read() returns" {
	check "$UT" write-fill "$d" 13 $((3 * PAGE_SIZE + 7)) 601 --sync
	run -0 "$UT" read-verify "$d" 13 $((3 * PAGE_SIZE + 7)) 601 --sync
	set_attr "$s/sync_mode" 1
	check "$UT" write-fill "$d" 0 "$SZ" 602 --sync
	run -0 "$UT" mmap-verify "$d" 0 "$SZ" 602
	run -0 "$UT" mmap-verify "$d" 0 "$SZ" 602 --sync
	check "$UT" mmap-fill "$d" 0 "$SZ" 604 --sync
	run -0 "$UT" read-verify "$d" 0 "$SZ" 604 --sync
}

@test "read() and write() with sync_mode 5 and no O_SYNC match an O_SYNC mapping" {
	set_attr "$s/sync_mode" 5
	check "$UT" write-fill "$d" 0 "$SZ" 605
	run -0 "$UT" mmap-verify "$d" 0 "$SZ" 605 --sync
	check "$UT" mmap-fill "$d" 0 "$SZ" 606 --sync
	run -0 "$UT" read-verify "$d" 0 "$SZ" 606
}

# ---------------------------------------------------------------------------
# Data path: cached mapping + sync_for_device, device + sync_for_cpu

# sync_data_path OP ARGS...: "udmabuf-ioctl OP /dev/tbuf ARGS" (ARGS one
# string each: OFFSET LENGTH SEED [FLAG]) says OK for each, with sync_mode 1.
sync_data_path() {
	local op=$1 args
	shift
	set_attr "$s/sync_mode" 1
	for args in "$@"; do
		# shellcheck disable=SC2086 # the words are the arguments
		assert_errno OK "$IO" "$op" "$d" $args
	done
}

@test "data stored through a cached mapping is what the device reads after SYNC_FOR_DEVICE or the sysfs one-write sync_for_device, and matches an O_SYNC mapping" {
	# The unaligned range: its neighbours keep their data.
	sync_data_path cpu-to-device "0 $SZ 701" \
		"$((PAGE_SIZE + 37)) $((2 * PAGE_SIZE + 11)) 702" \
		"64 $((PAGE_SIZE * 5 - 64)) 703 --sysfs" "0 $SZ 704 --uncached-view"
}

@test "data the device wrote, or stored through an O_SYNC mapping, is seen through a cached mapping after SYNC_FOR_CPU or the sysfs one-write sync_for_cpu" {
	# The unaligned range: its neighbours keep their data.
	sync_data_path device-to-cpu "0 $SZ 711" \
		"$((PAGE_SIZE - 3)) $((PAGE_SIZE + 9)) 712" \
		"8 $((PAGE_SIZE * 3)) 713 --sysfs" "0 $SZ 714 --uncached-view"
}

@test "the data path works at the partial last page of a buffer that is not a page multiple, and with sync_mode 3 (a DMA-coherent O_SYNC view)" {
	make_buf odd 12345
	set_attr "$CLASS/odd/sync_mode" 1
	assert_errno OK "$IO" cpu-to-device /dev/odd 8000 4345 715
	assert_errno OK "$IO" device-to-cpu /dev/odd 8001 4344 716
	set_attr "$s/sync_mode" 3
	assert_errno OK "$IO" cpu-to-device "$d" 0 "$SZ" 717 --uncached-view
	assert_errno OK "$IO" device-to-cpu "$d" 0 "$SZ" 718 --uncached-view
}

