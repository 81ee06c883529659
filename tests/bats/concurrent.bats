#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Several programs asking for buffers at the same moment, as a test rig
# starting its DMA workers does: udmabuf-race starts its processes first,
# lets them all go at once, and counts what each got.  A request is refused
# only where the memory does not exist, never because another allocation is
# in progress; and a refusal's log line describes the memory as the
# refused search saw it.
# check-all: weight 60

load helpers/common

RACE=udmabuf-race
ROUNDS=20
# Larger than the page allocator's largest block on every arch (4 or 8
# MiB): a free or movable range has to be found for each.
BIG=$((16 << 20))

PARAMS=/sys/module/$MODNAME/parameters

# enough_memory BYTES: fail unless MemFree is at least four times BYTES,
# so that every refusal would be the driver's fault.
enough_memory() {
	local free
	free=$(meminfo_kib MemFree)
	[ $((free * 1024)) -ge $((4 * $1)) ] ||
		fail "only $free KiB free for racers of $1 bytes in all"
}

# report_rounds: the rounds' lines to the TAP stream, for the record.
report_rounds() {
	grep -E '^(round|granted)' <<<"$output" | tail -n 3 | sed 's/^/# /' >&3
}

@test "four programs that each ask /dev/udmabuf-cfs for 16 MiB at once are all granted, 20 rounds" {
	enough_memory $((4 * BIG))
	set_attr "$PARAMS/process_max" $((8 * BIG))
	run "$RACE" alloc 4 "$BIG" "$ROUNDS"
	report_rounds
	assert_success
	assert_line "granted $((4 * ROUNDS)) of $((4 * ROUNDS))"
	# They came from ranges, as the test means: the page allocator cannot
	# give 16 MiB, and the search is what has to wait.
	run -0 "$RACE" alloc 1 "$BIG" 1 --allocator 2
}

@test "four configfs items of 16 MiB enabled at the same moment are all enabled, 20 rounds" {
	local i items=()
	enough_memory $((4 * BIG))
	for i in 0 1 2 3; do
		new_item "race$i" size="$BIG"
		items+=("$cfs/race$i")
	done
	run "$RACE" enable "$ROUNDS" "${items[@]}"
	report_rounds
	assert_success
	assert_line "granted $((4 * ROUNDS)) of $((4 * ROUNDS))"
	for i in 0 1 2 3; do
		assert_attr "$cfs/race$i/enable" 0
	done
}

@test "process-scoped and configfs requests racing each other are all granted" {
	local i items=()
	enough_memory $((4 * BIG))
	set_attr "$PARAMS/process_max" $((8 * BIG))
	for i in 0 1; do
		new_item "race$i" size="$BIG"
		items+=("$cfs/race$i")
	done
	"$RACE" alloc 2 "$BIG" 10 >"$BATS_TEST_TMPDIR/alloc.out" 2>&1 &
	local pid=$!
	run "$RACE" enable 10 "${items[@]}"
	wait "$pid" || fail "the process-scoped racers: $(cat "$BATS_TEST_TMPDIR/alloc.out")"
	assert_success
	assert_line "granted 20 of 20"
}

@test "racers asking for more than there is: the refused ones' log lines say the largest range was smaller than asked" {
	local free size seq line asked largest n=0
	free=$(meminfo_kib MemFree)
	# Two thirds of what is free: one can be granted, never both.
	size=$(((free * 2 / 3) / 4096 * 4096 * 1024))
	set_attr "$PARAMS/process_max" $((4 * size))
	seq=$("$UT" kmsg-seq)
	run "$RACE" alloc 2 "$size" 1 --allocator 2
	report_rounds
	assert_failure 1
	assert_line --regexp '^round 1: [01] of 2 granted( ENOMEM)+$'
	run -0 "$UT" kmsg-since "$seq"
	while IFS= read -r line; do
		[[ $line =~ no\ ([0-9]+)\ KiB\ of\ contiguous.*largest\ free\ or\ movable\ range\ ([0-9]+)\ KiB ]] ||
			continue
		asked=${BASH_REMATCH[1]}
		largest=${BASH_REMATCH[2]}
		n=$((n + 1))
		[ "$largest" -lt "$asked" ] ||
			fail "refused $asked KiB while the largest range was $largest KiB: $line"
	done <<<"$output"
	[ "$n" -ge 1 ] || fail "no refusal in the log: $output"
}
