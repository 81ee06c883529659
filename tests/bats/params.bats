#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Module parameters udmabuf0..udmabuf7 (the seed's way to create buffers).
# Every test starts with the module unloaded; teardown loads it plainly again.

load helpers/common

load helpers/edu

PARAMS=/sys/module/udmabuf_cfs/parameters

setup() {
	common_setup
	unload_module
}
teardown() {
	# A test of udmabufN_bind may have removed the edu: bring it back.
	[ -z "${EDU:-}" ] || edu_present "$EDU" || true
	common_teardown
}

# insmod_ok PARAM=VALUE...: load the module with parameters or fail loudly.
insmod_ok() {
	assert_errno OK "$UT" insmod-try "$UDMABUF_KO" "$@"
}

@test "udmabuf0=1048576 udmabuf3=4M create /dev/udmabuf0 and /dev/udmabuf3 alone, origin param, read back in decimal bytes" {
	insmod_ok udmabuf0=1048576 udmabuf3=4M
	assert_device udmabuf0
	assert_device udmabuf3
	assert_equal "$(minor_of "$(cat "$CLASS/udmabuf0/dev")")" 0
	assert_equal "$(minor_of "$(cat "$CLASS/udmabuf3/dev")")" 3
	assert_attr "$CLASS/udmabuf0/size" 1048576
	assert_attr "$CLASS/udmabuf3/size" 4194304
	local d made=()
	# The device tree's buffers (lane riscv64) come with the module.
	for d in "$CLASS"/*; do
		is_dt_buffer "${d##*/}" || made+=("${d##*/}")
	done
	assert_equal "${made[*]}" "udmabuf0 udmabuf3"
	assert_attr "$CLASS/udmabuf0/origin" param
	assert_attr "$CLASS/udmabuf3/origin" param
	assert_attr "$PARAMS/udmabuf0" 1048576
	assert_attr "$PARAMS/udmabuf3" 4194304
	assert_attr "$PARAMS/udmabuf1" 0
}

@test "all eight parameters create eight buffers; hex, K and lowercase k suffixes and sizes that are not a page multiple are kept exactly" {
	insmod_ok udmabuf0=4K udmabuf1=0x100000 udmabuf2=64k udmabuf3=4K \
		udmabuf4=8K udmabuf5=5000 udmabuf6=4K udmabuf7=4K
	local i
	for i in 0 1 2 3 4 5 6 7; do
		assert_device "udmabuf$i"
		assert_equal "$(minor_of "$(cat "$CLASS/udmabuf$i/dev")")" "$i"
	done
	assert_attr "$CLASS/udmabuf1/size" 1048576
	assert_attr "$CLASS/udmabuf2/size" 65536
	assert_attr "$CLASS/udmabuf4/size" 8192
	assert_attr "$CLASS/udmabuf5/size" 5000
}

@test "a parameter buffer round-trips data through mmap and read(), and has the seed's sysfs attributes" {
	insmod_ok udmabuf0=1M
	run -0 "$UT" mmap-fill /dev/udmabuf0 0 1M 31
	run -0 "$UT" read-verify /dev/udmabuf0 0 1M 31
	run -0 "$UT" mmap-fill /dev/udmabuf0 0 1M 32 --sync
	run -0 "$UT" read-verify /dev/udmabuf0 0 1M 32
	run cat "$CLASS/udmabuf0/phys_addr"
	assert_output --regexp '^0x[0-9a-f]{16}$'
	assert_attr "$CLASS/udmabuf0/sync_mode" 1
	assert_write OK "$CLASS/udmabuf0/sync_mode" 3
	assert_attr "$CLASS/udmabuf0/sync_mode" 3
	# x86 and RISC-V DMA is coherent by default; the module's own device
	# on ARM is not.
	run cat "$CLASS/udmabuf0/dma_coherent"
	if dma_coherent_by_default; then assert_output 1; else assert_output 0; fi
}

@test "udmabufN_mode sets the device node's permissions in octal, 0600 without it; 0, not octal or without udmabufN fail the load with EINVAL, beyond 0777 with ERANGE" {
	insmod_ok udmabuf0=64K udmabuf0_mode=0660 udmabuf1=64K udmabuf2=64K udmabuf2_mode=644
	assert_equal "$(stat -c %a /dev/udmabuf0)" 660
	assert_equal "$(stat -c %a /dev/udmabuf1)" 600
	assert_equal "$(stat -c %a /dev/udmabuf2)" 644
	assert_attr "$PARAMS/udmabuf0_mode" 0660
	assert_attr "$PARAMS/udmabuf1_mode" 0600
	unload_module
	local m
	for m in 0 0668 rw; do
		assert_errno EINVAL "$UT" insmod-try "$UDMABUF_KO" udmabuf0=64K "udmabuf0_mode=$m"
		run module_loaded
		assert_failure
	done
	assert_errno ERANGE "$UT" insmod-try "$UDMABUF_KO" udmabuf0=64K udmabuf0_mode=1000
	run module_loaded
	assert_failure
	assert_errno EINVAL "$UT" insmod-try "$UDMABUF_KO" udmabuf0=64K udmabuf1_mode=0660
	[ ! -e /dev/udmabuf0 ] || fail "/dev/udmabuf0 exists"
}

