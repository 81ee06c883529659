#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The sysfs sync_* attributes of /sys/class/udmabuf/<device>/: their
# defaults, what sync_offset, sync_size and sync_direction accept and
# refuse (and that a refused write keeps the value), sync_owner, and the
# sync_for_device / sync_for_cpu triggers in both forms ("1" for the stored
# range, "OFFSET SIZE DIRECTION" in one write).  Parsers and range checks:
# the same C on every arch; the data they move is sync.bats's.

# Variables such as cfs, CLASS and UT come from helpers/common.bash.
# shellcheck disable=SC2154
load helpers/common

SZ=$((256 * 1024))
U64_MAX=18446744073709551615

setup() {
	common_setup
	make_buf tbuf "$SZ"
	s=$CLASS/tbuf
}

# common_teardown also fails the test if the kernel complained during it.
teardown() { common_teardown; }

# ---------------------------------------------------------------------------
# Defaults

@test "sync_offset defaults to 0" {
	assert_attr "$s/sync_offset" 0
}

@test "sync_size defaults to the buffer size" {
	assert_attr "$s/sync_size" "$SZ"
}

@test "sync_size defaults to the exact size of a buffer that is not a page multiple" {
	make_buf odd 12345
	assert_attr "$CLASS/odd/sync_size" 12345
}

@test "sync_direction defaults to 0" {
	assert_attr "$s/sync_direction" 0
}

@test "sync_owner is 0 for a new buffer" {
	assert_attr "$s/sync_owner" 0
}

# ---------------------------------------------------------------------------
# sync_offset

@test "sync_offset accepts 0, a middle value and the last byte" {
	local v
	for v in 0 $((SZ / 2 + 3)) $((SZ - 1)); do
		assert_write OK "$s/sync_offset" "$v"
		assert_attr "$s/sync_offset" "$v"
	done
}

@test "sync_offset accepts hex, a K suffix and a trailing newline" {
	assert_write OK "$s/sync_offset" 0x1000
	assert_attr "$s/sync_offset" 4096
	assert_write OK "$s/sync_offset" 8K
	assert_attr "$s/sync_offset" 8192
	assert_write OK "$s/sync_offset" $'12\n'
	assert_attr "$s/sync_offset" 12
}

@test "sync_offset rejects the buffer size with EINVAL" {
	assert_write EINVAL "$s/sync_offset" "$SZ"
}

@test "sync_offset rejects 2^64-1 with EINVAL" {
	assert_write EINVAL "$s/sync_offset" "$U64_MAX"
}

@test "sync_offset rejects a number beyond 64 bits with ERANGE" {
	assert_write ERANGE "$s/sync_offset" 18446744073709551616
}

@test "sync_offset rejects garbage, a negative number and an empty line with EINVAL" {
	assert_write EINVAL "$s/sync_offset" abc
	assert_write EINVAL "$s/sync_offset" -1
	assert_write EINVAL "$s/sync_offset" 12x
	assert_write EINVAL "$s/sync_offset" $'\n'
}

@test "a rejected sync_offset write keeps the previous value" {
	assert_write OK "$s/sync_offset" 4096
	assert_write EINVAL "$s/sync_offset" "$SZ"
	assert_write EINVAL "$s/sync_offset" abc
	assert_attr "$s/sync_offset" 4096
}

# ---------------------------------------------------------------------------
# sync_size

@test "sync_size accepts 0, a small value and the buffer size" {
	local v
	for v in 0 1 "$SZ"; do
		assert_write OK "$s/sync_size" "$v"
		assert_attr "$s/sync_size" "$v"
	done
}

@test "sync_size accepts hex and an M suffix within the buffer" {
	make_buf big 2M
	assert_write OK "$CLASS/big/sync_size" 1M
	assert_attr "$CLASS/big/sync_size" 1048576
	assert_write OK "$CLASS/big/sync_size" 0x200000
	assert_attr "$CLASS/big/sync_size" 2097152
}

@test "sync_size rejects one byte more than the buffer with EINVAL" {
	assert_write EINVAL "$s/sync_size" $((SZ + 1))
}

@test "sync_size rejects 2^64-1 with EINVAL" {
	assert_write EINVAL "$s/sync_size" "$U64_MAX"
}

