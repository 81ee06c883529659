#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# configfs item lifecycle: mkdir, defaults, enable, disable, rmdir.

load helpers/common

@test "loading the module creates the configfs subsystem with a features file: one line of comma-separated names, exactly the attributes of an item, which has every attribute of the contract" {
	[ -d "$cfs" ]
	[ -f "$cfs/features" ]
	run stat -c %a "$cfs/features"
	assert_output 444
	run -0 cat "$cfs/features"
	assert_equal "${#lines[@]}" 1
	assert_output --regexp '^[a-z_]+(,[a-z_]+)*$'
	new_item tbuf
	local want got a
	want=$(find "$cfs/tbuf" -mindepth 1 -maxdepth 1 -exec basename {} \; | sort | tr '\n' ' ')
	got=$(tr ',' '\n' <"$cfs/features" | sort | tr '\n' ' ')
	assert_equal "$got" "$want"
	for a in dev device_name dma_mask enable minor mode phys_addr size sync_mode; do
		[ -f "$cfs/tbuf/$a" ] || fail "missing attribute $a"
	done
}

@test "mkdir creates an item with the documented defaults" {
	run -0 mkdir "$cfs/tbuf"
	assert_attr "$cfs/tbuf/size" 0
	assert_attr "$cfs/tbuf/minor" -1
	assert_attr "$cfs/tbuf/device_name" tbuf
	assert_attr "$cfs/tbuf/sync_mode" 1
	assert_attr "$cfs/tbuf/dma_mask" 32
	assert_attr "$cfs/tbuf/mode" 0600
	assert_attr "$cfs/tbuf/enable" 0
	assert_empty_attr "$cfs/tbuf/phys_addr"
	assert_empty_attr "$cfs/tbuf/dev"
}

@test "rmdir of a disabled item removes it; of an enabled, unused one, the device too" {
	new_item tbuf size=4096
	assert_errno OK "$UT" rmdir-try "$cfs/tbuf"
	[ ! -e "$cfs/tbuf" ]
	make_buf tbuf 4096
	assert_errno OK "$UT" rmdir-try "$cfs/tbuf"
	[ ! -e "$cfs/tbuf" ]
	assert_no_device tbuf
}

@test "enable=1 creates /dev/NAME and /sys/class/udmabuf/NAME; size and enable=1 via echo with a trailing newline work" {
	new_item tbuf size=1M
	assert_write OK "$cfs/tbuf/enable" 1
	assert_attr "$cfs/tbuf/enable" 1
	assert_device tbuf
	assert_attr "$CLASS/tbuf/size" 1048576
	new_item ebuf
	echo 64K >"$cfs/ebuf/size"
	assert_attr "$cfs/ebuf/size" 65536
	echo 1 >"$cfs/ebuf/enable"
	assert_attr "$cfs/ebuf/enable" 1
	assert_device ebuf
}

@test "enable=1 twice is idempotent and keeps the data" {
	make_buf tbuf 8192
	local dev phys
	dev=$(cat "$cfs/tbuf/dev")
	phys=$(cat "$cfs/tbuf/phys_addr")
	check "$UT" write-fill /dev/tbuf 0 8192 11
	assert_write OK "$cfs/tbuf/enable" 1
	assert_attr "$cfs/tbuf/enable" 1
	assert_attr "$cfs/tbuf/dev" "$dev"
	assert_attr "$cfs/tbuf/phys_addr" "$phys"
	assert_device tbuf
	run -0 "$UT" read-verify /dev/tbuf 0 8192 11
}

@test "enable=0 removes the device node and the class device, keeps the item and its configuration; the buffer can be enabled again" {
	make_buf tbuf 8192 sync_mode=3 mode=0640 minor=5
	assert_write OK "$cfs/tbuf/enable" 0
	assert_attr "$cfs/tbuf/enable" 0
	assert_no_device tbuf
	assert_empty_attr "$cfs/tbuf/dev"
	assert_empty_attr "$cfs/tbuf/phys_addr"
	assert_attr "$cfs/tbuf/size" 8192
	assert_attr "$cfs/tbuf/sync_mode" 3
	assert_attr "$cfs/tbuf/mode" 0640
	assert_attr "$cfs/tbuf/minor" 5
	assert_write OK "$cfs/tbuf/size" 16384
	assert_write OK "$cfs/tbuf/enable" 1
	assert_device tbuf
	assert_attr "$CLASS/tbuf/size" 16384
	run -0 "$UT" mmap-fill /dev/tbuf 0 16384 3
}

