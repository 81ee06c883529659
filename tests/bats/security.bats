#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# What an unprivileged user (nobody) can and cannot do: nothing with a
# buffer it was not given; with a buffer given to it through the mode
# attribute, use it (open, mmap, read, write, sync ioctls) but still not
# see the physical address in sysfs or configfs, reconfigure, disable or
# delete it.  With a file root opened and passed down, what the driver
# itself allows is what the file's access mode allows, whatever the node's
# permissions: the tests of the last part reach the driver's read, write,
# mmap and ioctl, where those before them stop at open(2).  Every refusal is checked for its exact errno: EACCES where
# file permissions refuse, EPERM where a capability is missing or only the
# owner may act.

load helpers/common

IO=udmabuf-ioctl
ZC=udmabuf-zc
SZ=65536
ITEM_ATTRS="size minor device_name sync_mode dma_mask mode enable"
SYNC_ATTRS="sync_offset sync_size sync_direction sync_mode"

# nobody_cannot_write ERRNO FILE VALUE...: every VALUE written by nobody
# to FILE is refused with ERRNO.
nobody_cannot_write() {
	local errno=$1 file=$2 v
	shift 2
	for v in "$@"; do
		user_gets nobody "$errno" "$UT" write-attr "$file" "$v"
	done
}

# nobody_cannot_configure NAME: no attribute of item NAME nor of its class
# device (if enabled) can be written by nobody, even with valid values;
# nor can nobody trigger a sync through sysfs or remove the item.
nobody_cannot_configure() {
	local name=$1 a
	for a in $ITEM_ATTRS; do
		nobody_cannot_write EACCES "$cfs/$name/$a" "$(valid_value "$a")"
	done
	if [ "$(cat "$cfs/$name/enable")" = 1 ]; then
		for a in $SYNC_ATTRS; do
			nobody_cannot_write EACCES "$CLASS/$name/$a" "$(valid_value "$a")"
		done
		nobody_cannot_write EACCES "$CLASS/$name/sync_for_cpu" 1 "0 0 2"
		nobody_cannot_write EACCES "$CLASS/$name/sync_for_device" 1 "0 0 1"
	else
		nobody_cannot_write EACCES "$cfs/$name/enable" 1
	fi
	user_gets nobody EACCES "$UT" rmdir-try "$cfs/$name"
}

# nobody_cannot_see_phys NAME: phys_addr in configfs and sysfs is root's.
nobody_cannot_see_phys() {
	user_gets nobody EACCES "$UT" read-try "$cfs/$1/phys_addr"
	user_gets nobody EACCES "$UT" read-try "$CLASS/$1/phys_addr"
	# ... while the other attributes are readable: the refusal is specific.
	user_gets nobody OK "$UT" read-try "$cfs/$1/size"
	user_gets nobody OK "$UT" read-try "$CLASS/$1/size"
}

# ---------------------------------------------------------------------------
# Nothing given

# udmabufctl's create is a mkdir in configfs, refused (EACCES).
@test "nobody cannot create or delete a buffer with udmabufctl, which says it needs root" {
	make_buf tbuf "$SZ"
	local before
	before=$(state_snapshot)
	run -1 --separate-stderr as_nobody udmabufctl create mine --size 4K
	assert_equal "$stderr" "udmabufctl: mine: create: Permission denied
udmabufctl: hint: this needs root"
	run -1 --separate-stderr as_nobody udmabufctl delete tbuf
	assert_equal "$stderr" "udmabufctl: tbuf: delete: Permission denied
udmabufctl: hint: this needs root"
	assert_state_unchanged "$before"
}

@test "nobody cannot set any attribute of, enable or remove a disabled item (EACCES); the node of a buffer of the default mode refuses nobody every way in: EACCES at open(2)" {
	local before acc
	new_item item size="$SZ"
	before=$(state_snapshot)
	nobody_cannot_configure item
	assert_state_unchanged "$before"
	make_buf tbuf "$SZ"
	run stat -c '%a %u:%g' /dev/tbuf
	assert_output '600 0:0'
	check "$UT" write-fill /dev/tbuf 0 "$SZ" 6 >/dev/null
	before=$(state_snapshot)
	for acc in rdonly wronly rdwr; do
		user_gets nobody EACCES "$UT" open-try /dev/tbuf "$acc"
	done
	user_gets nobody EACCES "$UT" mmap-try /dev/tbuf 0 "$SZ"
	user_gets nobody EACCES "$UT" pread-try /dev/tbuf 0 16
	user_gets nobody EACCES "$UT" pwrite-try /dev/tbuf 0 16
	user_gets nobody EACCES "$IO" info /dev/tbuf
	user_gets nobody EACCES "$IO" sync /dev/tbuf device 0 0 0
	assert_state_unchanged "$before"
}

