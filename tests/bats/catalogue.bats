#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# (tests/vm/check-all: two state snapshots per test; about 450 s on the debug kernel.)
# check-all: weight 180
# The bad-input catalogue: every row of bad-input.tsv, one test each.
#
# A row gives the state to start from ("given"), one input (op, target,
# arg) and the exact outcome: an errno name, or for udmabufctl "usage"
# (exit 1 with the --help hint) optionally with the errno its message
# names.  Every case also checks that the rejected input changed nothing:
# the state below (module, configfs items and every attribute, class
# devices and their attributes, the data of every buffer, /dev) reads the
# same before and after, and the kernel logged no warning.  The
# "unchanged" column says which part of that a row is about.
#
# Documentation/bad-input.rst holds the same table; tests/catalogue/check
# (make check-host) fails if the two, or the tests below, drift apart.

# Variables such as cfs, CLASS and UT come from helpers/common.bash.
# shellcheck disable=SC2154
load helpers/common

CATALOGUE=$BATS_TEST_DIRNAME/bad-input.tsv
IO=udmabuf-ioctl
IO32=/usr/bin/udmabuf-ioctl-32
SZ=65536	# the size of every fixture buffer (64K)
SEED=77

setup() { common_setup; }
teardown() { common_teardown; }

# ---------------------------------------------------------------------------
# The table.

# catalogue_row ID: set the row's fields as row_* variables.
catalogue_row() {
	local id area what given op target arg expect unchanged
	while IFS=$'\t' read -r id area what given op target arg expect unchanged; do
		[ "$id" = "$1" ] || continue
		row_area=$area row_what=$what row_given=$given row_op=$op
		row_target=$target row_arg=$arg row_expect=$expect
		row_unchanged=$unchanged
		return 0
	done <"$CATALOGUE"
	fail "no row $1 in $CATALOGUE"
}

# The path a target token stands for.
catalogue_path() {
	local p=$1 long
	printf -v long '%256s' ''
	long=${long// /a}
	p=${p//\{cfs\}/$cfs}
	p=${p//\{item\}/$cfs/cat}
	p=${p//\{kit\}/$cfs/kit}
	p=${p//\{class\}/$CLASS/cat}
	p=${p//\{dev\}//dev/cat}
	p=${p//\{ko\}/$UDMABUF_KO}
	p=${p//\{name256\}/$long}
	printf '%s\n' "$p"
}

# ---------------------------------------------------------------------------
# Starting states.  Buffers are $SZ bytes filled with the $SEED pattern.

fill_cat() {
	check "$UT" write-fill /dev/cat 0 "$SZ" "$SEED" >/dev/null
}

# catalogue_given FIXTURE [ATTR=VALUE...]: ATTRs go to the item under test
# (cat, or kit for "pair") before it is enabled.
catalogue_given() {
	local fixture=$1
	shift
	case $fixture in
	none) ;;
	unloaded) unload_module ;;
	item) new_item cat size="$SZ" "$@" ;;
	enabled) make_buf cat "$SZ" "$@" && fill_cat ;;
	held)
		make_buf cat "$SZ" "$@" && fill_cat &&
			start_holder /dev/cat 0 "$SZ" "$SEED" --no-fill ;;
	pair)
		make_buf cat "$SZ" minor=3 && fill_cat &&
			new_item kit size="$SZ" "$@" ;;
	*) fail "unknown fixture '$fixture'" ;;
	esac
}

# ---------------------------------------------------------------------------
# Inputs.  Each prints its outcome: OK or an errno name, "usage[:ERRNO]".

declare -gA STRERROR=(
	[EPERM]="Operation not permitted" [ENOENT]="No such file or directory"
	[ENOMEM]="Cannot allocate memory" [EACCES]="Permission denied"
	[EBUSY]="Device or resource busy" [EEXIST]="File exists"
	[EINVAL]="Invalid argument" [ERANGE]="Numerical result out of range"
)

# ctl_outcome ARGS...: run udmabufctl; a failure is one line that ends in
# the reason (strerror text), plus the --help hint for usage errors.
ctl_outcome() {
	local err rc=0 first e name=
	err=$(udmabufctl "$@" 2>&1 >/dev/null) || rc=$?
	if [ "$rc" -eq 0 ]; then
		echo OK
		return
	fi
	first=${err%%$'\n'*}
	for e in "${!STRERROR[@]}"; do
		[[ $first == *": ${STRERROR[$e]}" ]] && name=$e
	done
	if [ "$rc" -ne 1 ]; then
		echo "exit $rc: $err"
	elif [[ $err == *$'\n'"Try 'udmabufctl --help' for more information." ]]; then
		echo "usage${name:+:$name}"
	else
		echo "${name:-unexplained: $err}"
	fi
}

# catalogue_run OP TARGET ARG
catalogue_run() {
	local op=$1 target=$2 arg=$3 value words
	read -ra words <<<"$arg"
	case $op in
	write)
		printf -v value '%b' "$arg"
		"$UT" write-attr "$target" "$value" ;;
	mkdir | rmdir) "$UT" "$op-try" "$target" ;;
	mmap | pwrite | lseek) "$UT" "$op-try" "$target" "${words[@]}" ;;
	ioctl) "$IO" "${words[0]}" "$target" "${words[@]:1}" ;;
	ioctl32) "$IO32" "${words[0]}" "$target" "${words[@]:1}" ;;
	insmod) "$UT" insmod-try "$target" "${words[@]}" ;;
	ctl) ctl_outcome "${words[@]}" ;;
	*) echo "unknown op '$op'" ;;
	esac
}

