# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# What the files of tests/bats-zynq/ share: the Zynq-7000 guest of lane
# armhf-zynq7000 (tests/vm/run --arch armhf --machine xilinx-zynq-a9 --dt
# tests/dt/zynq7000-udmabuf.dtsi), whose tree declares three buffers.
#
# Device-tree buffers come with every load of the module, and the files of
# tests/bats/ that run after these in the same guest check that no buffer
# is left over after each test.  So these files take the tree's buffers for
# their own time (driver_override cleared, module loaded) and give them back
# when they end (module unloaded, each node's driver_override set to a
# driver that does not exist, so that no later load binds them).

# tests/bats is the guest's /tests (tests/vm/run).
load /tests/helpers/common

PDEV=/sys/bus/platform/devices
# The kernel's own dmaengine and the test module that drives it.
# shellcheck disable=SC2034 # used by the files that load this one
PL330_DEV=/sys/bus/amba/devices/f8003000.dma-controller
# shellcheck disable=SC2034
DMATEST_KO=/lib/udmabuf/udmabuf-dmaengine-test.ko
# shellcheck disable=SC2034
DMATEST=/sys/kernel/debug/udmabuf-dmaengine-test

# zynq_dt_nodes: the platform devices of the tree's udmabuf nodes.
zynq_dt_nodes() {
	local d compat
	for d in "$PDEV"/*; do
		[ -r "$d/of_node/compatible" ] || continue
		compat=$(tr '\0' ' ' <"$d/of_node/compatible")
		[[ $compat == *ikwzm,u* ]] && echo "${d##*/}"
	done
}

# zynq_requires_board: skip unless this is the lane's guest.
zynq_requires_board() {
	[ -d "$PDEV/udmabuf4" ] ||
		skip "no Zynq-7000 tree with tests/dt/zynq7000-udmabuf.dtsi: run in lane armhf-zynq7000"
}

# zynq_take_dt_buffers [PARAM=VALUE...]: the module loaded (with the
# parameters) and the tree's buffers bound to it.
zynq_take_dt_buffers() {
	local n
	unload_module || return 1
	for n in $(zynq_dt_nodes); do
		# An empty write clears the override.
		printf '\n' >"$PDEV/$n/driver_override" || return 1
	done
	load_module "$@"
}

# zynq_give_back_dt_buffers: the module unloaded, the nodes kept from it.
zynq_give_back_dt_buffers() {
	local n
	kill_holders
	remove_all_items
	unload_module || return 1
	for n in $(zynq_dt_nodes); do
		echo none >"$PDEV/$n/driver_override" || return 1
	done
}

# zynq_setup [PARAM=VALUE...]: the per-test setup of these files: skip
# unless on the board, the module loaded (with the parameters), the kernel
# log marked.
zynq_setup() {
	untrace_helpers
	zynq_requires_board
	load_module "$@" || return 1
	kmsg_mark
}

# zynq_teardown: the per-test check of these files: holders stopped,
# configfs items removed, no kernel complaint during the test.
zynq_teardown() {
	local rc=0
	kill_holders
	remove_all_items || rc=1
	teardown_kmsg_check || rc=1
	return "$rc"
}

# say LINE...: into the lane's output (TAP comments), as the tests' report.
say() {
	local l
	for l in "$@"; do
		printf '# %s\n' "$l" >&3
	done
}
