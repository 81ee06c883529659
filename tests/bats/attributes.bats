#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Every configfs item attribute: valid values, read-back format, errnos.

# Variables such as cfs, CLASS and UT come from helpers/common.bash.
# shellcheck disable=SC2154
load helpers/common

setup() {
	common_setup
	new_item tbuf
	a=$cfs/tbuf
}
teardown() { common_teardown; }

# --- size -------------------------------------------------------------------

@test "size accepts decimal and reads back in decimal" {
	assert_write OK "$a/size" 12345
	assert_attr "$a/size" 12345
}

@test "size accepts 0x hex" {
	assert_write OK "$a/size" 0x100000
	assert_attr "$a/size" 1048576
}

@test "size accepts K, M, G and T suffixes" {
	assert_write OK "$a/size" 4K
	assert_attr "$a/size" 4096
	assert_write OK "$a/size" 3M
	assert_attr "$a/size" 3145728
	assert_write OK "$a/size" 2G
	assert_attr "$a/size" 2147483648
	if kernel_32bit; then
		# Beyond a 32-bit size_t (the largest size is 4 GiB - 4 KiB).
		assert_write ERANGE "$a/size" 1T
		assert_attr "$a/size" 2147483648
		assert_write OK "$a/size" 4194300K
		assert_attr "$a/size" 4294963200
		assert_write ERANGE "$a/size" 4G
	else
		assert_write OK "$a/size" 1T
		assert_attr "$a/size" 1099511627776
	fi
}

@test "size accepts lowercase suffixes" {
	assert_write OK "$a/size" 8k
	assert_attr "$a/size" 8192
	assert_write OK "$a/size" 1m
	assert_attr "$a/size" 1048576
	assert_write OK "$a/size" 1g
	assert_attr "$a/size" 1073741824
	if kernel_32bit; then
		assert_write ERANGE "$a/size" 2t
		assert_attr "$a/size" 1073741824
	else
		assert_write OK "$a/size" 2t
		assert_attr "$a/size" 2199023255552
	fi
}

@test "size accepts a hex value with a suffix" {
	assert_write OK "$a/size" 0x10K
	assert_attr "$a/size" 16384
}

@test "size accepts a value followed by a newline" {
	echo 64K >"$a/size"
	assert_attr "$a/size" 65536
}

@test "size accepts values that are not page multiples" {
	assert_write OK "$a/size" 5000
	assert_attr "$a/size" 5000
	assert_write OK "$a/size" 1
	assert_attr "$a/size" 1
}

@test "size accepts 0" {
	assert_write OK "$a/size" 4096
	assert_write OK "$a/size" 0
	assert_attr "$a/size" 0
}

@test "size rejects garbage with EINVAL" {
	local v
	for v in abc 12abc 0x 1.5M 4KB K -4096 " " 0x1g0; do
		assert_write EINVAL "$a/size" "$v"
	done
}

@test "size rejects overflowing values with ERANGE" {
	assert_write ERANGE "$a/size" 18446744073709551616
	assert_write ERANGE "$a/size" 0x10000000000000000
	assert_write ERANGE "$a/size" 16777216T
	assert_write ERANGE "$a/size" 17179869184G
}

@test "size keeps its value after a rejected write" {
	assert_write OK "$a/size" 8192
	assert_write EINVAL "$a/size" junk
	assert_write ERANGE "$a/size" 16777216T
	assert_attr "$a/size" 8192
}

@test "size cannot be written while enabled: EBUSY" {
	set_attr "$a/size" 4096
	set_attr "$a/enable" 1
	assert_write EBUSY "$a/size" 8192
	assert_attr "$a/size" 4096
	assert_attr "$CLASS/tbuf/size" 4096
}

# --- minor ------------------------------------------------------------------

@test "minor accepts 0 and 1048575" {
	assert_write OK "$a/minor" 0
	assert_attr "$a/minor" 0
	assert_write OK "$a/minor" 1048575
	assert_attr "$a/minor" 1048575
}

@test "minor accepts -1 to go back to automatic" {
	assert_write OK "$a/minor" 7
	assert_write OK "$a/minor" -1
	assert_attr "$a/minor" -1
}

@test "minor rejects out-of-range values with ERANGE" {
	assert_write ERANGE "$a/minor" 1048576
	assert_write ERANGE "$a/minor" -2
	assert_write ERANGE "$a/minor" 4294967296
	assert_attr "$a/minor" -1
}

@test "minor rejects garbage with EINVAL" {
	assert_write EINVAL "$a/minor" abc
	assert_write EINVAL "$a/minor" 1x
	assert_write EINVAL "$a/minor" 1.0
	assert_attr "$a/minor" -1
}

