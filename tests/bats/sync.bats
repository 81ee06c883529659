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

# Variables such as cfs, CLASS and UT come from helpers/common.bash.
# shellcheck disable=SC2154
load helpers/common

IO=udmabuf-ioctl
SZ=$((256 * 1024))

setup() {
	common_setup
	make_buf tbuf "$SZ"
	d=/dev/tbuf
	s=$CLASS/tbuf
}

# common_teardown also fails the test if the kernel complained during it.
teardown() { common_teardown; }

# ---------------------------------------------------------------------------
# read() and write() with O_SYNC and sync_mode 4..7

@test "write() and read() on O_SYNC files round-trip an unaligned range" {
	check "$UT" write-fill "$d" 13 $((3 * PAGE_SIZE + 7)) 601 --sync
	run "$UT" read-verify "$d" 13 $((3 * PAGE_SIZE + 7)) 601 --sync
	assert_success
}

@test "write() on an O_SYNC file is seen through a cached mapping" {
	set_attr "$s/sync_mode" 1
	check "$UT" write-fill "$d" 0 "$SZ" 602 --sync
	run "$UT" mmap-verify "$d" 0 "$SZ" 602
	assert_success
}

@test "write() on an O_SYNC file is seen through an O_SYNC mapping" {
	set_attr "$s/sync_mode" 1
	check "$UT" write-fill "$d" 0 "$SZ" 603 --sync
	run "$UT" mmap-verify "$d" 0 "$SZ" 603 --sync
	assert_success
}

@test "data stored through an O_SYNC mapping is what read() on an O_SYNC file returns" {
	set_attr "$s/sync_mode" 1
	check "$UT" mmap-fill "$d" 0 "$SZ" 604 --sync
	run "$UT" read-verify "$d" 0 "$SZ" 604 --sync
	assert_success
}

@test "read() and write() with sync_mode 5 and no O_SYNC match an O_SYNC mapping" {
	set_attr "$s/sync_mode" 5
	check "$UT" write-fill "$d" 0 "$SZ" 605
	run "$UT" mmap-verify "$d" 0 "$SZ" 605 --sync
	assert_success
	check "$UT" mmap-fill "$d" 0 "$SZ" 606 --sync
	run "$UT" read-verify "$d" 0 "$SZ" 606
	assert_success
}

# ---------------------------------------------------------------------------
# Data path: cached mapping + sync_for_device, device + sync_for_cpu

@test "data stored through a cached mapping is what the device reads after SYNC_FOR_DEVICE" {
	set_attr "$s/sync_mode" 1
	run "$IO" cpu-to-device "$d" 0 "$SZ" 701
	assert_success
	assert_output OK
}

@test "an unaligned range stored through a cached mapping reaches the device after SYNC_FOR_DEVICE and its neighbours keep their data" {
	set_attr "$s/sync_mode" 1
	run "$IO" cpu-to-device "$d" $((PAGE_SIZE + 37)) $((2 * PAGE_SIZE + 11)) 702
	assert_success
	assert_output OK
}

@test "data stored through a cached mapping reaches the device after the sysfs one-write sync_for_device" {
	set_attr "$s/sync_mode" 1
	run "$IO" cpu-to-device "$d" 64 $((PAGE_SIZE * 5 - 64)) 703 --sysfs
	assert_success
	assert_output OK
}

@test "data stored through a cached mapping after SYNC_FOR_DEVICE matches an O_SYNC mapping" {
	set_attr "$s/sync_mode" 1
	run "$IO" cpu-to-device "$d" 0 "$SZ" 704 --uncached-view
	assert_success
	assert_output OK
}

@test "data the device wrote is seen through a cached mapping after SYNC_FOR_CPU" {
	set_attr "$s/sync_mode" 1
	run "$IO" device-to-cpu "$d" 0 "$SZ" 711
	assert_success
	assert_output OK
}

@test "an unaligned range the device wrote is seen through a cached mapping after SYNC_FOR_CPU and its neighbours keep their data" {
	set_attr "$s/sync_mode" 1
	run "$IO" device-to-cpu "$d" $((PAGE_SIZE - 3)) $((PAGE_SIZE + 9)) 712
	assert_success
	assert_output OK
}

@test "data the device wrote is seen through a cached mapping after the sysfs one-write sync_for_cpu" {
	set_attr "$s/sync_mode" 1
	run "$IO" device-to-cpu "$d" 8 $((PAGE_SIZE * 3)) 713 --sysfs
	assert_success
	assert_output OK
}

@test "data stored through an O_SYNC mapping is seen through a cached mapping after SYNC_FOR_CPU" {
	set_attr "$s/sync_mode" 1
	run "$IO" device-to-cpu "$d" 0 "$SZ" 714 --uncached-view
	assert_success
	assert_output OK
}

@test "the data path works at the partial last page of a buffer that is not a page multiple" {
	make_buf odd 12345
	set_attr "$CLASS/odd/sync_mode" 1
	run "$IO" cpu-to-device /dev/odd 8000 4345 715
	assert_success
	assert_output OK
	run "$IO" device-to-cpu /dev/odd 8001 4344 716
	assert_success
	assert_output OK
}

@test "the data path works with sync_mode 3 (a DMA-coherent O_SYNC view)" {
	set_attr "$s/sync_mode" 3
	run "$IO" cpu-to-device "$d" 0 "$SZ" 717 --uncached-view
	assert_success
	assert_output OK
	run "$IO" device-to-cpu "$d" 0 "$SZ" 718 --uncached-view
	assert_success
	assert_output OK
}
