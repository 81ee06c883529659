#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Real DMA.  QEMU's edu PCI device, driven from user space by
# udmabuf-edu (tests/helpers/udmabuf-edu.c) the way UIO users drive an FPGA,
# reads and writes buffers at the address the driver reports, and the tests
# check the data through the buffer's mapping.  Every guest has the edu at
# $UDMABUF_EDU (tests/vm/run); amd64 guests have a second one at
# $UDMABUF_EDU_NARROW that keeps edu's own 28-bit DMA mask.
#
# The same file runs without an IOMMU (the stock lanes) and behind one
# (UDMABUF_IOMMU=intel or smmuv3: the --iommu lanes and the debug kernel),
# where only a buffer bound to the edu (dma_device) may reach it.

load helpers/common
load helpers/edu

IO=udmabuf-ioctl

setup() {
	common_setup
	EDU=$UDMABUF_EDU
	edu_present "$EDU" || return 1
}

teardown() {
	edu_present "$EDU" || true
	common_teardown
}

info_get() {
	"$IO" info "$1" | sed -n "s/^$2=//p"
}

# A bound buffer "b" of SIZE bytes with more ATTR=VALUE settings.
bound_buf() {
	make_buf b "$1" dma_device="pci/$EDU" "${@:2}"
}

@test "the edu DMA master answers, and the lane's IOMMU is what it declares" {
	run -0 "$ED" find
	assert_line "$EDU"
	assert_errno OK "$ED" --pci "$EDU" probe
	if iommu_on; then
		[ -e "/sys/bus/pci/devices/$EDU/iommu_group" ] ||
			fail "UDMABUF_IOMMU=$UDMABUF_IOMMU but $EDU has no IOMMU group"
	else
		[ ! -e "/sys/bus/pci/devices/$EDU/iommu_group" ] ||
			fail "no IOMMU declared but $EDU is in an IOMMU group"
	fi
}

# (That features lists it: lifecycle.bats, every attribute of an item.)
@test "dma_device is empty by default, and reads back what was written" {
	new_item b size=64K
	assert_attr "$cfs/b/dma_device" ""
	set_attr "$cfs/b/dma_device" "pci/$EDU"
	assert_attr "$cfs/b/dma_device" "pci/$EDU"
	# A newline at the end is the shell's, not part of the name.
	set_attr "$cfs/b/dma_device" "pci/$EDU"$'\n'
	assert_attr "$cfs/b/dma_device" "pci/$EDU"
	set_attr "$cfs/b/dma_device" $'\n'
	assert_attr "$cfs/b/dma_device" ""
}

@test "dma_device refuses malformed values with EINVAL and absent devices with ENODEV" {
	new_item b size=64K dma_device="pci/$EDU"
	local v
	for v in "/$EDU" pci/ "pci/$EDU/x" "pci/a b" "pci//$EDU" \
		"pci/$(printf 'x%.0s' {1..130})" "$(printf 'pci/\351')"; do
		assert_write EINVAL "$cfs/b/dma_device" "$v"
	done
	# (A bus or PCI device that does not exist: the catalogue's cfs-43, 44.)
	assert_write ENODEV "$cfs/b/dma_device" platform/no-such-device
	assert_attr "$cfs/b/dma_device" "pci/$EDU"
}

@test "a bound buffer names its device in sysfs and GET_INFO, an unbound one does not; its address is the device's" {
	bound_buf 64K
	make_buf u 64K
	assert_attr "$CLASS/b/dma_device" "pci/$EDU"
	assert_attr "$CLASS/u/dma_device" ""
	[ "$(info_get /dev/b dma_bound)" = 1 ] || fail "GET_INFO of b: not bound"
	[ "$(info_get /dev/u dma_bound)" = 0 ] || fail "GET_INFO of u: bound"
	[ "$(info_get /dev/b dma_detached)" = 0 ] || fail "GET_INFO of b: detached"
	# The bound address is the device's: an IOVA behind an IOMMU, the
	# physical address without.
	local dma phys sysfs cfsa
	dma=$(info_get /dev/b dma_addr)
	phys=$(info_get /dev/b phys_addr)
	read -r sysfs <"$CLASS/b/phys_addr"
	read -r cfsa <"$cfs/b/phys_addr"
	[ "$sysfs" = "$dma" ] || fail "sysfs phys_addr $sysfs, GET_INFO dma_addr $dma"
	[ "$cfsa" = "$dma" ] || fail "configfs phys_addr $cfsa, GET_INFO dma_addr $dma"
	if iommu_on; then
		[ "$dma" != "$phys" ] || fail "behind $UDMABUF_IOMMU the DMA address $dma is the physical one"
	else
		[ "$dma" = "$phys" ] || fail "without an IOMMU the DMA address $dma is not the physical $phys"
	fi
}

