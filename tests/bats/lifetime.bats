#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Lifetime: enable=0, rmdir and rmmod while a process keeps the buffer
# open or mapped; stale device nodes.

# Variables such as cfs, CLASS and UT come from helpers/common.bash.
# shellcheck disable=SC2154
load helpers/common

bats_require_minimum_version 1.5.0

SZ=$((1024 * 1024))

setup() {
	common_setup
	make_buf tbuf "$SZ"
}
teardown() { common_teardown; }

@test "enable=0 while a file is open fails with EBUSY" {
	exec 7<>/dev/tbuf
	assert_write EBUSY "$cfs/tbuf/enable" 0
	assert_attr "$cfs/tbuf/enable" 1
	assert_device tbuf
	exec 7>&-
	assert_write OK "$cfs/tbuf/enable" 0
	assert_no_device tbuf
}

@test "enable=0 while mapped fails with EBUSY and the data stays intact" {
	start_holder /dev/tbuf 0 "$SZ" 1 --close-fd
	assert_write EBUSY "$cfs/tbuf/enable" 0
	assert_attr "$cfs/tbuf/enable" 1
	assert_device tbuf
	run "$UT" read-verify /dev/tbuf 0 "$SZ" 1
	assert_success
	stop_holder "$HOLDER_PID"
	assert_success
	assert_output intact
	assert_write OK "$cfs/tbuf/enable" 0
}

@test "enable=0 while mapped with O_SYNC fails with EBUSY" {
	start_holder /dev/tbuf 0 "$SZ" 2 --sync --close-fd
	assert_write EBUSY "$cfs/tbuf/enable" 0
	stop_holder "$HOLDER_PID"
	assert_success
	assert_output intact
}

@test "rmdir while mapped succeeds and removes the device at once" {
	start_holder /dev/tbuf 0 "$SZ" 3
	assert_errno OK "$UT" rmdir-try "$cfs/tbuf"
	[ ! -e "$cfs/tbuf" ] || fail "$cfs/tbuf still exists"
	assert_no_device tbuf
	stop_holder "$HOLDER_PID"
	assert_success
	assert_output intact
}

@test "after rmdir while mapped, a new buffer with the same name does not touch the holder's memory" {
	local minor
	minor=$(minor_of "$(cat "$cfs/tbuf/dev")")
	start_holder /dev/tbuf 0 "$SZ" 4 --close-fd
	check rmdir "$cfs/tbuf"
	make_buf tbuf "$SZ"
	assert_equal "$(minor_of "$(cat "$cfs/tbuf/dev")")" "$minor"
	run "$UT" mmap-fill /dev/tbuf 0 "$SZ" 5
	assert_success
	run "$UT" write-fill /dev/tbuf 0 "$SZ" 6
	assert_success
	run "$UT" mmap-verify /dev/tbuf 0 "$SZ" 6
	assert_success
	stop_holder "$HOLDER_PID"
	assert_success
	assert_output intact
}

@test "after rmdir while mapped, several new buffers do not touch the holder's memory" {
	start_holder /dev/tbuf 0 "$SZ" 7 --sync
	check rmdir "$cfs/tbuf"
	local i
	for i in 1 2 3 4; do
		make_buf "new$i" "$SZ"
		run "$UT" mmap-fill "/dev/new$i" 0 "$SZ" "$((100 + i))"
		assert_success
	done
	stop_holder "$HOLDER_PID"
	assert_success
	assert_output intact
}

@test "after rmdir while open, the fd keeps reading the same memory" {
	start_holder /dev/tbuf 0 "$SZ" 8 --no-map
	check rmdir "$cfs/tbuf"
	assert_no_device tbuf
	make_buf other "$SZ"
	check "$UT" write-fill /dev/other 0 "$SZ" 9
	stop_holder "$HOLDER_PID"
	assert_success
	assert_output intact
}

@test "a holder killed after rmdir leaves no trace" {
	start_holder /dev/tbuf 0 "$SZ" 10
	check rmdir "$cfs/tbuf"
	kill -KILL "$HOLDER_PID"
	wait "$HOLDER_PID" || true
	assert_errno OK "$UT" rmmod-try "$MODNAME"
	assert_no_kernel_warnings
}

@test "rmmod is refused while a disabled configfs item exists" {
	new_item idle size=4096
	assert_errno EAGAIN "$UT" rmmod-try "$MODNAME"
	run module_loaded
	assert_success
}

@test "rmmod is refused while an enabled configfs item exists" {
	assert_errno EAGAIN "$UT" rmmod-try "$MODNAME"
	assert_device tbuf
}