# ---------------------------------------------------------------------------

# catalogue_case ID: run one row of the table.
catalogue_case() {
	local row_area row_what row_given row_op row_target row_arg row_expect
	local row_unchanged given target before got rc=0
	catalogue_row "$1"
	if [ "$row_op" = ioctl32 ]; then
		requires_file "$IO32" "the 32-bit helper (build-compat32)"
		"$IO32" abi >/dev/null 2>&1 || skip "this kernel cannot run $IO32"
	fi
	read -ra given <<<"$row_given"
	catalogue_given "${given[@]}"
	target=$(catalogue_path "$row_target")
	before=$(state_snapshot)
	kmsg_mark

	got=$(catalogue_run "$row_op" "$target" "$row_arg" 2>/dev/null) || rc=$?

	# A failed call exits 1 (udmabufctl's status is part of its outcome).
	if [ "$got" != "$row_expect" ] || { [ "$row_op" != ctl ] && [ "$rc" -ne 1 ]; }; then
		fail "$(printf '%s (%s: %s)\ngiven: %s\ninput: %s %s %s\nexpected: %s\ngot: %s (status %d)' \
			"$1" "$row_area" "$row_what" "$row_given" "$row_op" \
			"$row_target" "$row_arg" "$row_expect" "$got" "$rc")"
	fi
	assert_state_unchanged "$before" "$1 ($row_area: $row_what; $row_unchanged)"
	assert_no_kernel_warnings
	if [ "${given[0]}" = held ]; then
		stop_holder "$HOLDER_PID"
		if [ "$status" -ne 0 ] || [ "$output" != intact ]; then
			fail "$1: the mapping's data changed: $output"
		fi
	fi
}

# ---------------------------------------------------------------------------
# One test per row, named "ID: what" (tests/catalogue/check keeps these in
# step with the table).

