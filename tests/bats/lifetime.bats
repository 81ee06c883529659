#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Lifetime: enable=0, rmdir and rmmod while a process keeps the buffer
# open or mapped; stale device nodes.

load helpers/common

SZ=$((1024 * 1024))

setup() {
	common_setup
	make_buf tbuf "$SZ"
}

@test "enable=0 while a file is open, or mapped with O_SYNC or without, fails with EBUSY and the data stays intact" {
	local sync
	exec 7<>/dev/tbuf
	assert_write EBUSY "$cfs/tbuf/enable" 0
	assert_attr "$cfs/tbuf/enable" 1
	assert_device tbuf
	exec 7>&-
	assert_write OK "$cfs/tbuf/enable" 0
	assert_no_device tbuf
	set_attr "$cfs/tbuf/enable" 1
	for sync in "" --sync; do
		start_holder /dev/tbuf 0 "$SZ" 1 ${sync:+"$sync"} --close-fd
		assert_write EBUSY "$cfs/tbuf/enable" 0
		assert_attr "$cfs/tbuf/enable" 1
		assert_device tbuf
		run -0 "$UT" read-verify /dev/tbuf 0 "$SZ" 1
		stop_holder_intact "$HOLDER_PID"
	done
	assert_write OK "$cfs/tbuf/enable" 0
}

@test "rmdir while mapped, mapped with O_SYNC or open succeeds and removes the device at once; new buffers, one with the same name and minor, do not touch the holder's memory" {
	local how i minor
	minor=$(minor_of "$(cat "$cfs/tbuf/dev")")
	for how in --close-fd --sync --no-map; do
		# The setup's or the last round's buffers go first.
		remove_all_items
		make_buf tbuf "$SZ"
		start_holder /dev/tbuf 0 "$SZ" 7 "$how"
		assert_errno OK "$UT" rmdir-try "$cfs/tbuf"
		[ ! -e "$cfs/tbuf" ] || fail "$cfs/tbuf still exists"
		assert_no_device tbuf
		make_buf tbuf "$SZ"
		assert_equal "$(minor_of "$(cat "$cfs/tbuf/dev")")" "$minor"
		run -0 "$UT" mmap-fill /dev/tbuf 0 "$SZ" 5
		run -0 "$UT" write-fill /dev/tbuf 0 "$SZ" 6
		run -0 "$UT" mmap-verify /dev/tbuf 0 "$SZ" 6
		for i in 1 2 3; do
			make_buf "new$i" "$SZ"
			run -0 "$UT" mmap-fill "/dev/new$i" 0 "$SZ" "$((100 + i))"
		done
		stop_holder_intact "$HOLDER_PID"
	done
}

@test "rmmod is refused while an enabled or a disabled configfs item, or an fd or a mapping of a removed buffer, is left, and works once it goes, leaving nothing" {
	local how
	assert_errno EAGAIN "$UT" rmmod-try "$MODNAME"
	assert_device tbuf
	check rmdir "$cfs/tbuf"
	new_item idle size=4096
	assert_errno EAGAIN "$UT" rmmod-try "$MODNAME"
	check rmdir "$cfs/idle"
	for how in --no-map --close-fd; do
		make_buf held "$SZ"
		start_holder /dev/held 0 "$SZ" 11 "$how"
		check rmdir "$cfs/held"
		assert_errno EAGAIN "$UT" rmmod-try "$MODNAME"
		stop_holder_intact "$HOLDER_PID"
		assert_errno OK "$UT" rmmod-try "$MODNAME"
		[ ! -d "$cfs" ] || fail "$cfs still exists"
		[ ! -e "$CLASS" ] || [ -z "$(ls "$CLASS")" ] ||
			fail "class devices left: $(ls "$CLASS")"
		load_module
	done
}

# The lowest and highest address of the module's sections, as two 16-digit
# hex numbers, the second plus 1 MiB: its static memory lies in between.
module_memory_range() {
	local f a lo hi top=$((1 << 63))
	for f in "/sys/module/$MODNAME/sections/".*; do
		[ -f "$f" ] || continue
		read -r a <"$f" || return 1
		a=$((a))
		# Unsigned comparison of 64-bit addresses in bash's signed
		# arithmetic: flip the top bit.
		if [ -z "${lo:-}" ] || (( (a ^ top) < (lo ^ top) )); then
			lo=$a
		fi
		if [ -z "${hi:-}" ] || (( (a ^ top) > (hi ^ top) )); then
			hi=$a
		fi
	done
	[ -n "${lo:-}" ] || return 1
	printf '%016x %016x\n' "$lo" "$((hi + (1 << 20)))"
}

