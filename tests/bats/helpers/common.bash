# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the udmabuf-cfs guest tests.
#
# Each .bats file does "load helpers/common", which defines setup() and
# teardown() as common_setup and common_teardown (at the end of this file);
# a file that needs more defines its own, which call them.
#
# common_setup makes sure the module is loaded without parameter buffers and
# that no configfs item is left over; common_teardown kills the background
# holders the test started, closes the test shell's fds 7..9, disables and
# removes every configfs item, reloads the module if a test unloaded it and
# fails the test if anything is still left behind.

bats_load_library bats-support
bats_load_library bats-assert
# For run -N (the exit status a run must have).
bats_require_minimum_version 1.5.0

cfs=/sys/kernel/config/udmabuf
CLASS=/sys/class/udmabuf
MODNAME=udmabuf_cfs
UT=udmabuf-test
# The node of process-scoped buffers.
NODE=/dev/udmabuf-cfs
: "${UDMABUF_KO:=/lib/udmabuf/udmabuf-cfs.ko}"
: "${UDMABUF_ARCH:=unknown}"

# Kernel log lines that must never follow a user-space request.
KMSG_BAD='WARNING:|BUG:|Oops|Call [Tt]race:|allocation failure|RIP:|kernel panic|lockdep|KASAN|UBSAN|refcount_t:'

# ---------------------------------------------------------------------------
# Logging wrappers: a failing step says what it ran, its status and output.

# check CMD ARGS...: run CMD; on failure print it with status and output.
check() {
	local out rc=0
	out=$("$@" 2>&1) || rc=$?
	if [ "$rc" -ne 0 ]; then
		printf '# command failed: %s\n# status: %d\n# output: %s\n' "$*" "$rc" "$out" >&2
		return 1
	fi
	[ -z "$out" ] || printf '%s\n' "$out"
}

# set_attr FILE VALUE: write VALUE (exactly, one write) or fail with the
# reason.  bash's own printf, not a process: it is the most frequent step of
# the suite, and a process costs 50-150 ms under emulation on the debug
# kernel.  (assert_write, for the errno name of a refused write, uses
# udmabuf-test.)
set_attr() {
	local err=${BATS_TEST_TMPDIR:-/tmp}/set_attr.err
	if ! printf '%s' "$2" 2>"$err" >"$1"; then
		printf '# writing "%s" to %s failed: %s\n' "$2" "$1" "$(cat "$err")" >&2
		return 1
	fi
}

# assert_errno EXPECTED CMD ARGS...: CMD is an udmabuf-test outcome command
# that prints OK or an errno name. EXPECTED is OK or the errno name.
assert_errno() {
	local expected=$1
	shift
	run "$@"
	if [ "$output" != "$expected" ]; then
		fail "$(printf 'expected %s from: %s\nstatus: %s\noutput: %s' \
			"$expected" "$*" "$status" "$output")"
	fi
	if [ "$expected" = OK ] && [ "$status" -ne 0 ]; then
		fail "status $status with output OK from: $*"
	fi
	if [ "$expected" != OK ] && [ "$status" -ne 1 ]; then
		fail "expected status 1 (failed call) but got $status from: $*"
	fi
}

# assert_write EXPECTED FILE VALUE: one write(2) of VALUE gives EXPECTED.
assert_write() {
	assert_errno "$1" "$UT" write-attr "$2" "$3"
}

# assert_writes EXPECTED FILE VALUE...: one write(2) of each VALUE gives
# EXPECTED.
assert_writes() {
	local expected=$1 file=$2 v
	shift 2
	for v in "$@"; do
		assert_write "$expected" "$file" "$v"
	done
}

