#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Beyond the page allocator and CMA: buffers from the contiguous-range
# allocator (alloc_contig_range over a range checked frame by frame), with
# device DMA at their first and last page to prove them contiguous; buffers
# placed at a chosen CPU physical address (configfs phys_addr, the
# udmabufN_phys parameter) and the ways placement is refused; and the
# kernel's line saying why an allocation failed.

load helpers/common
load helpers/edu

MiB=$((1024 * 1024))

setup() {
	common_setup
	EDU=$UDMABUF_EDU
	edu_present "$EDU" || return 1
}

teardown() {
	edu_present "$EDU" || true
	acr_trace_off
	common_teardown
}

# big_buf NAME SIZE: a buffer bound to the edu (behind an IOMMU it is only
# reachable so), 64-bit mask, enabled; then edu DMA at both ends.
big_buf_dma() {
	local name=$1 size=$2
	make_buf "$name" "$size" dma_mask=64 dma_device="pci/$EDU"
	assert_attr "$cfs/$name/allocator" contig
	assert_attr "$CLASS/$name/allocator" contig
	edu_roundtrip "/dev/$name" 0
	edu_roundtrip "/dev/$name" "$(last_chunk "$size")"
}

# The CPU physical address of an enabled item's device, from GET_INFO.
cpu_addr_dev() {
	udmabuf-ioctl info "/dev/$1" | sed -n 's/^phys_addr=//p'
}

cpu_addr() {
	cpu_addr_dev "$(cat "$cfs/$1/device_name")"
}

# free_range [BITS]: print the CPU address of memory that was just a buffer
# of the contiguous-range allocator (beyond CMA; below 2^BITS, default 64),
# freed again.  Its pageblocks are movable and mostly free: its start is
# what placement tests take (the last pages freed, at its end, are the
# first the kernel reuses).
free_range() {
	local cma size addr out
	cma=$(meminfo_kib CmaFree)
	size=$(( ${cma:-0} / 1024 + 16 ))
	(( size >= 64 )) || size=64
	size=$(( size * MiB ))
	new_item probe size="$size" dma_mask="${1:-64}" >&2 || return 1
	out=$("$UT" write-attr "$cfs/probe/enable" 1)
	if [ "$out" = ENOMEM ]; then
		# Late in a run the small arm64 guest may have no such range left.
		rmdir "$cfs/probe"
		echo "none"
		return 0
	fi
	[ "$out" = OK ] || { echo "# enable of the probe: $out" >&2; return 1; }
	addr=$(cpu_addr probe)
	set_attr "$cfs/probe/enable" 0 >&2 || return 1
	rmdir "$cfs/probe"
	echo "$addr"
}

# place_fresh NAME [BITS]: a 16 MiB buffer NAME placed (64-bit mask) at the
# start of a range free_range [BITS] just freed, and enabled.  The page
# allocator may hand a page of that range out again at once, to a user that
# keeps it (EBUSY: alloc_contig_range() cannot take a page in use); after
# 5 s of that the next range is tried, three in all.  Prints the address, or
# "none" when no range is left (free_range).
place_fresh() {
	local name=$1 addr i out
	for _ in 1 2 3; do
		addr=$(free_range "${2:-64}") || return 1
		if [ "$addr" = none ]; then
			echo none
			return 0
		fi
		new_item "$name" size=16M dma_mask=64 phys_addr="$addr" >&2 || return 1
		for i in 1 2 3 4 5; do
			out=$("$UT" write-attr "$cfs/$name/enable" 1) && {
				echo "$addr"
				return 0
			}
			[ "$out" = EBUSY ] || { echo "# enable of $name at $addr: $out" >&2; return 1; }
			sleep 1
		done
		echo "# $addr: EBUSY for 5 s" >&2
		rmdir "$cfs/$name"
	done
	echo "# three ranges just freed stayed busy (EBUSY)" >&2
	return 1
}

# held_range [BITS]: print the CPU address of a 16 MiB range below 2^BITS
# that was placed and freed (place_fresh), so that it is held: a buffer
# placed within it in the next place_hold seconds (30) takes it from the
# hold, where no page of it can have gone to another user.  Or "none".
held_range() {
	local addr
	addr=$(place_fresh held "${1:-64}") || return 1
	if [ "$addr" != none ]; then
		set_attr "$cfs/held/enable" 0 >&2 || return 1
		rmdir "$cfs/held"
	fi
	echo "$addr"
}

