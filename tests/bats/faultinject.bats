#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# check-all: weight 96
# Fault injection (debug kernels): an allocation fails at each point in
# turn, N = 1, 2, ..., during enable, mkdir and insmod with buffer
# parameters (tests/helpers/udmabuf-fault.c, /proc/thread-self/fail-nth).
# Every failure must be ENOMEM (insmod: or the driver core's EINVAL, below)
# and leave nothing behind, every success must work, a retry without faults
# must succeed, and kmemleak must find nothing: the guest's final scan,
# which fails the run and names the object and the stack that allocated it.
# (A check of each test's own cost two scans, 40 s on the amd64 debug
# guest: kmemleak reports an object only from the second scan that finds
# it unchanged.)
#
# Only our own code's allocations are failed, through the stack-trace
# filters: failslab (silent by design) for allocations made under module
# code, fail_page_alloc only for the buffer's own memory (under
# udmabuf_alloc).  A page allocation of core code failing under us would
# make core code report it (SLUB, vmalloc warnings), which says nothing
# about this driver; the slab allocations above it cover the same error
# paths of ours.

load helpers/common

FAULT=udmabuf-fault
FI=/sys/kernel/debug
ULONG_MAX=0xffffffffffffffff

requires_fault_injection() {
	local f
	for f in "$FI/failslab/require-start" "$FI/fail_page_alloc/require-start" \
		/proc/thread-self/fail-nth; do
		[ -e "$f" ] || skip "no $f: needs a kernel with fault injection (tests/vm/run --kernel debug)"
	done
}

setup() {
	requires_fault_injection
	common_setup
	fi_save
}

teardown() {
	# Skipped before common_setup: nothing to undo.
	[ -e "$BATS_TEST_TMPDIR/fi.saved" ] || return 0
	fi_restore
	common_teardown
}

# fi_save: remember every fault-injection setting, for fi_restore.
fi_save() {
	local f
	: >"$BATS_TEST_TMPDIR/fi.saved"
	for f in "$FI"/failslab/* "$FI"/fail_page_alloc/*; do
		[ -f "$f" ] && [ -w "$f" ] || continue
		printf '%s %s\n' "$f" "$(cat "$f")" >>"$BATS_TEST_TMPDIR/fi.saved"
	done
}

fi_restore() {
	local f v
	[ -e "$BATS_TEST_TMPDIR/fi.saved" ] || return 0
	while read -r f v; do
		echo "$v" >"$f" || printf '# cannot restore %s to %s\n' "$f" "$v" >&2
	done <"$BATS_TEST_TMPDIR/fi.saved"
}

fi_set() {
	echo "$2" >"$FI/$1" || fail "cannot write $2 to $FI/$1"
}

# fi_only KIND START END: fail-nth counts only the points of KIND
# (failslab or fail_page_alloc) reached under code in [START, END), also
# for GFP_KERNEL allocations of any order; nothing is logged about them.
# The other kind's filter is an empty range: its points never count.
fi_only() {
	local kind=$1 k other=failslab
	[ "$kind" = failslab ] && other=fail_page_alloc
	for k in failslab fail_page_alloc; do
		fi_set "$k/probability" 0
		fi_set "$k/verbose" 0
		fi_set "$k/ignore-gfp-wait" N
		fi_set "$k/stacktrace-depth" 32
		fi_set "$k/reject-start" 0
		fi_set "$k/reject-end" 0
	done
	fi_set failslab/cache-filter N
	fi_set fail_page_alloc/min-order 0
	fi_set fail_page_alloc/ignore-gfp-highmem N
	fi_set "$other/require-start" 0
	fi_set "$other/require-end" 0
	fi_set "$kind/require-start" "$2"
	fi_set "$kind/require-end" "$3"
}

# The end of the core kernel's text: code above it belongs to modules.
kernel_text_end() {
	awk '$3 == "_etext" { print "0x" $1; exit }' /proc/kallsyms
}

# function_range FUNCTION: "START END" of a function of udmabuf_cfs.
function_range() {
	awk '$4 == "[udmabuf_cfs]" && ($2 == "t" || $2 == "T") { print $1, $3 }' \
		/proc/kallsyms | sort |
		awk -v f="$1" 'start { print "0x" start, "0x" $1; exit } $2 == f { start = $1 }'
}

# Failslab under module code: every slab allocation of udmabuf-cfs (and of
# configfs, and of core code called by either) fails in turn.
arm_slab() {
	local start
	start=$(kernel_text_end)
	[ -n "$start" ] || fail "no _etext in /proc/kallsyms"
	fi_only failslab "$start" "$ULONG_MAX"
}

# fail_page_alloc under udmabuf_alloc: the buffer's own memory.
arm_buffer_pages() {
	local range
	range=$(function_range udmabuf_alloc)
	[ -n "$range" ] || fail "udmabuf_alloc not found in /proc/kallsyms"
	# shellcheck disable=SC2086 # "START END"
	fi_only fail_page_alloc $range
}

# run_fault COMMAND ARGS...: run udmabuf-fault; it must end well, and have
# made at least MIN_ENOMEM (default 1) calls fail with ENOMEM, and at least
# MIN_FAULTED (default 1) calls meet an injected fault at all (failing, or
# succeeding through another way).
run_fault() {
	local min=${MIN_ENOMEM:-1} min_faulted=${MIN_FAULTED:-1} n d
	run "$FAULT" "$@"
	printf '# %s\n' "${lines[@]}" >&3
	assert_success
	n=$(sed -n 's/^[a-z]*: [0-9]* calls, \([0-9]*\) failed with ENOMEM.*/\1/p' <<<"$output")
	d=$(sed -n 's/.*, \([0-9]*\) succeeded despite a fault.*/\1/p' <<<"$output")
	[ -n "$n" ] && [ "$n" -ge "$min" ] ||
		fail "expected at least $min calls failing with ENOMEM: $output"
	[ $((n + ${d:-0})) -ge "$min_faulted" ] ||
		fail "expected at least $min_faulted calls to meet a fault: $output"
}

