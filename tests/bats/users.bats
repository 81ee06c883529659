#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Two users of the udmabuf group: alice and bob, unprivileged, both in the
# group udmabuf, on a system where the shipped udev rule has run.  The
# guest has no udevd: apply_rule does what the rule's lines say, read from
# the rule as installed (/lib/udev/rules.d), for the event of one device.
# Each user allocates a process-scoped buffer from /dev/udmabuf-cfs (the
# rule's group and 0660) and tries every way into the other's: its sysfs
# attributes (which the rule leaves root's: EACCES; made group-writable by
# hand, the driver still refuses them: EPERM), its DMA address in sysfs,
# the sync triggers, a node (it has none) and the descriptor in the owner's
# process (the buffer ioctls of the node reach no buffer: process.bats).  A buffer that is not
# process-scoped keeps the group's access the rule gives, and root keeps
# its own.  Every refusal is checked for its errno and for the values it
# left alone.

load helpers/common

PROC=udmabuf-proc
IO=udmabuf-ioctl
RULES=/lib/udev/rules.d/60-udmabuf-cfs.rules
SZ=65536
GROUP_GID=990
# alice's and bob's uids; each has a group of its own of the same number.
declare -gA USER_ID=([alice]=1001 [bob]=1002)
# The other user.
declare -gA OTHER=([alice]=bob [bob]=alice)

setup_file() {
	grep -q '^udmabuf:' /etc/group && {
		echo "# the guest already has a group udmabuf" >&2
		return 1
	}
	cp /etc/passwd "$BATS_FILE_TMPDIR/passwd"
	cp /etc/group "$BATS_FILE_TMPDIR/group"
	local u
	for u in alice bob; do
		echo "$u:x:${USER_ID[$u]}:${USER_ID[$u]}:$u:/nonexistent:/bin/sh" >>/etc/passwd
		echo "$u:x:${USER_ID[$u]}:" >>/etc/group
	done
	echo "udmabuf:x:$GROUP_GID:alice,bob" >>/etc/group
}

teardown_file() {
	cp "$BATS_FILE_TMPDIR/passwd" /etc/passwd
	cp "$BATS_FILE_TMPDIR/group" /etc/group
}

setup() {
	common_setup || return 1
	declare -gA BUF=() OWNER_PID=() OWNER_FD=()
	[ -f "$RULES" ] || fail "no $RULES in the guest (tests/vm/run installs it)"
	# For common_teardown to take back what the rule gives.
	# shellcheck disable=SC2034 # read by common_teardown
	NODE_GIVEN=1
	apply_rule misc udmabuf-cfs
}