# (What allocator refuses: the bad-input catalogue, cfs-49 to cfs-52.)
@test "allocator, written before enable, asks for one allocator: page, contig or cma; auto for the first that can" {
	local big
	big=$((2 * $(largest_block)))
	new_item pick size=64K
	assert_empty_attr "$cfs/pick/allocator"
	assert_write OK "$cfs/pick/allocator" contig
	assert_attr "$cfs/pick/allocator" contig
	# A size the page allocator gives, from a range all the same.
	assert_write OK "$cfs/pick/enable" 1
	assert_attr "$CLASS/pick/allocator" contig
	run -0 udmabuf-ioctl info /dev/pick
	assert_line pages=1
	assert_write EBUSY "$cfs/pick/allocator" page
	assert_write OK "$cfs/pick/enable" 0
	assert_write OK "$cfs/pick/allocator" auto
	assert_empty_attr "$cfs/pick/allocator"
	assert_write OK "$cfs/pick/enable" 1
	assert_attr "$CLASS/pick/allocator" page
	assert_attr "$cfs/pick/allocator" page
	# The page allocator alone cannot give more than its largest block.
	new_item onlypage size="$big" allocator=page dma_mask=64
	assert_write ENOMEM "$cfs/onlypage/enable" 1
	assert_no_device onlypage
	# Without it (an empty line, as echo writes it), a range does.
	assert_write OK "$cfs/onlypage/allocator" $'\n'
	assert_write OK "$cfs/onlypage/enable" 1
	assert_attr "$CLASS/onlypage/allocator" contig
}

@test "a buffer larger than CMA and the page allocator give comes from a free range; DMA at both ends" {
	local cma size
	cma=$(meminfo_kib CmaTotal)
	size=$(( (${cma:-0} / 1024 + 64) * MiB ))
	big_buf_dma big "$size"
	run -0 "$UT" mmap-fill /dev/big $((size - 4 * MiB)) 4M 9
	run -0 "$UT" read-verify /dev/big $((size - 4 * MiB)) 4M 9
}

@test "1 GiB beyond CMA, no boot arguments (4 GiB amd64, 2 GiB arm64 guests); DMA at its first and last page" {
	local cma free
	cma=$(meminfo_kib CmaFree)
	free=$(meminfo_kib MemFree)
	(( free - ${cma:-0} >= 1280 * 1024 )) ||
		skip "too little memory for 1 GiB beyond CMA ($free KiB free, ${cma:-0} KiB of it CMA's)"
	big_buf_dma giga 1073741824
	assert_attr "$CLASS/giga/size" 1073741824
}

ACR=udmabuf_acr

# acr_trace_on: kprobe events on the kernel's alloc_contig_range() (its
# _noprof body since 6.10), its range on entry and its result on return.
acr_trace_on() {
	local fn=alloc_contig_range
	grep -q " alloc_contig_range_noprof\$" /proc/kallsyms && fn=alloc_contig_range_noprof
	kprobe_add p "$ACR/${ACR}_in" "$fn" 'start=$arg1:u64 end=$arg2:u64' &&
		kprobe_add r "$ACR/${ACR}_out" "$fn" 'ret=$retval:s32' || return 1
	: >"$TRACEFS/trace"
}

acr_trace_off() {
	kprobe_del "$ACR/${ACR}_out"
	kprobe_del "$ACR/${ACR}_in"
}

# acr_calls: "CALLS FAILED TWICE" of the calls traced: how many, how many
# failed, and how many pages the successful ones took that an earlier one
# had taken already.
acr_calls() {
	# A trace line names the event only: "... udmabuf_acr_in: (...) start=".
	awk '$0 ~ " '"$ACR"'_in: " {
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^start=/) s = substr($i, 7)
				if ($i ~ /^end=/) e = substr($i, 5)
			}
		}
		$0 ~ " '"$ACR"'_out: " {
			n++
			for (i = 1; i <= NF; i++) if ($i ~ /^ret=/) r = substr($i, 5)
			if (r != 0) f++; else print s, e
		}
		END { print "calls", n + 0, f + 0 }' "$TRACEFS/trace" |
	sort -n -k1,1 | awk '$1 == "calls" { c = $2 " " $3; next }
		{ if ($1 < last) twice += (last < $2 ? last : $2) - $1; if ($2 > last) last = $2 }
		END { print c, twice + 0 }'
}

