#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# VFIO, as PCIe FPGA user-space drivers use it (XDMA, DFL, VILLASnode): the
# edu bound to vfio-pci, its IOMMU group in a type1 container, and the
# buffer's mapping registered with VFIO_IOMMU_MAP_DMA at an IOVA of the
# test's choosing, which pins its pages for as long as it is registered
# (FOLL_LONGTERM).  edu then DMAs there both ways, and the data is checked
# through the buffer's own mapping (udmabuf-edu --vfio).  The page
# allocator's memory and contiguous ranges may be pinned so; CMA's may not
# (mm must first migrate a page out of the area, which one CMA handed out
# cannot do) and is refused at once.  For the lanes with an IOMMU: VT-d on
# amd64, SMMUv3 on arm64.

load helpers/common
load helpers/edu

# 4 GiB: clear of arm64 virt's PCI windows, which are reserved IOVA ranges.
IOVA=$((1 << 32))

setup() {
	common_setup
	EDU=$UDMABUF_EDU
	[ "$UDMABUF_IOMMU" != none ] || fail "vfio.bats runs on the lanes with an IOMMU"
	edu_present "$EDU" || return 1
	vfio_bind "$EDU"
}

teardown() {
	vfio_unbind "$EDU"
	edu_present "$EDU" || true
	common_teardown
}

# vfio_bind BDF: the device on vfio-pci (driver_override).  type1 is told to
# allow interrupts the IOMMU does not isolate: QEMU's intel-iommu without
# interrupt remapping and virt's GICv2m isolate none, and edu raises none
# here.
vfio_bind() {
	local d=/sys/bus/pci/devices/$1 drv
	if [ ! -d /sys/module/vfio_iommu_type1 ]; then
		check modprobe vfio_iommu_type1 allow_unsafe_interrupts=1 || return 1
	fi
	echo Y >/sys/module/vfio_iommu_type1/parameters/allow_unsafe_interrupts
	[ -d /sys/bus/pci/drivers/vfio-pci ] || check modprobe vfio-pci || return 1
	echo vfio-pci >"$d/driver_override"
	if [ -e "$d/driver" ]; then
		echo "$1" >"$d/driver/unbind"
	fi
	echo "$1" >/sys/bus/pci/drivers_probe
	drv=$(readlink "$d/driver")
	[ "${drv##*/}" = vfio-pci ] || fail "$1 is bound to '${drv##*/}', not vfio-pci"
}

# vfio_unbind BDF: off vfio-pci, back to what binds it by default.
vfio_unbind() {
	local d=/sys/bus/pci/devices/$1
	[ -e "$d" ] || return 0
	echo >"$d/driver_override"
	if [ -e "$d/driver" ]; then
		echo "$1" >"$d/driver/unbind"
	fi
	return 0
}

# vfio_roundtrip DEV OFFSET: edu reads the range at IOVA + OFFSET and writes
# it back, the buffer registered with VFIO for the while.
vfio_roundtrip() {
	run timeout -s KILL 60 "$ED" --pci "$EDU" --vfio "$IOVA" roundtrip "$1" "$2" "$CHUNK" "$(($2 + 11))"
	[ "$status" -ne 137 ] || fail "udmabuf-edu --vfio on $1 did not return in 60 s"
	assert_success
	assert_output OK
}

@test "VFIO: a page-allocator buffer registered with VFIO_IOMMU_MAP_DMA takes edu's DMA at the chosen IOVA, both ways" {
	make_buf v 1M
	assert_attr "$CLASS/v/allocator" page
	vfio_roundtrip /dev/v 0
	vfio_roundtrip /dev/v "$(last_chunk 1048576)"
}

@test "VFIO: a 16 MiB contiguous range, registered and pinned for good, takes edu's DMA at both ends" {
	make_buf r 16M allocator=contig dma_mask=64
	vfio_roundtrip /dev/r 0
	vfio_roundtrip /dev/r "$(last_chunk 16777216)"
	# The default order gives such a buffer the same memory.
	make_buf d 16M dma_mask=64
	assert_attr "$CLASS/d/allocator" contig
	vfio_roundtrip /dev/d 8388608
}

@test "VFIO: a CMA buffer, mapped by PFN, is refused at once with EFAULT (its pin would spin)" {
	local cma
	cma=$(meminfo_kib CmaTotal)
	(( ${cma:-0} > 0 )) || skip "this kernel has no CMA area"
	make_buf c 16M allocator=cma dma_mask=64
	assert_attr "$CLASS/c/allocator" cma
	run --separate-stderr timeout -s KILL 60 "$ED" --pci "$EDU" --vfio "$IOVA" roundtrip /dev/c 0 "$CHUNK" 3
	[ "$status" -ne 137 ] || fail "VFIO_IOMMU_MAP_DMA of a CMA buffer did not return in 60 s"
	assert_failure 1
	assert_output EFAULT
	[[ $stderr == *"VFIO_IOMMU_MAP_DMA of 4096 bytes at IOVA 0x100000000: EFAULT"* ]] ||
		fail "not refused by VFIO_IOMMU_MAP_DMA: $stderr"
	# The device is still usable for a buffer outside CMA.
	make_buf v 1M
	vfio_roundtrip /dev/v 0
}