@test "sync_size rejects a suffixed number beyond 64 bits with ERANGE" {
	assert_write ERANGE "$s/sync_size" 0x10000000000000T
}

@test "sync_size rejects garbage and a negative number with EINVAL" {
	assert_write EINVAL "$s/sync_size" size
	assert_write EINVAL "$s/sync_size" -4096
}

@test "a rejected sync_size write keeps the previous value" {
	assert_write OK "$s/sync_size" 100
	assert_write EINVAL "$s/sync_size" $((SZ + 1))
	assert_attr "$s/sync_size" 100
}

# ---------------------------------------------------------------------------
# sync_direction

@test "sync_direction accepts 0, 1 and 2" {
	local v
	for v in 1 2 0; do
		assert_write OK "$s/sync_direction" "$v"
		assert_attr "$s/sync_direction" "$v"
	done
}

@test "sync_direction rejects 3 with EINVAL" {
	assert_write EINVAL "$s/sync_direction" 3
}

@test "sync_direction rejects garbage and a negative number with EINVAL" {
	assert_write EINVAL "$s/sync_direction" to-device
	assert_write EINVAL "$s/sync_direction" -1
}

@test "sync_direction rejects a number beyond 32 bits with ERANGE" {
	assert_write ERANGE "$s/sync_direction" 4294967296
}

@test "a rejected sync_direction write keeps the previous value" {
	assert_write OK "$s/sync_direction" 2
	assert_write EINVAL "$s/sync_direction" 3
	assert_attr "$s/sync_direction" 2
}

# ---------------------------------------------------------------------------
# sync_owner

@test "sync_owner is read-only" {
	run "$UT" write-attr "$s/sync_owner" 1
	assert_failure 1
	refute_output OK
	assert_attr "$s/sync_owner" 0
}

# ---------------------------------------------------------------------------
# sync_for_cpu / sync_for_device with "1"

@test "sync_for_device 1 succeeds and sets sync_owner to 1" {
	assert_write OK "$s/sync_for_device" 1
	assert_attr "$s/sync_owner" 1
}

@test "sync_for_cpu 1 succeeds and sets sync_owner to 0" {
	assert_write OK "$s/sync_for_device" 1
	assert_write OK "$s/sync_for_cpu" 1
	assert_attr "$s/sync_owner" 0
}

@test "sync triggers accept 1 followed by a newline" {
	assert_write OK "$s/sync_for_device" $'1\n'
	assert_attr "$s/sync_owner" 1
	assert_write OK "$s/sync_for_cpu" $'1\n'
	assert_attr "$s/sync_owner" 0
}

@test "sync triggers with 1 succeed for a partial range in every direction" {
	local dir
	set_attr "$s/sync_offset" $((PAGE_SIZE + 5))
	set_attr "$s/sync_size" 1000
	for dir in 0 1 2; do
		set_attr "$s/sync_direction" "$dir"
		assert_write OK "$s/sync_for_device" 1
		assert_write OK "$s/sync_for_cpu" 1
	done
}

@test "sync triggers with 1 and sync_size 0 sync from sync_offset to the end" {
	set_attr "$s/sync_offset" $((SZ - 1))
	set_attr "$s/sync_size" 0
	assert_write OK "$s/sync_for_device" 1
	assert_attr "$s/sync_owner" 1
}

@test "sync triggers with 1 fail with EINVAL when sync_offset plus sync_size pass the end" {
	# Each value is valid alone; together they leave the buffer.
	set_attr "$s/sync_offset" $((SZ - 1))
	set_attr "$s/sync_size" 2
	assert_write EINVAL "$s/sync_for_device" 1
	assert_write EINVAL "$s/sync_for_cpu" 1
}

@test "a failed sync trigger leaves sync_owner unchanged" {
	assert_write OK "$s/sync_for_device" 1
	set_attr "$s/sync_offset" $((SZ - 1))
	set_attr "$s/sync_size" 2
	assert_write EINVAL "$s/sync_for_cpu" 1
	assert_attr "$s/sync_owner" 1
}

