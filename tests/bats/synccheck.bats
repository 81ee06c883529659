#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The sync checker finds a missing flush or invalidate on any machine: each
# wrong program of udmabuf-syncbug (a CPU access to memory the device owns
# through a mapping, read(), write() or get_user_pages(); a sync for the
# CPU of a range never given to the device; a sync whose ends split cache
# lines) is reported with its offset and counted, and the same program
# done right is not.  sync_check 2 turns a faulting access into SIGBUS.
# Off, the checker takes no entry away (kprobe on unmap_mapping_range).

load helpers/common

BUG=udmabuf-syncbug
SZ=65536
OFF=12288

setup() {
	common_setup || return 1
	make_buf sc "$SZ" sync_check=1
}

teardown() {
	if [ -e "$BATS_TEST_TMPDIR/preempt" ]; then
		cat "$BATS_TEST_TMPDIR/preempt" >"$PREEMPT"
	fi
	kprobe_del udmabuf/unmap_range
	fi_restore
	common_teardown
}

# violations NAME: the buffer's sync_violations.
violations() {
	cat "$CLASS/$1/sync_violations"
}

# assert_reported BUG WHAT MISSING [AT]: the wrong program runs to its
# end, one more violation is counted, and the log line names the buffer,
# the offset (AT, default the one the program touched), the process, the
# access and what was missing; the fixed program adds none.
assert_reported() {
	local bug=$1 what=$2 missing=$3 at=${4:-0x3000} before seq
	before=$(violations sc)
	seq=$("$UT" kmsg-seq)
	run -0 "$BUG" "$bug" /dev/sc "$OFF"
	assert_output "done"
	[ "$(violations sc)" -gt "$before" ] ||
		fail "sync_violations stayed $before after '$bug'"
	run -0 "$UT" kmsg-since "$seq"
	assert_output --regexp "sc: sync check: $what at offset $at by udmabuf-syncbug\[[0-9]+\]: $missing"
	before=$(violations sc)
	run -0 "$BUG" "$bug" /dev/sc "$OFF" --fixed
	assert_output "done"
	assert_equal "$(violations sc)" "$before"
}

@test "sync_check is 0 by default, 1 or 2 when asked, ERANGE beyond; sync_violations starts at 0" {
	make_buf plain 4096
	assert_attr "$cfs/plain/sync_check" 0
	assert_attr "$CLASS/plain/sync_check" 0
	assert_attr "$CLASS/sc/sync_check" 1
	assert_attr "$CLASS/sc/sync_violations" 0
	assert_write ERANGE "$cfs/plain/sync_check" 3
	assert_write ERANGE "$CLASS/plain/sync_check" 3
	assert_write OK "$CLASS/plain/sync_check" 2
	assert_attr "$cfs/plain/sync_check" 2
	assert_outcome EACCES "$UT" write-attr "$CLASS/plain/sync_violations" 0
}

# A load or store through a mapping, read(), write(), get_user_pages() of
# memory the device owns (a dma-buf importer's too, after its
# DMA_BUF_IOCTL_SYNC END; after START it is not); a sync for the CPU of a
# range the device was never given (the flush is missing), or whose end
# falls inside a cache line (split: [0x3000, 0x3064), the end 100 bytes on a
# line, reported at that end).
@test "each wrong program is reported, at its offset, with what it missed, and counted; done right it is not" {
	local bug what missing at
	while IFS='|' read -r bug what missing at; do
		# Each on a new buffer, as the program finds it.
		set_attr "$cfs/sc/enable" 0
		rmdir "$cfs/sc"
		make_buf sc "$SZ" sync_check=1
		assert_reported "$bug" "$what" "$missing" ${at:+"$at"}
	done <<-'EOF'
		load|CPU load through a mapping|the device owns it: a sync for the CPU is missing
		store|CPU store through a mapping|the device owns it: a sync for the CPU is missing
		read|read\(\)|the device owns it
		write|write\(\)|the device owns it
		vmsplice|get_user_pages\(\) \(O_DIRECT, vmsplice, a pin\)|the device owns it
		no-flush|sync for the CPU|the device was never given this range
		split|sync for the CPU|its range ends inside a cache line|0x3064
		dmabuf|CPU load through a mapping|the device owns it
	EOF
}

@test "sync_check 2: the access to memory the device owns gets SIGBUS" {
	set_attr "$CLASS/sc/sync_check" 2
	run "$BUG" load /dev/sc "$OFF"
	# 128 + SIGBUS (7)
	assert_equal "$status" 135
	refute_output --partial "done"
	run -0 "$BUG" load /dev/sc "$OFF" --fixed
}

