#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The ioctl interface of /dev/<device> (include/uapi/linux/udmabuf-cfs.h):
# GET_INFO against sysfs, SYNC_FOR_CPU/SYNC_FOR_DEVICE ranges and errors,
# bad pointers, unknown commands, and all of it again from a 32-bit program
# through the kernel's compat_ioctl path.

load helpers/common

IO=udmabuf-ioctl
IO32=/usr/bin/udmabuf-ioctl-32
SZ=$((256 * 1024))
U64_MAX=18446744073709551615

setup() {
	common_setup
	make_buf tbuf "$SZ"
	d=/dev/tbuf
	s=$CLASS/tbuf
}

# info_get KEY: one value of "udmabuf-ioctl info" of $info_dev
# (default: the test's buffer).
info_get() {
	local out dev=${info_dev:-$d}
	out=$("$IO" info "$dev") || {
		printf '# %s info %s failed: %s\n' "$IO" "$dev" "$out" >&2
		return 1
	}
	awk -F= -v k="$1" '$1 == k { print substr($0, length(k) + 2); found = 1 }
		END { exit !found }' <<<"$out"
}

# assert_info KEY EXPECTED
assert_info() {
	local got
	got=$(info_get "$1") || fail "no $1 in the GET_INFO output"
	[ "$got" = "$2" ] || fail "GET_INFO $1: expected '$2', got '$got'"
}

# The 32-bit build of the helper, if the harness made one and the kernel
# runs it.  A 32-bit kernel has no compat path: the helper itself is a
# 32-bit program there, and the other tests are these tests.
requires_compat() {
	! "$IO" abi | grep -qx pointer_bits=32 ||
		skip "a 32-bit kernel has no compat ioctl path (every test here is 32-bit)"
	requires_file "$IO32" "the 32-bit helper (build-compat32)"
	"$IO32" abi >/dev/null 2>&1 ||
		skip "this kernel cannot run the 32-bit $IO32"
}

# ioctl_programs: IOS is the helper and, where requires_compat would not
# skip, its 32-bit build: the tests that loop over IOS make every call
# through the compat_ioctl path too (the 32-bit tests below skip, saying
# why, where there is none).
ioctl_programs() {
	IOS=("$IO")
	"$IO" abi | grep -qx pointer_bits=32 && return 0
	[ -e "$IO32" ] && "$IO32" abi >/dev/null 2>&1 && IOS+=("$IO32")
	return 0
}

@test "GET_INFO of a read-only open: ABI 1, size, addresses, minor, flags, version as sysfs, configfs, pagemap and the module say" {
	# "info" opens O_RDONLY; the device node is 0600 root, we are root.
	local a p
	assert_info abi_version 1
	assert_info size "$(cat "$s/size")"
	assert_info size "$SZ"
	assert_info dma_addr "$(cat "$s/phys_addr")"
	assert_info dma_addr "$(cat "$cfs/tbuf/phys_addr")"
	a=$(info_get dma_addr)
	[ $((a)) -ne 0 ] || fail "dma_addr is 0"
	[ $((a % PAGE_SIZE)) -eq 0 ] || fail "dma_addr $a is not page-aligned"
	# A guest without bus translation.
	assert_info phys_addr "$a"
	# Where the kernel's page tables put the mapping (pagemap).
	p=$("$UT" mmap-phys "$d" 0 "$SZ") || fail "mmap-phys: $p"
	assert_info phys_addr "$p"
	assert_info minor "$(minor_of "$(cat "$s/dev")")"
	assert_info minor "$(minor_of "$(node_devnum "$d")")"
	assert_info dma_coherent "$(cat "$s/dma_coherent")"
	assert_info unknown_flags 0x00000000
	assert_info reserved_zero 1
	requires_file "/sys/module/$MODNAME/version" "MODULE_VERSION"
	assert_info driver_version "$(cat "/sys/module/$MODNAME/version")"
}

@test "GET_INFO size is exact for a size that is not a page multiple; minor is the one requested in configfs" {
	make_buf odd 12345
	info_dev=/dev/odd
	assert_info size 12345
	make_buf mbuf 4K minor=1000
	info_dev=/dev/mbuf
	assert_info minor 1000
}

@test "GET_INFO sync_mode follows writes to the sysfs sync_mode" {
	local m
	for m in 0 5 7 1; do
		set_attr "$s/sync_mode" "$m"
		assert_info sync_mode "$m"
	done
}

@test "GET_INFO ram_cached flag is set exactly when O_SYNC mappings stay cached: on amd64, not on ARM" {
	set_attr "$s/sync_mode" 1
	if [ "$(cat "$s/cache_mode_sync")" = cached ]; then
		assert_info ram_cached 1
	else
		assert_info ram_cached 0
	fi
	case $UDMABUF_ARCH in
	amd64) assert_info ram_cached 1 ;;
	arm64 | armhf) assert_info ram_cached 0 ;;
	esac
}

@test "sync ioctls of the whole buffer with size 0 in every direction, the exact whole buffer, an unaligned range, the last byte and up to the end (size 0) succeed" {
	local io args
	ioctl_programs
	for io in "${IOS[@]}"; do
		for args in "cpu 0 0 0" "cpu 0 0 1" "cpu 0 0 2" \
			"device 0 0 0" "device 0 0 1" "device 0 0 2" \
			"device 0 $SZ 1" "cpu 0 $SZ 2" \
			"device $((PAGE_SIZE + 3)) 100 1" "cpu $((PAGE_SIZE + 3)) 100 2" \
			"device $((SZ - 1)) 1 0" "cpu $((SZ - 1)) 1 0" \
			"device $((SZ - 1)) 0 1" "cpu $((SZ / 2)) 0 2"; do
			# shellcheck disable=SC2086 # the words are the arguments
			assert_errno OK "$io" sync "$d" $args
		done
	done
}