# late_release_problems LO HI NAME...: read "USEC MESSAGE" kernel log
# lines (kmsg-since -t) of a kernel with CONFIG_DEBUG_KOBJECT_RELEASE booted
# with no_hash_pointers, and print what was released wrongly:
# - a kobject in the module's static memory [LO, HI] (other than the module's
#   own, which the module loader waits for): its release may run with the
#   module gone, and so may its memory be;
# - the device of a buffer NAME whose delayed release was due only after the
#   module's exit had logged "unloaded": its release callback is module code,
#   which the exit must outlast.
# A release runs DELAY jiffies after its line at the earliest, give or take
# the jiffy then under way; HZ is the smallest delay seen (the kernel delays
# by 1 to 4 * HZ), which errs towards earlier.
late_release_problems() {
	local lo=$1 hi=$2
	shift 2
	awk -v mod="$MODNAME" -v lo="$lo" -v hi="$hi" -v names=" $* " '
	/ kobject: .*: kobject_release, parent .* \(delayed [0-9]+\)$/ {
		n++
		us[n] = $1
		match($0, /kobject: \047[^\047]*\047/)
		name[n] = substr($0, RSTART + 10, RLENGTH - 11)
		match($0, /\([0-9a-f]+\): kobject_release/)
		addr[n] = substr($0, RSTART + 1, RLENGTH - 19)
		match($0, /\(delayed [0-9]+\)$/)
		delay[n] = substr($0, RSTART + 9, RLENGTH - 10) + 0
		if (!hz || delay[n] < hz)
			hz = delay[n]
	}
	index($0, " " mod ": unloaded") { gone = $1 }
	END {
		if (!n || !gone) {
			printf "no delayed kobject release (%d) or no \"unloaded\" line\n", n
			exit
		}
		for (i = 1; i <= n; i++) {
			if (length(addr[i]) != 16)
				printf "%s: address %s is not a bare 64-bit pointer\n", name[i], addr[i]
			else if (name[i] != mod && addr[i] "" >= lo "" && addr[i] "" <= hi "")
				printf "kobject \047%s\047 at %s lies in the module (%s-%s)\n", name[i], addr[i], lo, hi
			due = us[i] + (delay[i] - 1) / hz * 1000000
			if (index(names, " " name[i] " ") && due >= gone)
				printf "%s: released at %.6f s, the module unloaded at %.6f s\n", name[i], due / 1e6, gone / 1e6
		}
	}'
}

# rmmod_then_late_releases NAME...: rmmod, then give what is released late
# the time to run with the module gone: under CONFIG_DEBUG_KOBJECT_RELEASE
# every kobject is released 1 to 4 s after its last put, and module code or
# memory used then would fault or be reported.  On that kernel, nothing
# released late may be module memory or call module code after the unload:
# the devices of buffers NAME... must have been among the late releases, and
# the module's exit must have waited for them.
rmmod_then_late_releases() {
	local name range
	range=$(module_memory_range) || fail "cannot read $MODNAME's sections"
	assert_errno OK "$UT" rmmod-try "$MODNAME"
	sleep 5
	assert_no_kernel_warnings
	[ -n "${UDMABUF_KOBJECT_RELEASE:-}" ] || return 0
	grep -qw no_hash_pointers /proc/cmdline ||
		fail "a kernel with DEBUG_KOBJECT_RELEASE is booted with no_hash_pointers (tests/vm/lanes)"
	run -0 "$UT" kmsg-since -t "$KMSG_SEQ"
	for name in "$@"; do
		assert_output --partial "kobject: '$name' ("
	done
	# shellcheck disable=SC2086 # two words: LO HI
	run -0 late_release_problems $range "$@" <<<"$output"
	assert_output ""
}

# Buffers NAME... made and removed: more devices released late.
make_and_remove() {
	local name
	for name in "$@"; do
		make_buf "$name" 4096
		check rmdir "$cfs/$name"
	done
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
	make_and_remove late0 late1 late2 late3
	rmmod_then_late_releases tbuf other late0 late1 late2 late3
}

@test "rmmod with parameter buffers, one just closed: what is released late runs cleanly after it" {
	check rmdir "$cfs/tbuf"
	unload_module
	assert_errno OK "$UT" insmod-try "$UDMABUF_KO" udmabuf0=64K udmabuf1=1M \
		udmabuf2=4K udmabuf3=4K udmabuf4=4K udmabuf5=4K
	exec 7<>/dev/udmabuf1
	exec 7>&-
	# The module's exit destroys them: their last references go in rmmod.
	rmmod_then_late_releases udmabuf0 udmabuf1 udmabuf2 udmabuf3 \
		udmabuf4 udmabuf5
}

# stale_node: STALE, a node of tbuf's device number made by hand; sets DEV.
stale_node() {
	STALE=$BATS_TEST_TMPDIR/stale
	DEV=$(cat "$cfs/tbuf/dev")
	rm -f "$STALE"
	check mknod "$STALE" c "${DEV%%:*}" "${DEV#*:}"
}

@test "a stale node of a disabled or a removed buffer fails to open with ENODEV, and reaches the new buffer that took its minor" {
	stale_node
	assert_errno OK "$UT" open-try "$STALE"
	set_attr "$cfs/tbuf/enable" 0
	assert_errno ENODEV "$UT" open-try "$STALE"
	set_attr "$cfs/tbuf/enable" 1
	stale_node
	check rmdir "$cfs/tbuf"
	assert_errno ENODEV "$UT" open-try "$STALE"
	make_buf again 8192 minor="${DEV#*:}"
	check "$UT" write-fill /dev/again 0 8192 13
	run -0 "$UT" read-verify "$STALE" 0 8192 13
}