# assert_accepts FILE VALUE READ [VALUE READ...]: writing each VALUE works
# and the file then reads READ.
assert_accepts() {
	local file=$1
	shift
	while [ $# -ge 2 ]; do
		assert_write OK "$file" "$1"
		assert_attr "$file" "$2"
		shift 2
	done
}

# assert_attr FILE EXPECTED: the file reads EXPECTED followed by one newline.
assert_attr() {
	local got
	got=$(cat "$1"; echo x) || fail "cannot read $1"
	got=${got%x}
	if [ "$got" != "$2"$'\n' ]; then
		fail "$1: expected $(printf %q "$2"$'\n'), got $(printf %q "$got")"
	fi
}

# assert_empty_attr FILE: the file reads 0 bytes.
assert_empty_attr() {
	local n
	n=$(wc -c <"$1") || fail "cannot read $1"
	[ "$n" -eq 0 ] || fail "$1: expected empty, got $n bytes: $(cat "$1")"
}

# ---------------------------------------------------------------------------
# Skips with a reason.

# requires_arch ARCH...: skip unless the guest is one of them.
# kernel_before MAJOR MINOR: the running kernel is older than MAJOR.MINOR
# (for the tests of what the kernel itself allows, which changed).
kernel_before() {
	local major minor
	IFS=. read -r major minor _ < <(uname -r)
	((major < $1 || (major == $1 && ${minor%%[!0-9]*} < $2)))
}

# kernel_32bit: the guest's kernel has a 32-bit size_t (armhf).
kernel_32bit() {
	[ "$UDMABUF_ARCH" = armhf ]
}

# dma_coherent_by_default: the architecture's DMA is coherent unless the
# firmware says otherwise (x86; RISC-V, ARCH_DMA_DEFAULT_COHERENT: a device
# tree node is non-coherent only with dma-noncoherent), so the module's own
# device, which no firmware describes, is coherent; on ARM it is not.
dma_coherent_by_default() {
	[ "$UDMABUF_ARCH" = amd64 ] || [ "$UDMABUF_ARCH" = riscv64 ]
}

requires_arch() {
	local a want
	for a in "$@"; do
		[ "$UDMABUF_ARCH" = "$a" ] && return 0
	done
	want=$(printf ' or %s' "$@")
	skip "needs ${want# or } (this is $UDMABUF_ARCH)"
}

# assert_in_highmem NAME: buffer NAME's memory starts in the HighMem zone
# (32-bit), where the kernel has no permanent mapping of it.
assert_in_highmem() {
	local pfn p
	pfn=$(awk '/^Node .* zone +HighMem/ {z = 1} z && /start_pfn:/ {print $2; exit}' /proc/zoneinfo)
	[ -n "$pfn" ] || fail "no HighMem zone in /proc/zoneinfo"
	p=$(cat "$CLASS/$1/phys_addr") || fail "cannot read $1's phys_addr"
	[ $((p)) -ge $((pfn * PAGE_SIZE)) ] ||
		fail "$1 at $p is not in highmem (from $((pfn * PAGE_SIZE)))"
}

requires_file() {
	[ -e "$1" ] || skip "needs $1${2:+ ($2)}"
}

# ---------------------------------------------------------------------------
# Speed.

# untrace_helpers: call first in setup().  bats runs with functrace (set -T),
# so its DEBUG trap, which records a stack trace, runs before every command
# of every function a test calls: our helpers, bats-assert, command
# substitutions, a fifth of an average test's time under emulation.  With
# functrace off from here on, the trap still runs for the commands of the
# test body itself (the test function was entered with it), so a failure is
# still reported at the line of the test that failed; the ERR trap (set -E)
# that detects failures is not affected.
untrace_helpers() {
	set +T
}

# ---------------------------------------------------------------------------
# Module.

module_loaded() {
	[ -e "/sys/module/$MODNAME/initstate" ]
}

# load_module [PARAM=VALUE...]: insmod unless already loaded.
# shellcheck disable=SC2120 # callers may pass parameters
load_module() {
	local out
	module_loaded && return 0
	out=$("$UT" insmod-try "$UDMABUF_KO" "$@" 2>&1)
	if [ "$out" != OK ]; then
		printf '# insmod %s %s failed: %s\n' "$UDMABUF_KO" "$*" "$out" >&2
		return 1
	fi
	if [ ! -d "$cfs" ]; then
		printf '# module loaded but %s does not exist\n' "$cfs" >&2
		return 1
	fi
}

unload_module() {
	local out
	module_loaded || return 0
	out=$("$UT" rmmod-try "$MODNAME" 2>&1)
	if [ "$out" != OK ]; then
		printf '# rmmod %s failed: %s\n' "$MODNAME" "$out" >&2
		return 1
	fi
}

# unallocatable_size: a size that every layer accepts (it fits a 32-bit
# kernel's size_t too) but no allocator can give: more than the guest's RAM.
unallocatable_size() {
	local kib
	kib=$(sed -n 's/^MemTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo)
	echo "$((kib / 1024 + 512))M"
}

# The module's reference count.
module_refcnt() {
	local n
	read -r n <"/sys/module/$MODNAME/refcnt" || return 1
	echo "$n"
}

# write_rmmod_at_once SCRIPT: write a shell script that tries rmmod in the
# background and fails unless it comes back within 10 s, done, with the
# module gone: what a test runs while something (a pipe, a transfer in
# flight) holds pages of a buffer, which the pages' last user frees.
write_rmmod_at_once() {
	cat >"$1" <<-EOF
		$UT rmmod-try $MODNAME >$1.out 2>&1 &
		pid=\$!
		for i in \$(seq 40); do
			kill -0 \$pid 2>/dev/null || break
			sleep 0.25
		done
		if kill -0 \$pid 2>/dev/null; then
			echo "rmmod still running 10 s later" >&2
			exit 1
		fi
		r=\$(cat $1.out)
		[ "\$r" = OK ] || { echo "rmmod while held: \$r" >&2; exit 1; }
		[ ! -e /sys/module/$MODNAME ] || { echo "the module is still there" >&2; exit 1; }
	EOF
}

# wait_gone NAME: /sys/class/udmabuf/NAME (gone with its last user) goes
# within 10 s.
wait_gone() {
	for _ in $(seq 1 200); do
		[ -e "$CLASS/$1" ] || return 0
		sleep 0.05
	done
	fail "$CLASS/$1 still there 10 s after its last user went"
}

# wait_module_released: the hold is gone, so the module's count drops to 0
# within the driver's retry interval (0.5 s); fail after 10 s.
wait_module_released() {
	local n _
	for _ in $(seq 40); do
		n=$(module_refcnt)
		[ "$n" = 0 ] && return 0
		sleep 0.25
	done
	fail "module refcnt $n 10 s after the hold went"
}

# is_dt_buffer DEVNAME: the buffer was made from a device-tree node.
is_dt_buffer() {
	local origin
	read -r origin 2>/dev/null <"$CLASS/$1/origin" && [ "$origin" = dt ]
}

# True if the loaded module owns buffers made by module parameters.
have_param_buffers() {
	local o origin
	for o in "$CLASS"/*/origin; do
		[ -e "$o" ] || continue
		read -r origin <"$o" && [ "$origin" = param ] && return 0
	done
	return 1
}

# ---------------------------------------------------------------------------
# configfs items and devices.

# new_item NAME [ATTR=VALUE...]: mkdir and set attributes, not enabled.
new_item() {
	local name=$1 kv
	shift
	check mkdir "$cfs/$name" || return 1
	for kv in "$@"; do
		set_attr "$cfs/$name/${kv%%=*}" "${kv#*=}" || return 1
	done
}

# make_buf NAME SIZE [ATTR=VALUE...]: create and enable a buffer.
make_buf() {
	local name=$1 size=$2
	shift 2
	new_item "$name" size="$size" "$@" || return 1
	set_attr "$cfs/$name/enable" 1 || return 1
	local dev
	read -r dev <"$cfs/$name/device_name" || return 1
	dev=/dev/$dev
	if [ ! -c "$dev" ]; then
		printf '# %s enabled but %s is not a character device\n' "$name" "$dev" >&2
		return 1
	fi
}

# node_devnum PATH: "MAJ:MIN" (decimal) of a character device node.
node_devnum() {
	local t
	t=$(stat -c '%t:%T' "$1") || return 1
	printf '%d:%d\n' "$((16#${t%%:*}))" "$((16#${t#*:}))"
}

# minor_of MAJ:MIN
minor_of() {
	printf '%s\n' "${1#*:}"
}

# assert_no_device DEVNAME: neither /dev/DEVNAME nor the class device exists.
assert_no_device() {
	[ ! -e "/dev/$1" ] || fail "/dev/$1 still exists"
	[ ! -e "$CLASS/$1" ] || fail "$CLASS/$1 still exists"
}

# assert_device DEVNAME: /dev node and class device exist with the same numbers.
assert_device() {
	[ -c "/dev/$1" ] || fail "/dev/$1 is not a character device"
	[ -d "$CLASS/$1" ] || fail "$CLASS/$1 does not exist"
	local node sys
	node=$(node_devnum "/dev/$1")
	sys=$(cat "$CLASS/$1/dev")
	[ "$node" = "$sys" ] || fail "/dev/$1 is $node but $CLASS/$1/dev says $sys"
}

# ---------------------------------------------------------------------------
# Background holders: processes that keep a buffer open/mapped.

HOLDER_N=0

# start_holder DEV OFFSET LENGTH SEED [hold options]
# Starts "udmabuf-test hold" in the background and waits until it has filled
# its range.  Sets HOLDER_PID.
start_holder() {
	HOLDER_N=$((HOLDER_N + 1))
	local out="$BATS_TEST_TMPDIR/holder.$HOLDER_N"
	# fd 3 is bats' own: a background job keeping it open would hang bats.
	# fds 7..9 are the tests' own: they must not be kept by the holder.
	"$UT" hold "$@" >"$out" 2>&1 </dev/null 3>&- 7>&- 8>&- 9>&- &
	HOLDER_PID=$!
	echo "$HOLDER_PID $out" >>"$BATS_TEST_TMPDIR/holders"
	for _ in $(seq 1 200); do
		if grep -qx ready "$out" 2>/dev/null; then
			return 0
		fi
		if ! kill -0 "$HOLDER_PID" 2>/dev/null; then
			wait "$HOLDER_PID" 2>/dev/null
			printf '# holder "%s" exited with %d before ready: %s\n' \
				"$*" "$?" "$(cat "$out")" >&2
			return 1
		fi
		sleep 0.05
	done
	printf '# holder "%s" not ready after 10 s: %s\n' "$*" "$(cat "$out")" >&2
	return 1
}

# stop_holder PID: signal the holder to verify its data and exit; sets
# $status and $output (without the "ready" line) like bats' run.
stop_holder() {
	local pid=$1 out
	out=$(awk -v p="$pid" '$1 == p { print $2 }' "$BATS_TEST_TMPDIR/holders")
	kill -USR1 "$pid" || fail "holder $pid is gone"
	status=0
	wait "$pid" || status=$?
	output=$(grep -vx ready "$out")
	# shellcheck disable=SC2034 # lines is bats' convention, used by callers
	mapfile -t lines <<<"$output"
}

# stop_holder_intact PID: stop_holder; the holder found its data intact.
stop_holder_intact() {
	stop_holder "$1"
	[ "$status" -eq 0 ] && [ "$output" = intact ] ||
		fail "holder $1: status $status: $output"
}

# spawn CMD ARGS...: start CMD in the background as a holder (killed at
# teardown, stop_holder works on it), without waiting.  Sets BG_PID, BG_OUT.
spawn() {
	HOLDER_N=$((HOLDER_N + 1))
	BG_OUT="$BATS_TEST_TMPDIR/holder.$HOLDER_N"
	"$@" >"$BG_OUT" 2>&1 </dev/null 3>&- 7>&- 8>&- 9>&- &
	BG_PID=$!
	echo "$BG_PID $BG_OUT" >>"$BATS_TEST_TMPDIR/holders"
}

# wait_line FILE REGEX [PID]: wait (60 s) for a line of FILE matching the
# extended REGEX, while PID lives; prints it.
wait_line() {
	local file=$1 re=$2 pid=${3:-} line
	for _ in $(seq 1 1200); do
		line=$(grep -E -m1 -- "$re" "$file" 2>/dev/null) && {
			echo "$line"
			return 0
		}
		if [ -n "$pid" ] && ! proc_running "$pid"; then
			fail "process $pid ended before a line /$re/: $(cat "$file")"
		fi
		sleep 0.05
	done
	fail "no line /$re/ after 60 s: $(cat "$file")"
}

# spawn_ready CMD ARGS...: spawn, and wait for its "ready" line.
spawn_ready() {
	spawn "$@"
	wait_line "$BG_OUT" '^ready$' "$BG_PID" >/dev/null
}

# proc_buf PID: the class device of the one process-scoped buffer PID
# allocated.
proc_buf() {
	local d n=0 name=
	for d in "$CLASS/proc-$1-"*; do
		[ -e "$d" ] || continue
		name=${d##*/}
		n=$((n + 1))
	done
	[ "$n" = 1 ] || fail "$n buffers of process $1 in $CLASS: $(ls "$CLASS")"
	echo "$name"
}

# proc_running PID: PID is there and has not exited (an exited child is a
# zombie until its parent waits for it).
proc_running() {
	[ -e "/proc/$1" ] && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null
}

kill_holders() {
	local f="$BATS_TEST_TMPDIR/holders" pid out
	[ -e "$f" ] || return 0
	while read -r pid out; do
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		for _ in $(seq 1 100); do
			proc_running "$pid" || break
			sleep 0.05
		done
	done <"$f"
	rm -f "$f"
}

# Disable and remove every configfs item. Returns 1 if something resisted.
remove_all_items() {
	local d rc=0 out enable
	[ -d "$cfs" ] || return 0
	for d in "$cfs"/*; do
		[ -d "$d" ] || continue
		read -r enable 2>/dev/null <"$d/enable" || enable=
		if [ "$enable" != 0 ]; then
			out=$("$UT" write-attr "$d/enable" 0 2>&1) ||
				printf '# cleanup: disabling %s: %s\n' "$d" "$out" >&2
		fi
		out=$("$UT" rmdir-try "$d" 2>&1) || {
			printf '# cleanup: rmdir %s: %s\n' "$d" "$out" >&2
			rc=1
		}
	done
	return "$rc"
}

# meminfo_kib FIELD: FIELD of /proc/meminfo in KiB; empty if the kernel
# has no such field (CmaTotal without CONFIG_CMA).
meminfo_kib() {
	sed -n "s/^$1: *\\([0-9]*\\) kB/\\1/p" /proc/meminfo
}

# largest_block: the page allocator's largest block in bytes (4 MiB on
# amd64 and arm64, 8 MiB on armmp; /proc/buddyinfo has a column per order).
largest_block() {
	local orders
	orders=$(awk '{print NF - 4; exit}' /proc/buddyinfo)
	echo $((PAGE_SIZE << (orders - 1)))
}

# ---------------------------------------------------------------------------
# Kprobe events: what the kernel really called, observed in tracefs (stock
# kernels only: the debug kernel is built without kprobe events).  Adding a
# kprobe or switching an event patches kernel text on every CPU, where an
# amd64 TCG guest once hung with its other CPU never answering the IPI: set
# them up once per file where the tests allow it.

TRACEFS=/sys/kernel/tracing

# kprobe_add TYPE GROUP/EVENT FUNCTION [FETCHARGS]: add a kprobe (TYPE p)
# or kretprobe (TYPE r) event and enable it; if the kernel refuses it, its
# error_log says why.
kprobe_add() {
	local type=$1 event=$2 fn=$3 args=${4:-}
	if [ ! -e "$TRACEFS/kprobe_events" ]; then
		mount -t tracefs tracefs "$TRACEFS" || return 1
	fi
	echo "$type:$event $fn${args:+ $args}" >>"$TRACEFS/kprobe_events" || {
		cat "$TRACEFS/error_log" >&2
		return 1
	}
	echo 1 >"$TRACEFS/events/$event/enable"
}

# kprobe_del GROUP/EVENT: disable and remove the event, if it is there.
kprobe_del() {
	[ -e "$TRACEFS/events/$1/enable" ] || return 0
	echo 0 >"$TRACEFS/events/$1/enable"
	echo "-:$1" >>"$TRACEFS/kprobe_events"
}

# sync_calls GROUP BASE SIZE [show]: what the kprobe events GROUP/dev and
# GROUP/cpu (on the arch's sync_for_device and _for_cpu hooks, recording
# addr=, size= and dir=) saw for memory in [BASE, BASE + SIZE), oldest
# first, as "dev|cpu OFFSET SIZE DIR" lines; with "show", each call's trace
# record (which names the probed function) goes to the test's output too.
sync_calls() {
	local grp=$1 base=$2 len=$3 show=${4:-} line kind addr size dir
	while read -r line; do
		case $line in
		*"$grp/dev:"* | *" dev:"*) kind=dev ;;
		*"$grp/cpu:"* | *" cpu:"*) kind=cpu ;;
		*) continue ;;
		esac
		addr=${line##*addr=}; addr=${addr%% *}
		size=${line##*size=}; size=${size%% *}
		dir=${line##*dir=}; dir=${dir%% *}
		((addr >= base && addr < base + len)) || continue
		[ -z "$show" ] || echo "# ${line#*: }" >&3
		echo "$kind $((addr - base)) $size $dir"
	done < <(grep -v '^#' "$TRACEFS/trace")
}

# expect_sync_calls GROUP BASE SIZE show|- LINE...: sync_calls (showing
# the records or not) gives exactly these lines, in this order; the trace
# is emptied for the next.
expect_sync_calls() {
	local got want show=$4
	[ "$show" = show ] || show=
	got=$(sync_calls "$1" "$2" "$3" "$show")
	shift 4
	want=$(printf '%s\n' "$@")
	: >"$TRACEFS/trace"
	[ "$got" = "$want" ] ||
		fail "$(printf 'expected the calls:\n%s\nrecorded:\n%s' "$want" "${got:-(none)}")"
}

# ---------------------------------------------------------------------------
# Kernel log.

# Where the per-test check leaves the next test's mark (common_teardown,
# common_setup): one process per test for the kernel log, not two.
KMSG_MARK_FILE=/run/udmabuf-test.kmsg-mark

kmsg_mark() {
	KMSG_SEQ=$("$UT" kmsg-seq 2>/dev/null) || KMSG_SEQ=-1
}

# kernel_complaints: set KMSG_COMPLAINTS to the kernel's warning/oops lines
# since kmsg_mark (matched by udmabuf-test, in one process and no subshell:
# every process costs a lot under emulation, and this runs for every test),
# and leave the last record's number in KMSG_MARK_FILE.  A log that cannot
# be read must not pass for a clean one.
kernel_complaints() {
	if [ "${KMSG_SEQ:--1}" = -1 ]; then
		KMSG_COMPLAINTS="cannot check the kernel log: kmsg_mark failed"
		return 0
	fi
	KMSG_COMPLAINTS=$("$UT" kmsg-check "$KMSG_SEQ" "$KMSG_BAD" "$KMSG_MARK_FILE" 2>&1) ||
		KMSG_COMPLAINTS="cannot check the kernel log: udmabuf-test kmsg-check exited $?: $KMSG_COMPLAINTS"
}

# Fail if the kernel logged a warning/oops since kmsg_mark.
assert_no_kernel_warnings() {
	kernel_complaints
	[ -z "$KMSG_COMPLAINTS" ] || fail "kernel log since the test started: $KMSG_COMPLAINTS"
}

# ---------------------------------------------------------------------------
# Per-test setup and teardown.

common_setup() {
	untrace_helpers
	# The page size, asked once per boot.
	# shellcheck disable=SC2034 # used by the tests
	read -r PAGE_SIZE 2>/dev/null </run/udmabuf-test.pagesize ||
		{ PAGE_SIZE=$("$UT" pagesize) && echo "$PAGE_SIZE" >/run/udmabuf-test.pagesize; }
	if module_loaded && have_param_buffers; then
		remove_all_items || true
		unload_module || return 1
	fi
	load_module || return 1
	if ! remove_all_items; then
		printf '# leftovers from an earlier test could not be removed\n' >&2
		return 1
	fi
	# The last test's teardown left the mark; the first test makes one.
	read -r KMSG_SEQ 2>/dev/null <"$KMSG_MARK_FILE" || kmsg_mark
	# The parameters tests change, for common_teardown to put back (a
	# module before process-scoped buffers has neither: the tests of them
	# fail on their own).
	local p v
	SAVED_PARAMS=()
	for p in process_max place_hold; do
		read -r v 2>/dev/null <"/sys/module/$MODNAME/parameters/$p" &&
			SAVED_PARAMS+=("$p=$v")
	done
}

# give_node GROUP: /dev/udmabuf-cfs given to GROUP with mode 0660, as the
# shipped udev rule gives it to udmabuf; common_teardown takes it back.
give_node() {
	NODE_GIVEN=1
	chgrp "$1" "$NODE" && chmod 0660 "$NODE"
}

common_teardown() {
	local rc=0 left d p
	kill_holders
	# What a test changed of the parameters and of the node, even when it
	# failed half-way.
	for p in "${SAVED_PARAMS[@]}"; do
		[ -e "/sys/module/$MODNAME/parameters/${p%%=*}" ] || continue
		set_attr "/sys/module/$MODNAME/parameters/${p%%=*}" "${p#*=}" || rc=1
	done
	if [ -n "${NODE_GIVEN:-}" ] && [ -e "$NODE" ]; then
		chmod 0600 "$NODE" && chgrp root "$NODE" || rc=1
	fi
	exec 7>&- 8>&- 9>&-
	remove_all_items || rc=1
	if module_loaded && have_param_buffers; then
		unload_module || rc=1
	fi
	load_module || rc=1
	left=
	for d in "$CLASS"/*; do
		[ -e "$d" ] || continue
		# The device tree's buffers come with every load of the
		# module (lane riscv64): the boot's, not a test's leftovers.
		is_dt_buffer "${d##*/}" || left+=" ${d##*/}"
	done
	if [ -n "$left" ]; then
		printf '# teardown: devices left in %s: %s\n' "$CLASS" "$left" >&2
		rc=1
	fi
	teardown_kmsg_check || rc=1
	return "$rc"
}

# The per-test setup and teardown of a file that needs nothing more.
setup() { common_setup; }
teardown() { common_teardown; }

# teardown_kmsg_check: fail (status 1, the lines on stderr) if the kernel
# logged a warning during the test: they name the test during which it did.
teardown_kmsg_check() {
	kernel_complaints
	[ -z "$KMSG_COMPLAINTS" ] && return 0
	printf '# teardown: the kernel logged during this test:\n%s\n' "$KMSG_COMPLAINTS" >&2
	return 1
}

# ---------------------------------------------------------------------------
# Other users, and outcomes read from stdout alone.

# as_user USER CMD ARGS...: run CMD as USER, with USER's groups.
as_user() {
	local user=$1
	shift
	# shellcheck disable=SC2016 # expanded by the user's shell
	su -s /bin/sh -c 'exec "$0" "$@"' -- "$user" "$@"
}

# as_nobody CMD ARGS...: run CMD as the unprivileged user nobody (uid 65534,
# no capabilities, no supplementary groups but nogroup).
as_nobody() {
	as_user nobody "$@"
}

# user_gets USER EXPECTED CMD ARGS...: CMD run as USER gives EXPECTED
# (assert_outcome).
user_gets() {
	local user=$1 expected=$2
	shift 2
	assert_outcome "$expected" as_user "$user" "$@"
}

# valid_value ATTR: a value attribute ATTR of a 64 KiB buffer accepts, other
# than the one it has after creation, so that a write that went through
# shows.
valid_value() {
	case $1 in
	size | sync_size) echo 8192 ;;
	minor) echo 9 ;;
	device_name) echo mine ;;
	sync_mode) echo 3 ;;
	sync_direction) echo 2 ;;
	dma_mask) echo 64 ;;
	mode) echo 0666 ;;
	enable) echo 0 ;;
	sync_offset) echo 4096 ;;
	*) echo 1 ;;
	esac
}

