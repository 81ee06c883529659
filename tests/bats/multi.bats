#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Several buffers at once: minors, names, independence.

load helpers/common

minor_of_item() {
	minor_of "$(cat "$cfs/$1/dev")"
}

@test "three buffers get distinct device nodes, one major and automatic minors from 0 upwards, and distinct memory" {
	make_buf bufa 4096
	make_buf bufb 8192
	make_buf bufc 12288
	assert_device bufa
	assert_device bufb
	assert_device bufc
	assert_attr "$CLASS/bufa/size" 4096
	assert_attr "$CLASS/bufb/size" 8192
	assert_attr "$CLASS/bufc/size" 12288
	local n
	n=$(cat "$cfs"/buf?/dev | sort -u | wc -l)
	assert_equal "$n" 3
	assert_equal "$(cut -d: -f1 <"$cfs/bufa/dev")" "$(cut -d: -f1 <"$cfs/bufb/dev")"
	assert_equal "$(minor_of_item bufa)" 0
	assert_equal "$(minor_of_item bufb)" 1
	assert_equal "$(minor_of_item bufc)" 2
	# Their memory is distinct.
	check "$UT" mmap-fill /dev/bufa 0 4096 1
	check "$UT" mmap-fill /dev/bufb 0 8192 2
	check "$UT" write-fill /dev/bufc 0 12288 3
	run -0 "$UT" read-verify /dev/bufa 0 4096 1
	run -0 "$UT" mmap-verify /dev/bufb 0 8192 2
	run -0 "$UT" mmap-verify /dev/bufc 0 12288 3
	[ "$(cat "$cfs/bufa/phys_addr")" != "$(cat "$cfs/bufb/phys_addr")" ] ||
		fail "bufa and bufb share phys_addr $(cat "$cfs/bufa/phys_addr")"
}

@test "an automatic minor is the first free one after a disable and after an rmdir; disabling one buffer leaves the others working" {
	make_buf bufa 4096
	make_buf bufb 4096
	make_buf bufc 4096
	check "$UT" write-fill /dev/bufc 0 4096 9
	set_attr "$cfs/bufb/enable" 0
	assert_no_device bufb
	assert_device bufc
	run -0 "$UT" mmap-verify /dev/bufc 0 4096 9
	make_buf bufd 4096
	assert_equal "$(minor_of_item bufd)" 1
	check rmdir "$cfs/bufa"
	make_buf bufe 4096
	assert_equal "$(minor_of_item bufe)" 0
}

@test "an automatic minor skips minors taken explicitly; an explicit minor above the automatic ones works, the largest, 1048575, too" {
	make_buf bufa 4096 minor=0
	make_buf bufb 4096 minor=1
	make_buf bufc 4096
	assert_equal "$(minor_of_item bufc)" 2
	make_buf bufd 4096 minor=1048575
	make_buf bufe 4096
	assert_equal "$(minor_of_item bufd)" 1048575
	assert_equal "$(minor_of_item bufe)" 3
	assert_device bufd
	run node_devnum /dev/bufd
	assert_output --regexp ':1048575$'
	run -0 "$UT" mmap-fill /dev/bufd 0 4096 5
}

@test "an explicit minor taken by an automatic one fails with EBUSY; it is free again once that buffer is disabled" {
	local m
	make_buf bufa 4096
	m=$(minor_of_item bufa)
	new_item bufb size=4096 minor="$m"
	assert_write EBUSY "$cfs/bufb/enable" 1
	assert_no_device bufb
	set_attr "$cfs/bufa/enable" 0
	assert_write OK "$cfs/bufb/enable" 1
	assert_equal "$(minor_of_item bufb)" "$m"
}

@test "a directory name equal to another buffer's device_name fails with EEXIST, and uses up no minor" {
	make_buf bufa 4096 device_name=bufb
	new_item bufb size=4096
	assert_write EEXIST "$cfs/bufb/enable" 1
	assert_equal "$(node_devnum /dev/bufb)" "$(cat "$cfs/bufa/dev")"
	make_buf bufc 4096
	assert_equal "$(minor_of_item bufc)" 1
}

@test "a device name is free again after its buffer is removed" {
	make_buf bufa 4096
	new_item bufb size=4096 device_name=bufa
	check rmdir "$cfs/bufa"
	assert_write OK "$cfs/bufb/enable" 1
	assert_device bufa
}
