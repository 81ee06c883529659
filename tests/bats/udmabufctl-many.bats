#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# udmabufctl with many buffers alive at once.  Stock amd64 only: 1024
# device_add()s and the listing take most of a minute there under
# emulation (4096 took 3 minutes), and several times that on the arm64 and
# debug guests, whose budget is spent on what differs between architectures
# and kernels.

# Variables such as cfs and CLASS come from helpers/common.bash.
# shellcheck disable=SC2154
load helpers/common

bats_require_minimum_version 1.5.0

setup_file() {
	command -v udmabufctl >/dev/null || skip "udmabufctl is not installed in the guest"
	load_module
}

# After common_setup, so that the teardown finds what it checks.
setup() {
	common_setup
	if [ "$UDMABUF_ARCH" != amd64 ] || [ "$UDMABUF_KERNEL_FLAVOUR" != stock ]; then
		skip "stock amd64 only (too slow under emulation elsewhere)"
	fi
}

# The test removes its buffers with one 'udmabufctl clear': the per-item
# cleanup of common_teardown costs two processes per item.
teardown() {
	udmabufctl clear >/dev/null 2>&1 || true
	common_teardown
}

@test "1024 buffers alive at once are listed and cleared" {
	local i d names=()
	for ((i = 0; i < 1024; i++)); do
		names+=("$cfs/many$i")
	done
	# One mkdir for all; the writes are bash builtins, no process each.
	mkdir "${names[@]}" || fail "mkdir of 1024 items failed"
	for d in "${names[@]}"; do
		echo 4096 >"$d/size" || fail "size of $d"
		echo 1 >"$d/enable" || fail "enable of $d"
	done
	run -0 --separate-stderr bash -c 'udmabufctl list -n | wc -l'
	assert_equal "$output" 1024
	assert_equal "$stderr" ""
	run -0 --separate-stderr udmabufctl clear
	assert_equal "$stderr" ""
	run -0 --separate-stderr udmabufctl list -n
	assert_output ""
	local left
	left=$(shopt -s nullglob; cd "$CLASS" && echo many*)
	[ -z "$left" ] || fail "devices left: ${left:0:200}"
}
