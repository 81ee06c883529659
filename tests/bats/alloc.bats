#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Allocation: large buffers, CMA on arm64, highmem on armhf, failures
# without kernel warnings.

load helpers/common

# A size no guest can allocate.  size_t is 32 bits wide on armhf: larger
# sizes than it holds are refused when written (ERANGE, tested below).
HUGE=64G
[ "$UDMABUF_ARCH" != armhf ] || HUGE=3G

# assert_refused NAME ERRNO: enable fails with ERRNO and leaves nothing.
assert_refused() {
	assert_write "$2" "$cfs/$1/enable" 1
	assert_attr "$cfs/$1/enable" 0
	assert_empty_attr "$cfs/$1/dev"
	assert_empty_attr "$cfs/$1/phys_addr"
	assert_no_device "$1"
	[ -z "$(ls "$CLASS")" ] || fail "class devices left: $(ls "$CLASS")"
}

@test "a 4 MiB buffer is allocated and every byte is usable, through an O_SYNC mapping too" {
	make_buf big 4M
	assert_attr "$CLASS/big/size" 4194304
	run -0 "$UT" mmap-fill /dev/big 0 4M 1
	run -0 "$UT" read-verify /dev/big 0 4M 1
	run -0 "$UT" write-fill /dev/big 0 4M 2
	run -0 "$UT" mmap-verify /dev/big 0 4M 2
	run -0 "$UT" mmap-fill /dev/big 0 4M 3 --sync
	run -0 "$UT" mmap-verify /dev/big 0 4M 3 --sync
	run -0 "$UT" read-verify /dev/big 0 4M 3
}

@test "a 32 MiB buffer is allocated from CMA on arm64 and every byte is usable, through an uncached O_SYNC mapping too" {
	requires_arch arm64
	make_buf huge 32M sync_mode=1
	assert_attr "$CLASS/huge/size" 33554432
	run -0 "$UT" mmap-fill /dev/huge 0 32M 4
	run -0 "$UT" mmap-verify /dev/huge 0 32M 4
	run -0 "$UT" read-verify /dev/huge 0 32M 4
	run -0 "$UT" mmap-fill /dev/huge 0 32M 5 --sync
	run -0 "$UT" mmap-verify /dev/huge 0 32M 5 --sync
	run -0 "$UT" read-verify /dev/huge 0 32M 5
}

# armmp with 2 GiB maps only the first 768 MiB permanently; Debian's CMA
# area lies above, in highmem, where the DMA API will not hand out pages.
# The buffer comes from a contiguous range there, which the kernel has no
# address for: read() and write() must map it page by page.
@test "a 32 MiB buffer on armhf comes from highmem and every byte is usable" {
	requires_arch armhf
	make_buf huge 32M
	assert_attr "$CLASS/huge/allocator" contig
	assert_in_highmem huge
	run -0 "$UT" mmap-fill /dev/huge 0 32M 4
	run -0 "$UT" read-verify /dev/huge 0 32M 4
	# Across page boundaries, from and to the middle of a page.
	run -0 "$UT" write-fill /dev/huge 4095 $((32 * 1048576 - 8190)) 8
	run -0 "$UT" read-verify /dev/huge 4095 $((32 * 1048576 - 8190)) 8
	run -0 "$UT" mmap-verify /dev/huge 8192 16M 8
	run -0 "$UT" mmap-fill /dev/huge 0 32M 9 --sync
	run -0 "$UT" read-verify /dev/huge 0 32M 9
}

@test "a 32 MiB buffer on ARM can be allocated again after it was freed" {
	requires_arch arm64 armhf
	for _ in 1 2 3; do
		make_buf huge 32M
		check rmdir "$cfs/huge"
	done
}

# assert_really_at NAME SIZE: the pages of buffer NAME's mapping are
# physically consecutive and start at its phys_addr.  The kernel's page
# tables say so (pagemap), not the driver: an unbound buffer has no bus
# translation here, so its DMA address is its physical address.
assert_really_at() {
	run -0 "$UT" mmap-phys "/dev/$1" 0 "$2"
	assert_output "$(cat "$CLASS/$1/phys_addr")"
}

