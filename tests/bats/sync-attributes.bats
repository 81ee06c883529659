#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The sysfs sync_* attributes of /sys/class/udmabuf/<device>/: their
# defaults, what sync_offset, sync_size and sync_direction accept and
# refuse (and that a refused write keeps the value), sync_owner, and the
# sync_for_device / sync_for_cpu triggers in both forms ("1" for the stored
# range, "OFFSET SIZE DIRECTION" in one write).  Parsers and range checks:
# the same C on every arch; the data they move is sync.bats's.

load helpers/common

SZ=$((256 * 1024))
U64_MAX=18446744073709551615

setup() {
	common_setup
	make_buf tbuf "$SZ"
	s=$CLASS/tbuf
}

# The refusals of the catalogue's sysfs rows (bad-input.tsv: sync_offset
# equal to the size or 2^64, sync_size one past the size or 2^64-1,
# sync_direction 3 or 2^32, the read-only sync_owner, a one-write sync
# past the end, overflowing, in direction 3 or with two fields) are
# catalogue.bats's; the ones here are the others.

@test "sync_offset, sync_direction and sync_owner default to 0, sync_size to the exact buffer size" {
	assert_attr "$s/sync_offset" 0
	assert_attr "$s/sync_size" "$SZ"
	assert_attr "$s/sync_direction" 0
	assert_attr "$s/sync_owner" 0
	make_buf odd 12345
	assert_attr "$CLASS/odd/sync_size" 12345
}

@test "sync_offset accepts 0, a middle value, the last byte, hex, a K suffix and a trailing newline; rejects 2^64-1, garbage, a negative number and an empty line with EINVAL, keeping its value" {
	assert_accepts "$s/sync_offset" 0 0 $((SZ / 2 + 3)) $((SZ / 2 + 3)) \
		$((SZ - 1)) $((SZ - 1)) 0x1000 4096 8K 8192 $'12\n' 12
	assert_write OK "$s/sync_offset" 4096
	assert_writes EINVAL "$s/sync_offset" "$U64_MAX" abc -1 12x $'\n' "$SZ"
	assert_attr "$s/sync_offset" 4096
}

@test "sync_size accepts 0, a small value, the buffer size, and hex and an M suffix within the buffer; rejects garbage and a negative number with EINVAL, a suffixed number beyond 64 bits with ERANGE, keeping its value" {
	assert_accepts "$s/sync_size" 0 0 1 1 "$SZ" "$SZ"
	make_buf big 2M
	assert_accepts "$CLASS/big/sync_size" 1M 1048576 0x200000 2097152
	assert_write OK "$s/sync_size" 100
	assert_writes EINVAL "$s/sync_size" size -4096 $((SZ + 1))
	assert_write ERANGE "$s/sync_size" 0x10000000000000T
	assert_attr "$s/sync_size" 100
}

@test "sync_direction accepts 0, 1 and 2, rejects garbage and a negative number with EINVAL, keeping its value" {
	assert_accepts "$s/sync_direction" 1 1 2 2 0 0
	assert_write OK "$s/sync_direction" 2
	assert_writes EINVAL "$s/sync_direction" to-device -1 3
	assert_attr "$s/sync_direction" 2
}

@test "sync_for_device 1 sets sync_owner to 1 and sync_for_cpu 1 to 0, with or without a newline; 0 and other single words are EINVAL" {
	local one
	for one in 1 $'1\n'; do
		assert_write OK "$s/sync_for_device" "$one"
		assert_attr "$s/sync_owner" 1
		assert_write OK "$s/sync_for_cpu" "$one"
		assert_attr "$s/sync_owner" 0
	done
	assert_write EINVAL "$s/sync_for_cpu" 0
	assert_writes EINVAL "$s/sync_for_device" 2 yes
}

@test "sync triggers with 1 succeed for a partial range in every direction, and with sync_size 0 from sync_offset to the end; fail with EINVAL when sync_offset plus sync_size pass the end, keeping sync_owner" {
	local dir
	set_attr "$s/sync_offset" $((PAGE_SIZE + 5))
	set_attr "$s/sync_size" 1000
	for dir in 0 1 2; do
		set_attr "$s/sync_direction" "$dir"
		assert_write OK "$s/sync_for_device" 1
		assert_write OK "$s/sync_for_cpu" 1
	done
	set_attr "$s/sync_offset" $((SZ - 1))
	set_attr "$s/sync_size" 0
	assert_write OK "$s/sync_for_device" 1
	assert_attr "$s/sync_owner" 1
	assert_write OK "$s/sync_for_device" 1
	# Each value is valid alone; together they leave the buffer.
	set_attr "$s/sync_offset" $((SZ - 1))
	set_attr "$s/sync_size" 2
	assert_write EINVAL "$s/sync_for_device" 1
	assert_write EINVAL "$s/sync_for_cpu" 1
	assert_attr "$s/sync_owner" 1
}

@test "the one-write form syncs the whole buffer with 0 0 0, an unaligned partial range in every direction, the exact whole buffer, the last byte; accepts hex, suffixes, tabs, extra spaces, a newline" {
	local dir
	assert_write OK "$s/sync_for_device" "0 0 0"
	assert_attr "$s/sync_owner" 1
	assert_write OK "$s/sync_for_cpu" "0 0 0"
	assert_attr "$s/sync_owner" 0
	for dir in 0 1 2; do
		assert_write OK "$s/sync_for_device" "$((PAGE_SIZE + 3)) 100 $dir"
		assert_write OK "$s/sync_for_cpu" "$((PAGE_SIZE + 3)) 100 $dir"
	done
	assert_write OK "$s/sync_for_device" "0 $SZ 1"
	assert_write OK "$s/sync_for_cpu" "$((SZ - 1)) 1 2"
	assert_write OK "$s/sync_for_device" "0x1000 4K 1"
	assert_writes OK "$s/sync_for_cpu" $'4096\t4096\t2\n' "  8K    100   0  "
}

@test "the one-write form leaves sync_offset, sync_size and sync_direction alone, and ignores invalid values of them" {
	set_attr "$s/sync_offset" 100
	set_attr "$s/sync_size" 200
	set_attr "$s/sync_direction" 2
	assert_write OK "$s/sync_for_device" "$PAGE_SIZE $PAGE_SIZE 1"
	assert_attr "$s/sync_offset" 100
	assert_attr "$s/sync_size" 200
	assert_attr "$s/sync_direction" 2
	# "1" would fail with these; the explicit range must not look at them.
	set_attr "$s/sync_offset" $((SZ - 1))
	set_attr "$s/sync_size" 2
	assert_write OK "$s/sync_for_device" "0 0 1"
}

@test "the one-write form rejects an offset at the end, four fields and garbage in any field with EINVAL, keeping sync_owner" {
	assert_write OK "$s/sync_for_device" "0 0 1"
	assert_writes EINVAL "$s/sync_for_cpu" "$SZ 1 2" "$SZ 0 0" "$((SZ - 1)) 2 0" \
		"0 0 0 0" "x 0 0" "0 x 0" "0 0 x" "0 -1 0"
	assert_attr "$s/sync_owner" 1
}
