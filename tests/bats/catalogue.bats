#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# check-all: weight 70
# The bad-input catalogue: every row of bad-input.tsv, one test per area.
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
# Each area is one test that runs its rows one after the other, each from a
# clean state (the per-test teardown and setup between rows), and prints a
# line per row ("ok ID" or "not ok ID" and why; bats shows them when the
# test fails): per row, bats' own cost (about 0.5 s on stock guests, 1.3 s
# on the debug kernel) would be as much as the case.
# UDMABUF_TEST_CATALOGUE=REGEX (tests/vm/run passes it on) runs only the
# rows whose ID matches.
#
# Documentation/bad-input.rst holds the same table; tests/catalogue/check
# (make check-host) fails if the two, or the tests below, drift apart.

load helpers/common

CATALOGUE=$BATS_TEST_DIRNAME/bad-input.tsv
IO=udmabuf-ioctl
IO32=/usr/bin/udmabuf-ioctl-32
SZ=65536	# the size of every fixture buffer (64K)
SEED=77

# ---------------------------------------------------------------------------
# The table.

# What the tokens of a target or an argument stand for.
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
	p=${p//\{edu\}/$UDMABUF_EDU}
	printf '%s\n' "$p"
}

# ---------------------------------------------------------------------------
# Starting states.  Buffers are $SZ bytes filled with the $SEED pattern.

fill_cat() {
	check "$UT" write-fill /dev/cat 0 "$SZ" "$SEED" >/dev/null
}

# edu_unbound: the edu DMA master there, without a driver; edu_rebind
# gives it back the driver it had, for the tests after.
EDU_DRIVER=$BATS_FILE_TMPDIR/edu-driver
edu_unbound() {
	local d=/sys/bus/pci/devices/$UDMABUF_EDU
	[ -e "$d" ] || { echo "# no edu at $UDMABUF_EDU" >&2; return 1; }
	[ -e "$d/driver" ] || return 0
	readlink -f "$d/driver" >"$EDU_DRIVER" &&
		echo "$UDMABUF_EDU" >"$d/driver/unbind"
}

edu_rebind() {
	[ -s "$EDU_DRIVER" ] || return 0
	echo "$UDMABUF_EDU" >"$(cat "$EDU_DRIVER")/bind"
	rm -f "$EDU_DRIVER"
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
	unbound)
		new_item cat size="$SZ" "$@" && edu_unbound ;;
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
# the reason (strerror text; "no such buffer" for ENOENT of a NAME), plus
# the --help hint for usage errors.
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
	[[ $first == *": no such buffer" ]] && name=ENOENT
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

# catalogue_case ID: run one row of the table, whose fields the caller
# has set as row_* variables; returns 1 on failure (with or without
# errexit: it runs in a command substitution).
catalogue_case() {
	local given target arg before got rc=0
	read -ra given <<<"$row_given"
	catalogue_given "${given[@]}" || return 1
	target=$(catalogue_path "$row_target")
	arg=$(catalogue_path "$row_arg")
	before=$(state_snapshot)

	got=$(catalogue_run "$row_op" "$target" "$arg" 2>/dev/null) || rc=$?

	# A failed call exits 1 (udmabufctl's status is part of its outcome).
	if [ "$got" != "$row_expect" ] || { [ "$row_op" != ctl ] && [ "$rc" -ne 1 ]; }; then
		fail "$(printf '%s (%s: %s)\ngiven: %s\ninput: %s %s %s\nexpected: %s\ngot: %s (status %d)' \
			"$1" "$row_area" "$row_what" "$row_given" "$row_op" \
			"$row_target" "$row_arg" "$row_expect" "$got" "$rc")"
		return 1
	fi
	assert_state_unchanged "$before" "$1 ($row_area: $row_what; $row_unchanged)" || return 1
	if [ "${given[0]}" = held ]; then
		stop_holder "$HOLDER_PID"
		if [ "$status" -ne 0 ] || [ "$output" != intact ]; then
			fail "$1: the mapping's data changed: $output"
			return 1
		fi
	fi
}

