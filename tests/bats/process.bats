#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Process-scoped buffers: UDMABUF_CFS_IOC_ALLOC on /dev/udmabuf-cfs gives a
# file descriptor that is a buffer (mmap, read/write/lseek, GET_INFO, sync,
# EXPORT_DMABUF), listed in /sys/class/udmabuf with its owner, with no
# configfs item and no node, and freed when its last file, mapping and
# dma-buf go, whoever holds them and however the owner ended.  The
# helper udmabuf-proc allocates, and runs the other helpers on "fd:N";
# udmabuf-lib does the same through libudmabuf (udmabuf_alloc).

load helpers/common
load helpers/edu

PROC=udmabuf-proc
LIB=udmabuf-lib
IO=udmabuf-ioctl
PARAMS=/sys/module/$MODNAME/parameters
SZ=65536

# wait_exit PID: a process that is not our child is gone within 10 s.
wait_exit() {
	for _ in $(seq 1 200); do
		proc_running "$1" || return 0
		sleep 0.05
	done
	fail "process $1 still there after 10 s"
}

# spawn_with_child CMD ARGS...: spawn_ready CMD, which prints "child PID"
# of a holder it forked; sets CHILD (killed at teardown too).
spawn_with_child() {
	spawn_ready "$@"
	CHILD=$(sed -n 's/^child //p' "$BG_OUT")
	[ -n "$CHILD" ] || fail "no child pid: $(cat "$BG_OUT")"
	echo "$CHILD $BG_OUT" >>"$BATS_TEST_TMPDIR/holders"
}

# release_child NAME: CHILD verifies its data and exits, and buffer NAME,
# which it held last, goes with it.
release_child() {
	kill -USR1 "$CHILD"
	wait_exit "$CHILD"
	run -0 grep -x intact "$BG_OUT"
	wait_gone "$1"
	assert_used 0
}

assert_used() {
	local used
	read -r used <"$PARAMS/process_used"
	[ "$used" = "$1" ] || fail "process_used is $used, expected $1"
}

@test "the node exists, mode 0600 root, and the module has process_max and process_used" {
	[ -c "$NODE" ] || fail "no $NODE"
	run -0 stat -c '%a %U %G' "$NODE"
	assert_output "600 root root"
	assert_used 0
	# Default: a quarter of RAM.
	local kib max
	kib=$(meminfo_kib MemTotal)
	read -r max <"$PARAMS/process_max"
	[ "$max" -gt $((kib * 1024 / 5)) ] && [ "$max" -le $((kib * 1024 / 4)) ] ||
		fail "process_max $max is not a quarter of MemTotal ${kib} KiB"
}

@test "a process-scoped buffer maps, reads, writes and seeks (data round trip); GET_INFO gives its size, sync_mode and address" {
	local n=1048576
	run -0 "$PROC" run "$n" -- sh -c "$UT mmap-fill fd:\$0 0 $n 11 &&
		$UT read-verify fd:\$0 0 $n 11 &&
		$UT write-fill fd:\$0 4096 8192 12 &&
		$UT mmap-verify fd:\$0 4096 8192 12 &&
		$UT lseek-try fd:\$0 0 end &&
		$UT pread-try fd:\$0 $((n - 100)) 4096" {}
	assert_output "$(printf 'OK\nOK\nOK\nOK\n%s\n100' "$n")"
	assert_used 0
	run -0 "$PROC" run "$SZ" --sync-mode 2 -- "$IO" info fd:{}
	assert_line "size=$SZ"
	assert_line sync_mode=2
	assert_line --regexp '^dma_addr=0x[0-9a-f]{16}$'
	refute_line dma_addr=0x0000000000000000
	assert_line dma_bound=0
	# The sync ioctls, as on /dev/NAME.
	run -0 "$PROC" run "$SZ" -- "$IO" sync fd:{} device 0 0 1
	assert_output OK
	run -0 "$PROC" run "$SZ" -- "$IO" sync fd:{} cpu 0 "$SZ" 2
	assert_output OK
}

@test "a read-only process-scoped buffer refuses write() and writable mappings" {
	run -1 "$PROC" run "$SZ" --rdonly -- "$UT" pwrite-try fd:{} 0 4096
	assert_output EBADF
	run -0 "$PROC" run "$SZ" --rdonly -- "$UT" pread-try fd:{} 0 4096
	assert_output 4096
	# Through libudmabuf: mapped read-only, a writable mapping EACCES.
	assert_outcome EACCES "$LIB" rdonly-map "$SZ"
	assert_used 0
}

