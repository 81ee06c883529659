#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# mmap of /dev/<device>: round trips, bounds, MAP_PRIVATE, O_SYNC x sync_mode.

load helpers/common

SZ=$((256 * 1024))

setup() {
	common_setup
	make_buf tbuf "$SZ"
	d=/dev/tbuf
}

@test "MAP_PRIVATE, read-only too, and mappings beyond the end or at an unaligned offset fail with EINVAL" {
	local args
	for args in "0 $SZ private" "0 $PAGE_SIZE private rdonly r" \
		"0 $((SZ + PAGE_SIZE))" "$SZ $PAGE_SIZE" "$PAGE_SIZE $SZ" \
		"$((SZ * 16)) $PAGE_SIZE" "100 $PAGE_SIZE"; do
		# shellcheck disable=SC2086 # the words are the arguments
		assert_errno EINVAL "$UT" mmap-try "$d" $args
	done
}

@test "a mapping at an offset reaches the right part of the buffer; the last page maps on its own, a read-only open read-only" {
	assert_errno OK "$UT" mmap-try "$d" 0 "$SZ" shared rdonly r
	assert_errno OK "$UT" mmap-try "$d" $((SZ - PAGE_SIZE)) "$PAGE_SIZE"
	check "$UT" write-fill "$d" 0 "$SZ" 1
	check "$UT" mmap-fill "$d" $((3 * PAGE_SIZE)) $((2 * PAGE_SIZE)) 2
	run -0 "$UT" read-verify "$d" 0 $((3 * PAGE_SIZE)) 1
	run -0 "$UT" read-verify "$d" $((3 * PAGE_SIZE)) $((2 * PAGE_SIZE)) 2
	run -0 "$UT" read-verify "$d" $((5 * PAGE_SIZE)) $((SZ - 5 * PAGE_SIZE)) 1
	run -0 "$UT" mmap-verify "$d" $((3 * PAGE_SIZE)) "$PAGE_SIZE" 2
}

@test "a buffer whose size is not a page multiple maps PAGE_ALIGN(size) and round-trips through mmap" {
	local n=$((PAGE_SIZE + 100))
	make_buf odd "$n"
	assert_errno OK "$UT" mmap-try /dev/odd 0 $((2 * PAGE_SIZE))
	assert_errno EINVAL "$UT" mmap-try /dev/odd 0 $((3 * PAGE_SIZE))
	assert_errno EINVAL "$UT" mmap-try /dev/odd $((2 * PAGE_SIZE)) "$PAGE_SIZE"
	check "$UT" mmap-fill /dev/odd 0 "$n" 77
	run -0 "$UT" read-verify /dev/odd 0 "$n" 77
	run "$UT" pread-try /dev/odd 0 $((2 * PAGE_SIZE))
	assert_output "$n"
}

# sync_roundtrip MODE: with sync_mode MODE, mappings opened with and without
# O_SYNC both work and agree with read()/write().
sync_roundtrip() {
	local m=$1 half=$((SZ / 2))
	set_attr "$cfs/tbuf/sync_mode" "$m"
	assert_attr "$CLASS/tbuf/sync_mode" "$m"

	run -0 "$UT" mmap-fill "$d" 0 "$half" "$((m * 10 + 1))" --sync
	run -0 "$UT" mmap-fill "$d" "$half" "$half" "$((m * 10 + 2))"
	run -0 "$UT" read-verify "$d" 0 "$half" "$((m * 10 + 1))"
	run -0 "$UT" read-verify "$d" "$half" "$half" "$((m * 10 + 2))"
	run -0 "$UT" mmap-verify "$d" 0 "$half" "$((m * 10 + 1))"
	run -0 "$UT" mmap-verify "$d" "$half" "$half" "$((m * 10 + 2))" --sync

	check "$UT" write-fill "$d" 0 "$SZ" "$((m * 10 + 3))"
	run -0 "$UT" mmap-verify "$d" 0 "$SZ" "$((m * 10 + 3))" --sync
	run -0 "$UT" mmap-verify "$d" 0 "$SZ" "$((m * 10 + 3))"
}

@test "every sync_mode: mappings with and without O_SYNC work, keep data and agree with read(), write() and each other" {
	local m
	for m in 0 1 2 3 4 5 6 7; do
		# Printed with a failure: the mode it was.
		echo "sync_mode $m"
		sync_roundtrip "$m"
	done
}

@test "an O_DSYNC mapping works and keeps data; a mapping made before a sync_mode change keeps working" {
	set_attr "$cfs/tbuf/sync_mode" 1
	check "$UT" write-fill "$d" 0 "$SZ" 55
	run -0 "$UT" mmap-verify "$d" 0 "$SZ" 55 --dsync
	run -0 "$UT" mmap-fill "$d" 0 "$SZ" 56 --dsync
	run -0 "$UT" read-verify "$d" 0 "$SZ" 56
	start_holder "$d" 0 "$SZ" 61 --sync
	set_attr "$cfs/tbuf/sync_mode" 0
	set_attr "$cfs/tbuf/sync_mode" 2
	stop_holder_intact "$HOLDER_PID"
}

# expect_cache_modes MODE PLAIN SYNC
expect_cache_modes() {
	set_attr "$cfs/tbuf/sync_mode" "$1"
	assert_attr "$CLASS/tbuf/cache_mode" "$2"
	assert_attr "$CLASS/tbuf/cache_mode_sync" "$3"
}

# On ARM "uncached" RAM is Normal non-cacheable, never Device (arm64) or
# Strongly-ordered (32-bit) memory: the write-combine type (page
# protections: tests/bats/pgprot.bats).
@test "cache_mode and cache_mode_sync are always cached on amd64; on ARM for sync_mode 0..3 cached without O_SYNC, for 4..7 the O_SYNC one either way" {
	requires_arch amd64 arm64 armhf
	local m
	if [ "$UDMABUF_ARCH" = amd64 ]; then
		for m in 0 1 2 3 4 5 6 7; do
			expect_cache_modes "$m" cached cached
		done
		return 0
	fi
	expect_cache_modes 0 cached cached
	expect_cache_modes 1 cached write-combine
	expect_cache_modes 2 cached write-combine
	expect_cache_modes 3 cached dma-coherent
	expect_cache_modes 4 cached cached
	expect_cache_modes 5 write-combine write-combine
	expect_cache_modes 6 write-combine write-combine
	expect_cache_modes 7 dma-coherent dma-coherent
}

@test "cache_mode follows sync_mode set through sysfs; cache_mode and cache_mode_sync are read-only" {
	set_attr "$CLASS/tbuf/sync_mode" 5
	assert_attr "$cfs/tbuf/sync_mode" 5
	# 5 is 1 (uncached) always: x86 keeps RAM cached, ARM makes it
	# write-combine (Normal non-cacheable), RISC-V gives it.
	case $UDMABUF_ARCH in
	amd64) assert_attr "$CLASS/tbuf/cache_mode" cached ;;
	riscv64) assert_attr "$CLASS/tbuf/cache_mode" uncached ;;
	*) assert_attr "$CLASS/tbuf/cache_mode" write-combine ;;
	esac
	# Both are read-only.
	run -0 stat -c %a "$CLASS/tbuf/cache_mode" "$CLASS/tbuf/cache_mode_sync"
	assert_equal "${lines[0]}" 444
	assert_equal "${lines[1]}" 444
}

