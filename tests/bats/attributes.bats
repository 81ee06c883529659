#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Every configfs item attribute: valid values, read-back format, errnos.
# The refusals the bad-input catalogue lists (bad-input.tsv's configfs
# rows: a write while enabled, to dev or phys_addr, and the values named
# there) are catalogue.bats's; the ones here are the others.

load helpers/common

setup() {
	common_setup
	new_item tbuf
	a=$cfs/tbuf
}

@test "size accepts decimal, hex, K, M, G and T suffixes in either case, a hex value with a suffix and 0; rejects garbage with EINVAL and overflowing values with ERANGE, keeping its value" {
	assert_accepts "$a/size" 12345 12345 0x100000 1048576 0x10K 16384 \
		4K 4096 3M 3145728 2G 2147483648 8k 8192 1m 1048576 1g 1073741824 \
		5000 5000 1 1 0 0
	# (Beyond a 32-bit size_t, ERANGE: alloc.bats.)
	kernel_32bit || assert_accepts "$a/size" 1T 1099511627776 2t 2199023255552
	assert_write OK "$a/size" 8192
	assert_writes EINVAL "$a/size" abc junk 0x 4KB K " " 0x1g0
	assert_writes ERANGE "$a/size" 0x10000000000000000 17179869184G
	assert_attr "$a/size" 8192
}

@test "minor accepts 0, 1048575 and -1 to go back to automatic; rejects 2^32 with ERANGE and garbage with EINVAL" {
	assert_accepts "$a/minor" 0 0 1048575 1048575 -1 -1
	assert_write ERANGE "$a/minor" 4294967296
	assert_writes EINVAL "$a/minor" 1x 1.0
	assert_attr "$a/minor" -1
}

@test "device_name accepts letters, digits, '_', '.' and '-', 1 and 32 characters, strips one trailing newline; rejects '.', '..' and other characters with EINVAL" {
	local n32=abcdefghijklmnopqrstuvwxyz012345
	assert_equal "${#n32}" 32
	assert_accepts "$a/device_name" Ab9_.-z Ab9_.-z x x "$n32" "$n32"
	echo mydev >"$a/device_name"
	assert_attr "$a/device_name" mydev
	assert_writes EINVAL "$a/device_name" . .. "a b" 'a*' 'a:b' $'a\tb' 'é' 'a\b' "a\$x"
	assert_attr "$a/device_name" mydev
}

@test "device_name names the device node and the class device, and cannot be written while enabled: EBUSY; dev is MAJ:MIN and matches them" {
	set_attr "$a/size" 4096
	set_attr "$a/device_name" renamed0
	set_attr "$a/enable" 1
	assert_device renamed0
	[ ! -e /dev/tbuf ] || fail "/dev/tbuf exists too"
	[ ! -e "$CLASS/tbuf" ] || fail "$CLASS/tbuf exists too"
	assert_write EBUSY "$a/device_name" other
	assert_attr "$a/device_name" renamed0
	assert_device renamed0
	run cat "$a/dev"
	assert_output --regexp '^[0-9]+:[0-9]+$'
	assert_attr "$a/dev" "$(cat "$CLASS/renamed0/dev")"
	assert_attr "$a/dev" "$(node_devnum /dev/renamed0)"
}

@test "sync_mode accepts 0 to 7, rejects 100 with ERANGE and garbage with EINVAL" {
	assert_accepts "$a/sync_mode" 0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7
	assert_write ERANGE "$a/sync_mode" 100
	assert_writes EINVAL "$a/sync_mode" abc 1x
	assert_attr "$a/sync_mode" 7
}

@test "sync_mode can be written while enabled, within its range" {
	set_attr "$a/size" 4096
	set_attr "$a/enable" 1
	assert_write ERANGE "$a/sync_mode" 8
	assert_attr "$a/sync_mode" 1
	assert_accepts "$a/sync_mode" 3 3
	assert_attr "$CLASS/tbuf/sync_mode" 3
}

# The class device's sync_mode and sync_check are the buffer's run-time
# settings, "rw always": what was written there is the item's setting from
# then on, kept by enable=0 for configfs to show and the next enable to use.
@test "sync_mode and sync_check written to the class device are the item's after enable=0 and in force at the next enable" {
	set_attr "$a/size" 4096
	set_attr "$a/enable" 1
	assert_accepts "$CLASS/tbuf/sync_mode" 5 5
	assert_accepts "$CLASS/tbuf/sync_check" 1 1
	set_attr "$a/enable" 0
	assert_attr "$a/sync_mode" 5
	assert_attr "$a/sync_check" 1
	set_attr "$a/enable" 1
	assert_attr "$CLASS/tbuf/sync_mode" 5
	assert_attr "$CLASS/tbuf/sync_check" 1
}

@test "dma_mask accepts 12 and 64, rejects 0 and 128 with ERANGE and abc with EINVAL" {
	assert_accepts "$a/dma_mask" 12 12 64 64
	assert_writes ERANGE "$a/dma_mask" 0 128
	assert_write EINVAL "$a/dma_mask" abc
	assert_attr "$a/dma_mask" 64
}

@test "mode accepts octal and reads back with four digits, rejects 0000, 4755 and values that are not octal" {
	assert_accepts "$a/mode" 644 0644 0660 0660 0777 0777
	assert_writes EINVAL "$a/mode" 0000 8 rw abc 0x1a4
	run -1 "$UT" write-attr "$a/mode" 4755
	assert_output --regexp '^(EINVAL|ERANGE)$'
	assert_attr "$a/mode" 0777
}

@test "mode is applied to the device node" {
	local m
	set_attr "$a/size" 4096
	for m in 0644 666; do
		set_attr "$a/mode" "$m"
		set_attr "$a/enable" 1
		run stat -c '%a %u:%g' /dev/tbuf
		assert_output "${m#0} 0:0"
		set_attr "$a/enable" 0
	done
}
