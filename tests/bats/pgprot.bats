#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The page protection a mapping really gets, observed, not self-reported.
# QEMU models neither caches nor the faults of Device memory, so data tests
# pass whatever memory type a mapping has; and cache_mode is the driver's own
# word.  A kprobe event in tracefs records the protection of the VMA when
# the driver calls vm_insert_pages(), which builds every page table entry
# from it (mk_pte(page, vma->vm_page_prot)), for every sync_mode with and
# without O_SYNC, and this file decodes it: arm64 the AttrIndx field (MAIR
# index), x86 the PAT, PCD and PWT bits, 32-bit ARM (armmp, no LPAE) the
# kernel's L_PTE_MT_* memory type (bits 5:2), riscv64 the Svpbmt PBMT
# field (bits 62:61; the lane's CPU has Svpbmt).  vm_page_prot is read after
# vm_start, vm_end and vm_mm of struct vm_area_struct (6.1 and 6.12): at
# offset 24 on 64-bit, 12 on 32-bit, where it is 32 bits wide; the
# valid/present bits every user protection has are checked, so a layout
# change fails the test rather than decoding garbage.
#
# Stock kernels only: the debug kernel is built without kprobe events.

load helpers/common

EVENT=udmabuf_test/pgprot

# The kprobe is set up once per file (see kprobe_add).
setup_file() {
	[ "$UDMABUF_KERNEL_FLAVOUR" != debug ] || return 0
	# vm_page_prot in struct vm_area_struct: after vm_start, vm_end and
	# vm_mm since 6.1 (the maple tree); before, also after vm_next, vm_prev,
	# vm_rb and rb_subtree_gap.  32-bit ARM: the first argument is in r0
	# (AAPCS).
	local fetch='+24($arg1):x64'
	! kernel_before 6 1 || fetch='+72($arg1):x64'
	[ "$UDMABUF_ARCH" != armhf ] || fetch='+12(%r0):x32'
	kprobe_add p "$EVENT" vm_insert_pages "prot=$fetch"
}

teardown_file() {
	kprobe_del "$EVENT"
}

setup() {
	common_setup
	[ "$UDMABUF_KERNEL_FLAVOUR" != debug ] ||
		skip "the debug kernel has no kprobe events"
	[ -e "$TRACEFS/events/$EVENT/enable" ] || fail "the kprobe of setup_file is missing"
	make_buf tbuf 64K
}

# observed_type [--sync]: mmap the buffer once and print the memory type the
# kprobe saw: normal (write-back), normal-nc, device (32-bit ARM: also
# Strongly-ordered), io (RISC-V's PBMT IO), or on x86 wb/uc/wc/wt/...
observed_type() {
	local line prot
	: >"$TRACEFS/trace"
	run "$UT" mmap-try /dev/tbuf 0 4096 shared "$@"
	[ "$output" = OK ] || { echo "mmap failed: $output"; return 1; }
	line=$(grep -m1 'pgprot:' "$TRACEFS/trace") ||
		{ echo "the kprobe saw no vm_insert_pages()"; return 1; }
	prot=${line##*prot=}
	# arm64: a valid page (bits 1:0 = 3) with the access flag (bit 10);
	# x86: present (bit 0) and user (bit 2); 32-bit ARM: L_PTE_PRESENT
	# (bit 0) and L_PTE_USER (bit 8); riscv64: _PAGE_PRESENT (bit 0) and
	# _PAGE_USER (bit 4).
	case $UDMABUF_ARCH in
	arm64) (((prot & 0x403) == 0x403)) ;;
	amd64) (((prot & 0x5) == 0x5)) ;;
	armhf) (((prot & 0x101) == 0x101)) ;;
	riscv64) (((prot & 0x11) == 0x11)) ;;
	esac || { echo "not a user page protection: $prot"; return 1; }
	case $UDMABUF_ARCH in
	arm64)
		case $(((prot >> 2) & 7)) in
		0 | 1) echo normal ;;
		2) echo normal-nc ;;
		3 | 4) echo device ;;
		*) echo "attrindx-$(((prot >> 2) & 7))" ;;
		esac
		;;
	armhf)
		# L_PTE_MT_*: WRITEBACK 3 and WRITEALLOC 7 are Normal
		# write-back, BUFFERABLE 1 Normal non-cacheable; UNCACHED 0 is
		# Strongly-ordered, DEV_SHARED 4 and DEV_NONSHARED 12 Device.
		case $(((prot >> 2) & 15)) in
		3 | 7) echo normal ;;
		1) echo normal-nc ;;
		0 | 4 | 12) echo device ;;
		*) echo "l_pte_mt-$(((prot >> 2) & 15))" ;;
		esac
		;;
	riscv64)
		# Svpbmt: PMA 0 (the memory's own attributes: RAM is
		# cacheable), NC 1 (non-cacheable, idempotent), IO 2
		# (non-cacheable, strongly ordered).
		case $(((prot >> 61) & 3)) in
		0) echo normal ;;
		1) echo normal-nc ;;
		2) echo io ;;
		*) echo "pbmt-$(((prot >> 61) & 3))" ;;
		esac
		;;
	amd64)
		# PAT index from the PAT (bit 7), PCD (4) and PWT (3) bits; the
		# kernel's PAT has WB at 0, WC at 1, UC- at 2, UC at 3.
		case $((((prot >> 5) & 4) | ((prot >> 3) & 2) | ((prot >> 3) & 1))) in
		0) echo wb ;;
		1) echo wc ;;
		2) echo uc-minus ;;
		3) echo uc ;;
		*) echo "pat-$((((prot >> 5) & 4) | ((prot >> 3) & 2) | ((prot >> 3) & 1)))" ;;
		esac
		;;
	esac
}