@test "enable, with a fixed minor or the first free one and its own device name, fails cleanly with ENOMEM at every slab allocation, then works" {
	new_item fbuf size=64K minor=5
	new_item fbuf2 size=12344 device_name=fault.dev
	arm_slab
	run_fault enable "$cfs/fbuf"
	run_fault enable "$cfs/fbuf2"
	fi_restore
	assert_write OK "$cfs/fbuf/enable" 1
	assert_device fbuf
	assert_equal "$(minor_of "$(cat "$cfs/fbuf/dev")")" 5
	assert_write OK "$cfs/fbuf2/enable" 1
	assert_device fault.dev
}

# One page: the page allocator's block failing, dma_alloc_pages() (CMA, or
# the page allocator again) is tried: a single injected failure is
# survived, and must be met.  1 MiB: from CMA where there is one, whose
# allocations may need no page at all.  (A mask below the CMA area would
# force the page allocator, but the debug kernel has no ZONE_DMA: 24 bits
# is ERANGE there.)
@test "enable of a page or of 1 MiB fails cleanly, or falls back to the DMA API, when the buffer's pages cannot be allocated" {
	local size
	for size in 4096 1M; do
		new_item "f$size" size="$size"
		arm_buffer_pages
		MIN_ENOMEM=0 run_fault enable "$cfs/f$size"
		fi_restore
		assert_write OK "$cfs/f$size/enable" 1
		assert_device "f$size"
	done
}

@test "mkdir fails cleanly with ENOMEM at every slab allocation, then works" {
	arm_slab
	run_fault mkdir "$cfs/fdir"
	fi_restore
	assert_errno OK "$UT" mkdir-try "$cfs/fdir"
	assert_attr "$cfs/fdir/size" 0
}

# Registering the platform driver, the driver core makes the module's
# drivers/ directory; when that allocation fails, module_add_driver()
# (drivers/base/module.c) says EINVAL, logging "bus_add_driver: failed to
# create module links".  Loading passes that errno on, as it should.
MODULE_LINKS_EINVAL="EINVAL=failed to create module links for udmabuf-cfs"

# With a parameter buffer, loading fails at every point of the load without
# one too (the same init), at every point of making the buffer, and after
# it, where the buffer is unwound.  One buffer is enough: a failure at the
# second of two unwinds the first by the same function (params.c) that a
# later failure unwinds one by, and the second's own points are the
# first's again (370 insmods with two, 256 with one).
@test "insmod with a buffer parameter fails cleanly with ENOMEM at every slab allocation, then loads" {
	check unload_module
	arm_slab
	run_fault insmod "$UDMABUF_KO" udmabuf3=8K --allow "$MODULE_LINKS_EINVAL"
	fi_restore
	run module_loaded
	assert_failure
	assert_errno OK "$UT" insmod-try "$UDMABUF_KO" udmabuf3=8K
	assert_device udmabuf3
	[ -d "$cfs" ] || fail "$cfs does not exist after insmod"
	assert_errno OK "$UT" rmmod-try "$MODNAME"
}

@test "the fault helper reports a failure with an errno other than ENOMEM, and what a failed call left behind" {
	make_buf taken 4096 minor=9
	new_item fbuf size=4096 minor=9
	arm_slab
	run "$FAULT" enable "$cfs/fbuf"
	fi_restore
	assert_failure 1
	assert_output --partial "unexpected EBUSY, want ENOMEM"
	new_item fbuf2 size=4096
	arm_slab
	run "$FAULT" enable "$cfs/fbuf2" --gone /dev/null
	fi_restore
	assert_failure 1
	assert_output --partial "after a failed enable: /dev/null still exists"
}

