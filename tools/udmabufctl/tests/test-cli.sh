#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#
# Host test of udmabufctl's option parsing and output formats against a fake
# tree of plain files laid out like configfs and sysfs (no kernel involved;
# the real behaviour is tested in the guest by tests/bats/udmabufctl.bats).
#
# usage: test-cli.sh PATH/TO/udmabufctl PATH/TO/fake-configfs.so   (prints TAP)
#
# With fake-configfs.so (LD_PRELOAD; udmabufctl must be linked dynamically),
# whole creates run in a fake tree as well: it gives the plain files
# configfs' semantics and can fail a write with an errno, as the kernel
# would (see fake-configfs.c).

set -u
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SHIM=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
T=$(mktemp -d "${TMPDIR:-/tmp}/udmabufctl-test.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
T=$(cd "$T" && pwd -P)	# as /proc/self/fd shows it, for fake-configfs.so

n=0
failed=0
OUT=$T/stdout
ERR=$T/stderr

ok() { n=$((n + 1)); echo "ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
not_ok() {
	n=$((n + 1)); failed=$((failed + 1))
	echo "not ok $n - $1"
	echo "#   exit status: $rc"
	sed 's/^/#   stdout: /' "$OUT"
	sed 's/^/#   stderr: /' "$ERR"
}
# run CMD...: runs udmabufctl, sets $rc
run() { "$BIN" "$@" >"$OUT" 2>"$ERR"; rc=$?; }
# run_fake CMD...: the same with fake-configfs.so, its log $T/writes
# emptied first
run_fake() {
	rm -f "$T/writes"
	LD_PRELOAD=$SHIM "$BIN" "$@" >"$OUT" 2>"$ERR"
	rc=$?
}
# exits STATUS ARGS...: run ARGS, true if it exited with STATUS (fake_exits:
# the same with run_fake)
exits() {
	_status=$1
	shift
	run "$@"
	status_is "$_status"
}
fake_exits() {
	_status=$1
	shift
	run_fake "$@"
	status_is "$_status"
}
# COND; check NAME: reports the exit status of COND
check() { if [ $? -eq 0 ]; then ok "$1"; else not_ok "$1"; fi; }
status_is() { [ "$rc" -eq "$1" ]; }
out_is() { printf '%s\n' "$1" | cmp -s - "$OUT"; }
# table_is TEXT: the aligned table is TEXT, but for blanks at line ends
# (libsmartcols puts the separator before an empty last cell)
table_is() {
	sed 's/ *$//' "$OUT" >"$T/table"
	printf '%s\n' "$1" | cmp -s - "$T/table"
}
err_is() { printf '%s\n' "$1" | cmp -s - "$ERR"; }
out_has() { grep -qF -- "$1" "$OUT"; }
err_has() { grep -qF -- "$1" "$ERR"; }
# expect NAME STATUS ARGS TEXT: run ARGS (split at blanks), check NAME by
# the exit status and the output: TEXT on stdout and nothing on stderr for
# STATUS 0, else TEXT on stderr and nothing on stdout (table_check: STATUS
# 0, the output as table_is)
expect() {
	# shellcheck disable=SC2086 # split on purpose
	run $3
	if [ "$2" -eq 0 ]; then
		status_is 0 && [ ! -s "$ERR" ] && out_is "$4"
	else
		status_is "$2" && [ ! -s "$OUT" ] && err_is "$4"
	fi
	check "$1"
}
table_check() {
	# shellcheck disable=SC2086 # split on purpose
	exits "$2" $3 && [ ! -s "$ERR" ] && table_is "$4"
	check "$1"
}
# json_check NAME KEY SCRIPT: check NAME by the last run's exit status 0, its
# empty stderr and the Python SCRIPT, which finds the KEY of the JSON of
# $OUT (read as UTF-8) in d (python3 is one of tests/vm/deps)
json_check() {
	status_is 0 && [ ! -s "$ERR" ] && python3 -c "import json, sys
d = json.load(open(sys.argv[1], encoding='utf-8'))[sys.argv[2]]
$3" "$OUT" "$2"
	check "$1"
}

# --- the fake tree -----------------------------------------------------------

# attrs DIR ATTR=VALUE...: each VALUE with a newline in DIR/ATTR, as the
# kernel shows an attribute
attrs() {
	_dir=$1
	shift
	mkdir -p "$_dir"
	for _a; do
		printf '%s\n' "${_a#*=}" >"$_dir/${_a%%=*}"
	done
}

C=$T/config/udmabuf
S=$T/class/udmabuf
attrs "$C" features=size,minor,device_name,sync_mode,dma_mask,mode,enable,phys_addr,dma_device,dev
# The sync checker: cam0 reports (3 so far), spare will SIGBUS once
# enabled; udmabuf0 is of a module older than the checker.
attrs "$C/cam0" size=4194304 minor=-1 device_name=cam0 sync_mode=3 dma_mask=32 \
	mode=0660 enable=1 dev=240:1 phys_addr=0x000000003f000000 \
	dma_device=pci/0000:00:10.0 allocator=cma sync_check=1
attrs "$C/spare" size=1536 minor=5 device_name=spare sync_mode=1 dma_mask=64 \
	mode=0600 enable=0 dma_device= sync_check=2 dev= phys_addr= allocator=contig
for d in cam0 udmabuf0; do
	attrs "$S/$d" phys_addr=0x000000003f000000 dma_coherent=0 \
		cache_mode=cached cache_mode_sync=uncached
done
# configfs has the allocator too; list and info read the class device's.
attrs "$S/cam0" dev=240:1 size=4194304 sync_mode=3 origin=configfs users=2 \
	dma_device=pci/0000:00:10.0 allocator=cma sync_check=1 sync_violations=3
# udmabuf0 has no dma_device and no allocator, as with a module older than
# the attributes.
attrs "$S/udmabuf0" dev=240:0 size=1048576 sync_mode=1 origin=param users=0
attrs "$T/module" version=0.1.0

UDMABUF_CONFIGFS_DIR=$C
UDMABUF_SYSFS_DIR=$S
UDMABUF_DEV_DIR=/dev	# only used in names here
UDMABUF_MODULE_DIR=$T/module
UDMABUF_SAVE_FILE=$T/etc/udmabuf.conf
UDMABUF_FAKE_LOG=$T/writes	# for fake-configfs.so only
export UDMABUF_CONFIGFS_DIR UDMABUF_SYSFS_DIR UDMABUF_DEV_DIR \
	UDMABUF_MODULE_DIR UDMABUF_SAVE_FILE UDMABUF_FAKE_LOG
D=/dev
TRY="Try 'udmabufctl --help' for more information."

# --- help, version, usage errors ---------------------------------------------

exits 0 --help && out_has "Usage:" && [ ! -s "$ERR" ] && out_has "Exit status:" &&
	out_has "     --dma-device BUS/DEVICE" && out_has " DMA-DEVICE  DMA master, BUS/DEVICE" &&
	out_has "  ALLOCATOR  where the memory came from: page, cma, dma, contig, placed, pool" &&
	out_has " bench            " && out_has "Available output columns of bench:"
check "--help prints the usage to stdout and exits 0: exit statuses, --dma-device, columns (DMA-DEVICE, ALLOCATOR), bench and its columns"
for verb in list info create delete sync save restore clear bench; do
	run "$verb" --help
	status_is 0 && [ ! -s "$ERR" ] && sed -n 2p "$OUT" | grep -q "^ udmabufctl \(\[\)\?$verb" &&
		[ "$(grep -c '^ udmabufctl ' "$OUT")" -eq 1 ]
	check "$verb --help shows the usage of $verb only"
done
exits 0 list --help && out_has "Available output columns:" && out_has "NAME..." &&
	out_has " -y, --shell" && out_has "MAJ_MIN"
check "list --help shows the columns, the NAME filter and -y, --shell"
exits 0 delete --help && out_has "--force" && ! out_has "--size"
check "delete --help shows delete's options, not create's"
exits 0 info --help && out_has " -o, --output LIST" && out_has " -n, --noheadings" &&
	out_has " -r, --raw" && out_has " -b, --bytes"
check "info --help shows -o, -n, -r and -b"
expect "--version prints the tool's and the module's versions" 0 "--version" \
"udmabufctl 0.1.0
udmabuf-cfs module 0.1.0"
UDMABUF_MODULE_DIR=$T/nonexistent \
	expect "--version says when the module is not loaded" 0 "--version" \
"udmabufctl 0.1.0
udmabuf-cfs module not loaded"

usage_error() { # NAME EXPECTED-FIRST-LINE ARGS...
	name=$1 first=$2; shift 2
	exits 1 "$@" && err_is "$first
$TRY" && [ ! -s "$OUT" ]
check "$name"
}
# NAME|ARGS (split at blanks)|the message after "udmabufctl: "
while IFS='|' read -r name args first <&3; do
	# shellcheck disable=SC2086 # split on purpose
	usage_error "$name" "udmabufctl: $first" $args
done 3<<'EOF'
an unknown option is a usage error|list --bogus|unrecognized option '--bogus'
create without a name is a usage error|create|create: missing buffer name
create without --size is a usage error|create foo|create: --size is required
a missing option argument is a usage error|create foo -s|option requires an argument -- 's'
a garbage size is refused|create foo --size 12Q|invalid size '12Q': Invalid argument
an overflowing size is refused with ERANGE|create foo --size 16777216T|invalid size '16777216T': Numerical result out of range
size 0 is refused|create foo --size 0|create: the size must not be 0
a minor out of range is refused|create foo --size 4K --minor 1048576|invalid minor '1048576': must be 0..1048575
a sync mode out of range is refused|create foo --size 4K --sync-mode 8|invalid sync mode '8': must be 0..7
a DMA mask out of range is refused|create foo --size 4K --dma-mask 11|invalid DMA mask '11': must be 12..64
a non-octal mode is refused|create foo --size 4K --mode 0800|invalid mode '0800': must be octal 0..0777
a second buffer name in create is refused|create foo bar --size 4K|create: unexpected argument 'bar' (one buffer at a time; attributes as ATTR=VALUE)
--dma-device without a value is a usage error|create foo --size 4K --dma-device|option '--dma-device' requires an argument
an unknown column is refused|list -o NAME,BOGUS|unknown column: BOGUS
delete without a name is a usage error|delete|delete: missing buffer name
info without a name is a usage error|info|info: missing buffer name
sync needs --for-cpu or --for-device|sync cam0|sync: --for-cpu or --for-device is required
sync refuses an unknown direction|sync cam0 --for-cpu --direction up|invalid direction 'up': use bidi, to-device or from-device
bench refuses 0 repetitions|bench --reps 0|invalid repetitions '0': must be 1..100
bench refuses more than 100 repetitions|bench --reps 101|invalid repetitions '101': must be 1..100
bench refuses a sync mode beyond 3|bench --sync-modes 1,4|invalid sync modes '1,4': a list of 0..3 such as 1,3, or none
bench refuses a malformed list of sync modes|bench --sync-modes 1,|invalid sync modes '1,': a list of 0..3 such as 1,3, or none
bench refuses size 0|bench --size 0|bench: the size must not be 0
bench refuses a second NAME|bench a b|bench: unexpected argument 'b' (one buffer at a time)
bench refuses a column of list|bench -o OP,DEVICE|unknown column: DEVICE
bench: --json and --pairs are mutually exclusive|bench -J -P|--json and --pairs are mutually exclusive
--raw and --pairs are mutually exclusive|list -r -P|--raw and --pairs are mutually exclusive
create --sync-check takes report, sigbus or off only|create k4 --size 4K --sync-check=1|invalid sync check '1': use report, sigbus or off
EOF
usage_error "an invalid device name is refused" \
	"udmabufctl: invalid device name 'a b': use 1..32 characters of A-Z a-z 0-9 _ . -" \
	create "a b" --size 4K

# --- write errors --------------------------------------------------------------

# (In $T/cwd, which must stay empty: no file named - of save -.)
mkdir -p "$T/cwd"
if [ -w /dev/full ]; then
	for args in "list" "list -J" "info cam0" "--help" "--version" "save -"; do
		# shellcheck disable=SC2086 # split on purpose
		(cd "$T/cwd" && "$BIN" $args >/dev/full 2>"$ERR"); rc=$?; : >"$OUT"
		status_is 1 && err_is "udmabufctl: write error: No space left on device"
		check "$args >/dev/full exits 1 with a write error on stderr"
	done
else
	skip "list >/dev/full exits 1 with a write error on stderr" "no /dev/full"
fi

# --- list ----------------------------------------------------------------------

table_check "list is the default command and shows every buffer (its default columns)" 0 "" \
"NAME     DEVICE        MAJ:MIN SIZE SYNC-MODE DMA-ADDR           ORIGIN   USERS
cam0     $D/cam0     240:1     4M         3 0x000000003f000000 configfs     2
spare                          1.5K         1                    configfs
udmabuf0 $D/udmabuf0 240:0     1M         1 0x000000003f000000 param        0"
expect "list -b -n -o shows bytes, no header, the chosen columns" 0 \
	"list -b -n -o NAME,SIZE,ORIGIN" \
"cam0     4194304 configfs
spare       1536 configfs
udmabuf0 1048576 param"
expect "list -r does not align and keeps empty fields" 0 "list -r -o NAME,DEVICE,MAJ:MIN" \
"NAME DEVICE MAJ:MIN
cam0 $D/cam0 240:1
spare  
udmabuf0 $D/udmabuf0 240:0"
table_check "list -o +LIST appends columns" 0 "list -o +MODE,DMA-MASK -n" \
"cam0     $D/cam0     240:1     4M         3 0x000000003f000000 configfs     2 0660       32
spare                          1.5K         1                    configfs       0600       64
udmabuf0 $D/udmabuf0 240:0     1M         1 0x000000003f000000 param        0"
expect "info shows the allocator a disabled item asks for, - where the module has none" 0 \
	"info -o NAME,ALLOCATOR spare udmabuf0" \
"name:      spare
allocator: contig

name:      udmabuf0
allocator: -"
table_check "list shows the allocator a disabled item asks for, as info does" 0 \
	"list -o NAME,ENABLED,ALLOCATOR" \
"NAME     ENABLED ALLOCATOR
cam0     1       cma
spare    0       contig
udmabuf0 1"
# A process-scoped buffer (/dev/udmabuf-cfs) beside a parameter's, in a
# tree of their own.
P=$T/proc-tree
mkdir -p "$P/config/udmabuf"
attrs "$P/class/udmabuf/proc-77-9" origin=process "owner=77 python3" size=65536
attrs "$P/class/udmabuf/udmabuf0" origin=param dev=240:0
UDMABUF_CONFIGFS_DIR=$P/config/udmabuf UDMABUF_SYSFS_DIR=$P/class/udmabuf
table_check \
	"list -o OWNER shows the PID and command of a process-scoped buffer, nothing for the others" \
	0 "list -o NAME,DEVICE,ORIGIN,OWNER" \
"NAME      DEVICE        ORIGIN  OWNER
proc-77-9               process 77 python3
udmabuf0  $D/udmabuf0 param"
run list -J -o NAME,OWNER
json_check "-J key owner: the owner, null when not a process-scoped buffer" buffers '
assert d == [{"name": "proc-77-9", "owner": "77 python3"},
	     {"name": "udmabuf0", "owner": None}], d
'
expect "delete of a process-scoped buffer names the process it goes away with" 1 \
	"delete proc-77-9" \
"udmabufctl: proc-77-9: delete: Operation not permitted
udmabufctl: hint: proc-77-9 was allocated by process 77 (python3) through /dev/udmabuf-cfs, not through configfs; it goes away when that process lets go of it (its last file, mapping and dma-buf)"
UDMABUF_CONFIGFS_DIR=$C UDMABUF_SYSFS_DIR=$S
expect "list -P prints KEY=\"value\" pairs, one line per buffer, human sizes" 0 \
	"list -P -o NAME,MAJ:MIN,SIZE,DMA-DEVICE" \
'NAME="cam0" MAJ:MIN="240:1" SIZE="4M" DMA-DEVICE="pci/0000:00:10.0"
NAME="spare" MAJ:MIN="" SIZE="1.5K" DMA-DEVICE=""
NAME="udmabuf0" MAJ:MIN="240:0" SIZE="1M" DMA-DEVICE=""'
expect "info -P prints the pairs of each NAME, as list -P does" 0 \
	"info -P -o NAME,SIZE,ORIGIN cam0 udmabuf0" \
'NAME="cam0" SIZE="4M" ORIGIN="configfs"
NAME="udmabuf0" SIZE="1M" ORIGIN="param"'
exits 0 list -H && [ ! -s "$ERR" ] && [ "$(wc -l <"$OUT")" -eq 21 ] &&
	grep -qx '           NAME <string>  buffer name (configfs item, else device name)' "$OUT" &&
	grep -qx '           SIZE <integer> size of the buffer' "$OUT" &&
	grep -qx '        ENABLED <boolean> the device exists' "$OUT" &&
	grep -q '^  CPU-PHYS-ADDR <string>  CPU physical address' "$OUT" &&
	grep -qx '     SYNC-CHECK <string>  sync checker: off, report or sigbus' "$OUT" &&
	grep -q '^SYNC-VIOLATIONS <integer> missing syncs the sync checker reported' "$OUT"
check "list -H lists every column with its JSON type and description"
exits 0 info --list-columns -r && grep -qx 'DMA-MASK <integer> DMA\\x20address\\x20bits' "$OUT"
check "info --list-columns -r lists the columns raw"
UDMABUF_CONFIGFS_DIR=$T/none/udmabuf run -H -J
json_check "-H -J lists the columns as JSON, without the module" udmabufctl-columns '
assert len(d) == 21 and d[0] == {"holder": "NAME", "type": "<string>",
	"description": "buffer name (configfs item, else device name)"}, d[0]
assert "DMA-ADDR" in [c["holder"] for c in d], d
'
expect "list NAME... shows only those buffers" 0 "list -n -o NAME,SIZE udmabuf0 cam0" \
"cam0       4M
udmabuf0   1M"
run list -n -o NAME cam0 ghost
status_is 2 && out_is "cam0" && err_is "udmabufctl: ghost: list: no such buffer"
check "list of an unknown NAME among others names it and exits 2, like info"
expect "list of unknown NAMEs only exits 1" 1 "list -n -o NAME ghost nope" \
"udmabufctl: ghost: list: no such buffer
udmabufctl: nope: list: no such buffer"
exits 0 -J -b list -o NAME,SIZE cam0 && out_has '"size": 4194304' && ! out_has spare
check "options before the verb apply to it (-J -b list)"
exits 0 --json info -o NAME spare && out_has '"name": "spare"' && ! out_has '"size"'
check "options before the verb apply to it (--json info)"
expect "options without a verb are the default command's" 0 "-n -o NAME,SIZE -b" \
"cam0     4194304
spare       1536
udmabuf0 1048576"
expect "a first word that is no command is a NAME of list: udmabufctl NAME" 0 "cam0" \
"NAME DEVICE    MAJ:MIN SIZE SYNC-MODE DMA-ADDR           ORIGIN   USERS
cam0 $D/cam0 240:1     4M         3 0x000000003f000000 configfs     2"
expect "udmabufctl NAME... takes list's options before and between the NAMEs" 0 \
	"-o NAME udmabuf0 -n $D/cam0" \
"cam0
udmabuf0"
expect "a first word that is no command and no buffer says both, exits 1 and lists nothing" 1 \
	"frobnicate" \
"udmabufctl: frobnicate: list: no such buffer
udmabufctl: hint: 'frobnicate' is not a command either (see 'udmabufctl --help')"
exits 2 cam0 frobnicate && out_has cam0 && err_is "udmabufctl: frobnicate: list: no such buffer"
check "udmabufctl NAME... exits 2 when some NAMEs are no buffer, as list does"
run list --json --output-all
json_check "list --json --output-all is valid JSON with numbers as numbers, null where unknown" \
	buffers '
by = {b["name"]: b for b in d}
assert [b["name"] for b in d] == ["cam0", "spare", "udmabuf0"], d
assert by["cam0"]["size"] == 4194304 and by["cam0"]["users"] == 2
assert by["cam0"]["sync-mode"] == 3 and by["cam0"]["coherent"] is False
assert by["cam0"]["dma-addr"] == "0x000000003f000000" and "phys-addr" not in by["cam0"]
assert by["cam0"]["cpu-phys-addr"] is None	# no device node to ask here
assert by["spare"]["device"] is None and by["spare"]["enabled"] is False
assert by["spare"]["mode"] == "0600" and by["spare"]["dma-mask"] == 64
assert by["spare"]["users"] is None and by["spare"]["coherent"] is None
assert by["udmabuf0"]["origin"] == "param" and by["udmabuf0"]["maj:min"] == "240:0"
assert by["cam0"]["allocator"] == "cma"
assert by["spare"]["allocator"] == "contig" and by["udmabuf0"]["allocator"] is None
assert by["cam0"]["dma-device"] == "pci/0000:00:10.0"
assert by["spare"]["dma-device"] is None and by["udmabuf0"]["dma-device"] is None
'

# --- info ----------------------------------------------------------------------

expect "info prints key: value lines" 0 "info cam0" \
"name:            cam0
device:          $D/cam0
maj:min:         240:1
size:            4194304 (4M)
sync-mode:       3
dma-addr:        0x000000003f000000
cpu-phys-addr:   -
origin:          configfs
users:           2
devname:         cam0
enabled:         1
dma-mask:        32
dma-device:      pci/0000:00:10.0
mode:            0660
coherent:        0
cache:           cached
cache-sync:      uncached
allocator:       cma
owner:           -
sync-check:      report
sync-violations: 3"
expect "info -o shows only those keys" 0 "info -o NAME,SIZE,DMA-ADDR cam0" \
"name:     cam0
size:     4194304 (4M)
dma-addr: 0x000000003f000000"
expect "info -r does not align" 0 "info -r -o NAME,DEVICE spare" \
"name: spare
device: -"
expect "info takes the long options of list" 0 \
	"info --noheadings --raw --bytes --output SIZE,NAME cam0" \
"4194304
cam0"
# NAME|STATUS|ARGS (split at blanks)|the one line of output (stderr
# unless STATUS is 0)
while IFS='|' read -r name status args text <&3; do
	expect "$name" "$status" "$args" "$text"
done 3<<'EOF'
list --pairs -b shows sizes in bytes|0|list --pairs -b -o NAME,SIZE cam0|NAME="cam0" SIZE="4194304"
info -P -y as list -P -y|0|info -P -y -o NAME,DMA-DEVICE cam0|NAME="cam0" DMA_DEVICE="pci/0000:00:10.0"
info -b shows sizes in bytes only|0|info -b -o SIZE cam0|size: 4194304
info -n shows a size as the plain number of bytes, for scripts|0|info -n -o SIZE cam0|4194304
info -r shows a size as the plain number of bytes|0|info -r -o SIZE cam0|size: 4194304
info of a missing buffer names it, the action and the reason|1|info nope|udmabufctl: nope: info: no such buffer
info of a path that names no buffer says what a buffer name is|1|info a/b|udmabufctl: a/b: info: not a buffer name (NAME or /dev/NAME)
info -J with every name missing prints no JSON, as list prints no table|1|info -J ghost|udmabufctl: ghost: info: no such buffer
delete of a missing buffer says there is no such buffer|1|delete ghost|udmabufctl: ghost: delete: no such buffer
sync of a buffer without a device node names the node|1|sync cam0 --for-cpu|udmabufctl: cam0: sync: no device node /dev/cam0
sync of a missing buffer says there is no such buffer|1|sync ghost --for-cpu|udmabufctl: ghost: sync: no such buffer
sync of a disabled buffer says it is not enabled|1|sync spare --for-cpu|udmabufctl: spare: sync: not enabled
bench of a missing buffer says so|1|bench nosuch|udmabufctl: nosuch: bench: no such buffer
bench of a disabled item says it is not enabled|1|bench spare|udmabufctl: spare: bench: not enabled
EOF
exits 2 info cam0 nope && out_has "name:            cam0"
check "info with some missing names exits 2"
expect "info shows the sync checker a disabled item will have, - where the module has none" 0 \
	"info -o NAME,SYNC-CHECK,SYNC-VIOLATIONS spare udmabuf0" \
"name:            spare
sync-check:      sigbus
sync-violations: -

name:            udmabuf0
sync-check:      -
sync-violations: -"
run info -J cam0 spare /dev/udmabuf0
json_check "info -J: one object per name; sync-check a word, sync-violations a number, null where unknown" \
	buffers '
assert [b["name"] for b in d] == ["cam0", "spare", "udmabuf0"], d
d = {b["name"]: b for b in d}
assert d["cam0"]["cache"] == "cached" and d["cam0"]["cache-sync"] == "uncached"
assert d["cam0"]["sync-check"] == "report" and d["cam0"]["sync-violations"] == 3, d["cam0"]
assert d["spare"]["sync-check"] == "sigbus" and d["spare"]["sync-violations"] is None, d["spare"]
assert d["udmabuf0"]["sync-check"] is None and d["udmabuf0"]["sync-violations"] is None
'
attrs "$C/cam0" sync_check=3
expect "a sync checker mode this tool has no word for is its number" 0 \
	"info -n -o SYNC-CHECK cam0" "3"
attrs "$C/cam0" sync_check=1
expect "list -J with every name missing prints no JSON" 1 "list -J ghost" \
	"udmabufctl: ghost: list: no such buffer"

# --- delete, create, sync (what a fake tree can show) -----------------------------

expect "delete of a parameter buffer says why it cannot" 1 "delete udmabuf0" \
"udmabufctl: udmabuf0: delete: Operation not permitted
udmabufctl: hint: udmabuf0 was created by a module parameter, not through configfs; it goes away when the module is unloaded"
exits 1 create newbuf --size 4M && err_has "udmabufctl: newbuf: set size: No such file or directory"
check "a failed create names the failed step"
# A regular file in place of cam0's node: not opened, and the library
# says why.  The fake's node without the sync ioctls: an older module.
mkdir -p "$T/dev" && : >"$T/dev/cam0"
UDMABUF_DEV_DIR=$T/dev exits 1 sync cam0 --for-cpu && err_is \
"udmabufctl: cam0: open $T/dev/cam0: not a udmabuf-cfs device (not a character device): Inappropriate ioctl for device"
check "sync of a node that is not the buffer's says why, without opening it"
head -c 4096 /dev/zero >"$T/dev/cam0"
UDMABUF_DEV_DIR=$T/dev UDMABUF_FAKE_DEV_DIR=$T/dev UDMABUF_FAKE_NO_SYNC=1 \
	run_fake sync cam0 --for-cpu
status_is 1 && err_is \
"udmabufctl: cam0: sync: Operation not supported
udmabufctl: hint: cam0 does not answer the udmabuf-cfs sync ioctls; is the loaded module older than this tool?"
check "sync without module support says so"

# --- save / restore ------------------------------------------------------------

run save
cat >"$T/expected.conf" <<EOF
cam0 size=4194304 minor=1 sync_mode=3 dma_mask=32 mode=0660 sync_check=1 dma_device=pci/0000:00:10.0 allocator=cma enable=1
spare size=1536 minor=5 sync_mode=1 dma_mask=64 mode=0600 sync_check=2 allocator=contig enable=0
EOF
status_is 0 && sed '/^#/d' "$UDMABUF_SAVE_FILE" | cmp -s - "$T/expected.conf" &&
	[ "$(ls "$T/etc")" = udmabuf.conf ]
check "save writes the configfs buffers to the default file (the allocator asked for, or that gave the memory) and leaves no temporary file"
UDMABUF_SAVE_FILE=$T/none.conf exits 0 restore && [ ! -s "$ERR" ]
check "restore of a missing default file does nothing"
expect "restore of a missing named file fails" 1 "restore $T/none.conf" \
	"udmabufctl: $T/none.conf: restore: No such file or directory"
printf 'ok1 size=4K\n\n   # comment\nbad size=12Q\n' >"$T/bad.conf"
run restore --clear "$T/bad.conf"
status_is 1 && err_has "udmabufctl: $T/bad.conf:4: restore: Invalid argument" && [ -d "$C/cam0" ]
check "restore checks the whole file before changing anything"
printf 'a size=4K\na size=8K\n' >"$T/dup.conf"
exits 1 restore "$T/dup.conf" && err_has "udmabufctl: $T/dup.conf:2: restore: File exists"
check "restore refuses a name listed twice"
# In a directory of its own, where a file named - would show.
HERE=$(pwd)
cd "$T/cwd" || exit 1
exits 0 save - && [ ! -s "$ERR" ] && [ ! -e "$T/cwd/-" ] &&
	grep -q "^# udmabuf buffers, written by 'udmabufctl save'" "$OUT" &&
	sed '/^#/d' "$OUT" | cmp -s - "$T/expected.conf"
check "save - writes the save file to standard output, no file named -"
expect "restore - reads standard input, not a file named -" 1 "restore -" \
"udmabufctl: cam0: restore: File exists
udmabufctl: spare: restore: File exists
udmabufctl: hint: 2 buffer(s) of standard input exist already; 'udmabufctl restore --clear' deletes all buffers first" \
	<"$T/expected.conf"
printf 'ok1 size=4K\nbad size=12Q\n' >"$T/bad-stdin.conf"
expect "restore - names standard input and the line of a bad setting" 1 "restore -" \
"udmabufctl: standard input:2: restore: Invalid argument
udmabufctl: hint: bad setting 'size=12Q' for bad" <"$T/bad-stdin.conf"
usage_error "restore --state - is refused: the record is a file" \
	"udmabufctl: restore: --state takes a file, not standard input" restore --state - -
usage_error "clear --state - is refused: the record is a file" \
	"udmabufctl: clear: --state takes a file, not standard input" clear --state -
[ -z "$(ls "$T/cwd")" ]
check "save -, restore - and --state - make no file named -"
cd "$HERE" || exit 1

# --- create --dma-device ----------------------------------------------------------

O=$T/old/udmabuf	# a module older than dma_device
attrs "$O" features=size,minor,device_name,sync_mode,dma_mask,mode,enable,phys_addr,dev
UDMABUF_CONFIGFS_DIR=$O
expect "create --dma-device on a module without the feature says it is too old" 1 \
	"create newbuf --size 4M --dma-device pci/0000:00:10.0" \
"udmabufctl: newbuf: set dma_device: Operation not supported
udmabufctl: hint: the loaded udmabuf-cfs module is too old for --dma-device ($O/features does not list dma_device)"
run create newbuf --size 4M dma_device=pci/0000:00:10.0
status_is 1 && err_has "udmabufctl: newbuf: set dma_device: Operation not supported"
check "a dma_device=VALUE argument is checked like --dma-device"
rm "$O/features"
run create newbuf --size 4M --dma-device pci/0000:00:10.0
status_is 1 && err_has "udmabufctl: newbuf: set dma_device: Operation not supported" &&
	[ ! -e "$O/newbuf" ]
check "create --dma-device on a module without a features attribute says it is too old"
UDMABUF_CONFIGFS_DIR=$T/none/udmabuf
run create newbuf --size 4M --dma-device pci/0000:00:10.0
status_is 1 && err_has "udmabufctl: create: no configfs directory $T/none/udmabuf" &&
	! err_has "too old"
check "create --dma-device without the subsystem reports that, not an old module"

L=$T/live/udmabuf	# a module with dma_device, with fake-configfs.so
attrs "$L" features=size,minor,device_name,sync_mode,dma_mask,mode,enable,phys_addr,dma_device,dev
UDMABUF_CONFIGFS_DIR=$L

run_fake create b1 --size 64K --sync-mode 2 --dma-device pci/0000:00:10.0 sync_mode=3
status_is 0 && out_is "$D/b1" && [ ! -s "$ERR" ] && printf '%s\n' \
	size=65536 sync_mode=2 sync_mode=3 dma_device=pci/0000:00:10.0 enable=1 |
	cmp -s - "$T/writes"
check "create --dma-device writes dma_device after the other attributes, then enable"
fake_exits 0 create b3 --size 64K --dma-device "" && ! grep -q dma_device "$T/writes"
check "create --dma-device '' is the module's own device and writes nothing"
UDMABUF_CONFIGFS_DIR=$O
attrs "$O" features=size,enable
fake_exits 0 create old1 --size 64K && [ -f "$O/old1/enable" ]
check "create without --dma-device still works on a module without the feature"
UDMABUF_CONFIGFS_DIR=$L

# NAME|UDMABUF_FAKE_ERRNO|--dma-device|the step|its error|the hint|a path the
# case needs on this host
while IFS='|' read -r name errno dev step error hint needs <&3; do
	if [ -n "$needs" ] && [ ! -e "$needs" ]; then
		skip "$name" "no $needs on this host"
		continue
	fi
	UDMABUF_FAKE_ERRNO=$errno run_fake create b4 --size 64K --dma-device "$dev"
	status_is 1 && [ ! -s "$OUT" ] && [ ! -e "$L/b4" ] && err_is "udmabufctl: b4: $step: $error
udmabufctl: hint: $hint"
	check "$name"
done 3<<'EOF'
create --dma-device refused with EINVAL says the value is not BUS/DEVICE|dma_device=EINVAL|bogus|set dma_device|Invalid argument|'bogus' is not BUS/DEVICE, e.g. pci/0000:01:00.0 or platform/a0000000.dma|
create --dma-device refused with ENODEV names the unknown bus|dma_device=ENODEV|nosuchbus/dev0|set dma_device|No such device|there is no bus nosuchbus (see /sys/bus)|
create --dma-device refused with ENODEV names the missing device of a known bus|dma_device=ENODEV|platform/nosuch.dma|set dma_device|No such device|there is no device nosuch.dma on bus platform (see /sys/bus/platform/devices)|/sys/bus/platform
create --dma-device refused with ENODEV for a device that exists blames the bus|dma_device=ENODEV|cpu/cpu0|set dma_device|No such device|the loaded module does not bind buffers to devices of bus cpu|/sys/bus/cpu/devices/cpu0
create --dma-device refused with ENXIO for a PCI device says to bind vfio-pci or uio_pci_generic|dma_device=ENXIO|pci/0000:00:10.0|set dma_device|No such device or address|pci/0000:00:10.0 has no driver: bind vfio-pci or uio_pci_generic to it first (its DMA setup exists only then)|
enable refused with ENXIO says the same|enable=ENXIO|pci/0000:00:10.0|enable|No such device or address|pci/0000:00:10.0 has no driver: bind vfio-pci or uio_pci_generic to it first (its DMA setup exists only then)|
a platform device without a driver (an FPGA's DMA block): its own driver, or uio_pdrv_genirq or vfio-platform|dma_device=ENXIO|platform/a0000000.dma|set dma_device|No such device or address|platform/a0000000.dma has no driver: load its own driver (modprobe) or bind uio_pdrv_genirq or vfio-platform to it first (its DMA setup exists only then)|
a device of another bus without a driver: its driver, no PCI advice|dma_device=ENXIO|usb/1-1|set dma_device|No such device or address|usb/1-1 has no driver: bind its driver to it first (its DMA setup exists only then)|
enable refused with EINVAL for a bound buffer asks whether the device is a DMA master|enable=EINVAL|pci/0000:00:10.0|enable|Invalid argument|is pci/0000:00:10.0 a DMA master? A device without a DMA mask cannot have buffers|
EOF
UDMABUF_FAKE_ERRNO=enable=ENOMEM
export UDMABUF_FAKE_ERRNO
# ENOMEM: the facts come from this host's /proc, so only their form is fixed.
fake_exits 1 create b7 --size 1G && [ ! -e "$L/b7" ] && [ "$(wc -l <"$ERR")" -eq 3 ] &&
	err_has "udmabufctl: b7: enable: Cannot allocate memory" &&
	grep -Eq '^udmabufctl: hint: no 1G of contiguous memory within the 32-bit DMA mask(: the page allocator.s largest free block is [0-9.]+[BKMG]| \(see dmesg\):) and (there is no CMA area|the CMA area has [0-9.]+[BKMG] of [0-9.]+[BKMG] free)$' "$ERR" &&
	grep -Eq '^udmabufctl: hint: try a smaller size(, | or )(a larger )?cma=SIZE at boot.* or --dma-mask 64 if the device can address all memory$|^udmabufctl: hint: try a smaller size: 1G is more than' "$ERR"
check "enable refused with ENOMEM names the size, the largest free block, CMA, the mask and the fix"
run_fake create b7 --size 1T --dma-mask 12 dma_mask=64 size=2T
status_is 1 && err_has "udmabufctl: hint: no 2T of contiguous memory within the 64-bit DMA mask" &&
	err_has "udmabufctl: hint: try a smaller size: 2T is more than the " && ! err_has -- "--dma-mask 64"
check "the ENOMEM hint takes size and mask from ATTR=VALUE arguments, which are written last"
unset UDMABUF_FAKE_ERRNO

R=$T/restore/udmabuf	# restore wants a tree without buffers
attrs "$R" features=size,enable,dma_device
UDMABUF_CONFIGFS_DIR=$R
mkdir "$R/r1"	# a buffer made before
printf 'r2 size=4096\n' >"$T/other.conf"
fake_exits 0 restore "$T/other.conf" && [ -d "$R/r1" ] && [ -d "$R/r2" ]
check "restore creates new names next to existing buffers"
printf 'r3 size=4096\nr1 size=4096\n' >"$T/clash.conf"
run_fake restore "$T/clash.conf"
status_is 1 && [ ! -e "$R/r3" ] && err_has "udmabufctl: r1: restore: File exists" &&
	! err_has "r2:" && ! err_has "r3:"
check "restore refuses a file with a name that exists, naming only that one, and creates nothing"
printf 'r4 size=8192 sync_mode=3\n' >"$T/stdin.conf"
fake_exits 0 restore - <"$T/stdin.conf" && [ ! -s "$ERR" ] && [ "$(cat "$R/r4/size")" = 8192 ] &&
	[ "$(cat "$R/r4/sync_mode")" = 3 ]
check "restore - creates the buffers read from standard input"
printf 'r5 size=4096\n' >"$T/r5.conf"
UDMABUF_FAKE_ERRNO=enable=EBUSY run_fake restore --clear "$T/r5.conf"
status_is 1 && [ ! -e "$R/r5" ] && [ -d "$R/r1" ] &&
	err_has "udmabufctl: r1: delete: Device or resource busy" &&
	err_has "hint: r1 is open or mapped; 'udmabufctl delete --force r1' removes the device" &&
	[ "$(tail -n 1 "$ERR")" = "udmabufctl: $T/r5.conf: restore: nothing from it was made: 3 of 3 buffer(s) could not be deleted" ]
check "restore --clear that cannot delete a buffer says that nothing was made, and how to delete it"

# --- create --sync-check, UDMABUF_SYNC_CHECK ------------------------------------

K=$T/check/udmabuf	# a module with the sync checker
attrs "$K" features=size,minor,device_name,sync_mode,dma_mask,mode,enable,phys_addr,dma_device,dev,sync_check
UDMABUF_CONFIGFS_DIR=$K
# NAME|ARGS|the writes (split at blanks)
while IFS='|' read -r name args writes <&3; do
	# shellcheck disable=SC2086 # split on purpose
	fake_exits 0 create $args && [ ! -s "$ERR" ] && printf '%s\n' $writes | cmp -s - "$T/writes"
	check "$name"
done 3<<'EOF'
create --sync-check writes sync_check=1 (report) after sync_mode|k1 --size 4K --sync-mode 0 --sync-check|size=4096 sync_mode=0 sync_check=1 enable=1
create --sync-check=sigbus writes 2|k2 --size 4K --sync-check=sigbus|size=4096 sync_check=2 enable=1
create --sync-check=off writes nothing: off is the default|k3 --size 4K --sync-check=off|size=4096 enable=1
EOF
printf 'k7 size=4096 sync_check=2\n' >"$T/check.conf"
run_fake restore "$T/check.conf"
status_is 0 && printf '%s\n' size=4096 sync_check=2 enable=1 | cmp -s - "$T/writes"
check "restore writes a saved sync_check"
printf 'k8 size=4096 sync_check=3\n' >"$T/check3.conf"
run restore "$T/check3.conf"
status_is 1 && [ ! -e "$K/k8" ] && err_is "udmabufctl: $T/check3.conf:1: restore: Numerical result out of range
udmabufctl: hint: bad setting 'sync_check=3' for k8"
check "restore refuses a sync_check beyond 2"
UDMABUF_CONFIGFS_DIR=$L
fake_exits 1 create k9 --size 4K --sync-check && [ ! -s "$OUT" ] && [ ! -e "$L/k9" ] && err_is \
"udmabufctl: k9: set sync_check: Operation not supported
udmabufctl: hint: the loaded udmabuf-cfs module has no sync checker ($L/features does not list sync_check)"
check "create --sync-check on a module without the checker: nothing made, and why"
UDMABUF_SYNC_CHECK=sigbus fake_exits 1 create k9 --size 4K && [ ! -e "$L/k9" ] &&
	err_has "UDMABUF_SYNC_CHECK asks for it"
check "the same asked by UDMABUF_SYNC_CHECK says so"
unset UDMABUF_SYNC_CHECK

# --- the unit: its stop deletes what its start made, nothing else -------------

SVC=$(cd "$(dirname "$0")/.." && pwd)/udmabuf.service.in
ST=$T/run/udmabuf/restored
# unit STATUS KEY: fake_exits STATUS the unit's KEY= command, its arguments
# split as systemd does, with $ST for /run, the saved buffers
# $UDMABUF_SAVE_FILE.svc
unit() {
	# shellcheck disable=SC2046 # split on purpose
	UDMABUF_SAVE_FILE=$UDMABUF_SAVE_FILE.svc fake_exits "$1" $(sed -n \
		"s|^$2=@SBINDIR@/udmabufctl ||p" "$SVC" | sed "s|/run/udmabuf/restored|$ST|g")
}
U=$T/svc/udmabuf
attrs "$U" features=size,enable
mkdir -p "$T/run"	# /run exists; restore makes /run/udmabuf
UDMABUF_CONFIGFS_DIR=$U
mkdir "$U/byhand"	# made by someone else before the start
printf 's1 size=4096\ns2 size=4096 enable=0\n' >"$UDMABUF_SAVE_FILE.svc"
unit 0 ExecStart && [ -d "$U/s1" ] && [ -d "$U/s2" ] && [ ! -s "$ERR" ] &&
	[ "$(grep -c ' ino=' "$ST")" -eq 2 ]
check "the unit's start restores the saved buffers and records them under /run"
mkdir "$U/late"		# made by someone else while the unit is active
unit 0 ExecStop && [ ! -e "$U/s1" ] && [ ! -e "$U/s2" ] && [ -d "$U/byhand" ] &&
	[ -d "$U/late" ] && [ ! -e "$ST" ] && [ ! -s "$ERR" ]
check "the unit's stop deletes what its start made and leaves the other buffers"
unit 0 ExecStop && [ -d "$U/byhand" ] && [ ! -s "$ERR" ]
check "a second stop, without a record, deletes nothing"
unit 0 ExecStart
# s1 deleted and made again by someone else: a directory of its own.
mkdir "$U/s1.new" && rm -r "$U/s1" && mv "$U/s1.new" "$U/s1"
unit 0 ExecStop && [ -d "$U/s1" ] && [ ! -e "$U/s2" ] && [ ! -e "$ST" ]
check "stop leaves a buffer of a recorded name that someone else made again"
rmdir "$U/s1"
unit 0 ExecStart
UDMABUF_FAKE_ERRNO=enable=EBUSY unit 1 ExecStop &&
	err_has "udmabufctl: s1: delete: Device or resource busy" &&
	[ "$(grep -v '^#' "$ST" | cut -d' ' -f1 | tr '\n' ' ')" = "s1 s2 " ]
check "stop keeps the records of the buffers it could not delete"
unit 0 ExecStop && [ ! -e "$U/s1" ] && [ ! -e "$ST" ] && [ -d "$U/byhand" ]
check "the next stop deletes it"
printf 'garbage\n' >"$ST"
UDMABUF_SAVE_FILE=$UDMABUF_SAVE_FILE.svc run_fake restore --state "$ST"
status_is 1 && err_is "udmabufctl: $ST:1: read: Invalid argument" && [ ! -e "$U/s1" ]
check "restore --state with a record it cannot read changes nothing"
rm -f "$ST"
printf '\\x23h size=4096 device_name=h\n' >"$T/hash.conf"
fake_exits 0 restore --state "$ST" "$T/hash.conf" && [ -d "$U/#h" ] &&
	fake_exits 0 clear --state "$ST" && [ ! -e "$U/#h" ] && [ ! -e "$ST" ]
check "restore --state records a name starting with #, clear --state deletes it"
UDMABUF_CONFIGFS_DIR=$C

# --- without buffers: nothing, as util-linux's tools print -------------------

mkdir -p "$T/empty/config/udmabuf" "$T/empty/class/udmabuf"
UDMABUF_CONFIGFS_DIR=$T/empty/config/udmabuf UDMABUF_SYSFS_DIR=$T/empty/class/udmabuf run
status_is 0 && [ ! -s "$OUT" ] && [ ! -s "$ERR" ]
check "list without buffers prints nothing, not even the header"
UDMABUF_CONFIGFS_DIR=$T/empty/config/udmabuf UDMABUF_SYSFS_DIR=$T/empty/class/udmabuf \
	expect "list -J without buffers is an empty list" 0 "-J" '{
   "buffers": [

   ]
}'

# --- without configfs: every command that needs it fails alike ---------------

NOCFS=$T/none/udmabuf
UDMABUF_CONFIGFS_DIR=$NOCFS
UDMABUF_MODULE_DIR=$T/nonexistent
for args in "list" "list cam0" "-o NAME" "info cam0" "create nb --size 4K" \
	"delete cam0" "save" "save $T/nocfs.conf" "save -" "restore" \
	"restore $T/etc/udmabuf.conf" "restore --state $T/nocfs.state" "clear" \
	"clear --state $T/nocfs.state"; do
	# shellcheck disable=SC2086 # split on purpose
	run $args
	verb=${args%% *}
	[ "$verb" = -o ] && verb=list
	status_is 1 && [ ! -s "$OUT" ] && err_is "udmabufctl: $verb: no configfs directory $NOCFS
udmabufctl: hint: the udmabuf-cfs module is not loaded: modprobe udmabuf-cfs"
	check "'$args' without configfs exits 1, names configfs and the fix"
done
[ ! -e "$T/none" ] && [ ! -e "$T/nocfs.conf" ] && [ ! -e "$T/nocfs.state" ]
check "without configfs, save, restore and clear make no file"
UDMABUF_SAVE_FILE=$T/none.conf run restore
status_is 1 && err_has "udmabufctl: restore: no configfs directory $NOCFS"
check "restore without configfs fails even when nothing was saved"
UDMABUF_MODULE_DIR=$T/module
expect "a configfs directory of UDMABUF_CONFIGFS_DIR that does not exist is blamed on it" 1 \
	"clear" \
"udmabufctl: clear: no configfs directory $NOCFS
udmabufctl: hint: is UDMABUF_CONFIGFS_DIR right?"
mkdir -p "$T/param-dev"
head -c 4096 /dev/zero >"$T/param-dev/udmabuf0"
UDMABUF_DEV_DIR=$T/param-dev UDMABUF_FAKE_DEV_DIR=$T/param-dev \
	run_fake sync udmabuf0 --for-cpu
status_is 0 && [ ! -s "$ERR" ]
check "sync, which needs only the device node, works without configfs"
UDMABUF_CONFIGFS_DIR=$C

# --- sync: the ioctl on the device node, no sysfs attribute ------------------

MAN8=$(cd "$(dirname "$0")/../../.." && pwd)/Documentation/udmabufctl.8
# The paragraph of a command in the man page's COMMANDS section.
man_command() {
	sed -n '/^\.SH COMMANDS/,/^\.SH /p' "$MAN8" |
		sed -n "/^\\.B $1\$/,/^\\.TP/p"
}
man_command list >"$OUT"
out_has "exit status 2" && ! grep -q "exit status 1; the others" "$OUT"
check "udmabufctl(8) gives list the exit status 2 of some names failing, as info and delete"
sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' "$MAN8" >"$OUT"
out_has "Some, but not all," && out_has "list" && out_has "info" && out_has "delete"
check "udmabufctl(8) names the commands of several names in EXIT STATUS"
man_command sync >"$OUT"
out_has UDMABUF_CFS_IOC_SYNC_FOR_CPU && out_has UDMABUF_CFS_IOC_SYNC_FOR_DEVICE &&
	! grep -q 'sync_for_cpu\|sync_for_device\|attribute[s]* *$' "$OUT"
check "udmabufctl(8) says that sync uses the ioctls, not sysfs attributes"
# Of sysfs only the class device's dev, which the node must be.
mkdir -p "$T/ioctl-dev"
head -c 65536 /dev/zero >"$T/ioctl-dev/cam0"
attrs "$T/ioctl-class/cam0" dev=240:1
UDMABUF_DEV_DIR=$T/ioctl-dev UDMABUF_SYSFS_DIR=$T/ioctl-class \
	UDMABUF_FAKE_DEV_DIR=$T/ioctl-dev \
	run_fake sync cam0 --for-device --offset 4K --length 8K --direction to-device
status_is 0 && [ ! -s "$ERR" ] && printf '%s\n' ioctl=get_info \
	"ioctl=sync_for_device 4096 8192 1" | cmp -s - "$T/writes" &&
	[ "$(ls "$T/ioctl-class/cam0")" = dev ]
check "sync opens the device node and issues the sync ioctl, without sysfs attributes"

# --- the two addresses: DMA-ADDR and CPU-PHYS-ADDR ---------------------------

# Behind an IOMMU a buffer's DMA address (what a device is programmed with;
# the sysfs phys_addr reads it, 0x3f000000 in the fake tree) and its CPU
# physical address (only GET_INFO tells it) differ. Here the fake's GET_INFO
# gives the DMA address 0x3f000000 and the CPU physical address 0x80000000,
# so a column or key showing the other one shows the wrong number.
A=$T/addr-dev
mkdir -p "$A"
head -c 4096 /dev/zero >"$A/cam0"
head -c 4096 /dev/zero >"$A/udmabuf0"
UDMABUF_DEV_DIR=$A UDMABUF_FAKE_DEV_DIR=$A
UDMABUF_FAKE_DMA_ADDR=0x3f000000 UDMABUF_FAKE_PHYS_ADDR=0x80000000
export UDMABUF_FAKE_DEV_DIR UDMABUF_FAKE_DMA_ADDR UDMABUF_FAKE_PHYS_ADDR
fake_exits 0 list && sed -n 1p "$OUT" | grep -q ' DMA-ADDR ' && ! out_has PHYS-ADDR &&
	[ ! -e "$T/writes" ]
check "list shows DMA-ADDR by default, and no CPU-PHYS-ADDR: it opens no device"
run_fake list -o NAME,DMA-ADDR,CPU-PHYS-ADDR
status_is 0 && table_is "NAME     DMA-ADDR           CPU-PHYS-ADDR
cam0     0x000000003f000000 0x0000000080000000
spare
udmabuf0 0x000000003f000000 0x0000000080000000"
check "list -o CPU-PHYS-ADDR shows the CPU physical address, DMA-ADDR beside it the DMA address"
fake_exits 0 info -n -o PHYS-ADDR cam0 && out_is "0x000000003f000000"
check "-o PHYS-ADDR, DMA-ADDR's former name, is the DMA address, not the CPU one"
fake_exits 0 info -o NAME,DMA-ADDR cam0 && [ ! -e "$T/writes" ]
check "info without the CPU-PHYS-ADDR column opens no device"
# Without the root-only sysfs phys_addr (a user the node's group lets in),
# the DMA address comes from GET_INFO too; a detached buffer has none.
mv "$S/udmabuf0/phys_addr" "$T/phys_addr.saved"
UDMABUF_FAKE_DMA_ADDR=0x90000000
fake_exits 0 info -n -o DMA-ADDR,CPU-PHYS-ADDR udmabuf0 && out_is "0x0000000090000000
0x0000000080000000"
check "without sysfs phys_addr, info takes the DMA address from GET_INFO, not the CPU one"
UDMABUF_FAKE_INFO_FLAGS=8 fake_exits 0 info -n -o DMA-ADDR,CPU-PHYS-ADDR udmabuf0 && out_is "-
0x0000000080000000"
check "a buffer whose DMA device went away shows no DMA address, its CPU physical address still"
mv "$T/phys_addr.saved" "$S/udmabuf0/phys_addr"
UDMABUF_DEV_DIR=/dev
unset UDMABUF_FAKE_DEV_DIR UDMABUF_FAKE_DMA_ADDR UDMABUF_FAKE_PHYS_ADDR

# --- save and restore of placed buffers --------------------------------------

# p0 was placed (allocator "placed") and is bound behind an IOMMU: its
# phys_addr attributes read the DMA address 0x3f000000, GET_INFO tells the
# CPU physical address 0x80000000 it was placed at. p1 is disabled with a
# placement written (its phys_addr reads it); n0 was not placed, its
# memory is CMA's allocator's without a CMA area ("dma"); c0's is a
# contiguous range, which auto may have chosen: not asked for again.
P=$T/placed/config/udmabuf
PS=$T/placed/class/udmabuf
PD=$T/placed/dev
placed_item() { # ITEM MINOR SIZE ENABLE PHYS_ADDR ALLOCATOR DMA_DEVICE
	attrs "$P/$1" size="$3" minor=-1 device_name="$1" sync_mode=1 dma_mask=64 \
		mode=0600 enable="$4" phys_addr="$5" allocator="$6" dma_device="$7" dev=
	if [ "$4" = 1 ]; then
		attrs "$P/$1" dev="240:$2"
		attrs "$PS/$1" dev="240:$2" size="$3" phys_addr="$5" allocator="$6" \
			dma_device="$7"
		mkdir -p "$PD"
		head -c "$3" /dev/zero >"$PD/$1"
	fi
}
attrs "$P" features=size,minor,device_name,sync_mode,dma_mask,mode,enable,phys_addr,dma_device,dev,allocator
placed_item c0 4 4096 1 0x000000003f200000 contig ""
placed_item n0 3 4096 1 0x000000003f100000 dma ""
placed_item p0 2 4096 1 0x000000003f000000 placed pci/0000:00:10.0
placed_item p1 - 8192 0 0x0000000040000000 "" ""
cat >"$T/placed.expected" <<EOF
c0 size=4096 minor=4 sync_mode=1 dma_mask=64 mode=0600 enable=1
n0 size=4096 minor=3 sync_mode=1 dma_mask=64 mode=0600 allocator=cma enable=1
p0 size=4096 minor=2 sync_mode=1 dma_mask=64 mode=0600 dma_device=pci/0000:00:10.0 phys_addr=0x80000000 enable=1
p1 size=8192 sync_mode=1 dma_mask=64 mode=0600 phys_addr=0x40000000 enable=0
EOF
UDMABUF_CONFIGFS_DIR=$P UDMABUF_SYSFS_DIR=$PS UDMABUF_DEV_DIR=$PD
UDMABUF_FAKE_DEV_DIR=$PD UDMABUF_FAKE_DMA_ADDR=0x3f000000
UDMABUF_FAKE_PHYS_ADDR=0x80000000
export UDMABUF_FAKE_DEV_DIR UDMABUF_FAKE_DMA_ADDR UDMABUF_FAKE_PHYS_ADDR
run_fake save "$T/placed.conf"
status_is 0 && [ ! -s "$ERR" ] && sed '/^#/d' "$T/placed.conf" | cmp -s - "$T/placed.expected"
check "save writes a placed buffer's CPU physical address as phys_addr, not its DMA address, a disabled item's placement, allocator cma for dma, none for an enabled contig"
mv "$PD/p0" "$T/p0.node"
run_fake save "$T/placed.conf"
mv "$T/p0.node" "$PD/p0"
status_is 1 &&
	err_is "udmabufctl: p0: save: read the CPU physical address it is placed at ($PD/p0): No such file or directory" &&
	sed '/^#/d' "$T/placed.conf" | cmp -s - "$T/placed.expected"
check "save fails, keeping the saved file, when a placed buffer's address cannot be read"
# p1 asks for auto: its allocator reads empty.
table_check "list shows auto for a disabled item that asks for no allocator" 0 \
	"list -o NAME,ENABLED,ALLOCATOR" \
"NAME ENABLED ALLOCATOR
c0   1       contig
n0   1       dma
p0   1       placed
p1   0       auto"
expect "info shows auto for it too" 0 "info -o NAME,ALLOCATOR p1" \
"name:      p1
allocator: auto"
fake_exits 0 create pa --size 4K --no-enable allocator=page &&
	exits 0 info -n -o ALLOCATOR pa && out_is page &&
	exits 0 list -n -o NAME,ALLOCATOR pa && out_is "pa   page"
check "create --no-enable allocator=page: info and list show page"
run_fake delete pa
unset UDMABUF_FAKE_DEV_DIR UDMABUF_FAKE_DMA_ADDR UDMABUF_FAKE_PHYS_ADDR
UDMABUF_SYSFS_DIR=$S UDMABUF_DEV_DIR=/dev
# Restore places it again: phys_addr after dma_device (the placement is
# checked against the bound device), before enable.
PR=$T/placed-restore/udmabuf
attrs "$PR" features=size,minor,device_name,sync_mode,dma_mask,mode,enable,phys_addr,dma_device,dev
UDMABUF_CONFIGFS_DIR=$PR
fake_exits 0 restore "$T/placed.conf" && [ ! -s "$ERR" ] && printf '%s\n' \
	size=4096 minor=4 sync_mode=1 dma_mask=64 mode=0600 enable=1 \
	size=4096 minor=3 sync_mode=1 dma_mask=64 mode=0600 allocator=cma enable=1 \
	size=4096 minor=2 sync_mode=1 dma_mask=64 mode=0600 \
	dma_device=pci/0000:00:10.0 phys_addr=0x80000000 enable=1 \
	size=8192 sync_mode=1 dma_mask=64 mode=0600 phys_addr=0x40000000 |
	cmp -s - "$T/writes"
check "restore places saved buffers: phys_addr after dma_device, before enable"
printf 'b0 size=4096 phys_addr=0x12g\n' >"$T/badaddr.conf"
exits 1 restore "$T/badaddr.conf" && [ ! -e "$PR/b0" ] &&
	err_is "udmabufctl: $T/badaddr.conf:1: restore: Invalid argument
udmabufctl: hint: bad setting 'phys_addr=0x12g' for b0"
check "restore refuses a phys_addr that is no address, before making anything"
UDMABUF_CONFIGFS_DIR=$C

# --- names: item a has device b, item b has device c --------------------------

X=$T/cross/udmabuf
XS=$T/cross/class
cross_item() { # ITEM DEVICE
	attrs "$X/$1" size=4096 device_name="$2" enable=1 dev="240:$3"
	attrs "$XS/$2" dev="240:$3" size=4096
}
cross_item a b 1
cross_item b c 2
attrs "$X" features=size,device_name,enable
UDMABUF_CONFIGFS_DIR=$X UDMABUF_SYSFS_DIR=$XS
exits 0 info -J /dev/b && out_has '"name": "a"' && ! out_has '"name": "b"'
check "info /dev/b is the buffer whose device is b, not the item called b"
exits 0 info -J b && out_has '"name": "b"' && out_has '"devname": "c"'
check "info NAME is the item NAME first"
exits 0 info -J c && out_has '"name": "b"' && out_has '"devname": "c"'
check "info NAME is the buffer whose device is NAME when no item has that name"
expect "info /dev/a fails when no device is called a, even though an item is" 1 "info /dev/a" \
"udmabufctl: /dev/a: info: no such buffer"
fake_exits 0 delete /dev/b && [ ! -e "$X/a" ] && [ -d "$X/b" ]
check "delete /dev/b removes the buffer whose device is b, not the item called b"
fake_exits 2 delete b ghost && [ ! -e "$X/b" ] && err_is "udmabufctl: ghost: delete: no such buffer"
check "delete with some names missing deletes the others and exits 2"
fake_exits 1 delete ghost nope && [ "$(wc -l <"$ERR")" -eq 2 ]
check "delete with every name missing exits 1"
if command -v bash >/dev/null 2>&1; then
	mkdir "$X/a b" "$X/x\$(touch pwned)" "$X/c:d"
	COMP_SRC=$(cd "$(dirname "$0")/.." && pwd)/udmabufctl.bash-completion
	# comp LINE [BASH_COMPLETION]: the completions at the end of the
	# command line "udmabufctl LINE", split into words as bash splits it:
	# at blanks, and a run of ':' or '=' (COMP_WORDBREAKS) is a word of
	# its own; with the bash-completion package's functions if given
	comp() {
		# shellcheck disable=SC2016 # expanded by bash
		(cd "$T" && bash -c '[[ -z $4 ]] || . "$4"
			. "$1"
			COMP_LINE="$2 $3"
			COMP_POINT=${#COMP_LINE}
			COMP_WORDS=()
			set -f
			for w in $COMP_LINE; do
				while [[ $w =~ ^([^:=]*)([:=]+)(.*)$ ]]; do
					[[ -n ${BASH_REMATCH[1]} ]] &&
						COMP_WORDS+=("${BASH_REMATCH[1]}")
					COMP_WORDS+=("${BASH_REMATCH[2]}")
					w=${BASH_REMATCH[3]}
				done
				[[ -n $w ]] && COMP_WORDS+=("$w")
			done
			[[ $COMP_LINE == *[[:blank:]] ]] && COMP_WORDS+=("")
			COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
			_udmabufctl
			printf "%s\n" "${COMPREPLY[@]}"' \
			bash "$COMP_SRC" "$BIN" "$1" "${2-}") >"$OUT" 2>"$ERR"
		rc=$?
	}
	comp "delete "
	status_is 0 && out_has 'a\ b' && out_has 'x\$\(touch\ pwned\)' && [ ! -e "$T/pwned" ]
	check "completion quotes buffer names and does not expand them"
	comp "b "
	status_is 0 && out_has 'a\ b' && ! out_has create
	check "completion after a NAME as the first word offers more NAMEs"
	comp ""
	status_is 0 && out_has 'a\ b' && out_has create
	check "completion of the first word offers the commands and the NAMEs"
	# NAME|LINE|the completions (split at blanks): bash replaces only
	# what follows the word's last ':'; alone and with bash-completion
	BC=/usr/share/bash-completion/bash_completion
	for with in "" "$BC"; do
		while IFS='|' read -r name line want <&3; do
			if [ -n "$with" ] && [ ! -r "$with" ]; then
				skip "$name, with bash-completion" "no $with"
				continue
			fi
			comp "$line" "$with"
			# shellcheck disable=SC2086 # split on purpose
			status_is 0 && printf '%s\n' $want | cmp -s - "$OUT"
			check "$name${with:+, with bash-completion}"
		done 3<<'EOF'
completion of -o offers the columns the tool lists with -H|list -o NAME,DMA-|NAME,DMA-ADDR NAME,DMA-MASK NAME,DMA-DEVICE
completion of bench -o offers bench's columns|bench -o OP,R|OP,RATE OP,RATIO OP,REPS
completion of bench's options|bench --s|--size --sync-modes --shell
completion of info offers --shell|info --sh|--shell
completion of create offers --sync-check|create x --sync-c|--sync-check
completion of --sync-check= offers report, sigbus and off (bash's words --sync-check =)|create x --sync-check=|report sigbus off
completion of --sync-check=s offers sigbus|create x --sync-check=s|sigbus
completion of -o NAME,MAJ: offers MIN, what follows the ':'|list -o NAME,MAJ:|MIN
completion of -o NAME,MAJ:M offers MIN|list -o NAME,MAJ:M|MIN
completion of -o NAME,MAJ:MIN,SY offers MIN,SYNC-MODE and the like|list -o NAME,MAJ:MIN,SY|MIN,SYNC-MODE MIN,SYNC-CHECK MIN,SYNC-VIOLATIONS
completion after -o NAME,MAJ:MIN takes it for -o's argument|-o NAME,MAJ:MIN i|info
completion of a NAME with a ':' offers what follows the ':'|info c:|d
EOF
	done
	rmdir "$X/a b" "$X/x\$(touch pwned)" "$X/c:d"
fi

# --- odd names: escaped in every output format --------------------------------

ODD=$(printf 't\tn\ns p\\q"')	# tab, newline, space, backslash, quote
# \377: not UTF-8; café: 5 bytes, 4 columns; #c: not a comment when saved
for d in "$ODD" "$(printf 'bad\377')" café abcde "#c"; do
	attrs "$X/$d" size=4096 enable=0
done
attrs "$X/$ODD" device_name=odd sync_check=0
LC_ALL=C exits 0 list -o NAME,SIZE "$ODD" && out_is 'NAME             SIZE
t\x09n\x0as p\q"   4K'
check "table: tab and newline in a name are escaped, the columns stay aligned"
LC_ALL=C exits 0 list -r -o NAME,SIZE "$ODD" && out_is 'NAME SIZE
t\x09n\x0as\x20p\x5cq" 4K'
check "raw: tab, newline, space and backslash in a name are escaped"
LC_ALL=C exits 0 list -P -o NAME,SIZE "$ODD" && out_is 'NAME="t\x09n\x0as p\x5cq\x22" SIZE="4K"'
check "pairs: tab, newline, backslash and quote in a name are escaped"
LC_ALL=C exits 0 info -o NAME,SIZE "$ODD" && out_is 'name: t\x09n\x0as p\q"
size: 4096 (4K)'
check "info: tab and newline in a name are escaped"
LC_ALL=C exits 0 info -r -o NAME "$ODD" && out_is 'name: t\x09n\x0as\x20p\x5cq"'
check "info -r: tab, newline, space and backslash in a name are escaped"
LC_ALL=C exits 0 list -o NAME "$(printf 'bad\377')" && out_is 'NAME
bad\xff'
check "table: a byte that is no character is escaped"
LC_ALL=C run list -J -o NAME,SIZE
json_check "JSON: odd names are valid JSON strings in UTF-8 (U+FFFD for a non-UTF-8 byte)" buffers '
names = [b["name"] for b in d]
assert "bad\ufffd" in names and "t\tn\ns p\\q\"" in names, names
'
LC_ALL=C.UTF-8 table_check "table columns are aligned by display width" 0 \
	"list -n -o NAME,SIZE café abcde" \
"abcde   4K
café    4K"
expect "save escapes a name (a leading #, too), writes a device_name not the item's, no sync_check off or unknown" 0 \
	"save -" \
"# udmabuf buffers, written by 'udmabufctl save' (udmabufctl 0.1.0).
# One buffer per line: NAME ATTR=VALUE...; read by 'udmabufctl restore'.
\x23c size=4096 enable=0
abcde size=4096 enable=0
bad\xff size=4096 enable=0
caf\xc3\xa9 size=4096 enable=0
t\x09n\x0as\x20p\x5cq\" size=4096 device_name=odd enable=0"
rm -r "${X:?}/$ODD" "${X:?}/$(printf 'bad\377')" "$X/café" "$X/abcde" "$X/#c"
UDMABUF_CONFIGFS_DIR=$C UDMABUF_SYSFS_DIR=$S

# --- -y, --shell: column names a shell can take ---------------------------------

expect "list -P -y: MAJ_MIN, SYNC_MODE and DMA_ADDR, shell variable names" 0 \
	"list -P -y -o NAME,MAJ:MIN,SYNC-MODE,DMA-ADDR cam0" \
'NAME="cam0" MAJ_MIN="240:1" SYNC_MODE="3" DMA_ADDR="0x000000003f000000"'
(eval "$(cat "$OUT")" && [ "$MAJ_MIN" = 240:1 ] && [ "$DMA_ADDR" = 0x000000003f000000 ])
check "list -P -y output is what a shell evals"
table_check "list --shell: the table's header too" 0 "list --shell -o NAME,MAJ:MIN udmabuf0" \
"NAME     MAJ_MIN
udmabuf0 240:0"
run list -J -y -o MAJ:MIN,SYNC-MODE cam0
status_is 0 && out_has '"maj_min": "240:1",' && out_has '"sync_mode": 3' && ! out_has '"maj:min"'
check "list -J -y: JSON keys maj_min and sync_mode"
table_check "info -y: keys a shell can take" 0 \
	"info -y -o NAME,MAJ:MIN,CPU-PHYS-ADDR,SYNC-MODE cam0" \
"name:          cam0
maj_min:       240:1
cpu_phys_addr: -
sync_mode:     3"

# --- bench ---------------------------------------------------------------------

exits 0 bench -H && [ "$(wc -l <"$OUT")" -eq 13 ] && grep -q '^ *OP <string>' "$OUT" &&
	grep -q '^ *RATIO <float>' "$OUT" && grep -q '^ *TIME <integer>' "$OUT" &&
	! grep -q '^ *DEVICE ' "$OUT"
check "bench -H lists bench's columns, not list's"
run bench --help
status_is 0 && out_has "Available output columns of bench:" && out_has "--sync-modes LIST" &&
	out_has " -y, --shell" && ! out_has "MAJ:MIN"
check "bench --help shows its options and columns"
sed -n '/^\.SH BENCH/,/^\.SH /p' "$MAN8" >"$T/man-bench"
missing=
for c in $("$BIN" bench -H -r | cut -d' ' -f1); do
	# The table's first field: NAME, or NAME, NAME (hyphens as \-).
	COL=$(printf '%s' "$c" | sed 's/-/\\-/g') awk -F '\t' '
		{ n = split($1, a, ", "); for (i = 1; i <= n; i++) if (a[i] == ENVIRON["COL"]) f = 1 }
		END { exit !f }' "$T/man-bench" || missing="$missing $c"
done
[ -s "$T/man-bench" ] && [ -z "$missing" ]
check "udmabufctl(8) has a BENCH section that describes every column of bench -H${missing:+ (missing:$missing)}"
man_command bench >"$OUT"
out_has "BENCH" && sed -n '/^\.SS Bench/,/^\.SS /p' "$MAN8" | grep -qF 'sync\-modes'
check "udmabufctl(8) names bench among the commands and its options"
sed -n '/^\.SS List, info and bench/,/^\.SS /p' "$MAN8" | grep -q '^\.BR \\-y ", " \\-\\-shell$'
check "udmabufctl(8) documents -y, --shell"

# A tree for bench: bench0 (256K) and busy0, which is open.
BT=$T/bench
# bench_item NAME SIZE MINOR [ATTR=VALUE...]: an enabled buffer NAME, its
# class device (sync_mode 2, or as the ATTRs say) and its node
bench_item() {
	attrs "$BT/config/udmabuf/$1" enable=1 device_name="$1" size="$2"
	attrs "$BT/class/udmabuf/$1" sync_mode=2 cache_mode=cached cache_mode_sync=write-combine \
		origin=configfs users=0 size="$2" dev="240:$3"
	truncate -s "$2" "$BT/dev/$1"
	_item=$1
	shift 3
	attrs "$BT/class/udmabuf/$_item" "$@"
}
attrs "$BT/config/udmabuf" features=size,enable
mkdir -p "$BT/dev"
bench_item bench0 262144 20
bench_item busy0 65536 21 users=1
: >"$BT/dev/udmabuf-cfs"
UDMABUF_CONFIGFS_DIR=$BT/config/udmabuf UDMABUF_SYSFS_DIR=$BT/class/udmabuf
UDMABUF_DEV_DIR=$BT/dev UDMABUF_FAKE_DEV_DIR=$BT/dev
export UDMABUF_FAKE_DEV_DIR
mode_of() { cat "$BT/class/udmabuf/$1/sync_mode"; }

run_fake bench --size 64K --reps 2 -r -n -o OP,O-SYNC,SYNC-MODE,SIZE,BASELINE -b
status_is 0 && [ ! -s "$ERR" ] && out_is "check_buf 0 1 65536 malloc
clear_buf 0 1 65536 malloc
sync_for_cpu 0 1 65536 getppid
sync_for_device 0 1 65536 getppid
check_buf 1 4 65536 malloc
clear_buf 1 4 65536 malloc
check_buf 1 5 65536 malloc
clear_buf 1 5 65536 malloc
check_buf 1 6 65536 malloc
clear_buf 1 6 65536 malloc
check_buf 1 7 65536 malloc
clear_buf 1 7 65536 malloc"
check "bench without NAME: the loops without and with O_SYNC for sync_mode 0..3, and the syncs"
[ "$(sed -n 's/^ioctl=alloc \([0-9]*\) 2000002 \([0-9]\) .*/\1:\2/p' "$T/writes" | tr '\n' ' ')" = \
	"65536:1 65536:4 65536:5 65536:6 65536:7 " ] &&
	grep -qx 'ioctl=sync_for_cpu 0 65536 0' "$T/writes" &&
	grep -qx 'ioctl=sync_for_device 0 65536 0' "$T/writes"
check "bench without NAME allocates a temporary buffer per mapping (O_SYNC: sync_mode | 4) and syncs it whole"
fake_exits 0 bench --reps 1 --sync-modes none -r -n -o OP,SIZE -b && out_is "check_buf 1048576
clear_buf 1048576
sync_for_cpu 1048576
sync_for_device 1048576" && [ "$(grep -c '^ioctl=alloc 1048576 ' "$T/writes")" -eq 1 ]
check "bench --sync-modes none: only the cached rows, 1M by default"
# As the sync checker sees it: each sync for the CPU gives back what a
# sync for the device gave, and the buffer is the CPU's at the end.
owner_ok() {
	awk '/^ioctl=sync_for_device /{ dev = 1 }
	     /^ioctl=sync_for_cpu / { if (!dev) bad = 1; dev = 0 }
	     END { exit bad || dev }' "$T/writes"
}
owner_ok &&
	[ "$(grep -c '^ioctl=sync_for_cpu ' "$T/writes")" -gt 1 ]
check "bench hands the buffer over as a program must: no sync for the CPU of what the device never had"
UDMABUF_SYNC_CHECK=on run_fake bench --reps 1 --sync-modes none
status_is 1 && [ ! -s "$OUT" ] && err_is "udmabufctl: bench: allocate a temporary buffer: Invalid argument
udmabufctl: hint: udmabuf alloc: UDMABUF_SYNC_CHECK='on' is not report, sigbus or off: Invalid argument"
check "a bad UDMABUF_SYNC_CHECK: bench says what is wrong with it"
unset UDMABUF_SYNC_CHECK

run_fake bench bench0 --size 64K --reps 3 -J -y
[ "$(mode_of bench0)" = 2 ]
check "bench NAME puts NAME's sync_mode back"
json_check "bench NAME -J -y exits 0: a row per loop and mapping, sync_mode and CACHE as the kernel says, ns and bytes/s, keys a shell can take" \
	benchmarks '
keys = {"op", "o_sync", "sync_mode", "cache", "size", "time", "min", "max",
	"rate", "baseline", "ratio"}
assert all(set(r) == keys for r in d), d[0]
got = [(r["op"], r["o_sync"], r["sync_mode"], r["cache"], r["baseline"]) for r in d]
want = [("check_buf", False, 2, "cached", "malloc"),
	("clear_buf", False, 2, "cached", "malloc"),
	("sync_for_cpu", False, 2, None, "getppid"),
	("sync_for_device", False, 2, None, "getppid")]
for m in range(4):
	want += [("check_buf", True, m, "write-combine", "malloc"),
		 ("clear_buf", True, m, "write-combine", "malloc")]
assert got == want, got
for r in d:
	assert r["size"] == 65536 and isinstance(r["time"], int), r
	assert 0 < r["min"] <= r["time"] <= r["max"], r
	assert r["ratio"] > 0 and isinstance(r["ratio"], float), r
	# TIME is rounded to the nanosecond, RATE is of the exact median.
	assert abs(r["rate"] - 65536e9 / r["time"]) <= r["rate"] * 1e-3, r
'
run_fake bench bench0 --size 8K --reps 1 --sync-modes 1 -r -n -o TIME,MIN,MAX,RATE,BASE-TIME -b
status_is 0 && [ "$(grep -cEx '[0-9]+ [0-9]+ [0-9]+ [0-9]+ [0-9]+' "$OUT")" -eq 6 ]
check "bench -b: times in nanoseconds, rates in bytes/s"
run_fake bench bench0 --size 8K --reps 1 --sync-modes 1 -r -n -o SIZE,TIME,RATE
status_is 0 && [ "$(grep -cEx '8K [0-9.]+(ns|us|ms|s) [0-9.]+[BKMGT]/s' "$OUT")" -eq 6 ]
check "bench without -b: human sizes, times and rates"

# The rows of --sync-modes 1 -r -n -o OP,O-SYNC,SYNC-MODE of a sync-always
# NAME: the cached ones at sync_mode 2, then those of the sync mode asked
SYNC_ALWAYS_ROWS="check_buf 0 2
clear_buf 0 2
sync_for_cpu 0 2
sync_for_device 0 2
check_buf 1 1
clear_buf 1 1"
printf '6\n' >"$BT/class/udmabuf/bench0/sync_mode"
run_fake bench bench0 --size 8K --reps 1 --sync-modes 1 -r -n -o OP,O-SYNC,SYNC-MODE
status_is 0 && out_is "$SYNC_ALWAYS_ROWS" && [ "$(mode_of bench0)" = 6 ]
check "bench of a sync-always NAME (6): the cached rows at 2, sync_mode 6 again after"
printf '2\n' >"$BT/class/udmabuf/bench0/sync_mode"

run_fake bench busy0
status_is 1 && [ ! -s "$OUT" ] && err_is "udmabufctl: busy0: bench: Device or resource busy
udmabufctl: hint: busy0 is open or mapped; bench would overwrite its data and change its sync_mode: close it first" &&
	[ "$(mode_of busy0)" = 2 ]
check "bench of a buffer in use is refused (exit 1), its sync_mode untouched"
fake_exits 1 bench bench0 --size 512K && [ ! -s "$OUT" ] &&
	err_is "udmabufctl: bench0: bench: --size 512K is more than the buffer's 256K" &&
	[ "$(mode_of bench0)" = 2 ]
check "bench --size beyond NAME is refused, nothing changed"
mv "$BT/class/udmabuf/bench0/dev" "$T/bench0.dev"	# the node is no longer its
run_fake bench bench0 --size 8K --reps 1
mv "$T/bench0.dev" "$BT/class/udmabuf/bench0/dev"
status_is 1 && [ ! -s "$OUT" ] && err_has "udmabufctl: bench0: open: " &&
	err_has "not a udmabuf-cfs device" && [ "$(mode_of bench0)" = 2 ]
check "bench NAME that cannot open its node says so and exits 1, its sync_mode back"
# Signals while it runs (bench catches SIGINT, SIGTERM, SIGHUP and SIGQUIT
# unless ignored): the sync_mode still comes back.
bench_item big0 33554432 22 sync_mode=6
# bench_bg RUNNER... ARGS: bench in the background, its pid in $pid, once
# it has set sync_mode 2 (the rows without O_SYNC come first) and its
# mode then in $mode.  sh starts it with SIGINT and SIGQUIT ignored, as a
# shell starts a background job; timeout(1) as the RUNNER catches them and
# passes them on to a bench that has their defaults.
bench_bg() {
	LD_PRELOAD=$SHIM "$@" >"$OUT" 2>"$ERR" &
	pid=$!
	for _ in $(seq 1 100); do
		[ "$(mode_of big0)" = 2 ] && break
		sleep 0.05
	done
	sleep 0.2
	mode=$(mode_of big0)
}
# No core file where a bench does not catch SIGQUIT (dash and bash have -c).
# shellcheck disable=SC3045
ulimit -c 0
for sig in INT TERM QUIT; do
	bench_bg timeout 600 "$BIN" bench big0 --size 32M --reps 100
	kill -"$sig" "$pid"
	wait "$pid"; rc=$?
	status_is 1 && [ ! -s "$OUT" ] && err_is "udmabufctl: big0: bench: interrupted" &&
		[ "$mode" != 6 ] && [ "$(mode_of big0)" = 6 ]
	check "bench NAME stopped by SIG$sig exits 1 and puts its sync_mode back"
done
bench_bg "$BIN" bench big0 --size 32M --reps 20 --sync-modes 1 -r -n -o OP,O-SYNC,SYNC-MODE
kill -INT "$pid"
wait "$pid"; rc=$?
status_is 0 && [ ! -s "$ERR" ] && [ "$mode" != 6 ] && [ "$(mode_of big0)" = 6 ] &&
	out_is "$SYNC_ALWAYS_ROWS"
check "bench started with SIGINT ignored (a background job) ignores it and finishes"
rm -r "$BT/config/udmabuf/big0" "$BT/class/udmabuf/big0" "$BT/dev/big0"

UDMABUF_FAKE_ERRNO=class/sync_mode=EACCES
export UDMABUF_FAKE_ERRNO
run_fake bench bench0 --size 8K --reps 1
# (the hint is for those who are not root)
status_is 1 && [ ! -s "$OUT" ] && ! grep -qs '^ioctl=sync_for' "$T/writes" &&
	[ "$(head -n 1 "$ERR")" = "udmabufctl: bench0: set sync_mode: Permission denied" ] &&
	if [ "$(id -u)" -eq 0 ]; then [ "$(wc -l <"$ERR")" -eq 1 ]; else
		[ "$(sed -n 2p "$ERR")" = "udmabufctl: hint: this needs root" ]; fi
check "bench NAME whose sync_mode may not be written fails before measuring"
run_fake bench bench0 --size 8K --reps 1 --sync-modes none -n -r -o OP
status_is 0 && [ "$(wc -l <"$OUT")" -eq 4 ]
check "bench NAME --sync-modes none needs no write of sync_mode"
unset UDMABUF_FAKE_ERRNO
UDMABUF_FAKE_ERRNO=alloc=ENOMEM run_fake bench --size 64M
status_is 1 && [ ! -s "$OUT" ] && err_is "udmabufctl: bench: allocate a temporary buffer: Cannot allocate memory
udmabufctl: hint: try a smaller --size, or name an existing buffer"
check "bench without NAME: a refused allocation is reported with a hint, exit 1"
rm "$BT/dev/udmabuf-cfs"
run_fake bench
status_is 1 && err_has "udmabufctl: bench: allocate a temporary buffer: No such file or directory" &&
	err_has "udmabufctl: hint: there is no $BT/dev/udmabuf-cfs"
check "bench without /dev/udmabuf-cfs says the module is missing or too old"

echo "1..$n"
[ "$failed" -eq 0 ]