@test "sync ioctls cover the partial last page of a buffer that is not a page multiple" {
	make_buf odd 12345
	assert_errno OK "$IO" sync /dev/odd device 0 12345 1
	assert_errno OK "$IO" sync /dev/odd cpu 12344 1 2
	assert_errno EINVAL "$IO" sync /dev/odd cpu 12345 1 2
}

@test "SYNC_FOR_DEVICE sets sync_owner to 1 and SYNC_FOR_CPU sets it to 0; a failed one leaves it" {
	local io
	ioctl_programs
	for io in "${IOS[@]}"; do
		assert_errno OK "$io" sync "$d" device 0 0 1
		assert_attr "$s/sync_owner" 1
		assert_errno EINVAL "$io" sync "$d" cpu "$SZ" 1 2
		assert_attr "$s/sync_owner" 1
		assert_errno OK "$io" sync "$d" cpu 0 0 2
		assert_attr "$s/sync_owner" 0
	done
}

# ---------------------------------------------------------------------------
# SYNC_FOR_CPU / SYNC_FOR_DEVICE: invalid arguments (beside the catalogue's
# ioctl rows of 64-bit callers: offset 2^63, overflowing 64 bits)

@test "sync ioctls with a range beyond the end, direction 3 or 0xffffffff or a flag fail with EINVAL" {
	local io args
	ioctl_programs
	for io in "${IOS[@]}"; do
		for args in "device $SZ 1 0" "cpu $SZ 0 0" "device $U64_MAX 0 0" \
			"device $((SZ - 1)) 2 0" "device $((SZ / 2)) 0xffffffffffff0000 0" \
			"cpu 0 0 3" "cpu 0 0 0xffffffff" "device 0 0 0xffffffff" \
			"device 0 0 0 1" "device 0 0 0 0x80000000"; do
			# shellcheck disable=SC2086 # the words are the arguments
			assert_errno EINVAL "$io" sync "$d" $args
		done
	done
}

@test "GET_INFO, SYNC_FOR_CPU and SYNC_FOR_DEVICE with a NULL, unmapped, straddling or kernel pointer fail with EFAULT; the syncs read their argument from a read-only page" {
	local io op c
	ioctl_programs
	for io in "${IOS[@]}"; do
		for op in info sync-cpu sync-device; do
			for c in null unmapped straddle top; do
				assert_errno EFAULT "$io" bad-pointer "$d" "$op" "$c"
			done
		done
		assert_errno EFAULT "$io" bad-pointer "$d" info readonly
	done
	# The page holds a valid whole-buffer request.
	assert_errno OK "$IO" bad-pointer "$d" sync-cpu readonly
	assert_errno OK "$IO" bad-pointer "$d" sync-device readonly
}

@test "the ioctl numbers are 0x8068d500, 0x4018d501 and 0x4018d502; unknown numbers, with the driver's magic or a known number's other size or direction, fail with ENOTTY" {
	# A zeroed argument: GET_INFO fills it, the syncs cover the whole buffer.
	assert_errno OK "$IO" raw "$d" 8068d500
	assert_errno OK "$IO" raw "$d" 4018d501
	assert_errno OK "$IO" raw "$d" 4018d502
	# With the catalogue's 5401 (TCGETS), 4018d503 and 8060d500 for the
	# 32-bit program.
	local io nr
	ioctl_programs
	for io in "${IOS[@]}"; do
		for nr in 0 ffffffff 8068d5ff d503 c068d500 4010d501 8018d502 \
			5401 4018d503 8060d500; do
			assert_errno ENOTTY "$io" raw "$d" "$nr"
		done
	done
}

# ---------------------------------------------------------------------------
# The same from a 32-bit program (compat_ioctl)

@test "the 32-bit helper uses the same struct sizes and ioctl numbers" {
	requires_compat
	local a64 a32
	a64=$("$IO" abi | grep -v '^pointer_bits=')
	a32=$("$IO32" abi | grep -v '^pointer_bits=')
	run "$IO32" abi
	assert_line pointer_bits=32
	[ "$a64" = "$a32" ] || fail "64-bit: $a64"$'\n'"32-bit: $a32"
}

@test "GET_INFO from a 32-bit program gives the same answer as from a 64-bit one" {
	requires_compat
	local i64 i32
	i64=$("$IO" info "$d")
	i32=$("$IO32" info "$d")
	[ "$i64" = "$i32" ] || fail "64-bit:"$'\n'"$i64"$'\n'"32-bit:"$'\n'"$i32"
}

@test "sync ioctls from a 32-bit program keep all 64 bits of offset and size" {
	requires_compat
	# Truncated to 32 bits, each of these would be a valid range.
	assert_errno EINVAL "$IO32" sync "$d" cpu 0x100000000 1 0
	assert_errno EINVAL "$IO32" sync "$d" device 0 0x100000001 0
	assert_errno EINVAL "$IO32" sync "$d" device 1 "$U64_MAX" 0
}

@test "data stored by a 32-bit program through a cached mapping reaches the device after SYNC_FOR_DEVICE" {
	requires_compat
	set_attr "$s/sync_mode" 1
	assert_errno OK "$IO32" cpu-to-device "$d" 100 $((3 * PAGE_SIZE)) 321
}