@test "minor cannot be written while enabled: EBUSY" {
	set_attr "$a/size" 4096
	set_attr "$a/minor" 9
	set_attr "$a/enable" 1
	assert_write EBUSY "$a/minor" 10
	assert_attr "$a/minor" 9
}

@test "an explicit minor is used for the device" {
	set_attr "$a/size" 4096
	set_attr "$a/minor" 42
	set_attr "$a/enable" 1
	run node_devnum /dev/tbuf
	assert_output --regexp ':42$'
	assert_attr "$CLASS/tbuf/dev" "$output"
}

# --- device_name ------------------------------------------------------------

@test "device_name defaults to the directory name" {
	assert_attr "$a/device_name" tbuf
	check mkdir "$cfs/other.name-1_x"
	assert_attr "$cfs/other.name-1_x/device_name" other.name-1_x
}

@test "device_name accepts letters, digits, '_', '.' and '-'" {
	assert_write OK "$a/device_name" Ab9_.-z
	assert_attr "$a/device_name" Ab9_.-z
}

@test "device_name accepts 1 and 32 characters" {
	assert_write OK "$a/device_name" x
	assert_attr "$a/device_name" x
	local n32=abcdefghijklmnopqrstuvwxyz012345
	assert_equal "${#n32}" 32
	assert_write OK "$a/device_name" "$n32"
	assert_attr "$a/device_name" "$n32"
}

@test "device_name strips one trailing newline" {
	echo mydev >"$a/device_name"
	assert_attr "$a/device_name" mydev
}

@test "device_name rejects 33 characters with EINVAL" {
	assert_write EINVAL "$a/device_name" abcdefghijklmnopqrstuvwxyz0123456
	assert_attr "$a/device_name" tbuf
}

@test "device_name rejects an empty name with EINVAL" {
	assert_write EINVAL "$a/device_name" $'\n'
	assert_attr "$a/device_name" tbuf
}

@test "device_name rejects '.' and '..' with EINVAL" {
	assert_write EINVAL "$a/device_name" .
	assert_write EINVAL "$a/device_name" ..
	assert_attr "$a/device_name" tbuf
}

@test "device_name rejects other characters with EINVAL" {
	local v
	for v in a/b "a b" 'a*' 'a:b' $'a\tb' 'é' 'a\b' "a\$x"; do
		assert_write EINVAL "$a/device_name" "$v"
	done
	assert_attr "$a/device_name" tbuf
}

@test "device_name cannot be written while enabled: EBUSY" {
	set_attr "$a/size" 4096
	set_attr "$a/enable" 1
	assert_write EBUSY "$a/device_name" other
	assert_attr "$a/device_name" tbuf
	assert_device tbuf
}

@test "device_name names the device node and the class device" {
	set_attr "$a/size" 4096
	set_attr "$a/device_name" renamed0
	set_attr "$a/enable" 1
	assert_device renamed0
	[ ! -e /dev/tbuf ] || fail "/dev/tbuf exists too"
	[ ! -e "$CLASS/tbuf" ] || fail "$CLASS/tbuf exists too"
}

# --- sync_mode --------------------------------------------------------------

@test "sync_mode accepts 0 to 7" {
	local m
	for m in 0 1 2 3 4 5 6 7; do
		assert_write OK "$a/sync_mode" "$m"
		assert_attr "$a/sync_mode" "$m"
	done
}

@test "sync_mode rejects 8 with ERANGE" {
	assert_write ERANGE "$a/sync_mode" 8
	assert_write ERANGE "$a/sync_mode" 100
	assert_attr "$a/sync_mode" 1
}

@test "sync_mode rejects garbage with EINVAL" {
	assert_write EINVAL "$a/sync_mode" abc
	assert_write EINVAL "$a/sync_mode" 1x
	assert_attr "$a/sync_mode" 1
}

@test "sync_mode can be written while enabled" {
	set_attr "$a/size" 4096
	set_attr "$a/enable" 1
	assert_write OK "$a/sync_mode" 3
	assert_attr "$a/sync_mode" 3
	assert_attr "$CLASS/tbuf/sync_mode" 3
}

@test "sync_mode rejects out-of-range values while enabled too" {
	set_attr "$a/size" 4096
	set_attr "$a/enable" 1
	assert_write ERANGE "$a/sync_mode" 8
	assert_attr "$a/sync_mode" 1
}

# --- dma_mask ---------------------------------------------------------------

@test "dma_mask accepts 12 and 64" {
	assert_write OK "$a/dma_mask" 12
	assert_attr "$a/dma_mask" 12
	assert_write OK "$a/dma_mask" 64
	assert_attr "$a/dma_mask" 64
}

@test "dma_mask rejects values outside 12..64 with ERANGE" {
	local v
	for v in 0 11 65 128; do
		assert_write ERANGE "$a/dma_mask" "$v"
	done
	assert_attr "$a/dma_mask" 32
}

