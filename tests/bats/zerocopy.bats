#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Zero copy: the mapping is made of the memory's pages, so that every kernel
# interface built on get_user_pages() takes it (O_DIRECT to a ram disk,
# vmsplice, process_vm_readv/writev, /proc/PID/mem, ptrace); the mapping's
# own rules (fork, mremap, munmap, mprotect, madvise); sendfile; and the
# dma-buf export with its importers (vgem).  Pages still held by a pipe, an
# io_uring registration, O_DIRECT requests in flight (held back by a
# device-mapper delay target) or a dma-buf keep their data after the buffer
# is deleted and others are made; those pages go with their last user,
# page by page, without holding the module.  CMA's memory is
# mapped by PFN (long-term pins of it would spin): none of this takes it.

load helpers/common

ZC=udmabuf-zc
SZ=$((1024 * 1024))

setup() {
	common_setup
	make_buf tbuf "$SZ"
}
teardown() {
	local rc=0
	# The device-mapper device a test made (delayed_disk).
	if [ -n "${DM_NAME-}" ]; then
		"$UT" dm-remove "$DM_NAME" >/dev/null || rc=1
	fi
	common_teardown || rc=1
	return "$rc"
}

# need_module NAME [PARAMS...]: NAME loaded, else modprobe it (a module of
# Debian's kernels and of the debug kernels, tests/vm/debug-zerocopy.config).
need_module() {
	local name=$1
	shift
	[ -d "/sys/module/$name" ] && return 0
	check modprobe "$name" "$@"
}

# The DRM card node of vgem.
vgem_card() {
	local c dev
	for c in /sys/class/drm/card[0-9]*; do
		dev=$(readlink "$c/device" 2>/dev/null) || continue
		[ "${dev##*/}" = vgem ] && { echo "/dev/dri/${c##*/}"; return 0; }
	done
	echo "# no vgem card in /sys/class/drm" >&2
	return 1
}

# A buffer's memory, once freed, is taken by new buffers: make several and
# fill them, so that data read through a stale reference would be theirs.
REUSE='for i in 1 2 3 4; do mkdir '"$cfs"'/re$i && echo '"$SZ"' >'"$cfs"'/re$i/size && echo 1 >'"$cfs"'/re$i/enable && udmabuf-test write-fill /dev/re$i 0 '"$SZ"' 77 >/dev/null || exit 1; done'

# What a command that holds tbuf's pages runs once it let go of its own
# mapping and file: tbuf is disabled and removed, and new buffers take the
# memory (REUSE).
GONE="echo 0 >$cfs/tbuf/enable && rmdir $cfs/tbuf && $REUSE"

# After "run $ZC ... $GONE": the command succeeded, tbuf is gone, and the
# new buffers kept their own bytes, so nothing that was written into the
# held pages landed in them.
assert_gone_and_reused() {
	local i
	assert_success
	assert_output OK
	assert_no_device tbuf
	for i in 1 2 3 4; do
		run -0 "$UT" read-verify "/dev/re$i" 0 "$SZ" 77
	done
}

@test "pages in a pipe keep their data after the buffer is deleted and memory reused" {
	assert_errno OK "$ZC" vmsplice /dev/tbuf "$GONE"
	assert_no_device tbuf
}