@test "a search through memory with pinned pages takes no page twice" {
	local avail round hold stride out calls failed=0 twice
	[ "$UDMABUF_KERNEL_FLAVOUR" != debug ] || skip "the debug kernel has no kprobe events"
	avail=$(meminfo_kib MemAvailable)
	# Anonymous memory with one page in each STRIDE of it held in a pipe:
	# it looks movable, and one page in many ranges cannot be.  Where the
	# search starts may be clear of it (the arm64 guest's first 128 MiB
	# were): a second round takes two thirds of the memory, a page in 8 MiB.
	for round in "3 32" "1.5 8"; do
		read -r hold stride <<<"$round"
		hold=$(awk -v a="$avail" -v d="$hold" 'BEGIN { printf "%d", a / d / 1024 }')
		new_item srch size=128M dma_mask=64 allocator=contig
		acr_trace_on
		run -0 "$UT" pin-scatter "${hold}M" "${stride}M" \
			"$UT write-attr $cfs/srch/enable 1 >$BATS_TEST_TMPDIR/enable"
		out=$(cat "$BATS_TEST_TMPDIR/enable")
		read -r calls failed twice <<<"$(acr_calls)"
		acr_trace_off
		echo "# $hold MiB, a page in $stride MiB held: enable $out; $calls calls of alloc_contig_range(), $failed failed, $twice pages taken twice" >&3
		[[ $out == OK || $out == ENOMEM ]] || fail "enable: $out"
		(( twice == 0 )) || fail "$twice pages taken again after a failed attempt ($calls calls, $failed failed)"
		[ "$out" = OK ] && set_attr "$cfs/srch/enable" 0
		rmdir "$cfs/srch"
		(( failed == 0 )) || break
	done
	(( failed > 0 )) || fail "no attempt failed: the held pages were never in the way"
}

# place_cycles ADDR N: place a 16 MiB buffer at ADDR, use it, free it and
# place it again, N times; print the cycles where placement was refused.
place_cycles() {
	local addr=$1 i out
	for i in $(seq "$2"); do
		new_item cyc size=16M dma_mask=64 phys_addr="$addr" || return 1
		out=$("$UT" write-attr "$cfs/cyc/enable" 1) || true
		if [ "$out" = OK ]; then
			[ "$(cpu_addr cyc)" = "$addr" ] || { echo "cycle $i: at $(cpu_addr cyc)"; return 1; }
			# Used as a program uses it: written through a mapping, read back.
			"$UT" mmap-fill /dev/cyc 0 16M "$i" >/dev/null || return 1
			"$UT" read-verify /dev/cyc 0 16M "$i" >/dev/null || return 1
			set_attr "$cfs/cyc/enable" 0 || return 1
		else
			printf ' %s:%s' "$i" "$out"
		fi
		rmdir "$cfs/cyc" || return 1
	done
}

# Without place_hold, 19 placements in 20 were refused (amd64 6.1): eight
# cycles cannot miss that.
@test "the memory of a freed range is placed at its address, and had again there right after it is freed, 8 times in a row" {
	local addr refused hold=/sys/module/$MODNAME/parameters/place_hold
	local held=/sys/module/$MODNAME/parameters/place_held
	assert_attr "$hold" 30
	# The first placement takes the range from the page allocator, where
	# the kernel's own allocations may hold a page of it for a while
	# (place_fresh); from then on the hold is what gives it back, every
	# time.
	addr=$(place_fresh cyc) || fail "no range to place at"
	[ "$addr" != none ] || skip "no free range beyond CMA is left in this guest"
	assert_attr "$cfs/cyc/phys_addr" "$addr"
	assert_attr "$cfs/cyc/allocator" placed
	set_attr "$cfs/cyc/enable" 0
	rmdir "$cfs/cyc"
	refused=$(place_cycles "$addr" 8) || fail "$refused"
	[ -z "$refused" ] || fail "placement at $addr refused in cycles$refused"
	# The last one is held (with what earlier tests placed, within their
	# place_hold) until place_hold runs out, or the module goes.
	(( $(cat "$held") >= 16 * MiB )) || fail "place_held is $(cat "$held"), not 16 MiB or more"
	# Unloading gives it back (MemFree is too noisy to show 16 MiB: per-CPU
	# lists, movable zones); a reloaded module holds nothing.
	unload_module
	load_module
	assert_attr "$held" 0
	# Without the hold (place_hold=0) the range goes back to the page
	# allocator at once: nothing is held after a cycle, placed or refused
	# (how often the kernel's own allocations then take the range is what
	# the hold is for, and not asserted).
	set_attr "$hold" 0
	place_cycles "$addr" 1 >/dev/null || fail "a cycle without the hold failed"
	assert_attr "$held" 0
	set_attr "$hold" 30
}