@test "off, a sync for the device takes no entry of any mapping away" {
	local before
	[ "$UDMABUF_KERNEL_FLAVOUR" != debug ] || skip "the debug kernel has no kprobe events"
	# The driver's one way to take entries away (it calls
	# unmap_mapping_range() on the buffer's address space).
	kprobe_add p udmabuf/unmap_range udmabuf_cfs:udmabuf_unmap_range
	set_attr "$CLASS/sc/sync_check" 0
	run -0 "$BUG" load /dev/sc "$OFF"
	assert_equal "$(cat "$TRACEFS/events/udmabuf/unmap_range/enable")" 1
	assert_equal "$(grep -c 'unmap_range:' "$TRACEFS/trace")" 0
	before=$(violations sc)
	assert_equal "$before" 0
	# On, the same program takes them away, and is reported.
	set_attr "$CLASS/sc/sync_check" 1
	run -0 "$BUG" load /dev/sc "$OFF"
	[ "$(grep -c 'unmap_range:' "$TRACEFS/trace")" -ge 1 ] ||
		fail "no unmap_mapping_range() with the checker on"
	[ "$(violations sc)" -gt 0 ] || fail "not reported with the checker on"
}

# Each buffer's reports are rate-limited on their own (10 in 5 s): sc's
# device-owned pages read one by one make 16 reports, more than the burst.
@test "a program flooding one buffer with reports does not hide another buffer's first report" {
	local before seq
	make_buf other "$SZ" sync_check=1
	run -0 "$BUG" read /dev/sc "$OFF"
	before=$(violations sc)
	run -0 dd if=/dev/sc of=/dev/null bs=4096 count=16 status=none
	(( $(violations sc) >= before + 16 )) ||
		fail "16 reads of pages the device owns made $(($(violations sc) - before)) reports"
	seq=$("$UT" kmsg-seq)
	run -0 "$BUG" read /dev/other "$OFF"
	run -0 "$UT" kmsg-since "$seq"
	assert_output --regexp "other: sync check: read\(\) at offset 0x3000 by udmabuf-syncbug\[[0-9]+\]: the device owns it"
}

@test "a process-scoped buffer asks for the checker in its ALLOC request" {
	local seq
	seq=$("$UT" kmsg-seq)
	run -0 udmabuf-proc run "$SZ" --sync-check 1 -- "$BUG" load "fd:{}" "$OFF"
	assert_output "done"
	run -0 "$UT" kmsg-since "$seq"
	assert_output --regexp "proc-[0-9]+-[0-9]+: sync check: CPU load through a mapping at offset 0x3000 by udmabuf-syncbug\[[0-9]+\]"
	# 2 in the request: SIGBUS (128 + 7).
	run udmabuf-proc run "$SZ" --sync-check 2 -- "$BUG" load "fd:{}" "$OFF"
	assert_equal "$status" 135
	refute_output --partial "done"
	run -1 udmabuf-proc alloc "$SZ" --sync-check 3
	assert_output ERANGE
}

@test "udmabufN_sync_check turns the checker on for a parameter buffer" {
	remove_all_items
	unload_module
	load_module udmabuf0=64K udmabuf0_sync_check=2
	assert_attr "$CLASS/udmabuf0/sync_check" 2
	run "$BUG" store /dev/udmabuf0 "$OFF"
	assert_equal "$status" 135
	assert_equal "$(violations udmabuf0)" 1
	remove_all_items
	unload_module
	assert_errno ERANGE "$UT" insmod-try "$UDMABUF_KO" udmabuf0=64K udmabuf0_sync_check=3
	load_module
}


@test "memory mapped by its frames (allocator cma) is checked the same way" {
	local seq
	make_buf pfn "$SZ" allocator=cma sync_check=1
	run -0 udmabuf-ioctl info /dev/pfn
	assert_line pages=0
	assert_line sync_check=1
	seq=$("$UT" kmsg-seq)
	run -0 "$BUG" load /dev/pfn "$OFF"
	run -0 "$UT" kmsg-since "$seq"
	assert_output --partial "pfn: sync check: CPU load through a mapping at offset 0x3000"
	assert_equal "$(violations pfn)" 1
	run -0 udmabuf-ioctl info /dev/pfn
	assert_line sync_violations=1
	run -0 "$BUG" store /dev/pfn "$OFF" --fixed
	assert_equal "$(violations pfn)" 1
}

# Ownership is per page, but a page given to the device may come back to
# the CPU in parts (a completion per descriptor, ping-pong halves): each
# part's sync for the CPU is right.  A page never given is still reported.
@test "a page given to the device comes back in parts without a report; a page never given is reported" {
	local pg half
	pg=$("$UT" pagesize)
	half=$((pg / 2))
	run -0 udmabuf-ioctl sync /dev/sc device 0 "$pg" 0
	run -0 udmabuf-ioctl sync /dev/sc cpu 0 "$half" 0
	run -0 udmabuf-ioctl sync /dev/sc cpu "$half" "$half" 0
	assert_equal "$(violations sc)" 0
	run -0 udmabuf-ioctl sync /dev/sc cpu "$OFF" "$pg" 0
	assert_equal "$(violations sc)" 1
}