@test "nobody cannot load or unload the module: EPERM" {
	user_gets nobody EPERM "$UT" rmmod-try "$MODNAME"
	module_loaded || fail "the module was unloaded"
	unload_module
	user_gets nobody EPERM "$UT" insmod-try "$UDMABUF_KO"
	run module_loaded
	assert_failure
}

@test "nobody can open, read, write, map, sync and export a buffer given with mode 0666, and GET_INFO gives it the DMA address; not chmod its node (EPERM)" {
	make_buf tbuf "$SZ" mode=0666
	local acc
	for acc in rdonly wronly rdwr; do
		user_gets nobody OK "$UT" open-try /dev/tbuf "$acc"
	done
	user_gets nobody OK "$UT" write-fill /dev/tbuf 100 5000 21
	user_gets nobody OK "$UT" read-verify /dev/tbuf 100 5000 21
	# Root sees what nobody wrote and mapped: it is the buffer, not a copy.
	run -0 "$UT" read-verify /dev/tbuf 100 5000 21
	user_gets nobody OK "$UT" mmap-fill /dev/tbuf 0 "$SZ" 22
	run -0 "$UT" read-verify /dev/tbuf 0 "$SZ" 22
	check "$UT" write-fill /dev/tbuf 0 "$SZ" 23 >/dev/null
	user_gets nobody OK "$UT" mmap-verify /dev/tbuf 0 "$SZ" 23
	user_gets nobody OK "$IO" sync /dev/tbuf device 0 0 1
	assert_attr "$CLASS/tbuf/sync_owner" 1
	user_gets nobody OK "$IO" sync /dev/tbuf cpu 4096 4096 2
	assert_attr "$CLASS/tbuf/sync_owner" 0
	run -0 as_nobody "$ZC" export /dev/tbuf 0 0 rdwr
	assert_output "OK fd-cloexec=0 mode=rdwr"
	# Only the owner (root) may change the node's permissions.
	user_gets nobody EPERM "$UT" chmod-try /dev/tbuf 0600
	assert_equal "$(stat -c %a /dev/tbuf)" 666
	# The contract: the ioctl gives the address to whoever may open the
	# device, while the sysfs and configfs attributes are root's.
	run -0 as_nobody "$IO" info /dev/tbuf
	assert_line "dma_addr=$(cat "$CLASS/tbuf/phys_addr")"
	assert_line "size=$SZ"
}

# ---------------------------------------------------------------------------
# A file root opened, passed to nobody (a buffer of the default mode 0600):
# these reach the driver, not only open(2).

@test "nobody holding a read-only file root passed reads, maps read-only, syncs and gets the address, but cannot write it, map it writable or export it writable" {
	make_buf tbuf "$SZ"
	check "$UT" write-fill /dev/tbuf 0 "$SZ" 31 >/dev/null
	local fd before
	exec {fd}</dev/tbuf
	# The file did reach nobody (so EBADF below is the write's, not fd:N's).
	user_gets nobody OK "$UT" read-verify "fd:$fd" 0 "$SZ" 31
	user_gets nobody OK "$UT" mmap-try "fd:$fd" 0 "$SZ" shared rdonly r
	run -0 as_nobody "$IO" info "fd:$fd"
	assert_line "dma_addr=$(cat "$CLASS/tbuf/phys_addr")"
	assert_line "size=$SZ"
	# A reader must see what the device wrote: syncs need no write access.
	user_gets nobody OK "$IO" sync "fd:$fd" cpu 0 0 2
	run -0 as_nobody env ZC_RDONLY=1 "$ZC" export "fd:$fd" 0 0 rdonly
	assert_output "OK fd-cloexec=0 mode=rdonly"
	before=$(state_snapshot)
	user_gets nobody EBADF "$UT" pwrite-try "fd:$fd" 0 16
	user_gets nobody EACCES "$UT" mmap-try "fd:$fd" 0 "$SZ" shared rdonly rw
	user_gets nobody EACCES "$UT" mmap-try "fd:$fd" 0 "$SZ" shared rdonly w
	# The driver's own check: a writable dma-buf needs a writable file.
	assert_errno EACCES as_nobody env ZC_RDONLY=1 "$ZC" export "fd:$fd" 0 0 rdwr
	# Holding the file gives nothing in sysfs or configfs.
	nobody_cannot_see_phys tbuf
	nobody_cannot_configure tbuf
	# (The file still open: users reads as when the snapshot was taken.)
	assert_state_unchanged "$before"
	exec {fd}<&-
}

