#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The Zynq-7000's own DMA engine, the PL330 (Arm's DMA-330, 0xf8003000),
# moving data into and out of udmabuf-cfs buffers through dmaengine, as a
# kernel driver of the board would: tests/kmod/udmabuf-dmaengine-test.ko
# takes a DMA_MEMCPY channel, tests/helpers/udmabuf-dmaengine.c stores,
# syncs, lets it copy, syncs and checks through the user mapping.  Lane
# armhf-zynq7000 (QEMU's xilinx-zynq-a9, whose PL330 is a model that runs
# the driver's microcode):
#     tests/vm/run --lane armhf-zynq7000 tests/bats-zynq/pl330.bats
#
# QEMU has no cache model (and no model of the PL310 L2 controller), so the
# data would come out right without a single sync.  What a sync does is
# observed instead, with kprobe events on the Cortex-A9's maintenance
# paths, the ones a real Zynq runs: arch_sync_dma_for_device/_for_cpu
# (the DMA API's arch hooks, CPU physical range), v7_dma_map_area and
# v7_dma_unmap_area (L1, by kernel virtual address: clean for a transfer to
# the device, invalidate from it) and the PL310 driver's range operations
# l2c210_clean_range/l2c210_inv_range (L2, physical).  Not in tests/bats/:
# only this lane has the engine.

load zynq

GRP=udmabuf_zynq
SZ=$((1024 * 1024))

setup_file() {
	zynq_requires_board
	zynq_take_dt_buffers || return 1
	"$UT" insmod-try "$DMATEST_KO" >/dev/null || return 1
	# The arguments in r0..r2 (AAPCS).
	kprobe_add p "$GRP/dev" arch_sync_dma_for_device 'addr=%r0:x32 size=%r1:u32 dir=%r2:s32' &&
		kprobe_add p "$GRP/cpu" arch_sync_dma_for_cpu 'addr=%r0:x32 size=%r1:u32 dir=%r2:s32' &&
		kprobe_add p "$GRP/l1map" v7_dma_map_area 'vaddr=%r0:x32 size=%r1:u32 dir=%r2:s32' &&
		kprobe_add p "$GRP/l1unmap" v7_dma_unmap_area 'vaddr=%r0:x32 size=%r1:u32 dir=%r2:s32' &&
		kprobe_add p "$GRP/l2clean" l2c210_clean_range 'start=%r0:x32 end=%r1:x32' &&
		kprobe_add p "$GRP/l2inv" l2c210_inv_range 'start=%r0:x32 end=%r1:x32'
}

teardown_file() {
	local e
	for e in dev cpu l1map l1unmap l2clean l2inv; do
		kprobe_del "$GRP/$e"
	done
	"$UT" rmmod-try udmabuf_dmaengine_test >/dev/null
	zynq_give_back_dt_buffers
}

setup() {
	zynq_setup || return 1
	[ -e "$DMATEST/copy" ] || fail "udmabuf-dmaengine-test is not loaded"
}

teardown() { zynq_teardown; }

# dma NAME: the buffer's DMA address, in decimal.
dma() {
	local a
	read -r a <"$CLASS/$1/phys_addr" || return 1
	echo $((a))
}

# trace_clear / trace_lines: the probes' records, one "EVENT: ARGS" a line.
trace_clear() { : >"$TRACEFS/trace"; }
trace_lines() {
	sed -nE 's/^[^#].* ([a-z0-9]+): \([^)]*\) /\1 /p' "$TRACEFS/trace"
}