# apply_rule SUBSYSTEM NAME: do what $RULES does on the "add" event of the
# class device NAME of SUBSYSTEM, as udevd would: a line applies when all
# its matches hold (SUBSYSTEM, ACTION, KERNEL, ATTR{FILE}; == and != with
# glob patterns; an attribute that cannot be read matches neither); then
# its RUN+= programs run with %p (the device path) and %k (its name)
# substituted, and its GROUP and MODE go to /dev/NAME if there is one (a
# GROUP without MODE makes the node 0660 unless the kernel gave it a mode).
# A key the function does not know fails the test: the rule has changed
# and so must this.
apply_rule() {
	local subsystem=$1 kernel=$2 syspath devpath line rest key attr op val have ok
	local group mode devmode cmd
	local -a runs argv
	syspath=$(readlink -f "/sys/class/$subsystem/$kernel") || fail "no /sys/class/$subsystem/$kernel"
	devpath=${syspath#/sys}
	local re='^([A-Z]+)(\{([^}]*)\})?[[:space:]]*(==|!=|\+=|:=|=)[[:space:]]*"([^"]*)"[[:space:]]*,?[[:space:]]*(.*)$'
	while IFS= read -r line || [ -n "$line" ]; do
		rest=${line#"${line%%[![:space:]]*}"}
		[ -z "$rest" ] || [ "${rest:0:1}" = "#" ] && continue
		ok=1 group='' mode='' runs=()
		while [ -n "$rest" ]; do
			[[ $rest =~ $re ]] || fail "$RULES: cannot read \"$rest\" in: $line"
			key=${BASH_REMATCH[1]} attr=${BASH_REMATCH[3]} op=${BASH_REMATCH[4]}
			val=${BASH_REMATCH[5]} rest=${BASH_REMATCH[6]}
			case $key$op in
			SUBSYSTEM== | SUBSYSTEM!=) have=$subsystem ;;
			ACTION== | ACTION!=) have=add ;;
			KERNEL== | KERNEL!=) have=$kernel ;;
			ATTR== | ATTR!=)
				if ! read -r have 2>/dev/null <"$syspath/$attr"; then
					ok=0
					continue
				fi
				;;
			GROUP= | GROUP:=)
				group=$val
				continue
				;;
			MODE= | MODE:=)
				mode=$val
				continue
				;;
			RUN+= | RUN=)
				[ "$op" = += ] || runs=()
				runs+=("$val")
				continue
				;;
			*) fail "$RULES: this test cannot apply $key${attr:+{$attr\}}$op in: $line" ;;
			esac
			# shellcheck disable=SC2053 # udev's values are glob patterns
			if [ "$op" = "==" ]; then
				[[ $have == $val ]] || ok=0
			else
				[[ $have != $val ]] || ok=0
			fi
		done
		[ "$ok" = 1 ] || continue
		for cmd in "${runs[@]}"; do
			cmd=${cmd//%p/$devpath}
			cmd=${cmd//%k/$kernel}
			read -ra argv <<<"$cmd"
			check "${argv[@]}" || fail "$RULES: \"$cmd\" failed, from: $line"
		done
		if [ -c "/dev/$kernel" ] && [ -n "$group$mode" ]; then
			[ -z "$group" ] || check chgrp "$group" "/dev/$kernel" || fail "chgrp $group /dev/$kernel"
			devmode=$(sed -n 's/^DEVMODE=//p' "$syspath/uevent")
			[ -n "$mode" ] || [ -n "$devmode" ] || [ -z "$group" ] || mode=0660
			[ -z "$mode" ] || check chmod "$mode" "/dev/$kernel" || fail "chmod $mode /dev/$kernel"
		fi
	done <"$RULES"
}

# user_buffer USER [CMD]: USER allocates a process-scoped buffer of $SZ and
# keeps it open in a process of its own (CMD, sh -c with the descriptor as
# $0, ending in a holder that execs; default: "hold", the buffer filled
# from offset 0 with seed 3, no mapping); the rule runs for its device.  Sets BUF[USER] (the device's name), OWNER_PID[USER] and
# OWNER_FD[USER] (the buffer's descriptor there).
user_buffer() {
	local user=$1 cmd=${2:-"exec $UT hold fd:\$0 0 4096 3 --no-map"} name f link
	# su execs the user's shell, which execs CMD: BG_PID is CMD's process.
	# shellcheck disable=SC2016 # expanded by the user's shell
	spawn_ready su -s /bin/sh -c 'exec "$0" "$@"' -- "$user" "$PROC" run "$SZ" -- sh -c "$cmd" {}
	name=$(proc_buf "$BG_PID")
	assert_attr "$CLASS/$name/origin" process
	for f in /proc/"$BG_PID"/fd/*; do
		link=$(readlink "$f") || continue
		[ "$link" != "anon_inode:udmabuf-cfs:$name" ] || OWNER_FD[$user]=${f##*/}
	done
	[ -n "${OWNER_FD[$user]:-}" ] || fail "no descriptor of $name in process $BG_PID: $(ls -l "/proc/$BG_PID/fd")"
	BUF[$user]=$name
	OWNER_PID[$user]=$BG_PID
	apply_rule udmabuf "$name"
}

# both_buffers: alice's and bob's buffers, as user_buffer.
both_buffers() {
	user_buffer alice
	user_buffer bob
}