# assert_outcome EXPECTED CMD ARGS...: CMD is an outcome command (OK or an
# errno name on stdout, status 0 or 1).  Unlike assert_errno, only stdout
# is the answer: a failed open(2) that is the point of the test is printed
# on stdout with a note on stderr, and the note does not count.
assert_outcome() {
	local expected=$1 out err rc=0
	shift
	err=$BATS_TEST_TMPDIR/outcome.stderr
	out=$("$@" 2>"$err") || rc=$?
	if [ "$out" != "$expected" ] || { [ "$expected" = OK ] && [ "$rc" -ne 0 ]; } ||
		{ [ "$expected" != OK ] && [ "$rc" -ne 1 ]; }; then
		fail "$(printf 'expected %s from: %s\nstatus: %s\nstdout: %s\nstderr: %s' \
			"$expected" "$*" "$rc" "$out" "$(cat "$err")")"
	fi
}

# state_snapshot: everything a rejected input must leave alone, as text:
# whether the module is loaded and its parameters, the configfs items and
# every attribute (phys_addr too: root reads it), the class devices and
# their attributes, the data of every buffer with a node, and the names in
# /dev.
# (grep -H reads a whole directory in one process: forks are slow in TCG.)
state_snapshot() {
	local d items=() devs=()
	if module_loaded; then
		echo "module loaded"
		items+=(/sys/module/"$MODNAME"/parameters/*)
	else
		echo "module not loaded"
	fi
	[ ! -e "$cfs" ] || echo "configfs:" "$cfs"/*
	for d in "$cfs"/*/; do
		[ -d "$d" ] || continue
		echo "item:" "$d"*
		items+=("$d"*)
	done
	for d in "$CLASS"/*; do
		[ -e "$d" ] || continue
		[ ! -e "/dev/${d##*/}" ] || devs+=("/dev/${d##*/}")
		items+=("$d"/*)
	done
	# Directories and write-only files are not read (-s: quietly).
	[ "${#items[@]}" -eq 0 ] || grep -sH '' "${items[@]}"
	[ "${#devs[@]}" -eq 0 ] || md5sum "${devs[@]}"
	printf '%s\n' /dev/*
}

# assert_state_unchanged BEFORE [WHAT]: state_snapshot still reads BEFORE.
assert_state_unchanged() {
	local after
	after=$(state_snapshot)
	[ "$after" = "$1" ] ||
		fail "$(printf 'the state changed%s:\n%s' "${2:+ ($2)}" \
			"$(diff <(echo "$1") <(echo "$after"))")"
}