@test "cfs-01: mkdir of a name that exists" { catalogue_case cfs-01; }
@test "cfs-02: mkdir named like the subsystem's features file" { catalogue_case cfs-02; }
@test "cfs-03: mkdir of a 256-character name" { catalogue_case cfs-03; }
@test "cfs-04: mkdir inside an item" { catalogue_case cfs-04; }
@test "cfs-05: device_name of 33 characters" { catalogue_case cfs-05; }
@test "cfs-06: device_name with a slash" { catalogue_case cfs-06; }
@test "cfs-07: device_name that is only a newline" { catalogue_case cfs-07; }
@test "cfs-08: enable with the device name of another buffer" { catalogue_case cfs-08; }
@test "cfs-09: size that is not a number" { catalogue_case cfs-09; }
@test "cfs-10: negative size" { catalogue_case cfs-10; }
@test "cfs-11: fractional size" { catalogue_case cfs-11; }
@test "cfs-12: size of 2^64" { catalogue_case cfs-12; }
@test "cfs-13: size whose suffix overflows 64 bits" { catalogue_case cfs-13; }
@test "cfs-14: size 2^64-1, beyond size_t and loff_t" { catalogue_case cfs-14; }
@test "cfs-15: enable with size 0" { catalogue_case cfs-15; }
@test "cfs-16: enable with a size no allocator has (64 GiB)" { catalogue_case cfs-16; }
@test "cfs-17: size while enabled" { catalogue_case cfs-17; }
@test "cfs-18: minor 2^20, one past the last" { catalogue_case cfs-18; }
@test "cfs-19: minor -2" { catalogue_case cfs-19; }
@test "cfs-20: minor that is not a number" { catalogue_case cfs-20; }
@test "cfs-21: enable with the minor of another buffer" { catalogue_case cfs-21; }
@test "cfs-22: minor while enabled" { catalogue_case cfs-22; }
@test "cfs-23: dma_mask 11" { catalogue_case cfs-23; }
@test "cfs-24: dma_mask 65" { catalogue_case cfs-24; }
@test "cfs-25: dma_mask that is not a number" { catalogue_case cfs-25; }
@test "cfs-26: enable with a DMA mask the platform cannot satisfy (12 bits)" { catalogue_case cfs-26; }
@test "cfs-27: dma_mask while enabled" { catalogue_case cfs-27; }
@test "cfs-28: mode above 0777" { catalogue_case cfs-28; }
@test "cfs-29: mode with a digit that is not octal" { catalogue_case cfs-29; }
@test "cfs-30: mode while enabled" { catalogue_case cfs-30; }
@test "cfs-31: sync_mode 8" { catalogue_case cfs-31; }
@test "cfs-32: sync_mode -1" { catalogue_case cfs-32; }
@test "cfs-33: enable 2" { catalogue_case cfs-33; }
@test "cfs-34: enable that is only a newline" { catalogue_case cfs-34; }
@test "cfs-35: enable=0 while mapped" { catalogue_case cfs-35; }
@test "cfs-36: write to phys_addr while enabled" { catalogue_case cfs-36; }
@test "cfs-37: write to dev" { catalogue_case cfs-37; }
@test "cfs-38: write to the subsystem's features" { catalogue_case cfs-38; }
@test "cfs-39: mode 0, which devtmpfs would make 0600" { catalogue_case cfs-39; }
@test "cfs-40: device_name with a Latin-1 letter" { catalogue_case cfs-40; }
@test "cfs-41: enable with the name of another device's node" { catalogue_case cfs-41; }
@test "cfs-42: dma_device that is not BUS/DEVICE" { catalogue_case cfs-42; }
@test "cfs-43: dma_device on a bus that does not exist" { catalogue_case cfs-43; }
@test "cfs-44: dma_device naming no device" { catalogue_case cfs-44; }
@test "cfs-45: dma_device while enabled" { catalogue_case cfs-45; }
@test "cfs-46: phys_addr not page-aligned" { catalogue_case cfs-46; }
@test "cfs-47: phys_addr that is not a number" { catalogue_case cfs-47; }
@test "cfs-48: phys_addr beyond any RAM, then enable" { catalogue_case cfs-48; }
@test "sysfs-01: sync_offset equal to the size" { catalogue_case sysfs-01; }
@test "sysfs-02: sync_offset of 2^64" { catalogue_case sysfs-02; }
@test "sysfs-03: sync_size one byte more than the buffer" { catalogue_case sysfs-03; }
@test "sysfs-04: sync_size 2^64-1" { catalogue_case sysfs-04; }
@test "sysfs-05: sync_direction 3" { catalogue_case sysfs-05; }
@test "sysfs-06: sync_direction of 2^32" { catalogue_case sysfs-06; }
@test "sysfs-07: sync_for_device 0" { catalogue_case sysfs-07; }
@test "sysfs-08: sync_for_cpu 2" { catalogue_case sysfs-08; }
@test "sysfs-09: one-write sync of a range one byte past the end" { catalogue_case sysfs-09; }
@test "sysfs-10: one-write sync whose end overflows 64 bits" { catalogue_case sysfs-10; }
@test "sysfs-11: one-write sync in direction 3" { catalogue_case sysfs-11; }
@test "sysfs-12: one-write sync with two fields" { catalogue_case sysfs-12; }
@test "sysfs-13: sync_mode 8" { catalogue_case sysfs-13; }
@test "sysfs-14: write to the read-only sync_owner" { catalogue_case sysfs-14; }
@test "sysfs-15: write to the read-only size" { catalogue_case sysfs-15; }
@test "ioctl-01: unknown command (TCGETS)" { catalogue_case ioctl-01; }
@test "ioctl-02: unknown number with the driver's magic" { catalogue_case ioctl-02; }
@test "ioctl-03: GET_INFO number with another size encoded" { catalogue_case ioctl-03; }
@test "ioctl-04: GET_INFO into NULL" { catalogue_case ioctl-04; }
@test "ioctl-05: GET_INFO into a read-only page" { catalogue_case ioctl-05; }
@test "ioctl-06: SYNC_FOR_CPU from an unmapped page" { catalogue_case ioctl-06; }
@test "ioctl-07: SYNC_FOR_DEVICE from a struct that runs into an unmapped page" { catalogue_case ioctl-07; }
@test "ioctl-08: SYNC_FOR_DEVICE from a kernel address" { catalogue_case ioctl-08; }
@test "ioctl-09: sync with offset equal to the size" { catalogue_case ioctl-09; }
@test "ioctl-10: sync of a range one byte past the end" { catalogue_case ioctl-10; }
@test "ioctl-11: sync whose offset plus size overflow 64 bits" { catalogue_case ioctl-11; }
@test "ioctl-12: sync at offset 2^63" { catalogue_case ioctl-12; }
@test "ioctl-13: sync in direction 3" { catalogue_case ioctl-13; }
@test "ioctl-14: sync with flags set" { catalogue_case ioctl-14; }
@test "ioctl-15: 32-bit caller: sync at offset 2^32 (valid if cut to 32 bits)" { catalogue_case ioctl-15; }
@test "ioctl-16: 32-bit caller: sync of 2^32+1 bytes (valid if cut to 32 bits)" { catalogue_case ioctl-16; }
@test "ioctl-17: 32-bit caller: unknown command" { catalogue_case ioctl-17; }
@test "ioctl-18: 32-bit caller: SYNC_FOR_DEVICE from NULL" { catalogue_case ioctl-18; }
@test "mmap-01: MAP_PRIVATE" { catalogue_case mmap-01; }
@test "mmap-02: mapping longer than the buffer" { catalogue_case mmap-02; }
@test "mmap-03: mapping that starts at the end" { catalogue_case mmap-03; }
@test "mmap-04: mapping that crosses the end" { catalogue_case mmap-04; }
@test "mmap-05: mapping at offset 2^63-4096" { catalogue_case mmap-05; }
@test "mmap-06: mapping at an offset that is not page-aligned" { catalogue_case mmap-06; }
@test "mmap-07: mapping of length 0" { catalogue_case mmap-07; }
@test "dev-01: write at the end" { catalogue_case dev-01; }
@test "dev-02: lseek past the end" { catalogue_case dev-02; }
@test "dev-03: lseek to a negative offset" { catalogue_case dev-03; }
@test "param-01: size that is not a number" { catalogue_case param-01; }
@test "param-02: negative size" { catalogue_case param-02; }
@test "param-03: 0x without digits" { catalogue_case param-03; }
@test "param-04: parameter without a value" { catalogue_case param-04; }
@test "param-05: empty value" { catalogue_case param-05; }
@test "param-06: size whose suffix overflows 64 bits" { catalogue_case param-06; }
@test "param-07: size 2^64-1, beyond size_t and loff_t" { catalogue_case param-07; }
@test "param-08: size no allocator has (64 GiB)" { catalogue_case param-08; }
@test "param-09: malformed size after a good one" { catalogue_case param-09; }
@test "param-10: unallocatable size after a good one" { catalogue_case param-10; }
@test "cli-01: create with a size that is not a number" { catalogue_case cli-01; }
@test "cli-02: create with a size that overflows 64 bits" { catalogue_case cli-02; }
@test "cli-03: create without a size" { catalogue_case cli-03; }
@test "cli-04: create with size 0" { catalogue_case cli-04; }
@test "cli-05: create with a mode that is not octal" { catalogue_case cli-05; }
@test "cli-06: create with a minor out of range" { catalogue_case cli-06; }
@test "cli-07: create with a minor that is not a number" { catalogue_case cli-07; }
@test "cli-08: create with a DMA mask out of range" { catalogue_case cli-08; }
@test "cli-09: create with an invalid device name" { catalogue_case cli-09; }
@test "cli-10: create of a name that exists" { catalogue_case cli-10; }
@test "cli-11: create larger than memory" { catalogue_case cli-11; }
@test "cli-12: create with a minor in use" { catalogue_case cli-12; }
@test "cli-13: delete of a missing buffer" { catalogue_case cli-13; }
@test "cli-14: delete of a buffer in use" { catalogue_case cli-14; }
@test "cli-15: info of a missing buffer" { catalogue_case cli-15; }
@test "cli-16: sync of a range past the end" { catalogue_case cli-16; }
@test "cli-17: sync with an unknown direction" { catalogue_case cli-17; }
@test "cli-18: sync without --for-cpu or --for-device" { catalogue_case cli-18; }
@test "cli-19: unknown command" { catalogue_case cli-19; }
@test "cli-20: unknown option" { catalogue_case cli-20; }