# held_range ZC_COMMAND [ARGS...]: make the only buffer, "big", from a range
# (CMA or contiguous), and run udmabuf-zc ZC_COMMAND /dev/big ARGS... CMD,
# where the command makes something hold the first pages and, while they
# are held, runs CMD: disable and remove the buffer, check that the held
# pages do not hold the module and that the range cannot be placed on
# (contig: its first pages are in use), and make two new buffers of its
# size.  Then the new buffers have kept their data, and so have the held
# pages (udmabuf-zc checks them).
held_range() {
	local zc=$1 big alloc addr script re
	shift
	# Beyond the page allocator's largest block: CMA or a range.
	big=$((2 * $(largest_block)))
	# The only buffer, so that the module's count is the wait's alone.
	assert_write OK "$cfs/tbuf/enable" 0
	rmdir "$cfs/tbuf"
	make_buf big "$big" dma_mask=64
	alloc=$(cat "$CLASS/big/allocator")
	[[ $alloc =~ ^(cma|contig)$ ]] || fail "$big bytes came from '$alloc', not a range"
	addr=$(udmabuf-ioctl info /dev/big | sed -n 's/^phys_addr=//p')
	script=$BATS_TEST_TMPDIR/held.sh
	cat >"$script" <<-EOF
		set -e
		echo 0 >$cfs/big/enable
		rmdir $cfs/big
		read -r n </sys/module/$MODNAME/refcnt
		[ "\$n" = 0 ] || { echo "module refcnt \$n with pages of the range held" >&2; exit 1; }
		if [ $alloc = contig ]; then
			mkdir $cfs/thief
			echo $big >$cfs/thief/size
			echo 64 >$cfs/thief/dma_mask
			echo $addr >$cfs/thief/phys_addr
			r=\$($UT write-attr $cfs/thief/enable 1 || true)
			rmdir $cfs/thief
			[ "\$r" = EBUSY ] || { echo "placing on the held range: \$r" >&2; exit 1; }
		fi
		for i in 1 2; do
			mkdir $cfs/re\$i
			echo $big >$cfs/re\$i/size
			echo 1 >$cfs/re\$i/enable
			$UT write-fill /dev/re\$i 0 $big 77 >/dev/null
		done
	EOF
	assert_errno OK "$ZC" "$zc" /dev/big "$@" "sh $script"
	# (bats' run sets i: the names first.)
	for re in re1 re2; do
		run -0 "$UT" read-verify "/dev/$re" 0 "$big" 77
		assert_write OK "$cfs/$re/enable" 0
		rmdir "$cfs/$re"
	done
	assert_equal "$(module_refcnt)" 0
	run -0 "$UT" kmsg-since "$KMSG_SEQ"
	assert_output --partial "big: memory still in use (pinned or in a pipe): freed when released"
	# The pages in the pipe go back one by one when it is read, as any
	# freed page: the kernel may take them at once, so placing on the
	# range's start again is not asserted (arm64 took one within the test).
}

@test "a contiguous range in a pipe after rmdir: the pipe keeps its pages, not the module; the rest is reused at once" {
	held_range vmsplice
}

# rmmod_while_held ZC_COMMAND [ARGS...]: load the module with one parameter
# buffer, udmabuf0, from a range (CMA or contiguous), and run udmabuf-zc
# ZC_COMMAND /dev/udmabuf0 ARGS... CMD, where the command makes something
# hold the first pages past munmap and close and, while they are held, CMD
# tries rmmod: it must come back at once, done.  The held pages keep their
# bytes (udmabuf-zc checks them) and go with their last user.
rmmod_while_held() {
	local zc=$1 big alloc script
	shift
	big=$((2 * $(largest_block)))
	assert_write OK "$cfs/tbuf/enable" 0
	rmdir "$cfs/tbuf"
	unload_module
	load_module "udmabuf0=$big"
	alloc=$(cat "$CLASS/udmabuf0/allocator")
	[[ $alloc =~ ^(cma|contig)$ ]] || fail "udmabuf0=$big came from '$alloc', not a range"
	script=$BATS_TEST_TMPDIR/rmmod.sh
	write_rmmod_at_once "$script"
	assert_errno OK "$ZC" "$zc" /dev/udmabuf0 "$@" "sh $script"
	load_module
}

@test "rmmod while a parameter buffer's range is in a pipe is done at once; the pipe keeps its bytes" {
	rmmod_while_held vmsplice
}

# A delayed view of a 4 MiB ram disk (device-mapper's delay target,
# DELAY_MS for every request): O_DIRECT requests wait there, holding the
# mapping's pages, long enough for a test to delete the buffer under them.
# Removed after each test, except under DEBUG_KOBJECT_RELEASE (the arm64
# debug kernel): there the block layer frees a removed disk's inode while
# the release of the kobject inside it is still pending ("ODEBUG: free
# active ... kobject_delayed_cleanup" from bdev_free_inode), a hazard of the
# kernel's, not of the buffers under test; the disk is made once and kept.
# Under DEBUG_KOBJECT_RELEASE rmmod itself waits for the buffers' delayed
# releases (1-4 s each): the transfer must outlast it.
DELAY_MS=5000
[ -z "${UDMABUF_KOBJECT_RELEASE:-}" ] || DELAY_MS=15000
KEPT_DISK=/run/udmabuf-zc-delayed-disk
delayed_disk() {
	need_module brd rd_nr=1 rd_size=4096
	need_module dm_delay
	[ -b /dev/ram0 ] || fail "no /dev/ram0"
	if [ -n "${UDMABUF_KOBJECT_RELEASE:-}" ] && [ -s "$KEPT_DISK" ]; then
		read -r DELAYED <"$KEPT_DISK"
		[ -b "$DELAYED" ] || fail "the kept delayed disk $DELAYED is gone"
		return 0
	fi
	DM_NAME=zcdelay
	DELAYED=$("$UT" dm-delay "$DM_NAME" /dev/ram0 "$DELAY_MS") ||
		fail "dm-delay: $DELAYED"
	[ -b "$DELAYED" ] || fail "dm-delay made no $DELAYED"
	if [ -n "${UDMABUF_KOBJECT_RELEASE:-}" ]; then
		echo "$DELAYED" >"$KEPT_DISK"
		DM_NAME=
	fi
}

