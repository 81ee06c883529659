#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# (tests/vm/check-all: 30 s of stress on the debug kernels in make check;
# the file takes 140 to 170 s there: the run 60 to 80 s, its selftests 55
# to 95 s.)
# check-all: weight 50
# Concurrent stress: worker processes and threads make, use, attack and
# remove buffers at random (tests/helpers/udmabuf-stress.c): configfs,
# process-scoped (ALLOC) and parameter buffers, mapped, synced, exported as
# dma-bufs, pinned by io_uring, spliced into pipes, held by children killed
# with SIGKILL; a placer places buffers at addresses it learnt, and rmmod
# is tried all along.  Every outcome must be a legitimate one, every buffer
# keeps its data while open, mapped or held, and between phases nothing is
# left, process_used and the module's refcount come back and the module
# unloads; at the end free memory is back within a margin.  On the debug
# kernel, the guest's final kmemleak scan judges what the run leaked (a
# scan of its own here cost 26 s).
# UDMABUF_TEST_STRESS_SECONDS sets the length (default 10 s).

# Variables such as cfs, CLASS and UT come from helpers/common.bash.
# shellcheck disable=SC2154
load helpers/common

STRESS=udmabuf-stress

setup() { common_setup; }
teardown() {
	rm -f /tmp/stress-stale-*
	common_teardown
}

# Nothing of the run is left: items, class devices, device nodes.
assert_nothing_left() {
	local left
	left=$(find "$cfs" -mindepth 1 -maxdepth 1 -type d)
	[ -z "$left" ] || fail "configfs items left: $left"
	left=$(ls "$CLASS")
	[ -z "$left" ] || fail "class devices left: $left"
	left=$(find /dev -maxdepth 1 -name 'stress*')
	[ -z "$left" ] || fail "device nodes left: $left"
}

@test "concurrent workers keep their data, get only legitimate errors and leave nothing behind" {
	local secs=${UDMABUF_TEST_STRESS_SECONDS:-10}
	run "$STRESS" --seconds "$secs" --module "$UDMABUF_KO"
	grep -E '^(seed|phase|end|stats|FAIL)' <<<"$output" | sed 's/^/# /' >&3
	assert_success
	assert_line "stress: passed"
	assert_line --regexp '^phase [0-9]+ of [0-9]+: .*, module unloaded and loaded again( with .*| without .*)?$'
	assert_line --regexp "^end: process_used 0 and the module's refcount as at the start within [0-9]+ ms"
	assert_line --regexp '^end: free memory [0-9]+ KiB at the start, [0-9]+ KiB at the end'
	refute_line --partial FAIL
	assert_nothing_left
	assert_errno OK "$UT" rmmod-try "$MODNAME"
	[ ! -e "$cfs" ] || fail "$cfs still exists after rmmod"
	[ ! -e "$CLASS" ] || fail "$CLASS still exists after rmmod"
	assert_errno OK "$UT" insmod-try "$UDMABUF_KO"
	assert_no_kernel_warnings
}

@test "the stress program refuses to start while a buffer exists" {
	make_buf tbuf 4096
	run "$STRESS" --seconds 1
	assert_failure 1
	assert_output --partial "not a clean start"
}

@test "the stress program reports data that changed under a mapping" {
	run "$STRESS" --seconds 2 --selftest corrupt
	assert_failure 1
	assert_output --partial "MISMATCH at offset 56"
	assert_line --regexp '^stress: FAILED \(seed [0-9]+\)$'
}

@test "the stress program reports a buffer left behind" {
	run "$STRESS" --seconds 2 --selftest leak
	assert_failure 1
	assert_line --partial "left behind: $cfs/stress-w0-0"
	assert_line --partial "left behind: $CLASS/stress-w0-0"
}

@test "the stress program reports an unexpected errno" {
	run "$STRESS" --seconds 2 --selftest errno
	assert_failure 1
	assert_output --partial "unexpected EAGAIN, expected OK"
}

@test "the stress program reports data that changed in a pipe" {
	run "$STRESS" --seconds 2 --selftest splice
	assert_failure 1
	assert_output --partial "pages a pipe held: MISMATCH at offset 56"
}

@test "the stress program reports a process-scoped buffer's page left in a pipe (process_used)" {
	run "$STRESS" --seconds 2 --selftest procleak
	assert_failure 1
	# The old driver kept all 64 KiB charged until the page left the pipe.
	assert_output --regexp 'after phase 1: process_used is [1-9][0-9]* bytes \(want 0\)'
	refute_output --partial "left behind"
}

@test "the stress program reports a module reference left behind" {
	run "$STRESS" --seconds 2 --selftest modref
	assert_failure 1
	assert_output --regexp "after phase 1: process_used is 0 bytes \(want 0\) and the module's refcount ([0-9]+) \(want [0-9]+\)"
	refute_output --partial "refcount 0 (want 0)"
}

@test "the stress program reports free memory that did not come back" {
	run "$STRESS" --seconds 2 --selftest memfree --module "$UDMABUF_KO"
	assert_failure 1
	assert_output --regexp 'free memory is [0-9]+ KiB below the start.s, beyond the margin'
}