# reclaim_mark: what changes when reclaim may have run the shrinkers: the
# objects they scanned (/proc/vmstat's slabs_scanned, where the kernel
# counts events: not the debug kernels) and the times kswapd ran.
reclaim_mark() {
	local d
	sed -n 's/^slabs_scanned //p' /proc/vmstat
	for d in /proc/[0-9]*; do
		if [[ $(cat "$d/comm" 2>/dev/null) == kswapd* ]]; then
			grep ctxt_switches "$d/status"
		fi
	done
}

# hold_kept_by WHAT CMD...: a 16 MiB range held (held_range), then CMD (the
# range's address in $addr); fail unless the hold is still all there.
# Reclaim gives holds back first
# (drop_caches runs every shrinker) and no hold runs out meanwhile
# (place_hold is 600 s here; common_teardown puts it back).  Reclaim may
# still run at any time (kswapd, another allocation's direct reclaim) and
# give the hold back, as it must: a try where it may have run tells nothing
# about CMD, and is made again, three in all.
hold_kept_by() {
	local what=$1 params=/sys/module/$MODNAME/parameters try mark
	shift
	set_attr "$params/place_hold" 600
	echo 3 >/proc/sys/vm/drop_caches
	assert_attr "$params/place_held" 0
	for try in 1 2 3; do
		mark=$(reclaim_mark)
		addr=$(held_range) || fail "no range to place at"
		[ "$addr" != none ] || skip "no free range beyond CMA is left in this guest"
		"$@"
		(( $(cat "$params/place_held") == 16 * MiB )) && return 0
		[ "$(reclaim_mark)" != "$mark" ] ||
			fail "$what took the hold: place_held $(cat "$params/place_held"), and no reclaim ran"
		echo "# try $try: reclaim may have run and given the hold back; again" >&3
	done
	fail "reclaim gave the hold back in each of 3 tries"
}

# A hold is memory nobody uses: it must not outlast a need for memory, and
# only root's buffers may take it away, not a program's failed request.
@test "a held range gives way to memory pressure; a program's failed request does not take it" {
	local addr
	assert_attr "/sys/module/$MODNAME/parameters/place_hold" 30
	# A process-scoped request that no memory can satisfy (common_teardown
	# puts process_max back).
	set_attr "/sys/module/$MODNAME/parameters/process_max" 0x7fffffff000
	hold_kept_by "a failed process-scoped request" unallocatable_request
	# Reclaim (drop_caches runs every shrinker) gives it back.
	echo 2 >/proc/sys/vm/drop_caches
	assert_attr "/sys/module/$MODNAME/parameters/place_held" 0
}

unallocatable_request() {
	run -1 udmabuf-proc alloc "$(unallocatable_size)" --allocator 2
	assert_output ENOMEM
}

@test "a placed range in use fails with EBUSY and leaves nothing behind" {
	local addr
	make_buf owner 4M dma_mask=64
	addr=$(cpu_addr owner)
	new_item thief size=4M dma_mask=64 phys_addr="$addr"
	assert_write EBUSY "$cfs/thief/enable" 1
	assert_attr "$cfs/thief/enable" 0
	assert_no_device thief
	# Overlapping, not equal.
	set_attr "$cfs/thief/phys_addr" $((addr + 2 * MiB))
	assert_write EBUSY "$cfs/thief/enable" 1
	assert_no_device thief
	# The kernel's own memory is in use too: the kernel image's range.
	set_attr "$cfs/thief/phys_addr" "0x$(sed -n 's/^ *\([0-9a-f]*\)-.* : Kernel code$/\1/p' /proc/iomem | head -1)"
	assert_write EBUSY "$cfs/thief/enable" 1
	assert_no_device thief
}

# cma_area: "BASE SIZE" (bytes) of the kernel's CMA area, from its boot line
# "cma: Reserved N MiB at 0x..." (no debugfs of CMA in Debian's kernels).
cma_area() {
	dmesg | sed -n 's/.*cma: Reserved \([0-9]*\) MiB at \(0x[0-9a-f]*\).*/\2 \1/p' |
		{ read -r base mib && echo "$((base)) $((mib * MiB))" || true; }
}