# catalogue_area AREA [32]: every row of AREA whose caller is 64-bit (or
# with 32, those of the 32-bit helper, which needs the compat path), each
# from a clean state; one line per row, and a failure naming the rows that
# failed.
catalogue_area() {
	local area=$1 compat=${2:-} id out failed=() n=0 t0 t1 rc
	local row_area row_what row_given row_op row_target row_arg row_expect row_unchanged
	local log=$BATS_TEST_TMPDIR/row-teardown
	# Each area runs once (tests/vm/lanes): the driver's parsers (configfs,
	# sysfs, ioctls) under the debug kernel, KASAN watching every malformed
	# write; the other areas on stock amd64, at a sixth of the cost, since
	# the debug kernels run their paths in mmap.bats, chardev.bats and
	# params.bats, and the CLI's rows reach the kernel through configfs.
	case $area in
	configfs | sysfs | ioctl)
		[ "$UDMABUF_KERNEL_FLAVOUR" = debug ] ||
			skip "the debug kernel runs this area (KASAN on the driver's parsers)" ;;
	*)
		[ "$UDMABUF_KERNEL_FLAVOUR" != debug ] ||
			skip "stock amd64 runs this area (the debug kernels run its paths in other files)" ;;
	esac
	if [ -n "$compat" ]; then
		requires_file "$IO32" "the 32-bit helper (build-compat32)"
		"$IO32" abi >/dev/null 2>&1 || skip "this kernel cannot run $IO32"
	fi
	while IFS=$'\t' read -r id row_area row_what row_given row_op row_target \
		row_arg row_expect row_unchanged <&5; do
		[ "$row_area" = "$area" ] || continue
		if [ -n "$compat" ]; then
			[ "$row_op" = ioctl32 ] || continue
		else
			[ "$row_op" != ioctl32 ] || continue
		fi
		[[ $id =~ ${UDMABUF_TEST_CATALOGUE:-.} ]] || continue
		n=$((n + 1))
		t0=$EPOCHREALTIME
		: >"$log"
		# The teardown checks the kernel log since the row's setup.
		out=$(catalogue_case "$id" 2>&1) && rc=0 || rc=$?
		edu_rebind
		if [ "$rc" -eq 0 ] && common_teardown >"$log" 2>&1 && common_setup; then
			t1=$EPOCHREALTIME
			echo "ok $id in $(((${t1/./} - ${t0/./}) / 1000))ms"
		else
			t1=$EPOCHREALTIME
			printf 'not ok %s in %sms\n%s\n' "$id" "$(((${t1/./} - ${t0/./}) / 1000))" "$out"
			cat "$log"
			failed+=("$id")
			# The next row starts clean all the same.
			common_teardown >/dev/null 2>&1
			common_setup || fail "after $id: no clean state for the next row"
		fi
	done 5<"$CATALOGUE"
	if [ "$n" -eq 0 ]; then
		[ -z "${UDMABUF_TEST_CATALOGUE:-}" ] || skip "no row matches UDMABUF_TEST_CATALOGUE"
		fail "no row of area $area${compat:+ ($compat-bit callers)}"
	fi
	[ "${#failed[@]}" -eq 0 ] || fail "${#failed[@]} of $n rows failed: ${failed[*]}"
}

# ---------------------------------------------------------------------------
# One test per area of the table (tests/catalogue/check keeps these in
# step with it).

@test "configfs items: 53 rows, cfs-01 to cfs-53" { catalogue_area configfs; }
@test "sysfs attributes: 15 rows, sysfs-01 to sysfs-15" { catalogue_area sysfs; }
@test "ioctls: 14 rows, ioctl-01 to ioctl-14" { catalogue_area ioctl; }
@test "ioctls from 32-bit callers: 4 rows, ioctl-15 to ioctl-18" { catalogue_area ioctl 32; }
@test "mmap: 7 rows, mmap-01 to mmap-07" { catalogue_area mmap; }
@test "read, write and lseek: 3 rows, dev-01 to dev-03" { catalogue_area dev; }
@test "module parameters: 10 rows, param-01 to param-10" { catalogue_area param; }
@test "udmabufctl: 20 rows, cli-01 to cli-20" { catalogue_area cli; }