@test "a process-scoped buffer is listed in sysfs with its owner, and goes with its file" {
	spawn_ready "$PROC" run "$SZ" -- "$UT" hold fd:{} 0 4096 3 --no-map
	local name
	name=$(proc_buf "$BG_PID")
	assert_attr "$CLASS/$name/owner" "$BG_PID udmabuf-proc"
	assert_attr "$CLASS/$name/origin" process
	assert_attr "$CLASS/$name/size" "$SZ"
	assert_attr "$CLASS/$name/allocator" page
	assert_attr "$CLASS/$name/users" 1
	run -0 cat "$CLASS/$name/phys_addr"
	assert_output --regexp '^0x[0-9a-f]{16}$'
	# No node, no device number, no configfs item.
	[ ! -e "$CLASS/$name/dev" ] || fail "$name has a dev attribute"
	[ ! -e "/dev/$name" ] || fail "/dev/$name exists"
	run -0 find "$cfs" -mindepth 1 -maxdepth 1 -type d
	assert_output ""
	assert_used "$SZ"
	# udmabufctl lists it: origin process, no device node.
	run -0 udmabufctl list -P -b -o NAME,DEVICE,ORIGIN,SIZE,ALLOCATOR
	assert_line "NAME=\"$name\" DEVICE=\"\" ORIGIN=\"process\" SIZE=\"$SZ\" ALLOCATOR=\"page\""
	# The allocator asked for is the one used.
	run -0 "$PROC" run $((4 << 20)) --allocator 2 -- sh -c "cat $CLASS/proc-\$\$-*/allocator"
	assert_output contig
	# Configured buffers have no owner.
	make_buf tbuf 4096
	[ ! -e "$CLASS/tbuf/owner" ] || fail "a configfs buffer has an owner attribute"
	stop_holder_intact "$BG_PID"
	wait_gone "$name"
	assert_used 0
}

