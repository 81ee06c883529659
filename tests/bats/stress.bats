#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# check-all: weight 40
# Concurrent stress (tests/helpers/udmabuf-stress.c, whose header says what
# it does and which outcomes it accepts); its negative controls are in
# selfcheck.bats.  On the debug kernels, the guest's final kmemleak scan
# judges what the run leaked.  UDMABUF_TEST_STRESS_SECONDS sets the length
# (default 10 s; make check's STRESS_SECONDS on the debug kernels).

# Variables such as cfs, CLASS and UT come from helpers/common.bash.
# shellcheck disable=SC2154
load helpers/common

STRESS=udmabuf-stress

setup() { common_setup; }
teardown() {
	rm -f /tmp/stress-stale-*
	common_teardown
}

# The program itself checks that nothing is left after each phase (items,
# class devices, device nodes) and that the module then unloads, vanishes
# and loads again: the phase lines say it did.
@test "concurrent workers keep their data, get only legitimate errors and leave nothing behind" {
	local secs=${UDMABUF_TEST_STRESS_SECONDS:-10}
	run "$STRESS" --seconds "$secs" --module "$UDMABUF_KO"
	grep -E '^(seed|phase|end|stats|FAIL)' <<<"$output" | sed 's/^/# /' >&3
	# A failure's report (and check-all's summary of it) starts with why.
	((status == 0)) || grep -E '^(seed|FAIL)' <<<"$output" | head -n 8 >&2 || true
	assert_success
	assert_line "stress: passed"
	assert_line --regexp '^phase [0-9]+ of [0-9]+: .*, module unloaded and loaded again( with .*| without .*)?$'
	assert_line --regexp "^end: process_used 0 and the module's refcount as at the start within [0-9]+ ms"
	assert_line --regexp '^end: free memory [0-9]+ KiB at the start, [0-9]+ KiB at the end'
	refute_line --partial FAIL
	assert_no_kernel_warnings
}
