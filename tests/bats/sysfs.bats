#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# /sys/class/udmabuf/<device>/ attributes.

load helpers/common

setup() {
	common_setup
	make_buf tbuf 64K
	s=$CLASS/tbuf
}

@test "the class device has the seed's attributes; size, origin and users read 65536, configfs and 0" {
	local f
	for f in size phys_addr sync_mode dma_coherent origin users cache_mode cache_mode_sync dev; do
		[ -f "$s/$f" ] || fail "missing $s/$f"
	done
	assert_attr "$s/size" 65536
	assert_attr "$s/origin" configfs
	assert_attr "$s/users" 0
}

@test "sync_mode shows the configfs value, is writable with values 0 to 7, with a newline too, and shows in configfs; garbage is EINVAL" {
	assert_attr "$s/sync_mode" 1
	assert_write EINVAL "$s/sync_mode" abc
	assert_attr "$s/sync_mode" 1
	make_buf other 4096 sync_mode=6
	assert_attr "$CLASS/other/sync_mode" 6
	assert_accepts "$s/sync_mode" 0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7 $'2\n' 2
	assert_attr "$cfs/tbuf/sync_mode" 2
}

@test "dma_coherent, read-only, is 1 where DMA is coherent by default (amd64, riscv64) and 0 for the module's own device on ARM" {
	run cat "$s/dma_coherent"
	if dma_coherent_by_default; then assert_output 1; else assert_output 0; fi
	# Read-only.
	run -1 "$UT" write-attr "$s/dma_coherent" 1
	refute_output OK
}

@test "users counts open file descriptors, a file kept only by a mapping, and an open file beside a mapping of another process" {
	exec 7<"/dev/tbuf"
	assert_attr "$s/users" 1
	exec 8<>"/dev/tbuf"
	assert_attr "$s/users" 2
	exec 7<&-
	assert_attr "$s/users" 1
	exec 8<&-
	assert_attr "$s/users" 0
	start_holder /dev/tbuf 0 4096 5 --close-fd
	assert_attr "$s/users" 1
	stop_holder_intact "$HOLDER_PID"
	assert_attr "$s/users" 0
	start_holder /dev/tbuf 0 4096 5
	exec 7<"/dev/tbuf"
	assert_attr "$s/users" 2
	exec 7<&-
	stop_holder_intact "$HOLDER_PID"
	assert_attr "$s/users" 0
}