# writable_attrs NAME: the attributes of buffer NAME that someone may write
# (any w bit) but the sync triggers and the driver core's uevent.
writable_attrs() {
	local m f
	while read -r m f; do
		[ -f "$f" ] && ((8#$m & 8#222)) || continue
		case ${f##*/} in
		sync_for_cpu | sync_for_device | uevent) ;;
		*) echo "${f##*/}" ;;
		esac
	done < <(stat -c '%a %n' "$CLASS/$1"/*)
}

@test "alice and bob are unprivileged members of the group udmabuf, which the rule lets allocate" {
	local u
	run -0 stat -c '%a %U %G' "$NODE"
	assert_output "660 root udmabuf"
	for u in alice bob; do
		run -0 as_user "$u" id -u
		assert_output "${USER_ID[$u]}"
		run -0 as_user "$u" id -G
		[[ " $output " == *" $GROUP_GID "* ]] || fail "$u's groups: $output"
		run -0 as_user "$u" grep '^CapEff:' /proc/self/status
		assert_output $'CapEff:\t0000000000000000'
		user_gets "$u" OK "$PROC" alloc 4096
	done
}

@test "the rule gives the group no attribute of a process-scoped buffer: all stay root's, phys_addr 0400, which neither user reads (EACCES)" {
	both_buffers
	local u who m f name
	for u in alice bob; do
		# Owned by root:root, no w bit but the owner's.
		while read -r who m f; do
			[ -f "$f" ] || continue
			[ "$who" = root:root ] && (((8#$m & 8#022) == 0)) ||
				fail "${BUF[$u]}/${f##*/} is $who $m after the rule"
		done < <(stat -c '%U:%G %a %n' "$CLASS/${BUF[$u]}"/*)
		run -0 stat -c '%U:%G %a' "$CLASS/${BUF[$u]}/phys_addr"
		assert_output "root:root 400"
	done
	# Neither user reads the DMA address from sysfs, the other's or its own.
	for u in alice bob; do
		for name in "${BUF[${OTHER[$u]}]}" "${BUF[$u]}"; do
			user_gets "$u" EACCES "$UT" read-try "$CLASS/$name/phys_addr"
			# ... while the rest is anyone's to read: the refusal is specific.
			user_gets "$u" OK "$UT" read-try "$CLASS/$name/size"
			user_gets "$u" OK "$UT" read-try "$CLASS/$name/owner"
		done
	done
}

@test "neither user can change an attribute of the other's process-scoped buffer or sync it through sysfs: EACCES, values unchanged" {
	both_buffers
	local u other name before a n=0
	for u in alice bob; do
		other=${OTHER[$u]}
		name=${BUF[$other]}
		before=$(state_snapshot)
		for a in $(writable_attrs "$name"); do
			user_gets "$u" EACCES "$UT" write-attr "$CLASS/$name/$a" "$(valid_value "$a")"
			n=$((n + 1))
		done
		# The driver core's, which would send an event for the device.
		user_gets "$u" EACCES "$UT" write-attr "$CLASS/$name/uevent" change
		assert_state_unchanged "$before" "$name"
		# The sync triggers.  The device owns it: a sync for the CPU
		# would show.
		set_attr "$CLASS/$name/sync_for_device" 1
		assert_attr "$CLASS/$name/sync_owner" 1
		user_gets "$u" EACCES "$UT" write-attr "$CLASS/$name/sync_for_cpu" 1
		user_gets "$u" EACCES "$UT" write-attr "$CLASS/$name/sync_for_cpu" "0 4096 2"
		assert_attr "$CLASS/$name/sync_owner" 1
		set_attr "$CLASS/$name/sync_for_cpu" 1
		assert_attr "$CLASS/$name/sync_owner" 0
		user_gets "$u" EACCES "$UT" write-attr "$CLASS/$name/sync_for_device" 1
		user_gets "$u" EACCES "$UT" write-attr "$CLASS/$name/sync_for_device" "0 4096 1"
		assert_attr "$CLASS/$name/sync_owner" 0
	done
	# sync_mode, sync_offset, sync_size, sync_direction at least.
	[ "$n" -ge 8 ] || fail "only $n writable attributes tried"
}

@test "made group-writable by hand, a process-scoped buffer's attributes still refuse every member, its owner too: EPERM" {
	both_buffers
	local owner u name before a f
	for owner in alice bob; do
		name=${BUF[$owner]}
		# What the old rule did, to every attribute of the buffer.
		for a in $(writable_attrs "$name") sync_for_cpu sync_for_device; do
			f=$CLASS/$name/$a
			check chgrp udmabuf "$f" || fail "chgrp udmabuf $f"
			check chmod g+w "$f" || fail "chmod g+w $f"
		done
		set_attr "$CLASS/$name/sync_for_device" 1
		before=$(state_snapshot)
		for u in "$owner" "${OTHER[$owner]}"; do
			for a in $(writable_attrs "$name"); do
				user_gets "$u" EPERM "$UT" write-attr "$CLASS/$name/$a" "$(valid_value "$a")"
			done
			user_gets "$u" EPERM "$UT" write-attr "$CLASS/$name/sync_for_cpu" 1
			user_gets "$u" EPERM "$UT" write-attr "$CLASS/$name/sync_for_cpu" "0 4096 2"
			user_gets "$u" EPERM "$UT" write-attr "$CLASS/$name/sync_for_device" "0 4096 1"
		done
		assert_state_unchanged "$before" "$name"
	done
}

@test "neither user has a node of the other's buffer or a way to its descriptor: /proc/PID/fd EACCES, pidfd_getfd EPERM" {
	both_buffers
	local u other name pid fd
	for u in alice bob; do
		other=${OTHER[$u]}
		name=${BUF[$other]} pid=${OWNER_PID[$other]} fd=${OWNER_FD[$other]}
		[ ! -e "/dev/$name" ] || fail "/dev/$name exists"
		[ ! -e "$CLASS/$name/dev" ] || fail "$name has a device number"
		user_gets "$u" EACCES "$UT" open-try "/proc/$pid/fd" rdonly
		user_gets "$u" EACCES "$UT" open-try "/proc/$pid/fd/$fd" rdwr
		user_gets "$u" EACCES "$UT" open-try "/proc/$pid/fd/$fd" rdonly
		user_gets "$u" EPERM "$PROC" getfd "$pid" "$fd"
		# The refusals are bob's: the owner lists its descriptors, root
		# takes one.
		user_gets "$other" OK "$UT" open-try "/proc/$pid/fd" rdonly
		assert_outcome OK "$PROC" getfd "$pid" "$fd"
	done
	# Nothing in /dev for any process-scoped buffer.
	run -0 find /dev -name 'proc-*'
	assert_output ""
}


@test "the owner gets its buffer's DMA address through GET_INFO, the address root reads, and syncs it through its descriptor" {
	user_buffer alice "$IO info fd:\$0 && $IO sync fd:\$0 device 0 0 1 && exec $UT hold fd:\$0 0 4096 3 --no-map"
	local name=${BUF[alice]}
	run -0 grep '^dma_addr=' "$BG_OUT"
	assert_output "dma_addr=$(cat "$CLASS/$name/phys_addr")"
	run -0 grep -x OK "$BG_OUT"
	assert_attr "$CLASS/$name/sync_owner" 1
}

@test "a configfs buffer keeps the rule's widening: a member of the group sets sync_mode, syncs and reads phys_addr" {
	make_buf tbuf "$SZ" mode=0660
	apply_rule udmabuf tbuf
	run -0 stat -c '%a %U %G' /dev/tbuf
	assert_output "660 root udmabuf"
	run -0 stat -c '%U:%G %a' "$CLASS/tbuf/phys_addr" "$CLASS/tbuf/sync_mode"
	assert_output "$(printf 'root:udmabuf 440\nroot:udmabuf 664')"
	user_gets bob OK "$UT" write-attr "$CLASS/tbuf/sync_mode" 2
	assert_attr "$CLASS/tbuf/sync_mode" 2
	user_gets bob OK "$UT" write-attr "$CLASS/tbuf/sync_for_device" "0 4096 1"
	assert_attr "$CLASS/tbuf/sync_owner" 1
	user_gets bob OK "$UT" read-try "$CLASS/tbuf/phys_addr"
	user_gets bob OK "$UT" open-try /dev/tbuf rdwr
}

@test "root still changes and syncs a process-scoped buffer through sysfs" {
	user_buffer alice
	local name=${BUF[alice]} a
	for a in $(writable_attrs "$name"); do
		assert_write OK "$CLASS/$name/$a" "$(valid_value "$a")"
		assert_attr "$CLASS/$name/$a" "$(valid_value "$a")"
	done
	assert_write OK "$CLASS/$name/sync_for_device" 1
	assert_attr "$CLASS/$name/sync_owner" 1
	assert_write OK "$CLASS/$name/sync_for_cpu" "0 4096 2"
	assert_attr "$CLASS/$name/sync_owner" 0
	run -0 cat "$CLASS/$name/phys_addr"
	assert_output --regexp '^0x[0-9a-f]{16}$'
}
