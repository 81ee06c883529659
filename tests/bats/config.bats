#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# One configuration contract: a buffer's values have the same limits and
# the same errno for the same mistake whichever way the buffer is made --
# a configfs attribute, a sysfs attribute, a module parameter, the ALLOC
# ioctl of /dev/udmabuf-cfs (and the device tree: tests/bats-dt/dt.bats).
# A number outside its range is ERANGE, a choice that does not exist or
# no value is EINVAL (the UAPI header's limits, driver/config.c's checks).

# Variables such as cfs, CLASS and UT come from helpers/common.bash.
# shellcheck disable=SC2154
load helpers/common

bats_require_minimum_version 1.5.0

PROC=udmabuf-proc

setup() {
	common_setup || return 1
	new_item cfg size=64K
}

teardown() {
	common_teardown
}

# insmod_fails ERRNO PARAM...: loading with PARAM fails with ERRNO and
# leaves the module out; then it is loaded again as the tests expect.
insmod_fails() {
	local errno=$1
	shift
	remove_all_items
	unload_module
	assert_errno "$errno" "$UT" insmod-try "$UDMABUF_KO" "$@"
	! module_loaded || fail "the module loaded with $*"
	load_module
}

@test "sync_mode 8 is ERANGE every way in: configfs, sysfs, ALLOC" {
	assert_write ERANGE "$cfs/cfg/sync_mode" 8
	assert_attr "$cfs/cfg/sync_mode" 1
	assert_write OK "$cfs/cfg/enable" 1
	assert_write ERANGE "$CLASS/cfg/sync_mode" 8
	assert_attr "$CLASS/cfg/sync_mode" 1
	assert_errno ERANGE "$PROC" alloc 4096 --sync-mode 8
	# 7, the largest, is good everywhere.
	assert_write OK "$CLASS/cfg/sync_mode" 7
	assert_errno OK "$PROC" alloc 4096 --sync-mode 7
}

@test "a DMA mask of 11 or 65 bits is ERANGE every way in: configfs, ALLOC" {
	local bits
	for bits in 11 65; do
		assert_write ERANGE "$cfs/cfg/dma_mask" "$bits"
		assert_errno ERANGE "$PROC" alloc 4096 --dma-bits "$bits"
	done
	assert_attr "$cfs/cfg/dma_mask" 32
	assert_write OK "$cfs/cfg/dma_mask" 64
	assert_errno OK "$PROC" alloc 4096 --dma-bits 64
}

@test "a size no file can address is ERANGE every way in: configfs, parameter, ALLOC" {
	assert_write ERANGE "$cfs/cfg/size" 0xffffffffffffffff
	assert_errno ERANGE "$PROC" alloc 0xffffffffffffffff
	insmod_fails ERANGE udmabuf0=0xffffffffffffffff
}

@test "size 0 is EINVAL every way in that makes a buffer: configfs enable, ALLOC" {
	set_attr "$cfs/cfg/size" 0
	assert_write EINVAL "$cfs/cfg/enable" 1
	assert_no_device cfg
	assert_errno EINVAL "$PROC" alloc 0
}

@test "mode 01000 is ERANGE and mode 0 EINVAL every way in: configfs, parameter" {
	assert_write ERANGE "$cfs/cfg/mode" 01000
	assert_write EINVAL "$cfs/cfg/mode" 0
	assert_attr "$cfs/cfg/mode" 0600
	insmod_fails ERANGE udmabuf0=64K udmabuf0_mode=01000
	insmod_fails EINVAL udmabuf0=64K udmabuf0_mode=0
}

@test "a sync direction 3 is EINVAL every way in: sysfs, the sync ioctls" {
	assert_write OK "$cfs/cfg/enable" 1
	assert_write EINVAL "$CLASS/cfg/sync_direction" 3
	assert_attr "$CLASS/cfg/sync_direction" 0
	assert_write EINVAL "$CLASS/cfg/sync_for_device" "0 4096 3"
	run -1 udmabuf-ioctl sync /dev/cfg device 0 4096 3
	assert_output EINVAL
}

@test "an allocator that does not exist is EINVAL every way in: configfs, ALLOC" {
	assert_write EINVAL "$cfs/cfg/allocator" heap
	assert_errno EINVAL "$PROC" alloc 4096 --allocator 4
	assert_write OK "$cfs/cfg/allocator" cma
	assert_errno OK "$PROC" alloc 4096 --allocator 3
}