# A process-scoped buffer's entry in the module's table lies above every
# minor a node can have: a user's buffer takes no minor that root's
# configfs item or a device-tree node may ask for later.
@test "a user's process-scoped buffer takes no node's minor: root then enables an item with minor 0; GET_INFO's minor is above 1048575" {
	give_node nogroup
	spawn_ready as_nobody "$PROC" run 4096 -- "$UT" hold fd:{} 0 4096 3 --no-map
	local d name='' pid minor
	for d in "$CLASS"/proc-*; do
		[ -e "$d" ] && name=${d##*/}
	done
	[ -n "$name" ] || fail "no process-scoped buffer in $CLASS: $(ls "$CLASS")"
	# su forks: the holder is the buffer's owner, which teardown kills too.
	pid=${name#proc-}
	pid=${pid%-*}
	echo "$pid $BG_OUT" >>"$BATS_TEST_TMPDIR/holders"
	new_item m0 size=4096 minor=0
	assert_write OK "$cfs/m0/enable" 1
	assert_device m0
	run -0 node_devnum /dev/m0
	assert_equal "$(minor_of "$output")" 0
	# GET_INFO's minor of a process-scoped buffer is its entry: no node's.
	run -0 "$PROC" run 4096 -- "$IO" info fd:{}
	minor=$(sed -n 's/^minor=//p' <<<"$output")
	[ "$minor" -ge 1048576 ] || fail "GET_INFO's minor is $minor"
	kill -USR1 "$pid"
	wait_exit "$pid"
	run -0 grep -x intact "$BG_OUT"
	wait_gone "$name"
	assert_used 0
}

@test "the memory is freed on close: MemFree comes back and the same size can be had again" {
	local size=$((128 << 20)) name free0 free1 free2
	set_attr "$PARAMS/process_max" "$size"
	free0=$(meminfo_kib MemFree)
	spawn_ready "$PROC" run "$size" -- "$UT" hold fd:{} 0 4096 5 --no-map
	name=$(proc_buf "$BG_PID")
	assert_used "$size"
	# Give or take what the per-CPU page lists hold (MemFree leaves them
	# out; taking a range drains them, freeing one fills them): tens of MiB.
	free1=$(meminfo_kib MemFree)
	[ $((free0 - free1)) -ge $((96 << 10)) ] ||
		fail "MemFree went from $free0 to $free1 KiB for a 128 MiB buffer"
	# The cap is full: nothing more.
	run -1 "$PROC" alloc 4096
	assert_output ENOMEM
	stop_holder_intact "$BG_PID"
	wait_gone "$name"
	assert_used 0
	# Half of it at least: a range goes back page by page, and 6.12's
	# per-CPU lists grow with what is freed (the arm64 debug guest got
	# 95 MiB back at once).
	free2=$(meminfo_kib MemFree)
	[ $((free2 - free1)) -ge $((64 << 10)) ] ||
		fail "MemFree went from $free1 to only $free2 KiB after the buffer went"
	run -0 "$PROC" alloc "$size"
	assert_output OK
}

# kill_owner NAME WHAT: SIGKILL the owner ($BG_PID) of buffer NAME, which
# must outlive it because WHAT.
kill_owner() {
	kill -KILL "$BG_PID"
	wait "$BG_PID" || true
	[ -e "$CLASS/$1" ] || fail "the buffer went with its owner while $2"
}

@test "SIGKILL of the owner: a forked child that holds the file keeps the memory until it goes" {
	spawn_with_child "$PROC" run "$SZ" -- sh -c "$UT hold fd:\$0 0 $SZ 43 & echo child \$!; exec sleep 1000" {}
	local name
	name=$(proc_buf "$BG_PID")
	kill_owner "$name" "the child holds it"
	assert_used "$SZ"
	assert_attr "$CLASS/$name/users" 1
	release_child "$name"
}

@test "SIGKILL of the owner: a mapping in a process the fd was passed to (SCM_RIGHTS) keeps the memory" {
	local sock=$BATS_TEST_TMPDIR/sock name recv
	[ -e /proc/net/unix ] || skip "no unix sockets in this kernel (CONFIG_UNIX)"
	spawn "$PROC" recv "$sock" -- "$UT" hold "fd:{}" 0 "$SZ" 47 --close-fd --no-fill
	recv=$BG_PID
	local recv_out=$BG_OUT
	spawn "$PROC" run "$SZ" -- sh -c "$UT write-fill fd:\$0 0 $SZ 47 >/dev/null &&
		exec $PROC send $sock \$0 -- sleep 1000" {}
	wait_line "$recv_out" '^ready$' "$recv" >/dev/null
	name=$(proc_buf "$BG_PID")
	assert_attr "$CLASS/$name/users" 1
	kill_owner "$name" "mapped elsewhere"
	# Only the receiver's mapping is left: no descriptor is open.
	run -0 ls -l "/proc/$recv/fd"
	refute_output --partial anon_inode:udmabuf-cfs
	assert_used "$SZ"
	stop_holder_intact "$recv"
	wait_gone "$name"
	assert_used 0
}

@test "SIGKILL of the owner: a dma-buf mapped in a forked child keeps the memory" {
	local name
	# The owner fills the buffer, exports it and closes it; a child maps the
	# dma-buf and closes its descriptor; the owner is killed.
	spawn_with_child "$PROC" run "$SZ" -- sh -c "$UT write-fill fd:\$0 0 $SZ 53 >/dev/null &&
		exec $PROC export \$0 -- sh -c '$UT hold fd:\$0 0 $SZ 53 --close-fd --no-fill & echo child \$!; exec sleep 1000' {\"\"}" {}
	name=$(proc_buf "$BG_PID")
	kill_owner "$name" "its dma-buf is mapped"
	# The dma-buf is the one user left, and only a mapping holds it.
	assert_attr "$CLASS/$name/users" 1
	run -0 ls -l "/proc/$CHILD/fd"
	refute_output --partial anon_inode:udmabuf-cfs
	refute_output --partial dmabuf
	assert_used "$SZ"
	release_child "$name"
}

@test "bad requests fail with their errno and leave nothing behind" {
	local errno args
	while read -r errno args; do
		# shellcheck disable=SC2086 # args are words
		assert_errno "$errno" "$PROC" alloc $args
	done <<-EOF
		EINVAL 0
		ERANGE 4096 --sync-check 3
		EINVAL 4096 --reserved 0
		EINVAL 4096 --reserved 5
		EINVAL 4096 --wronly
		EINVAL 4096 --flags 0x800
		EINVAL 4096 --flags 0x80000000
		ERANGE 4096 --sync-mode 8
		ERANGE 4096 --dma-bits 11
		ERANGE 4096 --dma-bits 65
		EINVAL 4096 --allocator 4
		EINVAL 4096 --dma-device-unterminated
		EINVAL 4096 --dma-device nobus
		ENODEV 4096 --dma-device nobus/x
		ENODEV 4096 --dma-device pci/0000:7f:1f.7
		ERANGE 0x8000000000000000
		EFAULT 4096 --bad-pointer
	EOF
	# Buffer ioctls on the node, and ALLOC on a buffer, are not theirs.
	assert_errno ENOTTY "$PROC" ioctl info
	assert_errno ENOTTY "$PROC" ioctl sync
	assert_errno ENOTTY "$PROC" ioctl export
	run -1 "$PROC" run 4096 -- "$PROC" alloc 4096 --dev fd:{}
	assert_output ENOTTY
	# Defaults and every allocator name are good requests.
	assert_errno OK "$PROC" alloc 4096 --dma-bits 64 --allocator 1 --sync-mode 7
	assert_errno OK "$PROC" alloc 1 --rdonly --flags 0
	assert_used 0
	[ -z "$(ls "$CLASS")" ] || fail "left in $CLASS: $(ls "$CLASS")"
}

@test "more memory than there is: ENOMEM, nothing left; over process_max: ENOMEM and the kernel says why" {
	set_attr "$PARAMS/process_max" 0x7fffffff000
	assert_errno ENOMEM "$PROC" alloc "$(unallocatable_size)"
	assert_used 0
	local seq
	set_attr "$PARAMS/process_max" 1M
	assert_attr "$PARAMS/process_max" 1048576
	seq=$("$UT" kmsg-seq)
	assert_errno ENOMEM "$PROC" alloc 1048577
	run -0 "$UT" kmsg-since "$seq"
	assert_output --partial "process-scoped buffer of 1052672 bytes refused: 0 of process_max=1048576 bytes in use"
	assert_errno OK "$PROC" alloc 1M
	# process_used is read-only.
	assert_outcome EACCES "$UT" write-attr "$PARAMS/process_used" 0
	# 0 refuses everything.
	set_attr "$PARAMS/process_max" 0
	assert_errno ENOMEM "$PROC" alloc 1
}

# A user's process-scoped buffers are charged to its RLIMIT_MEMLOCK (the
# user's locked_vm, as io_uring's fixed buffers), across its processes:
# "run" holds the first buffer while the second asks.
@test "a user at its RLIMIT_MEMLOCK is refused (ENOMEM, the log says why); root, with CAP_IPC_LOCK, is not" {
	local seq pair="ulimit -l 4096 && exec $PROC run 4M -- $PROC alloc 4096"
	give_node nogroup
	assert_outcome OK as_nobody sh -c "ulimit -l 4096 && exec $PROC alloc 4M"
	seq=$("$UT" kmsg-seq)
	assert_outcome ENOMEM as_nobody sh -c "$pair"
	run -0 "$UT" kmsg-since "$seq"
	assert_output --regexp 'udmabuf-proc\[[0-9]+\]: process-scoped buffer of 4096 bytes refused: over RLIMIT_MEMLOCK of 4096 KiB \(4096 KiB locked by user 65534\)'
	# Given back with the buffer: the same pair fits a larger limit.
	assert_outcome OK as_nobody sh -c "ulimit -l 4100 && exec $PROC run 4M -- $PROC alloc 4096"
	assert_outcome OK sh -c "$pair"
	assert_used 0
}

# test_cgroup CONTROLLER: CG, a cgroup of the test's under a cgroup2 mount,
# with CONTROLLER on; false if the kernel has no such controller.
test_cgroup() {
	CG=/sys/fs/cgroup/udmabuf-test
	grep -qw cgroup2 /proc/filesystems ||
		skip "this kernel has no cgroup2 (CONFIG_CGROUPS)"
	if ! grep -q '^cgroup2 /sys/fs/cgroup ' /proc/mounts; then
		mount -t cgroup2 none /sys/fs/cgroup || fail "cannot mount cgroup2"
	fi
	grep -qw "$1" /sys/fs/cgroup/cgroup.controllers || return 1
	echo "+$1" >/sys/fs/cgroup/cgroup.subtree_control
	[ -d "$CG" ] || mkdir "$CG"
}

# CG: a memory cgroup of the test's, its limit $1.
memory_cgroup() {
	test_cgroup memory || fail "the kernel has no memory controller"
	echo "$1" >"$CG/memory.max"
}

# in_cgroup CMD ARGS...: CMD run as a member of CG.
in_cgroup() {
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CG" "$@"
}

# splice_hold SIZE ALLOCATOR [WRAPPER...]: udmabuf-race splice-hold in the
# background (through WRAPPER, e.g. in_cgroup), returning once its buffer
# of SIZE is closed with its first 1 MiB left in a pipe ("held").  Its
# output is $SPLICE_OUT; splice_drain lets it go on.
splice_hold() {
	local size=$1 alloc=$2 ctl
	shift 2
	ctl=$BATS_TEST_TMPDIR/ctl.$alloc.$size
	SPLICE_OUT=$BATS_TEST_TMPDIR/splice.$alloc.$size
	mkfifo "$ctl"
	"$@" udmabuf-race splice-hold "$size" 1M --allocator "$alloc" \
		<"$ctl" >"$SPLICE_OUT" 2>&1 &
	exec 8>"$ctl"
	wait_line "$SPLICE_OUT" '^held$' $! >/dev/null
}

# splice_drain: the holder reads its pipe back, checks every byte
# ("drained") and ends.
splice_drain() {
	echo >&8
	wait_line "$SPLICE_OUT" '^drained$' >/dev/null
	exec 8>&-
	wait
}

@test "page-allocator memory is charged to the memory cgroup, whose limit refuses a buffer beyond it" {
	local seq
	memory_cgroup 8M
	seq=$("$UT" kmsg-seq)
	run in_cgroup "$PROC" run 4M --allocator 1 -- sh -c "
		read -r cur <$CG/memory.current
		echo \"current \$cur\"
		$PROC alloc 4M --allocator 1
		$PROC alloc 4M
		$PROC alloc 64K --allocator 1"
	rmdir "$CG"
	assert_success
	# What the cgroup is charged for, while the first buffer lives, is at
	# least that buffer.
	local cur
	cur=$(sed -n 's/^current //p' <<<"$output")
	[ "${cur:-0}" -ge $((4 << 20)) ] || fail "memory.current is '$cur' with a 4 MiB buffer: $output"
	# A second 4 MiB is over the limit, from the page allocator (1) and
	# as the default order would take it elsewhere (0): refused, not moved
	# out of the cgroup's reach; a small one fits.
	assert_equal "$(sed -n '2,4p' <<<"$output" | tr '\n' ' ')" "ENOMEM ENOMEM OK "
	run -0 "$UT" kmsg-since "$seq"
	assert_output --partial "process-scoped buffer of 4194304 bytes refused: over the memory cgroup's limit"
	assert_used 0
}

# The module's dmem region is "udmabuf-cfs", as large as RAM.  A buffer is
# charged its size at the request, and gives the charge back whole with
# its last page: a page left in a pipe keeps it, and the module, which
# looks before every charge, gives back what has gone since.
@test "contiguous and CMA memory is charged to the dmem cgroup until its last page goes, and its limit refuses a buffer beyond it" {
	local seq
	test_cgroup dmem ||
		skip "this kernel has no dmem cgroup controller (CONFIG_CGROUP_DMEM)"
	run -0 grep -c '^udmabuf-cfs [1-9][0-9]*$' /sys/fs/cgroup/dmem.capacity
	assert_output 1
	echo "udmabuf-cfs 8M" >"$CG/dmem.max"
	seq=$("$UT" kmsg-seq)
	run -0 in_cgroup "$PROC" run 4M --allocator 2 -- sh -c "
		sed -n 's/^udmabuf-cfs /dmem /p' $CG/dmem.current
		$PROC alloc 8M --allocator 2
		$PROC alloc 8M --allocator 3
		$PROC alloc 4M --allocator 3
		$PROC alloc 2M --allocator 1"
	# 4 MiB held: 8 more, contiguous or CMA, is over the limit; 4 more of
	# CMA reaches it and fits; the page allocator's is not the dmem
	# cgroup's (the memory cgroup's: the test above).
	assert_equal "$(tr '\n' ' ' <<<"$output")" "dmem 4194304 ENOMEM ENOMEM OK OK "
	run -0 grep '^udmabuf-cfs ' "$CG/dmem.current"
	assert_output "udmabuf-cfs 0"
	run -0 "$UT" kmsg-since "$seq"
	assert_output --partial "process-scoped buffer of 8388608 bytes refused: over the dmem cgroup's limit for udmabuf-cfs"

	# A closed buffer's page in a pipe keeps its whole range charged.
	echo "udmabuf-cfs 16M" >"$CG/dmem.max"
	splice_hold 16M 2 in_cgroup
	run -0 grep '^udmabuf-cfs ' "$CG/dmem.current"
	assert_output "udmabuf-cfs 16777216"
	run -1 in_cgroup "$PROC" alloc 4M --allocator 2
	assert_output ENOMEM
	splice_drain
	run -0 in_cgroup "$PROC" alloc 16M --allocator 2
	assert_output OK
	run -0 grep '^udmabuf-cfs ' "$CG/dmem.current"
	assert_output "udmabuf-cfs 0"
	rmdir "$CG"
	assert_used 0
}

# The loop that held memory without bound: each buffer leaves 1 MiB of its
# pages in a pipe and goes.  Those pages stay charged until the pipe lets
# them go, from the page allocator (1) and from a contiguous range (2).
@test "pages left in a pipe stay charged to process_max until the pipe is drained" {
	local alloc size
	set_attr "$PARAMS/process_max" 24M
	for alloc in 1 2; do
		size=4M
		[ "$alloc" = 2 ] && size=16M
		splice_hold "$size" "$alloc"
		# The buffer is closed and unmapped; its pages in the pipe are not.
		assert_used 1048576
		# 1 + 16 + 8 MiB is over the cap.
		run -1 "$PROC" run 16M -- "$PROC" alloc 8M
		assert_output ENOMEM
		splice_drain
		assert_used 0
		run -0 "$PROC" run 16M -- "$PROC" alloc 8M
		assert_output OK
	done
}

@test "rmmod while a process-scoped buffer or the node is open is refused, and works once they are closed" {
	spawn_ready "$PROC" run "$SZ" -- "$UT" hold fd:{} 0 4096 3 --close-fd
	assert_errno EAGAIN "$UT" rmmod-try "$MODNAME"
	module_loaded || fail "the module went"
	stop_holder_intact "$BG_PID"
	wait_module_released
	local fd
	exec {fd}<"$NODE"
	assert_errno EAGAIN "$UT" rmmod-try "$MODNAME"
	exec {fd}<&-
	wait_module_released
	assert_errno OK "$UT" rmmod-try "$MODNAME"
	[ ! -e "$NODE" ] || fail "$NODE outlived the module"
}

# A closed buffer's page in a pipe is the pipe's: the module goes without
# it, and the page is still the buffer's data when the pipe gives it up.
@test "rmmod with a closed buffer's page still in a pipe works, and the page stays valid until the pipe lets it go" {
	splice_hold 16M 2
	wait_module_released
	assert_errno OK "$UT" rmmod-try "$MODNAME"
	splice_drain
}

# --- libudmabuf (udmabuf-lib: lib/libudmabuf/tests/udmabuf-lib.c) --------

@test "libudmabuf: udmabuf_alloc gives proc-PID-N, which maps, flushes, invalidates, is listed with its owner and goes with its last handle" {
	run -0 --separate-stderr "$LIB" roundtrip "$SZ"
	assert_line --regexp '^name proc-[0-9]+-[0-9]+$'
	assert_line "data OK"
	assert_line "listed with owner OK"
	assert_line "gone after close OK"
	# O_SYNC and every allocator name the library knows.
	run -0 --separate-stderr "$LIB" roundtrip "$SZ" --sync --sync-mode 2 --dma-mask 64 --allocator page
	assert_line "gone after close OK"
	run -0 --separate-stderr "$LIB" roundtrip $((4 << 20)) --allocator contig
	assert_line "gone after close OK"
	assert_used 0
	[ -z "$(ls "$CLASS")" ] || fail "left in $CLASS: $(ls "$CLASS")"
}

# (What the library refuses itself, and its messages: lib/libudmabuf/tests/
# test_lib.c, test_alloc.)
@test "libudmabuf: the driver's refusals of a request reach the caller with their errno" {
	local errno args
	while read -r errno args; do
		# shellcheck disable=SC2086 # args are words
		assert_outcome "$errno" "$LIB" alloc $args
	done <<-EOF
		EINVAL 4096 --dma-device nobus
		ENODEV 4096 --dma-device pci/0000:7f:1f.7
		ERANGE 0x8000000000000000
	EOF
	set_attr "$PARAMS/process_max" 1M
	assert_outcome ENOMEM "$LIB" alloc 2M
	assert_used 0
	[ -z "$(ls "$CLASS")" ] || fail "left in $CLASS: $(ls "$CLASS")"
}

@test "libudmabuf: not allowed by the node's mode: EACCES, the message names the group udmabuf" {
	run -1 --separate-stderr as_nobody "$LIB" alloc 4096
	assert_equal "$output" EACCES
	[[ $stderr == *"group udmabuf"* ]] || fail "message: $stderr"
	give_node nogroup
	run -0 --separate-stderr as_nobody "$LIB" roundtrip "$SZ"
	assert_line "listed with owner OK"
	assert_line "gone after close OK"
}

@test "libudmabuf: udmabufctl list -o NAME,OWNER shows the buffer and its owner while it lives" {
	spawn_ready "$LIB" hold "$SZ"
	local name
	name=$(proc_buf "$BG_PID")
	run -0 udmabufctl list -n -r -o NAME,OWNER
	assert_line "$name $BG_PID\\x20udmabuf-lib"
	run -0 udmabufctl list -J -o NAME,ORIGIN,OWNER
	run -0 jq -c ".buffers[] | select(.name == \"$name\")" <<<"$output"
	assert_output "{\"name\":\"$name\",\"origin\":\"process\",\"owner\":\"$BG_PID udmabuf-lib\"}"
	# A configfs buffer has no owner: null.
	make_buf tbuf 4096
	run -0 udmabufctl list -J -o NAME,OWNER
	run -0 jq -c '.buffers[] | select(.name == "tbuf")' <<<"$output"
	assert_output '{"name":"tbuf","owner":null}'
	stop_holder "$BG_PID"
	assert_output "$(printf '%s\nintact' "$name")"
	wait_gone "$name"
	run -0 udmabufctl list -n -o NAME,OWNER
	refute_output --partial "$name"
}

@test "udmabuf-example --alloc: a process-scoped buffer, flushed and invalidated; --create: a configfs one" {
	run -0 udmabuf-example --alloc 64K
	assert_line --regexp '^proc-[0-9]+-[0-9]+: process-scoped, 65536 bytes at DMA address 0x[0-9a-f]+, '
	assert_line --regexp '^proc-[0-9]+-[0-9]+: wrote, synced and read back 65536 bytes$'
	run -0 udmabuf-example --create 64K exbuf
	assert_line --regexp '^exbuf: /dev/exbuf, 65536 bytes at DMA address 0x[0-9a-f]+, '
	assert_line "exbuf: wrote, synced and read back 65536 bytes"
	[ ! -e "$cfs/exbuf" ] || fail "the example left $cfs/exbuf"
	assert_used 0
	[ -z "$(ls "$CLASS")" ] || fail "left in $CLASS: $(ls "$CLASS")"
}

@test "edu DMA into and out of a process-scoped buffer bound to edu" {
	[ -n "${UDMABUF_EDU:-}" ] || skip "no edu device in this guest"
	EDU=$UDMABUF_EDU
	edu_present "$EDU"
	run -0 "$PROC" run "$SZ" --dma-device "pci/$EDU" -- "$IO" info fd:{}
	assert_line dma_bound=1
	run -0 "$PROC" run "$SZ" --dma-device "pci/$EDU" -- \
		"$ED" --pci "$EDU" roundtrip fd:{} 0 "$CHUNK" 17
	assert_output OK
	run -0 "$PROC" run "$SZ" --dma-device "pci/$EDU" -- \
		"$ED" --pci "$EDU" roundtrip fd:{} "$(last_chunk "$SZ")" "$CHUNK" 19
	assert_output OK
	assert_used 0
}
