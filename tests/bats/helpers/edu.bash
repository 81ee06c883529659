# SPDX-License-Identifier: GPL-2.0
# QEMU's edu PCI device as a DMA master, for the tests that need real DMA
# (dma.bats, contig.bats, params.bats): udmabuf-edu (tests/helpers/udmabuf-edu.c) drives
# it from user space.  Tests set EDU to the device's PCI address.
#
# edu's transfers are at most 4032 bytes here: QEMU 7.2 stops the whole
# guest for one that reaches the end of edu's 4 KiB buffer.

ED=udmabuf-edu
UIO=/sys/bus/pci/drivers/uio_pci_generic
CHUNK=4032

# edu_present BDF: make sure the device is there (rescan after a test removed
# it) and bound to uio_pci_generic, as UIO users have it; on arm64 a PCI
# device joins its IOMMU group only when a driver binds it.
edu_present() {
	local d=/sys/bus/pci/devices/$1
	if [ ! -e "$d" ]; then
		echo 1 >/sys/bus/pci/rescan || return 1
	fi
	[ -e "$d" ] || { echo "# $1 did not come back after a rescan" >&2; return 1; }
	[ -e "$d/driver" ] && return 0
	if [ ! -e /run/udmabuf-edu-new-id ]; then
		# Binds every edu without a driver.
		echo "1234 11e8" >"$UIO/new_id" || return 1
		: >/run/udmabuf-edu-new-id
	fi
	[ -e "$d/driver" ] || echo "$1" >"$UIO/bind" || return 1
}

# edu_roundtrip DEV OFFSET [helper options]: the device reads the range the
# CPU filled and writes it back over other data.
edu_roundtrip() {
	local dev=$1 off=$2
	shift 2
	run -0 "$ED" --pci "$EDU" roundtrip "$dev" "$off" "$CHUNK" "$((off + 17))" "$@"
	assert_output OK
}

# iommu_on: the lane's guest translates DMA (UDMABUF_IOMMU intel or smmuv3,
# tests/vm/run --iommu): a device reaches only buffers bound to it.
iommu_on() {
	[ "$UDMABUF_IOMMU" != none ]
}

# The last 8-byte aligned offset that fits a whole chunk into SIZE bytes.
last_chunk() {
	echo $((($1 - CHUNK) / 8 * 8))
}