@test "sync triggers reject 0 and other single words with EINVAL" {
	assert_write EINVAL "$s/sync_for_cpu" 0
	assert_write EINVAL "$s/sync_for_device" 2
	assert_write EINVAL "$s/sync_for_device" yes
}

# ---------------------------------------------------------------------------
# sync_for_cpu / sync_for_device with "OFFSET SIZE DIRECTION"

@test "the one-write form syncs the whole buffer with 0 0 0" {
	assert_write OK "$s/sync_for_device" "0 0 0"
	assert_attr "$s/sync_owner" 1
	assert_write OK "$s/sync_for_cpu" "0 0 0"
	assert_attr "$s/sync_owner" 0
}

@test "the one-write form syncs an unaligned partial range in every direction" {
	local dir
	for dir in 0 1 2; do
		assert_write OK "$s/sync_for_device" "$((PAGE_SIZE + 3)) 100 $dir"
		assert_write OK "$s/sync_for_cpu" "$((PAGE_SIZE + 3)) 100 $dir"
	done
}

@test "the one-write form syncs the exact whole buffer and the last byte" {
	assert_write OK "$s/sync_for_device" "0 $SZ 1"
	assert_write OK "$s/sync_for_cpu" "$((SZ - 1)) 1 2"
}

@test "the one-write form accepts hex, suffixes, tabs, extra spaces and a newline" {
	assert_write OK "$s/sync_for_device" "0x1000 4K 1"
	assert_write OK "$s/sync_for_cpu" $'4096\t4096\t2\n'
	assert_write OK "$s/sync_for_cpu" "  8K    100   0  "
}

@test "the one-write form leaves sync_offset, sync_size and sync_direction alone" {
	set_attr "$s/sync_offset" 100
	set_attr "$s/sync_size" 200
	set_attr "$s/sync_direction" 2
	assert_write OK "$s/sync_for_device" "$PAGE_SIZE $PAGE_SIZE 1"
	assert_attr "$s/sync_offset" 100
	assert_attr "$s/sync_size" 200
	assert_attr "$s/sync_direction" 2
}

@test "the one-write form ignores invalid sync_offset and sync_size values" {
	# "1" would fail with these; the explicit range must not look at them.
	set_attr "$s/sync_offset" $((SZ - 1))
	set_attr "$s/sync_size" 2
	assert_write OK "$s/sync_for_device" "0 0 1"
}

@test "the one-write form rejects an offset equal to the size with EINVAL" {
	assert_write EINVAL "$s/sync_for_cpu" "$SZ 1 0"
	assert_write EINVAL "$s/sync_for_device" "$SZ 0 0"
}

@test "the one-write form rejects a range past the end with EINVAL" {
	assert_write EINVAL "$s/sync_for_cpu" "0 $((SZ + 1)) 0"
	assert_write EINVAL "$s/sync_for_device" "$((SZ - 1)) 2 0"
}

@test "the one-write form rejects an offset plus size that overflows 64 bits with EINVAL" {
	assert_write EINVAL "$s/sync_for_cpu" "1 $U64_MAX 0"
	assert_write EINVAL "$s/sync_for_device" "1 $U64_MAX 0"
}

@test "the one-write form rejects direction 3 with EINVAL" {
	assert_write EINVAL "$s/sync_for_cpu" "0 0 3"
	assert_write EINVAL "$s/sync_for_device" "0 0 3"
}

@test "the one-write form rejects two or four fields with EINVAL" {
	assert_write EINVAL "$s/sync_for_cpu" "0 0"
	assert_write EINVAL "$s/sync_for_device" "0 0 0 0"
}

@test "the one-write form rejects garbage in any field with EINVAL" {
	assert_write EINVAL "$s/sync_for_cpu" "x 0 0"
	assert_write EINVAL "$s/sync_for_cpu" "0 x 0"
	assert_write EINVAL "$s/sync_for_cpu" "0 0 x"
	assert_write EINVAL "$s/sync_for_device" "0 -1 0"
}

@test "a failed one-write sync leaves sync_owner unchanged" {
	assert_write OK "$s/sync_for_device" "0 0 1"
	assert_write EINVAL "$s/sync_for_cpu" "$SZ 1 2"
	assert_attr "$s/sync_owner" 1
}