@test "dma_mask rejects garbage with EINVAL" {
	assert_write EINVAL "$a/dma_mask" abc
	assert_write EINVAL "$a/dma_mask" 32bits
	assert_attr "$a/dma_mask" 32
}

@test "dma_mask cannot be written while enabled: EBUSY" {
	set_attr "$a/size" 4096
	set_attr "$a/enable" 1
	assert_write EBUSY "$a/dma_mask" 64
	assert_attr "$a/dma_mask" 32
}

# --- mode -------------------------------------------------------------------

@test "mode accepts octal and reads back with four digits" {
	assert_write OK "$a/mode" 644
	assert_attr "$a/mode" 0644
	assert_write OK "$a/mode" 0660
	assert_attr "$a/mode" 0660
	assert_write OK "$a/mode" 0777
	assert_attr "$a/mode" 0777
}

@test "mode 0 is refused with EINVAL: devtmpfs would make the node 0600" {
	assert_write EINVAL "$a/mode" 0
	assert_write EINVAL "$a/mode" 0000
	assert_attr "$a/mode" 0600
}

@test "mode rejects values above 0777" {
	run "$UT" write-attr "$a/mode" 01000
	assert_failure 1
	assert_output --regexp '^(EINVAL|ERANGE)$'
	run "$UT" write-attr "$a/mode" 4755
	assert_failure 1
	assert_output --regexp '^(EINVAL|ERANGE)$'
	assert_attr "$a/mode" 0600
}

@test "mode rejects non-octal values with EINVAL" {
	local v
	for v in 8 0689 rw abc 0x1a4; do
		assert_write EINVAL "$a/mode" "$v"
	done
	assert_attr "$a/mode" 0600
}

@test "mode cannot be written while enabled: EBUSY" {
	set_attr "$a/size" 4096
	set_attr "$a/enable" 1
	assert_write EBUSY "$a/mode" 0666
	assert_attr "$a/mode" 0600
}

@test "mode is applied to the device node" {
	set_attr "$a/size" 4096
	set_attr "$a/mode" 0644
	set_attr "$a/enable" 1
	run stat -c '%a %u:%g' /dev/tbuf
	assert_output '644 0:0'
}

@test "mode 0666 is applied to the device node" {
	set_attr "$a/size" 4096
	set_attr "$a/mode" 666
	set_attr "$a/enable" 1
	run stat -c %a /dev/tbuf
	assert_output 666
}

# --- phys_addr --------------------------------------------------------------

@test "phys_addr is for root only, readable and (while disabled) writable" {
	run stat -c %a "$a/phys_addr"
	assert_output 600
}

@test "phys_addr is empty while disabled" {
	set_attr "$a/size" 4096
	assert_empty_attr "$a/phys_addr"
}

@test "phys_addr is 0x and 16 hex digits once enabled" {
	set_attr "$a/size" 4096
	set_attr "$a/enable" 1
	run cat "$a/phys_addr"
	assert_output --regexp '^0x[0-9a-f]{16}$'
	assert_attr "$a/phys_addr" "$output"
}

@test "phys_addr is page aligned" {
	set_attr "$a/size" 4096
	set_attr "$a/enable" 1
	local p
	p=$(cat "$a/phys_addr")
	assert_equal "$((p % PAGE_SIZE))" 0
}

@test "phys_addr cannot be written" {
	set_attr "$a/size" 4096
	set_attr "$a/enable" 1
	run "$UT" write-attr "$a/phys_addr" 0x1000
	assert_failure 1
	refute_output OK
}

@test "phys_addr is empty again after enable=0" {
	set_attr "$a/size" 4096
	set_attr "$a/enable" 1
	set_attr "$a/enable" 0
	assert_empty_attr "$a/phys_addr"
}

# --- dev --------------------------------------------------------------------

@test "dev is empty while disabled" {
	set_attr "$a/size" 4096
	assert_empty_attr "$a/dev"
}

@test "dev is MAJ:MIN and matches the class device and the node" {
	set_attr "$a/size" 4096
	set_attr "$a/enable" 1
	run cat "$a/dev"
	assert_output --regexp '^[0-9]+:[0-9]+$'
	assert_attr "$a/dev" "$(cat "$CLASS/tbuf/dev")"
	assert_attr "$a/dev" "$(node_devnum /dev/tbuf)"
}

@test "dev cannot be written" {
	set_attr "$a/size" 4096
	set_attr "$a/enable" 1
	run "$UT" write-attr "$a/dev" 1:2
	assert_failure 1
	refute_output OK
}

@test "dev is empty again after enable=0" {
	set_attr "$a/size" 4096
	set_attr "$a/enable" 1
	set_attr "$a/enable" 0
	assert_empty_attr "$a/dev"
}