# is_ram ADDR LEN: [ADDR, +LEN) lies in one System RAM range of /proc/iomem.
is_ram() {
	local start end
	while IFS=- read -r start end; do
		(( $1 >= 0x$start && $1 + $2 - 1 <= 0x$end )) && return 0
	done < <(sed -n 's/^\([0-9a-f]*-[0-9a-f]*\) : System RAM$/\1/p' /proc/iomem)
	return 1
}

@test "contiguous and placed buffers never take the CMA area's pages; CMA allocates after them" {
	local area base size in big addr
	area=$(cma_area)
	[ -n "$area" ] || skip "this kernel reserved no CMA area"
	read -r base size <<<"$area"
	(( size >= 32 * MiB )) || skip "the CMA area is smaller than 32 MiB"
	# Placed into the area, which CMA owns: refused, whether its pages are
	# free or not, and nothing is left behind.
	for in in $((base + 8 * MiB)) "$base" $((base + size - 4 * MiB)); do
		new_item incma size=4M dma_mask=64 phys_addr="$in"
		assert_write EBUSY "$cfs/incma/enable" 1
		assert_no_device incma
		rmdir "$cfs/incma"
	done
	# Straddling its start or its end, whichever has RAM beside it.
	for in in $((base - 4 * MiB)) $((base + size - 4 * MiB)); do
		is_ram "$in" $((8 * MiB)) || continue
		new_item edge size=8M dma_mask=64 phys_addr="$in"
		assert_write EBUSY "$cfs/edge/enable" 1
		assert_no_device edge
		rmdir "$cfs/edge"
	done
	# Larger than the area: from the contiguous-range allocator, outside it.
	big=$(( (size / MiB + 64) * MiB ))
	make_buf big "$big" dma_mask=64
	assert_attr "$cfs/big/allocator" contig
	addr=$(cpu_addr big)
	(( addr + big <= base || addr >= base + size )) ||
		fail "big ($addr + $big) lies in the CMA area ($base + $size)"
	# CMA still hands out its area afterwards: a buffer asked of it comes
	# from it, inside it.
	make_buf fromcma 16M dma_mask=64 allocator=cma
	assert_attr "$cfs/fromcma/allocator" cma
	addr=$(cpu_addr fromcma)
	(( addr >= base && addr + 16 * MiB <= base + size )) ||
		fail "the CMA buffer is at $addr, not in the CMA area ($base + $size)"
}

# movable_zone: "START_PFN SPANNED" of node 0's ZONE_MOVABLE, if it has pages.
movable_zone() {
	awk '/^Node 0, zone/ { z = $4 }
		z == "Movable" && $1 == "present" { present = $2 }
		z == "Movable" && $1 == "spanned" { spanned = $2 }
		z == "Movable" && $1 == "start_pfn:" { start = $2 }
		END { if (present > 0) print start, spanned }' /proc/zoneinfo
}

# memory_block ADDR END: the first memory block (its sysfs directory) that
# lies wholly in [ADDR, END) and holds none of the kernel's own image, if
# the kernel has memory hotplug.  amd64's KASLR loads the kernel at a random
# physical address, which can be in ZONE_MOVABLE (warm6: 4 GiB + 126 MiB,
# the zone's first block), and its pages, reserved at boot, never go
# offline.
memory_block() {
	local size blk lo hi part klo khi parts
	read -r size 2>/dev/null </sys/devices/system/memory/block_size_bytes || return 0
	size=$((0x$size))
	mapfile -t parts < <(kernel_image)
	for ((blk = ($1 + size - 1) / size; (blk + 1) * size <= $2; blk++)); do
		lo=$((blk * size))
		hi=$((lo + size))
		for part in "${parts[@]}"; do
			read -r klo khi <<<"$part"
			((klo < hi && khi > lo)) && continue 2
		done
		echo "/sys/devices/system/memory/memory$blk"
		return 0
	done
}

