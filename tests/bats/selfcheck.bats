#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The test tools themselves: a check that cannot fail proves nothing.

load helpers/common

STRESS=udmabuf-stress

teardown() {
	rm -f /tmp/stress-stale-*
	common_teardown
}

@test "the kernel log reader sees a message logged after the mark, not one from before it" {
	local old="udmabuf-test old message $$ $RANDOM" new="udmabuf-test self-check $$ $RANDOM"
	echo "$old" >/dev/kmsg
	kmsg_mark
	echo "$new" >/dev/kmsg
	run -0 "$UT" kmsg-since "$KMSG_SEQ"
	assert_output --partial "$new"
	refute_output --partial "$old"
}

@test "write-attr reports the errno name of a failed open" {
	run -1 "$UT" write-attr /nonexistent/file 1
	assert_line --index 0 ENOENT
}

@test "a wrong pattern is detected through read() and, at its offset, through mmap" {
	make_buf tbuf 8192
	check "$UT" write-fill /dev/tbuf 0 8192 1
	run -2 "$UT" read-verify /dev/tbuf 0 8192 2
	assert_output --partial MISMATCH
	check "$UT" mmap-fill /dev/tbuf 0 8192 1
	check "$UT" write-fill /dev/tbuf 4096 8 3
	run -2 "$UT" mmap-verify /dev/tbuf 0 8192 1
	assert_output --partial "offset 4096"
}

@test "a holder reports data changed under it" {
	make_buf tbuf 8192
	start_holder /dev/tbuf 0 8192 1
	check "$UT" write-fill /dev/tbuf 100 1 2
	stop_holder "$HOLDER_PID"
	assert_equal "$status" 2
	assert_output --partial MISMATCH
}

@test "teardown's cleanup removes enabled, disabled and in-use items" {
	make_buf busy 4096
	new_item idle size=4096
	start_holder /dev/busy 0 4096 1 --close-fd
	exec 7<>/dev/busy
	common_teardown
	[ -z "$(ls "$CLASS")" ] || fail "left: $(ls "$CLASS")"
	run find "$cfs" -mindepth 1 -type d
	assert_output ""
	run kill -0 "$HOLDER_PID"
	assert_failure
}

@test "the per-test check prints only matching lines after the mark and leaves the next mark" {
	local mark=$BATS_TEST_TMPDIR/mark next
	echo "udmabuf-test planted $$ one" >/dev/kmsg
	echo "udmabuf-test unplanted $$" >/dev/kmsg
	run -0 "$UT" kmsg-check "$KMSG_SEQ" "udmabuf-test planted $$" "$mark"
	assert_output "udmabuf-test planted $$ one"
	read -r next <"$mark"
	[ "$next" -gt "$KMSG_SEQ" ] || fail "mark $next is not after $KMSG_SEQ"
	# From the new mark, nothing old is repeated; what comes after is seen.
	echo "udmabuf-test planted $$ two" >/dev/kmsg
	run -0 "$UT" kmsg-check "$next" "udmabuf-test planted $$" "$mark"
	assert_output "udmabuf-test planted $$ two"
}

@test "teardown fails a test after which the kernel logged a bad line" {
	# A line of our own stands for a warning: a real "WARNING:" would fail
	# the whole guest run (the harness reads the log too).
	local KMSG_BAD="udmabuf-test planted $$"
	echo "udmabuf-test planted $$ (bad)" >/dev/kmsg
	run common_teardown
	assert_failure
	assert_output --partial "the kernel logged during this test"
	assert_output --partial "udmabuf-test planted $$ (bad)"
	# The next test starts after it: so does this one's real teardown.
	read -r KMSG_SEQ <"$KMSG_MARK_FILE"
	run -0 "$UT" kmsg-check "$KMSG_SEQ" "$KMSG_BAD" /dev/null
	assert_output ""
}

@test "teardown fails when the kernel log cannot be read" {
	local KMSG_SEQ=-1 UT=false
	run common_teardown
	assert_failure
	assert_output --partial "cannot check the kernel log"
}

# The stress program (stress.bats) finds what it must: each of its checks
# failing on a fault it plants.

# planted KIND [OPTIONS...]: run the stress program for 2 s with the fault
# KIND planted (--selftest); it must fail, and say so.
planted() {
	local kind=$1
	shift
	run -1 "$STRESS" --seconds 2 --selftest "$kind" "$@"
}

@test "the stress program refuses to start while a buffer exists" {
	make_buf tbuf 4096
	run -1 "$STRESS" --seconds 1
	assert_output --partial "not a clean start"
}

@test "the stress program reports data that changed under a mapping" {
	planted corrupt
	assert_output --partial "MISMATCH at offset 56"
	assert_line --regexp '^stress: FAILED \(seed [0-9]+\)$'
}

@test "the stress program reports a buffer left behind" {
	planted leak
	assert_line --partial "left behind: $cfs/stress-w0-0"
	assert_line --partial "left behind: $CLASS/stress-w0-0"
}

@test "the stress program reports an unexpected errno" {
	planted errno
	assert_output --partial "unexpected EAGAIN, expected OK"
}

@test "the stress program reports data that changed in a pipe" {
	planted splice
	assert_output --partial "pages a pipe held: MISMATCH at offset 56"
}

@test "the stress program reports a process-scoped buffer's page left in a pipe (process_used)" {
	planted procleak
	# A child holds a page of the buffer in a pipe: that page stays charged.
	assert_output --regexp 'after phase 1: process_used is [1-9][0-9]* bytes \(want 0\)'
	refute_output --partial "left behind"
}

@test "the stress program reports a module reference left behind" {
	planted modref
	assert_output --regexp "after phase 1: process_used is 0 bytes \(want 0\) and the module's refcount ([0-9]+) \(want [0-9]+\)"
	refute_output --partial "refcount 0 (want 0)"
}

@test "the stress program reports free memory that did not come back" {
	planted memfree --module "$UDMABUF_KO"
	assert_output --regexp 'free memory is [0-9]+ KiB below the start.s, beyond the margin'
}
