#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# read/write/pread/pwrite/lseek on /dev/<device>: a file of fixed size.

load helpers/common

setup() {
	common_setup
	make_buf tbuf 1M
	d=/dev/tbuf
}

@test "dd past the end writes the whole buffer first, which reads back the same bytes, and stops with 'No space left on device'" {
	local t=$BATS_TEST_TMPDIR
	check dd if=/dev/urandom of="$t/in" bs=64k count=17
	run timeout 60 dd if="$t/in" of="$d" bs=64k
	assert_failure
	assert_output --partial "No space left on device"
	check dd if="$t/in" of="$t/head" bs=64k count=16
	check dd if="$d" of="$t/out" bs=64k
	run -0 cmp "$t/head" "$t/out"
}

@test "read at or past the end returns 0 bytes, across the end stops at the end; write past the end fails with ENOSPC, across the end is truncated at the end" {
	local off want
	for off in 1048576:0 2097152:0 $((1048576 - 100)):100; do
		want=${off#*:}
		off=${off%:*}
		run -0 "$UT" pread-try "$d" "$off" 4096
		[ "$output" = "$want" ] || fail "pread at $off: $output bytes, expected $want"
	done
	assert_errno ENOSPC "$UT" pwrite-try "$d" 2097152 1
	run -0 "$UT" pwrite-try "$d" $((1048576 - 100)) 4096
	assert_output 100
}

@test "pwrite and pread at offsets round-trip; sequential write() and read() advance the file position" {
	check "$UT" write-fill "$d" 0 1M 1
	check "$UT" write-fill "$d" 4096 4096 2
	check "$UT" write-fill "$d" 10001 333 3
	run -0 "$UT" read-verify "$d" 0 4096 1
	run -0 "$UT" read-verify "$d" 4096 4096 2
	run -0 "$UT" read-verify "$d" 8192 1809 1
	run -0 "$UT" read-verify "$d" 10001 333 3
	run -0 "$UT" read-verify "$d" 10334 $((1048576 - 10334)) 1
	local t=$BATS_TEST_TMPDIR
	check dd if=/dev/urandom of="$t/in" bs=4096 count=3
	check dd if="$t/in" of="$d" bs=4096 seek=5 count=3 conv=notrunc
	check dd if="$d" of="$t/out" bs=4096 skip=5 count=3
	run -0 cmp "$t/in" "$t/out"
}

@test "lseek inside the buffer and to the size succeeds; relative to the end it gives the size" {
	local off
	for off in 12345 1048576; do
		run -0 "$UT" lseek-try "$d" "$off" set
		assert_output "$off"
	done
	run -0 "$UT" lseek-try "$d" 0 end
	assert_output 1048576
	run -0 "$UT" lseek-try "$d" -4096 end
	assert_output $((1048576 - 4096))
	assert_errno EINVAL "$UT" lseek-try "$d" 1 end
}

@test "a buffer whose size is not a page multiple reads exactly size bytes, ends there for write and lseek, round-trips its data; a 1-byte buffer holds one byte" {
	make_buf odd 5000
	run sh -c "timeout 60 dd if=/dev/odd bs=4096 2>/dev/null | wc -c"
	assert_output 5000
	run -0 "$UT" pwrite-try /dev/odd 4096 4096
	assert_output 904
	assert_errno ENOSPC "$UT" pwrite-try /dev/odd 5000 1
	run "$UT" lseek-try /dev/odd 5000 set
	assert_output 5000
	assert_errno EINVAL "$UT" lseek-try /dev/odd 5001 set
	check "$UT" write-fill /dev/odd 0 5000 7
	run -0 "$UT" read-verify /dev/odd 0 5000 7
	assert_attr "$CLASS/odd/size" 5000
	make_buf one 1
	run "$UT" pwrite-try /dev/one 0 2
	assert_output 1
	run "$UT" pread-try /dev/one 0 2
	assert_output 1
	assert_errno ENOSPC "$UT" pwrite-try /dev/one 1 1
}

@test "the device can be opened read-only, write-only and read-write" {
	assert_errno OK "$UT" open-try "$d" rdonly
	assert_errno OK "$UT" open-try "$d" wronly
	assert_errno OK "$UT" open-try "$d" rdwr
	assert_errno OK "$UT" open-try "$d" rdwr --sync
}
