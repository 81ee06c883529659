#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#
# Host test of udmabufctl's "make install" into a DESTDIR (the program, its
# completion, its systemd unit and udmabufctl(8)), of "make uninstall", of
# what the program links (libudmabuf statically, nothing of it at run
# time) and of the guests' static build (dynamic but for libsmartcols and
# libc where there is no static libsmartcols, as on Debian). The library's
# own install is lib/libudmabuf/tests/test-install.sh's.
#
# usage: test-install.sh SRCDIR BUILDDIR [MAKE]   (prints TAP)
set -u
SRC=$(cd "$1" && pwd)
OUT=$(cd "$2" && pwd)
MAKE=${3:-make}
T=$(mktemp -d "${TMPDIR:-/tmp}/udmabufctl-install.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
D=$T/dest
n=0
status=0
: >"$T/log"

# RESULT NAME: a TAP line for the exit status of what ran just before,
# with the log of a failure; the log starts again.
result() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		status=1
		echo "not ok $n - $2"
		sed 's/^/#   /' "$T/log"
	fi
	: >"$T/log"
}
# The install paths are this script's, not a calling make's.
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL
mk() { $MAKE -s --no-print-directory -C "$SRC" O="$OUT" "$@" >>"$T/log" 2>&1; }

mk install PREFIX=/usr DESTDIR="$D"
result $? "make install PREFIX=/usr DESTDIR=... succeeds"

for f in usr/sbin/udmabufctl usr/share/bash-completion/completions/udmabufctl \
	 usr/lib/systemd/system/udmabuf.service usr/share/man/man8/udmabufctl.8; do
	[ -f "$D/$f" ] || echo "missing: $f" >>"$T/log"
done
grep -q '^ExecStart=/usr/sbin/udmabufctl ' "$D/usr/lib/systemd/system/udmabuf.service" ||
	echo "the unit does not run /usr/sbin/udmabufctl" >>"$T/log"
[ ! -s "$T/log" ]
result $? "the program, its completion, its unit (of the install-time SBINDIR) and udmabufctl(8) are installed"

readelf -dW "$D/usr/sbin/udmabufctl" | grep NEEDED >"$T/needed" 2>>"$T/log"
! grep -q libudmabuf "$T/needed" && grep -q 'libsmartcols\.so' "$T/needed" ||
	cat "$T/needed" >>"$T/log"
result $? "it links libudmabuf statically (no libudmabuf.so.1 needed) and libsmartcols"

mk uninstall PREFIX=/usr DESTDIR="$D" && [ -z "$(find "$D" ! -type d)" ] ||
	find "$D" ! -type d >>"$T/log"
result $? "make uninstall removes every installed file"

# The guests' build (tests/vm/run): udmabufctl is static only with a static
# libsmartcols, else it needs libsmartcols and libc and no other library.
SC_A=$(pkg-config --variable=libdir smartcols)/libsmartcols.a
mk O="$T/static" LDFLAGS=-static all && [ -x "$T/static/udmabufctl" ] &&
	if [ -e "$SC_A" ]; then
		! readelf -l "$T/static/udmabufctl" | grep -q INTERP
	else
		[ "$(readelf -dW "$T/static/udmabufctl" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' |
			grep -v '^libc\.so\.\|^ld-')" = libsmartcols.so.1 ]
	fi &&
	"$T/static/udmabufctl" --version >>"$T/log" 2>&1
result $? "LDFLAGS=-static builds udmabufctl (static but for libsmartcols and libc without libsmartcols.a)"

echo "1..$n"
exit $status