# A mapping's caching is fixed when mmap() makes it; sync_mode may change
# any time after.  The checker judges the mapping as it was made.
@test "a mapping is checked as cached or not by the mode it was made with, not by a later sync_mode" {
	# Uncached (sync_mode 5: O_SYNC or not), then sync_mode 1: no sync is
	# needed through it, and no SIGBUS.
	set_attr "$CLASS/sc/sync_check" 2
	set_attr "$cfs/sc/sync_mode" 5
	start_holder /dev/sc 0 "$SZ" 71
	run -0 udmabuf-ioctl sync /dev/sc device 0 0 0
	set_attr "$cfs/sc/sync_mode" 1
	stop_holder_intact "$HOLDER_PID"
	assert_equal "$(violations sc)" 0
	run -0 udmabuf-ioctl sync /dev/sc cpu 0 0 0
	# Cached (sync_mode 1, no O_SYNC), then sync_mode 5: still checked.
	set_attr "$CLASS/sc/sync_check" 1
	start_holder /dev/sc 0 "$SZ" 72
	run -0 udmabuf-ioctl sync /dev/sc device "$OFF" 4096 0
	set_attr "$cfs/sc/sync_mode" 5
	stop_holder_intact "$HOLDER_PID"
	assert_equal "$(violations sc)" 1
}

# One thread loads the pages of a buffer while another hands it to the
# device; a third preempts the first at swept points of its faults, where
# the kernel can be preempted: PREEMPT_RT, and the kernels built with
# PREEMPT_DYNAMIC (amd64), switched to full preemption for the test.  Elsewhere the race
# runs unaided and is rarely met.  An entry made by a fault that saw the
# page still the CPU's must not outlive the handing over: after it, a load
# of each page gets SIGBUS (sync_check 2).
PREEMPT=/sys/kernel/debug/sched/preempt

@test "a fault racing the handing over of its page leaves no entry behind: a load of each page after it gets SIGBUS" {
	if [ -w "$PREEMPT" ]; then
		sed 's/.*(\(.*\)).*/\1/' "$PREEMPT" >"$BATS_TEST_TMPDIR/preempt"
		echo full >"$PREEMPT"
	fi
	set_attr "$CLASS/sc/sync_check" 2
	run "$BUG" race /dev/sc "$OFF"
	assert_output "done"
	assert_success
}

# Fault injection (the debug kernels, built for amd64 and arm64 only).
FI=/sys/kernel/debug

# fi_set FILE VALUE: a fault-injection setting, the old value kept for
# fi_restore.
fi_set() {
	printf '%s %s\n' "$FI/$1" "$(cat "$FI/$1")" >>"$BATS_TEST_TMPDIR/fi.saved"
	echo "$2" >"$FI/$1" || fail "cannot write $2 to $FI/$1"
}

fi_restore() {
	local f v
	[ -e "$BATS_TEST_TMPDIR/fi.saved" ] || return 0
	tac "$BATS_TEST_TMPDIR/fi.saved" | while read -r f v; do
		echo "$v" >"$f" || printf '# cannot restore %s to %s\n' "$f" "$v" >&2
	done
	rm -f "$BATS_TEST_TMPDIR/fi.saved"
}

# The checker's state for a buffer of many pages is larger than a page: it
# must not need physically contiguous memory.  The first slab allocation
# under udmabuf_sc_set() fails (failslab, /proc/thread-self/fail-nth); the
# checker still turns on, from vmalloc space.
@test "the checker of a large buffer turns on when no contiguous memory is left for its state" {
	local pg range
	requires_arch amd64 arm64
	[ -e "$FI/failslab/require-start" ] && [ -e /proc/thread-self/fail-nth ] ||
		skip "no $FI/failslab/require-start: needs a kernel with fault injection"
	pg=$("$UT" pagesize)
	# 8 * pg pages: a bit a page is pg bytes, the state more than that.
	make_buf big $((pg * pg * 8))
	range=$(awk '$4 == "[udmabuf_cfs]" && ($2 == "t" || $2 == "T") { print $1, $3 }' \
		/proc/kallsyms | sort |
		awk '$2 == "udmabuf_sc_set" { s = $1; next } s { print "0x" s, "0x" $1; exit }')
	[ -n "$range" ] || fail "no udmabuf_sc_set in /proc/kallsyms"
	fi_set failslab/probability 0
	fi_set failslab/verbose 0
	fi_set failslab/ignore-gfp-wait N
	fi_set failslab/cache-filter N
	fi_set failslab/stacktrace-depth 32
	fi_set failslab/require-start "${range% *}"
	fi_set failslab/require-end "${range#* }"
	fi_set fail_page_alloc/require-start 0
	fi_set fail_page_alloc/require-end 0
	# One shell: fail-nth is the writing thread's own.
	run bash -c 'echo 1 >/proc/thread-self/fail-nth && echo 1 >"$1" &&
		read -r n </proc/thread-self/fail-nth && echo "$n"' - "$CLASS/big/sync_check"
	fi_restore
	assert_success
	# 0: the fault was injected, and the checker turned on all the same.
	assert_output 0
	assert_attr "$CLASS/big/sync_check" 1
	run -0 udmabuf-ioctl sync /dev/big device 0 "$pg" 0
	run -0 "$UT" pread-try /dev/big 0 8
	assert_equal "$(violations big)" 1
}
