#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Planted failures for tests/vm/selftest: run by the harness, this file
# must make it report a failed run, once for each reason below.  Not part
# of the suite.

@test "planted: a test that fails" {
	false
}

@test "planted: a test after which the kernel logs a warning" {
	echo "WARNING: planted by tests/vm/selftest" >/dev/kmsg
}

@test "planted: a test that skips where no lane expects it" {
	skip "planted by tests/vm/selftest"
}

@test "planted: a test that passes" {
	true
}
