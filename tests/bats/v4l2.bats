#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# A device that writes into the buffer through its dma-bufs: vivid, the
# kernel's virtual video driver, captures with V4L2_MEMORY_DMABUF into
# ranges of the buffer exported with UDMABUF_CFS_IOC_EXPORT_DMABUF, and the
# frames are checked through the buffer's own mapping (udmabuf-v4l2).
# vivid's two memory back ends take the two paths of the exporter: the
# default (vmalloc) writes through the dma-buf's vmap, dma-contig
# (allocators=1) also attaches vivid's device and maps the ranges for it.

load helpers/common

V4L2=udmabuf-v4l2
SZ=$((1024 * 1024))

setup() {
	common_setup
	make_buf tbuf "$SZ"
}

# need_vivid ALLOCATOR: vivid loaded once, with two instances and only
# their video capture nodes: instance 0 with the vmalloc back end, 1 with
# dma-contig (both on vivid's one platform device, vivid.0); the captures
# use the instance of ALLOCATOR (0 or 1).  vivid is never unloaded: its
# platform device is static in the module, and under the arm64 debug
# kernel's DEBUG_KOBJECT_RELEASE its release runs 1-4 s after the
# unregister, when the module's memory is already freed (ODEBUG: "free
# active object ... kobject_delayed_cleanup", then captures that time out)
# -- a hazard of vivid's, not of the exporter under test.
need_vivid() {
	local alloc
	if [ ! -d /sys/module/vivid ]; then
		check modprobe vivid n_devs=2 node_types=0x1,0x1 allocators=0,1 ||
			return 1
	fi
	# The parameter reads as all of vivid's 64 instances: "0,1,0,0,...".
	alloc=$(cat /sys/module/vivid/parameters/allocators)
	[[ $alloc == 0,1,* ]] || fail "vivid is loaded with allocators=$alloc, not 0,1"
	export UDMABUF_VIVID=$1
}

# capture DEV NBUF FRAMES [CMD]: udmabuf-v4l2 capture prints OK and exits 0;
# else fail with what it said on both streams (stderr names the frame).
capture() {
	run --separate-stderr "$V4L2" capture "$@"
	[ "$status" -eq 0 ] && [ "$output" = OK ] ||
		fail "$(printf 'udmabuf-v4l2 capture %s\nstatus: %s\nstdout: %s\nstderr: %s' \
			"$*" "$status" "$output" "$stderr")"
}

# A buffer's memory, once freed, is taken by new buffers: make several and
# fill them, so that frames landing in freed memory would be seen there.
REUSE='for i in 1 2 3 4; do mkdir '"$cfs"'/re$i && echo '"$SZ"' >'"$cfs"'/re$i/size && echo 1 >'"$cfs"'/re$i/enable && udmabuf-test write-fill /dev/re$i 0 '"$SZ"' 77 >/dev/null || exit 1; done'

# Nothing but the queue's dma-bufs holds the memory: the device is gone
# and the module cannot go.
HELD='test ! -e /dev/tbuf && test ! -e '"$CLASS"'/tbuf && test "$(udmabuf-test rmmod-try '"$MODNAME"')" != OK'

@test "vivid captures into the buffer's dma-bufs (dma-contig: mapped for vivid's device)" {
	need_vivid 1
	# Checked while streaming: debugfs lists vivid's attachments.
	capture /dev/tbuf 4 12 \
		"test \$(grep -c '^[[:space:]]*vivid\\.0\$' /sys/kernel/debug/dma_buf/bufinfo) -ge 4"
}

@test "rmdir while vivid holds the dma-bufs: frames keep landing, then the queue lets go (vmalloc, dma-contig)" {
	local alloc
	for alloc in 0 1; do
		[ -d "$cfs/tbuf" ] || make_buf tbuf "$SZ"
		need_vivid "$alloc"
		capture /dev/tbuf 4 10 "rmdir $cfs/tbuf && $HELD && $REUSE"
		assert_no_device tbuf
		# The queue released the dma-bufs: nothing but the new buffers
		# holds the module now.
		remove_all_items || fail "allocators=$alloc: the new buffers could not be removed"
		unload_module || fail "allocators=$alloc: the module is still held"
		load_module
	done
}