# What cache_mode / cache_mode_sync say the arch must show.
expected_type() {
	case $UDMABUF_ARCH:$1 in
	arm64:cached | armhf:cached) echo normal ;;
	arm64:* | armhf:*) echo normal-nc ;;
	# RISC-V: pgprot_noncached() is IO; pgprot_writecombine() and
	# pgprot_dmacoherent() (the arch's own: 7.2 observed) are NC.
	riscv64:cached) echo normal ;;
	riscv64:write-combine | riscv64:dma-coherent) echo normal-nc ;;
	riscv64:uncached) echo io ;;
	amd64:cached) echo wb ;;
	*) echo "unexpected cache mode $1" ;;
	esac
}

@test "every sync_mode with and without O_SYNC installs the memory type cache_mode names" {
	local m plain sync got
	for m in 0 1 2 3 4 5 6 7; do
		set_attr "$CLASS/tbuf/sync_mode" "$m"
		read -r plain <"$CLASS/tbuf/cache_mode"
		read -r sync <"$CLASS/tbuf/cache_mode_sync"
		got=$(observed_type) || fail "sync_mode $m: $got"
		[ "$got" = "$(expected_type "$plain")" ] ||
			fail "sync_mode $m without O_SYNC: cache_mode says $plain, the page tables get $got"
		got=$(observed_type --sync) || fail "sync_mode $m, O_SYNC: $got"
		[ "$got" = "$(expected_type "$sync")" ] ||
			fail "sync_mode $m with O_SYNC: cache_mode_sync says $sync, the page tables get $got"
	done
}

@test "RAM is never mapped as Device memory, and O_SYNC does give ARM and RISC-V a non-cacheable mapping" {
	local m got
	for m in 1 2 3; do
		set_attr "$CLASS/tbuf/sync_mode" "$m"
		got=$(observed_type --sync) || fail "$got"
		[ "$got" != device ] || fail "sync_mode $m with O_SYNC maps RAM as Device memory"
		case $UDMABUF_ARCH in
		arm64 | armhf) [ "$got" = normal-nc ] || fail "sync_mode $m with O_SYNC: $got, not Normal non-cacheable" ;;
		riscv64) [ "$got" = normal-nc ] || [ "$got" = io ] || fail "sync_mode $m with O_SYNC: $got, not non-cacheable (PBMT NC or IO)" ;;
		amd64) [ "$got" = wb ] || fail "sync_mode $m with O_SYNC: $got; x86 keeps RAM write-back" ;;
		esac
	done
}