# kernel_image: "START END" (END exclusive) of each part of the kernel's
# image: the "Kernel code", "Kernel rodata", "Kernel data" and "Kernel bss"
# lines of /proc/iomem.
kernel_image() {
	local line range
	while IFS= read -r line; do
		[[ $line == *" : Kernel "* ]] || continue
		range=${line%% : *}
		range=${range// /}
		echo $((0x${range%-*})) $((0x${range#*-} + 1))
	done </proc/iomem
}

@test "contiguous and placed buffers never take ZONE_MOVABLE's memory, which can still go offline" {
	local zone start spanned base end cma size addr blk try kernel
	zone=$(movable_zone)
	[ -n "$zone" ] || skip "this kernel has no ZONE_MOVABLE (boot with movablecore=)"
	read -r start spanned <<<"$zone"
	base=$(( start * PAGE_SIZE ))
	end=$(( (start + spanned) * PAGE_SIZE ))
	# Placed there: refused, and nothing is left behind.
	new_item inmov size=4M dma_mask=64 phys_addr=$(( (base + 4 * MiB - 1) / (4 * MiB) * 4 * MiB ))
	assert_write EBUSY "$cfs/inmov/enable" 1
	assert_no_device inmov
	rmdir "$cfs/inmov"
	# From the contiguous-range allocator: elsewhere, though the zone is the
	# highest and the search takes the highest first.
	cma=$(meminfo_kib CmaTotal)
	size=$(( (${cma:-0} / 1024 + 64) * MiB ))
	make_buf big "$size" dma_mask=64
	assert_attr "$cfs/big/allocator" contig
	addr=$(cpu_addr big)
	(( addr + size <= base || addr >= end )) ||
		fail "big ($addr + $size) lies in ZONE_MOVABLE ($base to $end)"
	# And that memory can go offline: the zone's first block without the
	# kernel's image, where the search would have started.  offline_pages()
	# retries as long as a page will not move: a buffer there would hang
	# this write.  A page briefly in use elsewhere can make it fail at once
	# (EBUSY), which the kernel's documentation says to retry.
	blk=$(memory_block "$base" "$end")
	[ -d "$blk" ] || fail "no memory block of ZONE_MOVABLE to offline (no memory hotplug, or the kernel's image in every block?)"
	for try in 1 2 3 4 5; do
		run timeout 60 sh -c "echo offline > $blk/state"
		[ "$status" = 1 ] || break
		sleep 1
	done
	[ "$status" = 0 ] ||
		fail "offline of $blk (try $try, status $status): $output; $(dmesg | grep -E 'offlin|page:|flags:|dumped because' | tail -n 3)"
	assert_attr "$blk/state" offline
	read -r kernel _ < <(kernel_image)
	printf '# %s offline (ZONE_MOVABLE from 0x%x; the kernel from 0x%x)\n' \
		"${blk##*/}" "$base" "${kernel:-0}" >&3
	run -0 sh -c "echo online_movable > $blk/state"
	assert_attr "$blk/state" online
}

# (What phys_addr refuses: the bad-input catalogue, cfs-36 and cfs-46 to
# cfs-48.)
@test "phys_addr: an empty line places freely again; a placement beyond the DMA mask fails with ERANGE and keeps the range's hold" {
	local addr
	new_item p size=4M dma_mask=64 phys_addr=0x7f0000000000
	assert_write OK "$cfs/p/phys_addr" $'\n'
	assert_empty_attr "$cfs/p/phys_addr"
	assert_write OK "$cfs/p/enable" 1
	# A held range: placing there again takes it from the hold, not from
	# the page allocator, where a page of it may be in use for a while.
	hold_kept_by "a placement refused for its DMA mask" placed_beyond_mask
	set_attr "$cfs/low/dma_mask" 64
	assert_write OK "$cfs/low/enable" 1
	assert_attr "$cfs/low/phys_addr" "$addr"
}

placed_beyond_mask() {
	(( addr >= 1 << 32 )) ||
		skip "this guest has no RAM above 4 GiB (the range was at $addr)"
	[ ! -d "$cfs/low" ] || rmdir "$cfs/low"
	new_item low size=16M dma_mask=32 phys_addr="$addr"
	assert_write ERANGE "$cfs/low/enable" 1
	assert_no_device low
}

@test "placed and bound: the device sees it at the CPU address, or enable fails with EINVAL behind an IOMMU" {
	local addr
	# uio_pci_generic leaves the edu's mask at the PCI default, 32 bits.
	addr=$(held_range 32) || fail "no range to place at"
	[ "$addr" != none ] || skip "no free range beyond CMA is left in this guest"
	new_item pb size=2M dma_mask=64 dma_device="pci/$EDU" phys_addr="$addr"
	if iommu_on; then
		assert_write EINVAL "$cfs/pb/enable" 1
		assert_no_device pb
	else
		assert_write OK "$cfs/pb/enable" 1
		assert_attr "$cfs/pb/phys_addr" "$addr"
		edu_roundtrip /dev/pb 0
		edu_roundtrip /dev/pb "$(last_chunk $((2 * MiB)))"
	fi
}

@test "udmabufN_phys places a parameter buffer" {
	local addr out try
	# Parameter buffers have the default 32-bit mask.  Unloading gives the
	# holds back: the page allocator may hand a page of the range out again
	# before the module is loaded (EBUSY); then another range, three in all.
	for try in 1 2 3; do
		addr=$(free_range 32)
		[ "$addr" != none ] || skip "no free range beyond CMA is left in this guest"
		unload_module
		out=$("$UT" insmod-try "$UDMABUF_KO" udmabuf0=2M udmabuf0_phys="$addr")
		[ "$out" = EBUSY ] || break
		echo "# try $try: $addr in use again (EBUSY)" >&3
		load_module
	done
	[ "$out" = OK ] || fail "insmod with udmabuf0_phys=$addr: $out (try $try)"
	[ "$(cpu_addr_dev udmabuf0)" = "$addr" ] ||
		fail "udmabuf0 at $(cpu_addr_dev udmabuf0), not $addr"
	assert_attr "$CLASS/udmabuf0/allocator" placed
	unload_module
	run "$UT" insmod-try "$UDMABUF_KO" udmabuf0_phys=0x1001 udmabuf0=2M
	assert_output EINVAL
	run "$UT" insmod-try "$UDMABUF_KO" udmabuf1_phys="$addr"
	assert_output EINVAL
}

@test "ENOMEM names the size, the largest free block, CMA, the longest free or movable run and the fix in one kernel line" {
	local total line run
	total=$(meminfo_kib MemTotal)
	new_item huge size=$(( total * 2 ))K dma_mask=64
	assert_write ENOMEM "$cfs/huge/enable" 1
	assert_no_device huge
	line=$(dmesg | grep "huge: no $(( total * 2 )) KiB of contiguous memory below 0xffffffffffffffff: ") ||
		fail "no kernel line for huge: $(dmesg | tail -n 5)"
	[[ $line =~ "page allocator's largest free block "[0-9]+" KiB, CMA "[0-9]+" KiB free, largest free or movable range "([0-9]+)" KiB; try a smaller size, cma=SIZE at boot"$ ]] ||
		fail "kernel line: $line"
	run=${BASH_REMATCH[1]}
	# Most of a freshly booted guest's memory is free or movable, and no
	# run is longer than the memory.
	(( run > 0 && run <= total )) || fail "longest run $run KiB of $total KiB: $line"
}

@test "udmabufctl create --phys-addr places a buffer, which info shows and save keeps, and says why it cannot" {
	local addr
	addr=$(held_range) || fail "no range to place at"
	[ "$addr" != none ] || skip "no free range beyond CMA is left in this guest"
	run -0 udmabufctl create placed --size 2M --dma-mask 64 --phys-addr "$addr"
	assert_output /dev/placed
	[ "$(cpu_addr placed)" = "$addr" ] || fail "at $(cpu_addr placed), not $addr"
	run -0 udmabufctl info -n -o ALLOCATOR,CPU-PHYS-ADDR placed
	assert_output "placed
$addr"
	# save keeps the address (restoring it, on a real configfs, may find
	# the range taken again: its order of attributes is the host's test).
	export UDMABUF_SAVE_FILE=$BATS_TEST_TMPDIR/udmabuf.conf
	run -0 udmabufctl save
	run -0 grep '^placed ' "$UDMABUF_SAVE_FILE"
	[[ $output =~ " phys_addr="(0x[0-9a-f]+)" " ]] || fail "no phys_addr saved: $output"
	(( BASH_REMATCH[1] == addr )) || fail "saved ${BASH_REMATCH[1]}, placed at $addr"
	run -1 udmabufctl create again --size 2M --dma-mask 64 --phys-addr "$addr"
	assert_output --partial "in use"
	[ ! -e "$cfs/again" ] || fail "a refused create left $cfs/again"
	run udmabufctl create bad --size 2M --phys-addr 0x12
	assert_failure
	[ ! -e "$cfs/bad" ] || fail "a refused create left $cfs/bad"
}