@test "a bound buffer: in every sync_mode, with and without O_SYNC, the device reads what the CPU wrote and writes what the CPU reads, at both ends" {
	local m
	bound_buf 1M
	for m in 0 1 2 3 4 5 6 7; do
		set_attr "$CLASS/b/sync_mode" "$m"
		edu_roundtrip /dev/b 0
		edu_roundtrip /dev/b "$(last_chunk 1048576)" --sync
	done
	edu_roundtrip /dev/b "$(last_chunk 1048576)"
	# An odd size: the last chunk ends at the buffer's last byte.
	make_buf c $((3 * PAGE_SIZE + 136)) dma_device="pci/$EDU"
	edu_roundtrip /dev/c "$(last_chunk $((3 * PAGE_SIZE + 136)))"
}

# armmp with 2 GiB: a buffer beyond the page allocator's largest block lies
# in highmem, whose cache maintenance maps each page for a moment.
@test "a bound buffer in highmem (armhf): the device reads and writes it at both ends" {
	requires_arch armhf
	make_buf h 16M dma_device="pci/$EDU"
	assert_in_highmem h
	edu_roundtrip /dev/h 0
	edu_roundtrip /dev/h "$(last_chunk $((16 * 1048576)))"
	edu_roundtrip /dev/h $((8 * 1048576 - 2048)) --sync
}

@test "data arrives by DMA: a buffer receives what another one sent through the device; without the transfer it does not" {
	bound_buf 64K
	make_buf c 64K dma_device="pci/$EDU"
	run -0 "$ED" --pci "$EDU" send /dev/b 0 "$CHUNK" 1
	# New data in b, but no DMA: the device still holds seed 1.
	run -0 "$ED" --pci "$EDU" send /dev/b 0 "$CHUNK" 2 --no-dma
	run -2 "$ED" --pci "$EDU" recv /dev/c 0 "$CHUNK" 2
	assert_output --partial MISMATCH
	run -0 "$ED" --pci "$EDU" recv /dev/c 0 "$CHUNK" 1
}

@test "an unbound buffer is reached at its physical address without an IOMMU, and blocked behind one" {
	make_buf u 64K
	if ! iommu_on; then
		edu_roundtrip /dev/u 0
		edu_roundtrip /dev/u "$(last_chunk 65536)" --sync
		return
	fi
	# Behind the IOMMU: the device may read nothing of u.  Give the device
	# known data from a bound buffer first, then let it read u's address.
	bound_buf 64K
	run -0 "$ED" --pci "$EDU" send /dev/b 0 "$CHUNK" 5
	run -0 "$ED" --pci "$EDU" send /dev/u 0 "$CHUNK" 6
	run -2 "$ED" --pci "$EDU" recv /dev/b 0 "$CHUNK" 6
	kernel_log_has 'DMAR: .*fault|arm-smmu-v3 .*event' ||
		fail "no IOMMU fault in the kernel log for the blocked read"
}

# kernel_log_has REGEX: the kernel logged a matching line during this test
# (since LOG_SEQ, if set).
kernel_log_has() {
	"$UT" kmsg-since "${LOG_SEQ:-${KMSG_SEQ:--1}}" | grep -Eq "$1"
}

@test "dma_mask narrows a bound buffer to what the narrow edu reaches (amd64)" {
	requires_arch amd64
	local narrow=$UDMABUF_EDU_NARROW
	edu_present "$narrow"
	new_item n size=1M dma_mask=28 dma_device="pci/$narrow"
	if iommu_on; then
		# The IOVA comes from the device's own 32-bit mask: refused.
		assert_write ERANGE "$cfs/n/enable" 1
		assert_no_device n
		return
	fi
	set_attr "$cfs/n/enable" 1
	local addr
	read -r addr <"$CLASS/n/phys_addr"
	((addr + 1048576 <= 1 << 28)) || fail "a 28-bit buffer at $addr"
	EDU=$narrow edu_roundtrip /dev/n 0
	EDU=$narrow edu_roundtrip /dev/n "$(last_chunk 1048576)"
}

