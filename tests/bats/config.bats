#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# One configuration contract: a buffer's values have the same limits and
# the same errno for the same mistake whichever way the buffer is made --
# a configfs attribute, a sysfs attribute, a module parameter, the ALLOC
# ioctl of /dev/udmabuf-cfs (and the device tree: tests/bats-dt/dt.bats).
# A number outside its range is ERANGE, a choice that does not exist or
# no value is EINVAL (the UAPI header's limits, driver/config.c's checks).
#
# Each way's checks are in its own file, the same values there: sync_mode 8
# and a DMA mask of 11 or 65 bits ERANGE, size 0 EINVAL (ALLOC:
# process.bats's bad requests; configfs and sysfs: bad-input.tsv cfs-15,
# 23, 24, 31, sysfs-13), a mode beyond 0777 ERANGE and 0 EINVAL
# (configfs: cfs-28, 39; parameter: params.bats), direction 3 EINVAL
# (sysfs-05, sysfs-11, ioctl-13).  Here are the ones no other file has.

load helpers/common

PROC=udmabuf-proc

setup() {
	common_setup || return 1
	new_item cfg size=64K
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

@test "a size no file can address is ERANGE every way in: configfs, parameter, ALLOC" {
	assert_write ERANGE "$cfs/cfg/size" 0xffffffffffffffff
	assert_errno ERANGE "$PROC" alloc 0xffffffffffffffff
	insmod_fails ERANGE udmabuf0=0xffffffffffffffff
}

@test "an allocator that does not exist is EINVAL every way in: configfs, ALLOC" {
	assert_write EINVAL "$cfs/cfg/allocator" heap
	assert_errno EINVAL "$PROC" alloc 4096 --allocator 4
	assert_write OK "$cfs/cfg/allocator" cma
	assert_errno OK "$PROC" alloc 4096 --allocator 3
}