@test "enable accepts y/n/on/off, and 0 on a disabled item; rejects garbage with EINVAL" {
	new_item tbuf size=4096
	assert_write OK "$cfs/tbuf/enable" 0
	assert_attr "$cfs/tbuf/enable" 0
	assert_writes EINVAL "$cfs/tbuf/enable" x -1
	assert_attr "$cfs/tbuf/enable" 0
	assert_no_device tbuf
	assert_write OK "$cfs/tbuf/enable" y
	assert_attr "$cfs/tbuf/enable" 1
	assert_write OK "$cfs/tbuf/enable" n
	assert_attr "$cfs/tbuf/enable" 0
	assert_write OK "$cfs/tbuf/enable" on
	assert_attr "$cfs/tbuf/enable" 1
	assert_device tbuf
	assert_write OK "$cfs/tbuf/enable" off
	assert_attr "$cfs/tbuf/enable" 0
	assert_no_device tbuf
}

@test "a refused enable leaves its minor, the first free minor and its device name free; the item is enabled once its size is fixed" {
	local want
	new_item bad minor=4 size="$(unallocatable_size)" device_name=shared
	assert_write ENOMEM "$cfs/bad/enable" 1
	assert_no_device shared
	make_buf good 4096 minor=4 device_name=shared
	assert_device shared
	assert_equal "$(minor_of "$(cat "$cfs/good/dev")")" 4
	# The first free minor: the one a buffer made and removed had.
	make_buf probe 4096
	want=$(minor_of "$(cat "$cfs/probe/dev")")
	check rmdir "$cfs/probe"
	new_item nosize
	assert_write EINVAL "$cfs/nosize/enable" 1
	make_buf auto 4096
	assert_equal "$(minor_of "$(cat "$cfs/auto/dev")")" "$want"
	assert_write OK "$cfs/nosize/size" 4096
	assert_write OK "$cfs/nosize/enable" 1
	assert_device nosize
}

@test "mkdir accepts a name that is not a valid device name (a space, 33 characters); enable fails with EINVAL until device_name makes it usable" {
	local long=abcdefghijklmnopqrstuvwxyz0123456
	assert_equal "${#long}" 33
	new_item "$long" size=4096
	assert_write EINVAL "$cfs/$long/enable" 1
	assert_no_device "$long"
	run -0 mkdir "$cfs/has space"
	assert_attr "$cfs/has space/device_name" "has space"
	set_attr "$cfs/has space/size" 4096
	assert_write EINVAL "$cfs/has space/enable" 1
	assert_attr "$cfs/has space/enable" 0
	[ ! -e "/dev/has space" ]
	[ -z "$(ls "$CLASS")" ] || fail "class devices left: $(ls "$CLASS")"
	assert_write OK "$cfs/has space/device_name" good_name
	assert_write OK "$cfs/has space/enable" 1
	assert_device good_name
}

@test "a buffer opens the moment its uevent announces it, as a udev rule would" {
	[ "$UDMABUF_KERNEL_FLAVOUR" != debug ] ||
		skip "the debug kernel has no networking, hence no uevent socket"
	new_item b size=64K
	assert_errno OK "$UT" uevent-open b "$cfs/b/enable"
	assert_device b
}

@test "udmabufctl refuses a device name that is already a node in /dev, leaving nothing" {
	# The configfs refusal (EEXIST) is the catalogue's cfs-41.
	[ -c /dev/null ] || fail "the guest has no /dev/null"
	run udmabufctl create null --size 4K
	assert_failure
	assert_output --partial null
	[ ! -e "$cfs/null" ] || fail "udmabufctl left the item null behind"
}