@test "O_DIRECT in flight: its pages keep the written bytes and take the read after munmap, close, rmdir and reuse" {
	delayed_disk
	run "$ZC" odirect-hold /dev/tbuf "$DELAYED" /dev/ram0 "$GONE"
	# The delayed read wrote its pattern into the held pages.
	assert_gone_and_reused
}

@test "O_DIRECT in flight on a contiguous range after rmdir: the transfer keeps its pages, not the module" {
	delayed_disk
	held_range odirect-hold "$DELAYED" /dev/ram0
}

@test "rmmod while O_DIRECT on a parameter buffer's range is in flight is done at once; the transfer lands in its pages" {
	delayed_disk
	rmmod_while_held odirect-hold "$DELAYED" /dev/ram0
}

@test "io_uring: registered pages keep their data after munmap, close, rmdir and reuse; fixed reads land in them only" {
	run "$ZC" iouring /dev/tbuf "$GONE"
	if kernel_before 6 5; then
		# Before 6.5 io_uring registered shmem and hugetlbfs mappings
		# only (5.10, 6.1): nothing is pinned and the command never ran.
		assert_output EOPNOTSUPP
		assert_device tbuf
		return 0
	fi
	# The fixed read wrote SEED_B into the pinned pages.
	assert_gone_and_reused
}

# What each udmabuf-zc command checks of the mapping: pvm, that
# process_vm_readv and process_vm_writev go through it; procmem, that
# /proc/self/mem reads and writes it (what gdb uses); ptrace, that
# PEEKDATA and POKEDATA reach a child's; fork, that a forked child shares
# it; munmap, that unmapping a middle page leaves the others mapped with
# their data; mprotect, that read-only faults stores and writable again
# works; madvise, that MADV_DONTNEED drops the entries, not the data.
@test "process_vm_readv/writev, /proc/self/mem, ptrace, fork, munmap, mprotect and MADV_DONTNEED work on the mapping" {
	local c
	for c in pvm procmem ptrace fork munmap mprotect madvise; do
		assert_errno OK "$ZC" "$c" /dev/tbuf
	done
}

@test "mremap: cannot grow past the mapping, shrinks and moves with its data" {
	run -0 "$ZC" mremap /dev/tbuf
	assert_output "grow=EFAULT shrink=OK move=OK"
}

@test "sendfile from the device to a file and from a file to the device" {
	run "$ZC" sendfile /dev/tbuf "$BATS_TEST_TMPDIR/copy"
	if kernel_before 5 19; then
		# Before 5.19 sendfile's input had to be a regular file or a
		# block device: the kernel refuses a character device as input.
		assert_failure
		assert_output EINVAL
		run "$ZC" sendfile-in /dev/tbuf "$BATS_TEST_TMPDIR/copy"
	fi
	assert_success
	assert_output OK
}

# armmp with 2 GiB: a buffer beyond the page allocator's largest block
# lies in highmem, whose pages the kernel maps only for a moment.
@test "a buffer in highmem (armhf): O_DIRECT, vmsplice, process_vm_readv, /proc/PID/mem, sendfile, dma-buf" {
	requires_arch armhf
	need_module brd rd_nr=1 rd_size=4096
	make_buf hbuf 16M
	assert_attr "$CLASS/hbuf/allocator" contig
	assert_in_highmem hbuf
	local c cmd args
	for c in "odirect /dev/ram0" vmsplice pvm procmem \
		"sendfile $BATS_TEST_TMPDIR/copy" "dmabuf 0 0"; do
		read -r cmd args <<<"$c"
		# shellcheck disable=SC2086 # the command's arguments
		assert_errno OK "$ZC" "$cmd" /dev/hbuf $args
	done
}

@test "export refuses bad flags and ranges with EINVAL, gives the access mode and close-on-exec asked for" {
	local pg=$PAGE_SIZE
	assert_errno EINVAL "$ZC" export /dev/tbuf 0 0 wronly
	assert_errno EINVAL "$ZC" export /dev/tbuf 0 0 rdwr+0x800
	assert_errno EINVAL "$ZC" export /dev/tbuf 1 0 rdwr
	assert_errno EINVAL "$ZC" export /dev/tbuf 0 100 rdwr
	assert_errno EINVAL "$ZC" export /dev/tbuf "$SZ" 0 rdwr
	assert_errno EINVAL "$ZC" export /dev/tbuf "$pg" "$SZ" rdwr
	assert_errno EINVAL "$ZC" export /dev/tbuf 0x100000000000 "$pg" rdwr
	run -0 "$ZC" export /dev/tbuf 0 0 rdwr+cloexec
	assert_output "OK fd-cloexec=1 mode=rdwr"
	run -0 "$ZC" export /dev/tbuf "$PAGE_SIZE" "$PAGE_SIZE" rdonly
	assert_output "OK fd-cloexec=0 mode=rdonly"
}