@test "rmmod is refused while an fd of a removed buffer is open" {
	start_holder /dev/tbuf 0 "$SZ" 11 --no-map
	check rmdir "$cfs/tbuf"
	assert_errno EAGAIN "$UT" rmmod-try "$MODNAME"
	stop_holder "$HOLDER_PID"
	assert_success
	assert_output intact
	assert_errno OK "$UT" rmmod-try "$MODNAME"
}

@test "rmmod is refused while a mapping of a removed buffer exists" {
	start_holder /dev/tbuf 0 "$SZ" 12 --close-fd
	check rmdir "$cfs/tbuf"
	assert_errno EAGAIN "$UT" rmmod-try "$MODNAME"
	stop_holder "$HOLDER_PID"
	assert_success
	assert_output intact
	assert_errno OK "$UT" rmmod-try "$MODNAME"
}

@test "rmmod succeeds once every item and user is gone" {
	check rmdir "$cfs/tbuf"
	assert_errno OK "$UT" rmmod-try "$MODNAME"
	[ ! -d "$cfs" ] || fail "$cfs still exists"
	[ ! -e /sys/class/udmabuf ] || [ -z "$(ls /sys/class/udmabuf)" ] ||
		fail "class devices left: $(ls /sys/class/udmabuf)"
}

# rmmod_then_late_releases NAME...: rmmod, then give what is released late
# the time to run with the module gone: under CONFIG_DEBUG_KOBJECT_RELEASE
# every kobject is released 1 to 4 s after its last put, and module code or
# memory used then would fault or be reported.  On that kernel, the devices
# of buffers NAME... must have been among the late releases.
rmmod_then_late_releases() {
	local name
	assert_errno OK "$UT" rmmod-try "$MODNAME"
	sleep 5
	assert_no_kernel_warnings
	[ "${UDMABUF_DEBUG_VARIANT:-}" = kobject-release ] || return 0
	run -0 "$UT" kmsg-since "$KMSG_SEQ"
	for name in "$@"; do
		assert_output --partial "kobject: '$name' ("
	done
	assert_output --partial "(delayed "
}

@test "rmmod right after the last buffers went: what is released late runs cleanly after it" {
	# Buffers gone every way: a file closed after rmdir, a dma-buf closed,
	# enable=0 then rmdir.
	make_buf other 64K
	exec 7<>/dev/tbuf
	check rmdir "$cfs/tbuf"
	exec 7>&-
	run -0 udmabuf-zc export /dev/other 0 0 rdwr
	assert_output "OK fd-cloexec=0 mode=rdwr"
	set_attr "$cfs/other/enable" 0
	check rmdir "$cfs/other"
	rmmod_then_late_releases tbuf other
}

@test "rmmod with parameter buffers, one just closed: what is released late runs cleanly after it" {
	check rmdir "$cfs/tbuf"
	unload_module
	assert_errno OK "$UT" insmod-try "$UDMABUF_KO" udmabuf0=64K udmabuf1=1M
	exec 7<>/dev/udmabuf1
	exec 7>&-
	# The module's exit destroys them: their last references go in rmmod.
	rmmod_then_late_releases udmabuf0 udmabuf1
}

@test "a stale node of a removed buffer fails to open with ENODEV" {
	local dev
	dev=$(cat "$cfs/tbuf/dev")
	check mknod "$BATS_TEST_TMPDIR/stale" c "${dev%%:*}" "${dev#*:}"
	assert_errno OK "$UT" open-try "$BATS_TEST_TMPDIR/stale"
	check rmdir "$cfs/tbuf"
	assert_errno ENODEV "$UT" open-try "$BATS_TEST_TMPDIR/stale"
}

@test "a stale node of a disabled buffer fails to open with ENODEV" {
	local dev
	dev=$(cat "$cfs/tbuf/dev")
	check mknod "$BATS_TEST_TMPDIR/stale" c "${dev%%:*}" "${dev#*:}"
	set_attr "$cfs/tbuf/enable" 0
	assert_errno ENODEV "$UT" open-try "$BATS_TEST_TMPDIR/stale"
}

@test "a stale node reaches the new buffer that took its minor" {
	local dev
	dev=$(cat "$cfs/tbuf/dev")
	check mknod "$BATS_TEST_TMPDIR/stale" c "${dev%%:*}" "${dev#*:}"
	check rmdir "$cfs/tbuf"
	make_buf again 8192 minor="${dev#*:}"
	check "$UT" write-fill /dev/again 0 8192 13
	run "$UT" read-verify "$BATS_TEST_TMPDIR/stale" 0 8192 13
	assert_success
}