# Wait until a holder's mapping is in place, then remove or unbind the device
# under it and check what the issue of a gone device promises.
assert_detached() {
	assert_errno ENODEV "$UT" read-try "$CLASS/b/phys_addr"
	assert_errno ENODEV "$UT" read-try "$cfs/b/phys_addr"
	run "$IO" sync /dev/b device 0 4096 1
	assert_output ENODEV
	run "$IO" sync /dev/b cpu 0 4096 2
	assert_output ENODEV
	[ "$(info_get /dev/b dma_detached)" = 1 ] || fail "GET_INFO: not detached"
	[ "$(info_get /dev/b dma_addr)" = 0x0000000000000000 ] ||
		fail "GET_INFO: a DMA address for a gone device"
	assert_attr "$CLASS/b/dma_device" "pci/$EDU"
	kernel_log_has "b: DMA device pci/$EDU went away" ||
		fail "no log line about the gone device"
	# DMA-API debugging (debug kernel) lists every live mapping.
	local dump=/sys/kernel/debug/dma-api/dump
	if [ -r "$dump" ] && grep -q "$EDU" "$dump"; then
		fail "mappings left for the gone device: $(grep "$EDU" "$dump")"
	fi
}

# After the device is back: a new bound buffer works.
assert_rebound_works() {
	edu_present "$EDU"
	make_buf b2 64K dma_device="pci/$EDU"
	edu_roundtrip /dev/b2 0
}

@test "removing the bound device, or unbinding its driver, under an open mapping: data kept, address and syncs ENODEV, teardown works" {
	local how dump=/sys/kernel/debug/dma-api/dump
	for how in remove unbind; do
		LOG_SEQ=$("$UT" kmsg-seq)
		bound_buf 1M
		start_holder /dev/b 0 1048576 77
		# Where DMA-API debugging lists the live mappings, ours is there now.
		if [ -r "$dump" ]; then
			grep -q "$EDU" "$dump" || fail "the bound mapping is not in $dump"
		fi
		if [ "$how" = remove ]; then
			echo 1 >"/sys/bus/pci/devices/$EDU/remove"
			[ ! -e "/sys/bus/pci/devices/$EDU" ] || fail "$EDU is still there"
		else
			echo "$EDU" >"$UIO/unbind"
		fi
		assert_detached
		# The CPU side is untouched and still writable.
		run -0 "$UT" mmap-fill /dev/b 4096 4096 78
		run -0 "$UT" mmap-verify /dev/b 4096 4096 78
		run "$UT" pwrite-try /dev/b 0 4096
		assert_output 4096
		# What the holder checks at the end.
		run -0 "$UT" mmap-fill /dev/b 0 8192 77
		stop_holder_intact "$HOLDER_PID"
		set_attr "$cfs/b/enable" 0
		check rmdir "$cfs/b"
		assert_rebound_works
		check rmdir "$cfs/b2"
	done
}

@test "rmdir of a bound buffer in use, then removal of the device, then close" {
	bound_buf 64K
	start_holder /dev/b 0 65536 33
	check rmdir "$cfs/b"
	assert_no_device b
	echo 1 >"/sys/bus/pci/devices/$EDU/remove"
	stop_holder_intact "$HOLDER_PID"
	assert_rebound_works
}

@test "enable fails with ENODEV, leaving nothing, once the configured device is gone" {
	new_item b size=64K dma_device="pci/$EDU"
	echo 1 >"/sys/bus/pci/devices/$EDU/remove"
	assert_write ENODEV "$cfs/b/enable" 1
	assert_no_device b
	assert_attr "$cfs/b/enable" 0
	edu_present "$EDU"
	set_attr "$cfs/b/enable" 1
	edu_roundtrip /dev/b 0
}

@test "a device without a driver is refused with ENXIO when dma_device is written and at enable, leaving nothing; bound to a driver it works" {
	new_item b size=64K dma_device="pci/$EDU"
	new_item c size=64K
	echo "$EDU" >"$UIO/unbind"
	[ ! -e "/sys/bus/pci/devices/$EDU/driver" ] || fail "$EDU still has a driver"
	# Refused when written, the value left as it was ...
	assert_write ENXIO "$cfs/c/dma_device" "pci/$EDU"
	assert_attr "$cfs/c/dma_device" ""
	check rmdir "$cfs/c"
	# ... and at enable, for a value written while the device had one.
	assert_write ENXIO "$cfs/b/enable" 1
	assert_no_device b
	assert_attr "$cfs/b/enable" 0
	run -0 "$UT" kmsg-since "$KMSG_SEQ"
	assert_output --partial "DMA device pci/$EDU has no driver"
	check rmdir "$cfs/b"
	# The parameter path refuses it the same way.
	unload_module
	assert_errno ENXIO "$UT" insmod-try "$UDMABUF_KO" udmabuf1=64K "udmabuf1_bind=pci/$EDU"
	load_module
	# With a driver again, the same configuration works.
	edu_present "$EDU"
	new_item b size=64K dma_device="pci/$EDU"
	set_attr "$cfs/b/enable" 1
	edu_roundtrip /dev/b 0
}

