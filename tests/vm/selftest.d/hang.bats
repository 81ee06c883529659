#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# A planted hang for tests/vm/selftest: run by the harness under a short
# timeout, it must be judged timed out, with the guest's own view of its
# tasks and QEMU's of its CPUs.  Not part of the suite.

@test "planted: a test that never ends" {
	sleep 1000
}