@test "an unallocatable parameter makes insmod fail with ENOMEM and leaves nothing behind; the module loads after" {
	assert_errno ENOMEM "$UT" insmod-try "$UDMABUF_KO" udmabuf0=4K "udmabuf1=$(unallocatable_size)"
	run module_loaded
	assert_failure
	[ ! -e /dev/udmabuf0 ] || fail "/dev/udmabuf0 exists"
	[ ! -e /dev/udmabuf1 ] || fail "/dev/udmabuf1 exists"
	assert_no_kernel_warnings
	insmod_ok udmabuf0=4K
	assert_device udmabuf0
}

@test "a configfs item cannot take a parameter buffer's minor (EBUSY), name or device_name (EEXIST); it gets the first minor they leave" {
	insmod_ok udmabuf0=1M udmabuf3=4M
	new_item tbuf size=4096 minor=0
	assert_write EBUSY "$cfs/tbuf/enable" 1
	assert_no_device tbuf
	set_attr "$cfs/tbuf/minor" 3
	assert_write EBUSY "$cfs/tbuf/enable" 1
	assert_no_device tbuf
	new_item udmabuf0 size=4096
	assert_write EEXIST "$cfs/udmabuf0/enable" 1
	assert_attr "$CLASS/udmabuf0/origin" param
	new_item tbuf2 size=4096 device_name=udmabuf3
	assert_write EEXIST "$cfs/tbuf2/enable" 1
	assert_attr "$CLASS/udmabuf3/origin" param
	assert_attr "$CLASS/udmabuf3/size" 4194304
	check rmdir "$cfs/tbuf" "$cfs/tbuf2" "$cfs/udmabuf0"
	make_buf tbuf 4096
	assert_equal "$(minor_of "$(cat "$cfs/tbuf/dev")")" 1
	make_buf tbuf2 4096
	assert_equal "$(minor_of "$(cat "$cfs/tbuf2/dev")")" 2
	make_buf tbuf3 4096
	assert_equal "$(minor_of "$(cat "$cfs/tbuf3/dev")")" 4
}

@test "rmmod is refused while a parameter buffer is open or mapped; unload removes the parameter buffers" {
	insmod_ok udmabuf0=1M udmabuf3=4M
	exec 7<>/dev/udmabuf0
	assert_errno EAGAIN "$UT" rmmod-try "$MODNAME"
	assert_device udmabuf0
	exec 7>&-
	start_holder /dev/udmabuf0 0 1M 41 --close-fd
	assert_errno EAGAIN "$UT" rmmod-try "$MODNAME"
	stop_holder_intact "$HOLDER_PID"
	assert_errno OK "$UT" rmmod-try "$MODNAME"
	[ ! -e /dev/udmabuf0 ] || fail "/dev/udmabuf0 exists"
	[ ! -e /dev/udmabuf3 ] || fail "/dev/udmabuf3 exists"
	[ ! -e "$CLASS" ] || [ -z "$(ls "$CLASS")" ] || fail "left in $CLASS: $(ls "$CLASS")"
}

# ---------------------------------------------------------------------------
# udmabufN_bind: a parameter buffer bound to a DMA device (QEMU's edu at
# $UDMABUF_EDU, which every lane with PCI has), which then moves its data.

use_edu() {
	EDU=$UDMABUF_EDU
	edu_present "$EDU" || fail "cannot bind the edu at $EDU to uio_pci_generic"
}

@test "module parameters: udmabufN_bind gives a parameter buffer its DMA device; naming no device fails the load with ENODEV, without udmabufN with EINVAL" {
	use_edu
	load_module udmabuf0=64K udmabuf1=64K "udmabuf1_bind=pci/$EDU"
	assert_attr "$CLASS/udmabuf0/dma_device" ""
	assert_attr "$CLASS/udmabuf1/dma_device" "pci/$EDU"
	edu_roundtrip /dev/udmabuf1 0
	edu_roundtrip /dev/udmabuf1 "$(last_chunk 65536)"
	if ! iommu_on; then
		edu_roundtrip /dev/udmabuf0 0
	fi
	unload_module
	assert_errno ENODEV "$UT" insmod-try "$UDMABUF_KO" udmabuf2=64K udmabuf2_bind=pci/0000:00:1f.6
	module_loaded && fail "the module is loaded after a failed insmod"
	assert_errno EINVAL "$UT" insmod-try "$UDMABUF_KO" "udmabuf2_bind=pci/$EDU"
	module_loaded && fail "the module is loaded after a failed insmod"
	load_module
}

@test "the module unloads after a parameter buffer's device went away" {
	use_edu
	load_module udmabuf1=64K "udmabuf1_bind=pci/$EDU"
	echo 1 >"/sys/bus/pci/devices/$EDU/remove"
	run cat "$CLASS/udmabuf1/phys_addr"
	assert_failure
	unload_module
	load_module
}
