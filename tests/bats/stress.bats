#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# (tests/vm/check-all: 30 s of stress on the debug kernel in make check,
# about 45 s in all.)
# check-all: weight 20
# Concurrent stress: worker processes and threads make, use, attack and
# remove buffers at random (tests/helpers/udmabuf-stress.c); every outcome
# must be a legitimate one, every buffer keeps its data while open or
# mapped, and in the end nothing is left and the module unloads.  On the
# debug kernel, the guest's final kmemleak scan judges what the run leaked
# (a scan of its own here cost 26 s).
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
	grep -E '^(seed|phase|stats)' <<<"$output" | sed 's/^/# /' >&3
	assert_success
	assert_line "stress: passed"
	assert_line --regexp '^phase [0-9]+ of [0-9]+: .*, module unloaded and loaded again$'
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
