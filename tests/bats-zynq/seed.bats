#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The seed's own board, used the seed's way: on the Zynq-7000 guest of lane
# armhf-zynq7000 (QEMU's xilinx-zynq-a9, the kernel built for it, the
# ZC702's tree plus tests/dt/zynq7000-udmabuf.dtsi), buffers from the
# module parameter udmabuf0= and from device-tree nodes written as the
# seed's README wrote them, read through /sys/class/udmabuf/ and
# /dev/udmabufN, and the seed's test program (tests/helpers/udmabuf-seed.c:
# check_buf and clear_buf, without and with O_SYNC, sync_mode 0 to 3) and
# "udmabufctl bench", whose tables go into the lane's output.  Times are
# printed, never judged: QEMU has no cache model.
#     tests/vm/run --lane armhf-zynq7000 tests/bats-zynq/seed.bats

load zynq

# The seed's parameter: bytes, decimal.
PARAMS=(udmabuf0=1048576)

setup_file() {
	zynq_requires_board
	zynq_take_dt_buffers "${PARAMS[@]}"
}

teardown_file() {
	zynq_give_back_dt_buffers
}

setup() { zynq_setup "${PARAMS[@]}"; }

teardown() {
	local rc=0
	# The seed's program leaves the last sync_mode it tried: back to 1.
	echo 1 >"$CLASS/udmabuf0/sync_mode" || rc=1
	echo 1 >"$CLASS/udmabuf5/sync_mode" || rc=1
	zynq_teardown || rc=1
	return "$rc"
}

# assert_ram_addr NAME: phys_addr is "0x" and 16 hex digits, page-aligned,
# and the buffer lies in the guest's 512 MiB of RAM at 0.
assert_ram_addr() {
	local a size
	read -r a <"$CLASS/$1/phys_addr"
	read -r size <"$CLASS/$1/size"
	[[ $a =~ ^0x[0-9a-f]{16}$ ]] || fail "$1: phys_addr '$a'"
	((a % 4096 == 0 && a + size <= 512 * 1024 * 1024)) || fail "$1: phys_addr $a, size $size"
}

@test "the seed's device-tree nodes give /dev/udmabuf4 (minor-number) and /dev/udmabuf5 (device-name), the current binding /dev/zynqbuf" {
	local n
	for n in udmabuf4 udmabuf5 zynqbuf; do
		assert_device "$n"
		assert_attr "$CLASS/$n/origin" dt
		assert_attr "$CLASS/$n/dma_coherent" 0
		assert_ram_addr "$n"
	done
	assert_attr "$CLASS/udmabuf4/size" 4194304
	[ "$(minor_of "$(cat "$CLASS/udmabuf4/dev")")" = 4 ] || fail "udmabuf4 is $(cat "$CLASS/udmabuf4/dev")"
	assert_attr "$CLASS/udmabuf5/size" 1048576
	assert_attr "$CLASS/zynqbuf/size" 1048576
	assert_attr "$CLASS/zynqbuf/sync_mode" 1
	[ "$(tr -d '\0' <"$CLASS/udmabuf4/device/of_node/compatible")" = "ikwzm,udmabuf-0.10.a" ] ||
		fail "udmabuf4's node is not the seed's"
}

@test "udmabuf0= as the seed took it: /dev/udmabuf0 of 1 MiB at minor 0, its class attributes as the seed read them" {
	assert_device udmabuf0
	assert_attr "$CLASS/udmabuf0/origin" param
	assert_attr "$CLASS/udmabuf0/size" 1048576
	[ "$(minor_of "$(cat "$CLASS/udmabuf0/dev")")" = 0 ] || fail "udmabuf0 is $(cat "$CLASS/udmabuf0/dev")"
	assert_attr "$CLASS/udmabuf0/sync_mode" 1
	assert_attr "$CLASS/udmabuf0/sync_offset" 0
	assert_attr "$CLASS/udmabuf0/sync_direction" 0
	assert_attr "$CLASS/udmabuf0/sync_owner" 0
	assert_ram_addr udmabuf0
}

# assert_seed_run NAME: the seed's program over NAME, every loop clean.
assert_seed_run() {
	local l
	run -0 udmabuf-seed "$1"
	say "udmabuf-seed $1 (the seed's test program):" "${lines[@]}"
	assert_line --index 0 "phys_addr=$(printf '0x%x' "$(cat "$CLASS/$1/phys_addr")")"
	assert_line --index 1 "size=$(cat "$CLASS/$1/size")"
	((${#lines[@]} == 10)) || fail "${#lines[@]} lines"
	for l in "${lines[@]:2}"; do
		[[ $l =~ ^sync_mode=[0-3],\ O_SYNC=[01],\ check_buf:\ 0\ errors\ [0-9.]+\ s,\ clear_buf:\ 0\ errors\ [0-9.]+\ s$ ]] ||
			fail "not a clean run: $l"
	done
}

@test "the seed's test program on udmabuf0 and the seed's device-tree buffer udmabuf5: check_buf and clear_buf, without and with O_SYNC, sync_mode 0 to 3, read back what they wrote" {
	assert_seed_run udmabuf0
	assert_seed_run udmabuf5
}

@test "O_SYNC x sync_mode 0 to 3 on the Cortex-A9: without O_SYNC cached, with O_SYNC cached only for sync_mode 0" {
	local m plain sync table=()
	for m in 0 1 2 3; do
		set_attr "$CLASS/udmabuf0/sync_mode" "$m"
		read -r plain <"$CLASS/udmabuf0/cache_mode"
		read -r sync <"$CLASS/udmabuf0/cache_mode_sync"
		table+=("sync_mode=$m: without O_SYNC $plain, with O_SYNC $sync")
		[ "$plain" = cached ] || fail "sync_mode $m without O_SYNC: $plain"
		if ((m == 0)); then
			[ "$sync" = cached ] || fail "sync_mode 0 with O_SYNC: $sync"
		else
			[ "$sync" != cached ] || fail "sync_mode $m with O_SYNC: cached"
		fi
	done
	say "udmabuf0's mappings (pgprot.bats observes the page tables):" "${table[@]}"
}

@test "udmabufctl bench udmabuf0: the seed's loops against malloc'ed memory, a row per sync_mode and O_SYNC, the ratios in a table" {
	run -0 --separate-stderr udmabufctl bench udmabuf0 --reps 3
	say "udmabufctl bench udmabuf0 --reps 3:" "${lines[@]}"
	# The seed's two loops, for the cached mapping and each O_SYNC one.
	assert_line --regexp '^ *check_buf'
	assert_line --regexp '^ *clear_buf'
	run -0 --separate-stderr udmabufctl bench udmabuf0 --reps 1 -r -n -o OP,O-SYNC,SYNC-MODE
	assert_output --partial "check_buf 1 3"
	assert_output --partial "clear_buf 1 0"
	assert_attr "$CLASS/udmabuf0/sync_mode" 1
}
