#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# udmabufctl against the real module: what it reports of the kernel's
# answers (errnos, addresses, users of a buffer, placements, allocators,
# the sync checker) and what only a real configfs shows (races, inode
# numbers of the service's record).  Everything a fake configfs can show is
# the host's tools/udmabufctl/tests/test-cli.sh: option parsing, output
# formats, name lookup, hints of errnos, without the module, save file and
# service record logic.

# Variables such as cfs, CLASS and UT come from helpers/common.bash.
# shellcheck disable=SC2154
load helpers/common
load helpers/edu

bats_require_minimum_version 1.5.0

CTL=udmabufctl

setup_file() {
	command -v udmabufctl >/dev/null || skip "udmabufctl is not installed in the guest"
	# The module may or may not be loaded when this file starts.
	# (load_module insmods $UDMABUF_KO unless /sys/module/udmabuf_cfs exists)
	load_module
}

setup() {
	common_setup
	export UDMABUF_SAVE_FILE=$BATS_TEST_TMPDIR/udmabuf.conf
}

# common_teardown disables and removes every configfs item the test made,
# and reloads the module without parameters if a test changed that.
teardown() {
	kprobe_del udmabuf/unmap_range
	common_teardown
}

requires_jq() {
	command -v jq >/dev/null || skip "needs jq in the guest to parse JSON"
}

# Sets EDU to the BDF of QEMU's edu PCI device (udmabuf-edu find), a DMA
# master to bind buffers to, and binds it to uio_pci_generic (edu_present):
# the module binds buffers only to a device that has a driver.
requires_edu() {
	command -v udmabuf-edu >/dev/null || skip "needs udmabuf-edu in the guest"
	EDU=$(udmabuf-edu find 2>/dev/null) || EDU=
	EDU=${EDU%%$'\n'*}
	[ -n "$EDU" ] || skip "no edu PCI device in this guest (udmabuf-edu find)"
	edu_present "$EDU" || fail "cannot bind $EDU to uio_pci_generic"
}

# A buffer of the given name exists: item enabled, node and class device.
assert_buffer() {
	assert_attr "$cfs/$1/enable" 1
	assert_device "$1"
}

# ---------------------------------------------------------------------------
# create

@test "create prints the device node of the new buffer, named by --device-name if given; with --no-enable none, and leaves the item disabled; delete removes a buffer; a minor in use is EBUSY, a device name in use File exists, and nothing is left" {
	run -0 --separate-stderr "$CTL" create tbuf --size 1M
	assert_output /dev/tbuf
	assert_equal "$stderr" ""
	assert_buffer tbuf
	assert_attr "$cfs/tbuf/size" 1048576
	# --device-name gives the device another name than the item.
	run -0 --separate-stderr "$CTL" create item0 --size 64K --device-name cam0
	assert_output /dev/cam0
	assert_attr "$cfs/item0/device_name" cam0
	assert_device cam0
	# --no-enable leaves a disabled item and no device.
	run -0 --separate-stderr "$CTL" create nbuf --size 64K --no-enable
	assert_output ""
	assert_attr "$cfs/nbuf/enable" 0
	assert_no_device nbuf
	# delete disables and removes a buffer, silently.
	run -0 --separate-stderr "$CTL" delete tbuf
	assert_output ""
	assert_equal "$stderr" ""
	[ ! -e "$cfs/tbuf" ] || fail "the item is still there"
	assert_no_device tbuf
	# A minor in use: EBUSY; a device name in use: File exists; nothing left.
	run -0 "$CTL" create a --size 64K --minor 3
	run -1 --separate-stderr "$CTL" create b --size 64K --minor 3
	assert_equal "${stderr_lines[0]}" "udmabufctl: b: enable: Device or resource busy"
	assert_equal "${stderr_lines[1]}" "udmabufctl: hint: minor 3 is already in use (see 'udmabufctl list')"
	[ ! -e "$cfs/b" ] || fail "the item b was left behind"
	assert_no_device b
	run -1 --separate-stderr "$CTL" create b --size 64K --device-name a
	assert_equal "${stderr_lines[0]}" "udmabufctl: b: enable: File exists"
	[ ! -e "$cfs/b" ] || fail "the item b was left behind"
	assert_buffer a
}

@test "create --dma-device binds the buffer to an existing PCI device, and info shows it" {
	requires_edu
	run -0 --separate-stderr "$CTL" create tbuf --size 64K --dma-device "pci/$EDU"
	assert_output /dev/tbuf
	assert_equal "$stderr" ""
	assert_buffer tbuf
	assert_attr "$cfs/tbuf/dma_device" "pci/$EDU"
	assert_attr "$CLASS/tbuf/dma_device" "pci/$EDU"
	run -0 --separate-stderr "$CTL" info -n -o DMA-DEVICE tbuf
	assert_output "pci/$EDU"
}