@test "a buffer's pages are physically consecutive from phys_addr, from every allocator; with the default 32-bit DMA mask below 4 GiB (pagemap)" {
	make_buf one 4K
	assert_really_at one 4K
	make_buf pages 1M
	assert_attr "$CLASS/pages/allocator" page
	assert_really_at pages 1M
	# Beyond the page allocator's largest block (4 MiB; 8 MiB on armmp):
	# CMA or the contiguous range allocator, which must be contiguous
	# across the page allocator's blocks.
	local big p
	big=$((2 * $(largest_block)))
	make_buf big "$big"
	run -0 cat "$CLASS/big/allocator"
	assert_output --regexp '^(cma|contig)$'
	assert_really_at big "$big"
	make_buf low 4M
	p=$("$UT" mmap-phys /dev/low 0 4M) || fail "mmap-phys: $p"
	[ $((p + 4194304)) -le $((1 << 32)) ] || fail "the pages at $p + 4 MiB are above 4 GiB"
}

@test "impossible requests fail with ENOMEM, a DMA mask the platform cannot satisfy with ERANGE; they leave nothing behind and log no kernel warning; the item works after" {
	local total req errno
	total=$(sed -n 's/^MemTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo)
	# Beyond any allocator, with the default and a 64-bit DMA mask; twice
	# RAM; 1 TiB where size_t holds it.
	while read -r errno req; do
		[ "$req" != "size=1T dma_mask=64" ] || ! kernel_32bit || continue
		# shellcheck disable=SC2086 # the words are the attributes
		new_item huge $req
		assert_refused huge "$errno"
		assert_no_kernel_warnings
		rmdir "$cfs/huge"
	done <<-EOF
		ENOMEM size=$HUGE
		ENOMEM size=$HUGE dma_mask=64
		ENOMEM size=$((total * 2))K
		ENOMEM size=1T dma_mask=64
		ERANGE size=4096 dma_mask=12
	EOF
	new_item huge size=$HUGE
	assert_write ENOMEM "$cfs/huge/enable" 1
	assert_write OK "$cfs/huge/size" 4M
	assert_write OK "$cfs/huge/enable" 1
	assert_device huge
	run -0 "$UT" mmap-fill /dev/huge 0 4M 7
}

@test "on 32-bit a size beyond 4 GiB - 4 KiB is refused with ERANGE, the largest one with ENOMEM" {
	requires_arch armhf
	new_item huge
	assert_write ERANGE "$cfs/huge/size" 1T
	assert_write ERANGE "$cfs/huge/size" 4G
	assert_write ERANGE "$cfs/huge/size" $((4 * 1073741824 - 4095))
	assert_attr "$cfs/huge/size" 0
	assert_write OK "$cfs/huge/size" $((4 * 1073741824 - 4096))
	assert_attr "$cfs/huge/size" 4294963200
	assert_refused huge ENOMEM
}

@test "repeated failed requests do not flood the kernel log" {
	new_item huge size=$HUGE
	local n secs start=$SECONDS
	for _ in $(seq 1 50); do
		assert_write ENOMEM "$cfs/huge/enable" 1
	done
	secs=$((SECONDS - start))
	# Not counted: the lines a kernel with DEBUG_KOBJECT_RELEASE logs for
	# every kobject it releases late (the arm64 debug kernel's), each
	# failed enable's device among them.
	n=$("$UT" kmsg-since "$KMSG_SEQ" |
		grep -cv ': kobject_release, parent .* (delayed [0-9]*)$' || true)
	# The kernel's default rate limit: 10 lines per 5 s window, and one
	# "callbacks suppressed" line when a window dropped some.  The loop
	# (slow on the debug kernel: about 10 s) meets secs / 5 + 2 windows at
	# the most, one possibly begun by the test before.
	[ "$n" -le $((11 * (secs / 5 + 2))) ] ||
		fail "50 failed enables in $secs s logged $n kernel lines"
	# Fewer than one line per enable, where the windows allow fewer (a
	# loaded machine slowed the debug kernel's loop to 28 s, whose windows
	# allow 60).
	(( secs >= 25 )) || [ "$n" -lt 50 ] ||
		fail "each of the 50 failed enables logged (in $secs s)"
}