# maintenance NAME...: the recorded calls, in order, as "EVENT BUF OFFSET
# SIZE DIR" (arch hooks), "EVENT BUF OFFSET END-OFFSET" (L2) or "EVENT
# SIZE DIR" (L1, whose virtual address is checked to be in the same
# place of its page as the arch hook's physical one before it); calls for
# memory of none of the NAMEd buffers are left out.
maintenance() {
	local line ev addr size dir start end b base off page_off=
	local -A bases=()
	for b in "$@"; do
		bases[$b]=$(dma "$b")
	done
	while read -r ev line; do
		case $ev in
		dev | cpu)
			addr=${line##*addr=}; addr=$((${addr%% *}))
			size=${line##*size=}; size=${size%% *}
			dir=${line##*dir=}; dir=${dir%% *}
			for b in "$@"; do
				base=${bases[$b]}
				((addr >= base && addr < base + SZ)) || continue
				off=$((addr - base))
				page_off=$((addr % 4096))
				echo "$ev $b $off $size $dir"
			done
			;;
		l1map | l1unmap)
			addr=${line##*vaddr=}; addr=$((${addr%% *}))
			size=${line##*size=}; size=${size%% *}
			dir=${line##*dir=}; dir=${dir%% *}
			[ -n "$page_off" ] || continue
			((addr % 4096 == page_off)) ||
				echo "$ev at page offset $((addr % 4096)), not $page_off"
			echo "$ev $size $dir"
			;;
		l2clean | l2inv)
			start=${line##*start=}; start=$((${start%% *}))
			end=${line##*end=}; end=$((${end%% *}))
			for b in "$@"; do
				base=${bases[$b]}
				((start >= base && start < base + SZ)) || continue
				echo "$ev $b $((start - base)) $((end - base))"
			done
			;;
		esac
	done < <(trace_lines)
}

@test "the PL330 is bound to dma-pl330 and the dmaengine test module holds a DMA_MEMCPY channel of it" {
	[ -e "$PL330_DEV/driver" ] || fail "no driver for the PL330 at $PL330_DEV"
	[ "$(basename "$(readlink -f "$PL330_DEV/driver")")" = dma-pl330 ] ||
		fail "the PL330 is bound to $(readlink -f "$PL330_DEV/driver")"
	run -0 cat "$DMATEST/channel"
	assert_output --regexp '^dma[0-9]+chan[0-9]+ f8003000\.dma-controller$'
	say "dmaengine channel: $output"
}

@test "pl330 through dmaengine: a configfs buffer copied into the seed's DT buffer udmabuf4 and back out, synced and checked through the mapping" {
	local from to seed=41
	make_buf cbuf "$SZ" sync_mode=0
	for from in cbuf udmabuf4; do
		to=cbuf
		[ "$from" = udmabuf4 ] || to=udmabuf4
		run -0 udmabuf-dmaengine copy "/dev/$from" 0 "/dev/$to" 0 "$SZ" "$seed"
		assert_output "DMA $(printf '0x%x -> 0x%x' "$(dma "$from")" "$(dma "$to")") $SZ bytes: OK"
		say "$from into $to: $output"
		# And read back by a second program, through read().
		run -0 "$UT" read-verify "/dev/$to" 0 "$SZ" "$seed"
		seed=42
	done
}

@test "pl330 through dmaengine: the first half of the current binding's zynqbuf into its second half" {
	local half=$((SZ / 2))
	run -0 udmabuf-dmaengine copy /dev/zynqbuf 0 /dev/zynqbuf "$half" "$half" 43
	assert_output "DMA $(printf '0x%x -> 0x%x' "$(dma zynqbuf)" $(($(dma zynqbuf) + half))) $half bytes: OK"
	say "within zynqbuf: $output"
}

@test "pl330 through dmaengine moves only its range: the bytes around it keep what the CPU stored" {
	make_buf src "$SZ" sync_mode=0
	run -0 "$UT" mmap-fill /dev/udmabuf5 0 "$SZ" 9
	run -0 udmabuf-dmaengine copy /dev/src 12288 /dev/udmabuf5 12288 8192 44
	# The rest is still the CPU's pattern (read through a new mapping).
	run -0 "$UT" mmap-verify /dev/udmabuf5 0 12288 9
	run -0 "$UT" mmap-verify /dev/udmabuf5 20480 $((SZ - 20480)) 9
	run -0 "$UT" mmap-verify /dev/udmabuf5 12288 8192 44
}

@test "pl330 sync observation: to the device L1 is cleaned (or invalidated) before L2, back to the CPU L2 is invalidated before L1" {
	make_buf src "$SZ" sync_mode=0
	trace_clear
	run -0 udmabuf-dmaengine copy /dev/src 4096 /dev/udmabuf4 4096 65536 45
	run -0 maintenance src udmabuf4
	say "kprobes on the Cortex-A9's maintenance paths, one PL330 transfer src -> udmabuf4:" "${lines[@]}"
	# The source handed over TO_DEVICE: L1 cleaned, then L2 cleaned; the
	# destination FROM_DEVICE: L1 then L2 invalidated; after the copy the
	# destination back to the CPU: L2 invalidated, then L1 (a line the CPU
	# fetched from a stale L2 would come back otherwise); the source back
	# TO_DEVICE: nothing to do.
	assert_output "dev src 4096 65536 1
l1map 65536 1
l2clean src 4096 69632
dev udmabuf4 4096 65536 2
l1map 65536 2
l2inv udmabuf4 4096 69632
cpu udmabuf4 4096 65536 2
l2inv udmabuf4 4096 69632
l1unmap 65536 2
cpu src 4096 65536 1"
}

@test "pl330 negative control: the same transfer without syncs does no maintenance (and TCG's data alone cannot tell)" {
	make_buf src "$SZ" sync_mode=0
	trace_clear
	run -0 udmabuf-dmaengine copy /dev/src 0 /dev/udmabuf4 0 65536 46 --no-sync
	assert_output --partial "bytes: OK"
	run -0 maintenance src udmabuf4
	assert_output ""
	say "without syncs: no maintenance recorded, the data as right as with them"
}

@test "the dmaengine test module refuses malformed requests (EINVAL) and ranges beyond 32-bit DMA addresses (ERANGE)" {
	assert_writes EINVAL "$DMATEST/copy" "0x1000 0x2000" "0x1000 0x2000 0" \
		"0x1000 0x2000 16 17" "src dst 16"
	assert_writes ERANGE "$DMATEST/copy" "0xfffff000 0x1000 8192" "0x100000000 0x1000 16"
}