@test "the dma-buf maps the range it was made of, with DMA_BUF_IOCTL_SYNC" {
	assert_errno OK "$ZC" dmabuf /dev/tbuf 0 0
	assert_errno OK "$ZC" dmabuf /dev/tbuf $((3 * PAGE_SIZE)) $((5 * PAGE_SIZE))
}

@test "an export counts in users and makes enable=0 fail with EBUSY; rmdir while exported removes the device, the dma-buf keeps the data and rmmod is refused until it goes" {
	run "$ZC" dmabuf-hold /dev/tbuf \
		"test \$(cat $CLASS/tbuf/users) = 1 && udmabuf-test write-attr $cfs/tbuf/enable 0 | grep -qx EBUSY"
	assert_success
	assert_output OK
	assert_attr "$CLASS/tbuf/users" 0
	assert_write OK "$cfs/tbuf/enable" 0
	assert_write OK "$cfs/tbuf/enable" 1
	assert_errno OK "$ZC" dmabuf-hold /dev/tbuf "rmdir $cfs/tbuf && test ! -e /dev/tbuf &&
		test \$(udmabuf-test rmmod-try $MODNAME) != OK && test -d /sys/module/$MODNAME && $REUSE"
	assert_no_device tbuf
	remove_all_items
	unload_module
	load_module
}

@test "vgem imports the dma-buf (PRIME): attached and mapped for vgem's device" {
	need_module vgem
	local card
	card=$(vgem_card)
	run -0 "$ZC" vgem /dev/tbuf "$card"
	# Import maps the attachment at once; DRM does not map imported dumb
	# objects to user space (drm_gem_dumb_map_offset), on 6.1 and 6.12.
	assert_output "OK attached=yes map-dumb=EINVAL"
}

# longterm_pin NAME EXPECTED: IORING_REGISTER_BUFFERS of /dev/NAME's whole
# mapping (pin_user_pages() with FOLL_LONGTERM, as VFIO_IOMMU_MAP_DMA and
# RDMA pin) says EXPECTED within 60 s.  A pin that mm cannot make for good
# and retries without end is killed there and fails the test.
longterm_pin() {
	local t0 t1
	t0=$(date +%s)
	run timeout -s KILL 60 "$ZC" iouring "/dev/$1"
	t1=$(date +%s)
	[ "$status" -ne 137 ] ||
		fail "registering $1 ($(cat "$CLASS/$1/allocator")) did not return in 60 s: the pin spins"
	[ "$output" = "$2" ] ||
		fail "registering $1 ($(cat "$CLASS/$1/allocator")): '$output' (status $status) after $((t1 - t0)) s, not $2"
}

@test "long-term pins of every allocator's memory return at once: page and contiguous range pinned, CMA refused with EFAULT" {
	local pinned=OK big cma
	# Before 6.5 io_uring took the pages and then refused file mappings.
	kernel_before 6 5 && pinned=EOPNOTSUPP
	big=$((4 * $(largest_block)))
	# GET_INFO says each mapping is made of pages.
	make_buf ltpage "$SZ" allocator=page
	run -0 udmabuf-ioctl info /dev/ltpage
	assert_line pages=1
	longterm_pin ltpage "$pinned"
	make_buf ltrange "$big" allocator=contig dma_mask=64
	run -0 udmabuf-ioctl info /dev/ltrange
	assert_line pages=1
	longterm_pin ltrange "$pinned"
	rmdir "$cfs/ltrange" "$cfs/ltpage"
	# armmp's CMA area is in highmem, which the DMA API does not hand out.
	cma=$(meminfo_kib CmaTotal)
	(( ${cma:-0} > 0 )) && [ "$UDMABUF_ARCH" != armhf ] || return 0
	# CMA's pages cannot be pinned for good (mm migrates them out of the
	# area first, which pages CMA handed out cannot): the buffer is mapped
	# by PFN, and every get_user_pages() fails at once.
	make_buf ltcma "$big" allocator=cma dma_mask=64
	assert_attr "$CLASS/ltcma/allocator" cma
	run -0 udmabuf-ioctl info /dev/ltcma
	assert_line pages=0
	longterm_pin ltcma EFAULT
	run "$ZC" vmsplice /dev/ltcma
	assert_output EFAULT
	# The mapping itself works.
	run -0 "$UT" mmap-fill /dev/ltcma 0 "$big" 5
	run -0 "$UT" read-verify /dev/ltcma 0 "$big" 5
}