# A size as udmabufctl writes it ("4M", "1.5G"), of a number of KiB.
human_kib() {
	awk -v k="$1" 'BEGIN {
		u = "K"; split("M G T", units, " ")
		for (i = 1; i <= 3 && k >= 1024; i++) { k /= 1024; u = units[i] }
		s = sprintf("%.1f", k); sub(/\.0$/, "", s); print s u
	}'
}

# The page allocator's largest free block in the zones a 64-bit mask
# reaches (the largest order with a free block), in udmabufctl's form.
# Plain bash: the guest has no getconf, and its awk no '^'.
largest_free_block() {
	local page zone counts c i order max=0
	page=$(sed -n 's/^KernelPageSize: *\([0-9]*\) kB/\1/p' /proc/self/smaps | head -n 1)
	while read -r _ _ _ zone counts; do
		case $zone in DMA|DMA32|Normal|Movable) ;; *) continue ;; esac
		order=-1 i=0
		for c in $counts; do
			if [ "$c" -gt 0 ]; then order=$i; fi
			i=$((i + 1))
		done
		if [ "$order" -ge 0 ] && [ $((page << order)) -gt "$max" ]; then
			max=$((page << order))
		fi
	done </proc/buddyinfo
	human_kib "$max"
}

# The CMA part of the ENOMEM hint, as /proc/meminfo has it.
cma_hint_re() {
	local total
	total=$(sed -n 's/^CmaTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo)
	if [ "${total:-0}" -gt 0 ]; then
		echo "the CMA area has [0-9.]+[KMG] of $(human_kib "$total") free"
	else
		echo "there is no CMA area"
	fi
}

@test "a create larger than memory fails with Cannot allocate memory, the largest free block, the kernel's longest range, the mask and no kernel warning" {
	local before after cma block run line
	before=$(largest_free_block)
	cma=$(cma_hint_re)
	run -1 --separate-stderr "$CTL" create huge --size 1T --dma-mask 64
	after=$(largest_free_block)
	assert_output ""
	assert_equal "${#stderr_lines[@]}" 3
	assert_equal "${stderr_lines[0]}" "udmabufctl: huge: enable: Cannot allocate memory"
	[[ ${stderr_lines[1]} =~ ^"udmabufctl: hint: no 1T of contiguous memory within the 64-bit DMA mask: the page allocator's largest free block is "([0-9.]+[KMG])", the longest free or movable range "([0-9.]+[KMG])" and "$cma$ ]] ||
		fail "no limits in the hint: ${stderr_lines[1]}"
	block=${BASH_REMATCH[1]} run=${BASH_REMATCH[2]}
	[ "$block" = "$before" ] || [ "$block" = "$after" ] ||
		fail "largest free block $block; /proc/buddyinfo: $before, then $after"
	# The range is the kernel's own figure, from its line.
	line=$("$UT" kmsg-since "$KMSG_SEQ" | grep "udmabuf_cfs: huge: no 1073741824 KiB ") ||
		fail "no kernel line for huge"
	[[ $line =~ ", largest free or movable range "([0-9]+)" KiB;" ]] || fail "kernel line: $line"
	[ "$run" = "$(human_kib "${BASH_REMATCH[1]}")" ] ||
		fail "hint says $run, the kernel ${BASH_REMATCH[1]} KiB"
	[[ ${stderr_lines[2]} =~ ^"udmabufctl: hint: try a smaller size: 1T is more than the "[0-9.]+[KMG]" of RAM"$ ]] ||
		fail "no fix in the hint: ${stderr_lines[2]}"
	[ ! -e "$cfs/huge" ] || fail "the item was left behind"
	assert_no_device huge
	assert_no_kernel_warnings
}

@test "two concurrent creates of one name: exactly one succeeds, the other gets File exists" {
	local i ok=0 exists=0
	for i in 1 2; do
		"$CTL" create race --size 1M >"$BATS_TEST_TMPDIR/out$i" 2>"$BATS_TEST_TMPDIR/err$i" &
		eval "pid$i=\$!"
	done
	for i in 1 2; do
		local pid rc=0
		eval "pid=\$pid$i"
		wait "$pid" || rc=$?
		if [ "$rc" -eq 0 ]; then
			ok=$((ok + 1))
			assert_equal "$(cat "$BATS_TEST_TMPDIR/out$i")" /dev/race
		elif grep -qx "udmabufctl: race: create: File exists" "$BATS_TEST_TMPDIR/err$i"; then
			exists=$((exists + 1))
		else
			fail "create $i: status $rc: $(cat "$BATS_TEST_TMPDIR/err$i")"
		fi
	done
	assert_equal "$ok/$exists" 1/1
	assert_buffer race
}

# ---------------------------------------------------------------------------
# delete

@test "delete refuses a buffer in use and names the process; delete --force removes it and its user keeps intact data" {
	run -0 "$CTL" create tbuf --size 64K
	start_holder /dev/tbuf 0 65536 1
	run -1 --separate-stderr "$CTL" delete tbuf
	assert_equal "${stderr_lines[0]}" "udmabufctl: tbuf: delete: Device or resource busy"
	[[ ${stderr_lines[1]} == *"in use by PID $HOLDER_PID ("* ]] ||
		fail "the holder is not named: ${stderr_lines[1]}"
	assert_buffer tbuf
	run -0 "$CTL" delete --force tbuf
	[ ! -e "$cfs/tbuf" ] || fail "the item is still there"
	assert_no_device tbuf
	stop_holder "$HOLDER_PID"
	assert_equal "$status" 0
	assert_no_kernel_warnings
}

# ---------------------------------------------------------------------------
# list and info

@test "create writes minor, sync mode, DMA mask and mode; info shows key: value lines that match sysfs, the allocator too (page for 1 MiB); DMA-ADDR and CPU-PHYS-ADDR are GET_INFO's" {
	local dma cpu
	run -0 "$CTL" create tbuf --size 1M --minor 7 --sync-mode 3 --dma-mask 40 --mode 0640
	assert_attr "$cfs/tbuf/sync_mode" 3
	assert_attr "$cfs/tbuf/dma_mask" 40
	assert_attr "$cfs/tbuf/mode" 0640
	assert_equal "$(minor_of "$(cat "$CLASS/tbuf/dev")")" 7
	assert_equal "$(stat -c %a /dev/tbuf)" 640
	run -0 --separate-stderr "$CTL" info tbuf
	assert_line "name:            tbuf"
	assert_line "device:          /dev/tbuf"
	assert_line "maj:min:         $(cat "$CLASS/tbuf/dev")"
	assert_line "size:            1048576 (1M)"
	assert_line "sync-mode:       3"
	assert_line "origin:          configfs"
	assert_line "users:           0"
	assert_line "cache:           $(cat "$CLASS/tbuf/cache_mode")"
	assert_line "allocator:       page"
	assert_line "allocator:       $(cat "$CLASS/tbuf/allocator")"
	# DMA-ADDR is GET_INFO's DMA address, CPU-PHYS-ADDR its CPU physical
	# address (the same columns in info and JSON: test-cli.sh).
	dma=$(udmabuf-ioctl info /dev/tbuf | sed -n 's/^dma_addr=//p')
	cpu=$(udmabuf-ioctl info /dev/tbuf | sed -n 's/^phys_addr=//p')
	[ -n "$dma" ] && [ -n "$cpu" ] || fail "udmabuf-ioctl info: no addresses"
	run -0 --separate-stderr "$CTL" list -n -r -o DMA-ADDR,CPU-PHYS-ADDR tbuf
	assert_output "$dma $cpu"
}

# ---------------------------------------------------------------------------
# save and restore

# Everything restore must reproduce, one line per buffer.
state() {
	"$CTL" list -n -r -b -o NAME,DEVNAME,MAJ:MIN,SIZE,SYNC-MODE,DMA-MASK,MODE,ENABLED
}

@test "save, clear and restore re-create identical buffers; restore --clear replaces existing ones; clear --state leaves a buffer made again under a name restore used" {
	run -0 "$CTL" create a --size 64K --minor 5 --sync-mode 2 --mode 0640
	run -0 "$CTL" create b --size 1M --dma-mask 40
	run -0 "$CTL" create c --size 8K --no-enable
	local before
	before=$(state)
	run -0 "$CTL" save
	run -0 "$CTL" clear
	assert_no_device a
	run -0 --separate-stderr "$CTL" restore
	assert_equal "$(state)" "$before"
	assert_equal "$(stat -c %a /dev/a)" 640
	run -0 "$CTL" delete a
	run -0 "$CTL" create other --size 64K
	run -0 "$CTL" restore --clear
	assert_buffer a
	[ ! -e "$cfs/other" ] || fail "restore --clear kept 'other'"
	assert_equal "$(state)" "$before"
	# The service: restore --state at start, clear --state at stop.  What
	# the record does is the host's; here, that configfs's inode numbers
	# tell a buffer made again from the one restore made: clear --state
	# leaves it.
	local st=$BATS_TEST_TMPDIR/restored
	run -0 "$CTL" clear
	run -0 "$CTL" restore --state "$st"
	run -0 "$CTL" delete a
	make_buf a 65536
	run -0 --separate-stderr "$CTL" clear --state "$st"
	assert_equal "$stderr" ""
	assert_buffer a
	[ ! -e "$cfs/b" ] || fail "clear --state kept b"
}

# ---------------------------------------------------------------------------
# sync

@test "sync --for-cpu and --for-device sync the buffer, for a user who may open the device but not write sysfs too" {
	run -0 "$CTL" create tbuf --size 64K
	run -0 --separate-stderr "$CTL" sync tbuf --for-device
	assert_equal "$stderr" ""
	assert_equal "$(cat "$CLASS/tbuf/sync_owner")" 1
	run -0 --separate-stderr "$CTL" sync tbuf --for-cpu --offset 4K --length 4K --direction from-device
	assert_equal "$stderr" ""
	assert_equal "$(cat "$CLASS/tbuf/sync_owner")" 0
	run -0 "$CTL" create tbuf2 --size 64K --mode 0666
	run -0 su -s /bin/sh -c "$CTL sync tbuf2 --for-device" nobody
	assert_equal "$(cat "$CLASS/tbuf2/sync_owner")" 1
}

# ---------------------------------------------------------------------------
# bench on a real module: under the sync checker.  The shape of its table,
# CACHE as sysfs says, its refusals, temporary buffers and signals are
# test-cli.sh's; TCG has no cache model, so no timing is judged here.

# bench under the sync checker: a buffer NAME made with --sync-check, and
# the temporary ones with UDMABUF_SYNC_CHECK=report.  The checker is on (a
# kprobe sees it take the CPU's entries away at the syncs for the device)
# and finds no missing sync: sync_violations 0, no line in the kernel log.
@test "bench runs clean under the sync checker: NAME made with --sync-check, temporary buffers with UDMABUF_SYNC_CHECK=report" {
	local seq
	kprobe_add p udmabuf/unmap_range udmabuf_cfs:udmabuf_unmap_range
	seq=$("$UT" kmsg-seq)
	run -0 "$CTL" create tbuf --size 64K --sync-mode 2 --sync-check
	: >"$TRACEFS/trace"
	run -0 --separate-stderr "$CTL" bench tbuf --reps 3 -r -n -o OP
	assert_equal "$stderr" ""
	[ "$(grep -c 'unmap_range:' "$TRACEFS/trace")" -ge 1 ] ||
		fail "bench tbuf: the sync checker took no entry away"
	assert_attr "$CLASS/tbuf/sync_check" 1
	assert_attr "$CLASS/tbuf/sync_violations" 0
	assert_attr "$CLASS/tbuf/sync_mode" 2
	: >"$TRACEFS/trace"
	UDMABUF_SYNC_CHECK=report run -0 --separate-stderr "$CTL" bench --size 64K --reps 3 -r -n -o OP
	assert_equal "$stderr" ""
	[ "$(grep -c 'unmap_range:' "$TRACEFS/trace")" -ge 1 ] ||
		fail "bench under UDMABUF_SYNC_CHECK=report: the sync checker took no entry away"
	kprobe_del udmabuf/unmap_range
	run -0 "$UT" kmsg-since "$seq"
	refute_output --partial "sync check:"
}

# (The save file's sync_check and UDMABUF_SYNC_CHECK: test-cli.sh, test_lib.c.)
@test "create --sync-check turns the checker on; info shows its mode and count; save and restore keep it" {
	requires_jq
	run -0 "$CTL" create tbuf --size 64K --sync-check
	assert_output /dev/tbuf
	assert_attr "$cfs/tbuf/sync_check" 1
	run -0 "$CTL" create tbuf2 --size 64K --sync-check=sigbus
	assert_attr "$CLASS/tbuf2/sync_check" 2
	# A program with a missing sync for the CPU: counted, info says so.
	run -0 udmabuf-syncbug load /dev/tbuf 12288
	assert_attr "$CLASS/tbuf/sync_violations" 1
	run -0 "$CTL" info -J tbuf tbuf2
	run -0 jq -r '.buffers[] | "\(.name) \(."sync-check") \(."sync-violations")"' <<<"$output"
	assert_output "tbuf report 1
tbuf2 sigbus 0"
	run -0 "$CTL" save
	run -0 "$CTL" restore --clear
	assert_attr "$cfs/tbuf/sync_check" 1
	assert_attr "$cfs/tbuf2/sync_check" 2
	assert_attr "$CLASS/tbuf/sync_violations" 0
}
