#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#
# Host test of the library's "make install" and of the shared library as
# installed: a DESTDIR install into a temporary directory (files, symlinks,
# SONAME, exported symbols and their version, the pkg-config file of the
# PREFIX given at install time), the example compiled and linked against
# the installed copy through pkg-config, ldconfig only without DESTDIR, the
# uninstall, and the guests' static build.
#
# usage: test-install.sh SRCDIR BUILDDIR [MAKE]   (prints TAP)
set -u
SRC=$(cd "$1" && pwd)
OUT=$(cd "$2" && pwd)
MAKE=${3:-make}
T=$(mktemp -d "${TMPDIR:-/tmp}/libudmabuf-install.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
D=$T/dest
n=0
status=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1)); status=1; echo "not ok $n - $1"
	[ -s "$T/log" ] && sed 's/^/#   /' "$T/log"
	return 0
}
# COND; check NAME
check() { if [ $? -eq 0 ]; then ok "$1"; else not_ok "$1"; fi; : >"$T/log"; }
# The install paths are this script's: none from a calling make's command
# line (MAKEFLAGS passes those on to every sub-make).
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL
mk() { $MAKE -s --no-print-directory -C "$SRC" O="$OUT" "$@" >>"$T/log" 2>&1; }

: >"$T/log"
# The build (made by "make check" with the default PREFIX) is installed
# with another: the pkg-config file must say the install-time one.
mk install PREFIX=/usr LIBDIR=/usr/lib/multi DESTDIR="$D" LDCONFIG="touch $T/ldconfig-ran"
check "make install PREFIX=/usr DESTDIR=... succeeds"
[ ! -e "$T/ldconfig-ran" ]
check "ldconfig is not run with DESTDIR"

L=$D/usr/lib/multi
# The library's version: 1.3 added the sync checker.
V=1.3.0
[ -f "$L/libudmabuf.so.$V" ] && [ ! -L "$L/libudmabuf.so.$V" ] &&
	[ "$(readlink "$L/libudmabuf.so.1")" = "libudmabuf.so.$V" ] &&
	[ "$(readlink "$L/libudmabuf.so")" = libudmabuf.so.1 ]
check "libudmabuf.so.$V with the symlinks libudmabuf.so.1 and libudmabuf.so"
readelf -d "$L/libudmabuf.so.$V" >"$T/dyn" 2>&1 &&
	grep -q 'Library soname: \[libudmabuf.so.1\]' "$T/dyn"
check "its SONAME is libudmabuf.so.1"
for f in usr/include/udmabuf.h usr/lib/multi/pkgconfig/udmabuf.pc \
	 usr/share/man/man3/libudmabuf.3 \
	 usr/share/man/man3/udmabuf_open.3 usr/share/man/man3/udmabuf_sync_for_cpu.3; do
	[ -f "$D/$f" ] || echo "missing: $f" >>"$T/log"
done
[ ! -s "$T/log" ]
check "header, pkg-config file and man pages are installed"
# Every function of udmabuf.h has a page (its own or a .so alias).
sed -n 's/^[a-z].*[ *]\(udmabuf_[a-z_]*\)(.*/\1/p' "$SRC/udmabuf.h" | sort >"$T/api"
for f in $(cat "$T/api"); do
	[ -f "$D/usr/share/man/man3/$f.3" ] || echo "no page: $f" >>"$T/log"
done
[ -s "$T/api" ] && [ ! -s "$T/log" ]
check "every function of udmabuf.h has a section-3 page ($(wc -l <"$T/api") functions)"

grep -qx 'prefix=/usr' "$L/pkgconfig/udmabuf.pc" &&
	grep -qx 'libdir=/usr/lib/multi' "$L/pkgconfig/udmabuf.pc" &&
	grep -qx 'includedir=/usr/include' "$L/pkgconfig/udmabuf.pc" &&
	grep -qx "Version: $V" "$L/pkgconfig/udmabuf.pc"
check "the pkg-config file has the install-time prefix, libdir and the library's version"
flags=$(PKG_CONFIG_PATH=$L/pkgconfig PKG_CONFIG_SYSROOT_DIR=$D pkg-config --cflags --libs udmabuf 2>>"$T/log" | sed "s/ *$//")
[ "$flags" = "-I$D/usr/include -L$D/usr/lib/multi -ludmabuf" ] || echo "flags: $flags" >>"$T/log"
[ ! -s "$T/log" ]
check "pkg-config --cflags --libs udmabuf points into the installed tree"

nm -D --defined-only "$L/libudmabuf.so.$V" >"$T/nm" 2>>"$T/log"
awk '$2 == "T" || $2 == "D" || $2 == "B" || $2 == "W"' "$T/nm" >"$T/syms"
! grep -v '@@LIBUDMABUF_1\.[0123]$' "$T/syms" >>"$T/log"
check "every exported symbol is versioned LIBUDMABUF_1.0, 1.1, 1.2 or 1.3"
# The ABI of 1.0 as released: a symbol added to, moved out of or dropped
# from that node breaks the programs linked against it.
# node_is N NAME: the symbols of LIBUDMABUF_1.N are those on stdin
node_is() {
	cat >"$T/node"
	sed -n "s/.* \([^ @]*\)@@LIBUDMABUF_1\.$1\$/\1/p" "$T/syms" | sort |
		diff "$T/node" - >>"$T/log"
	check "$2"
}
node_is 0 "LIBUDMABUF_1.0 is the released 1.0 ABI, unchanged" <<'EOF'
udmabuf_close
udmabuf_config_free
udmabuf_config_new
udmabuf_config_set_attr
udmabuf_config_set_device_name
udmabuf_config_set_dma_device
udmabuf_config_set_dma_mask
udmabuf_config_set_minor
udmabuf_config_set_mode
udmabuf_config_set_phys_addr
udmabuf_config_set_size
udmabuf_config_set_sync_mode
udmabuf_create
udmabuf_destroy
udmabuf_export_dmabuf
udmabuf_get_dma_addr
udmabuf_get_driver_version
udmabuf_get_fd
udmabuf_get_flags
udmabuf_get_minor
udmabuf_get_name
udmabuf_get_phys_addr
udmabuf_get_size
udmabuf_get_sync_mode
udmabuf_last_error
udmabuf_library_version
udmabuf_map
udmabuf_module_has_feature
udmabuf_open
udmabuf_open_fd
udmabuf_parse_size
udmabuf_sync_for_cpu
udmabuf_sync_for_device
udmabuf_unmap
EOF
node_is 1 "LIBUDMABUF_1.1 has what 1.1 added: the CPU physical address, alloc, flush and invalidate, unmap through the handle, the listing" <<'EOF'
udmabuf_alloc
udmabuf_config_set_allocator
udmabuf_entry_get_allocator
udmabuf_entry_get_cpu_phys_addr
udmabuf_entry_get_dev_path
udmabuf_entry_get_dma_addr
udmabuf_entry_get_item
udmabuf_entry_get_name
udmabuf_entry_get_origin
udmabuf_entry_get_owner
udmabuf_entry_get_size
udmabuf_entry_get_sync_mode
udmabuf_entry_is_enabled
udmabuf_flush
udmabuf_get_cpu_phys_addr
udmabuf_invalidate
udmabuf_listing_count
udmabuf_listing_free
udmabuf_listing_get
udmabuf_listing_new
udmabuf_unmap_mapping
EOF
node_is 2 "LIBUDMABUF_1.2 has what 1.2 added: directories, probe, module version, the failed step, listings by field and by name, the other getters" <<'EOF'
udmabuf_configfs_dir
udmabuf_dev_dir
udmabuf_entry_get_cache_mode
udmabuf_entry_get_cache_mode_sync
udmabuf_entry_get_config_minor
udmabuf_entry_get_devno
udmabuf_entry_get_dma_coherent
udmabuf_entry_get_dma_device
udmabuf_entry_get_dma_mask
udmabuf_entry_get_mode
udmabuf_entry_get_placement
udmabuf_entry_get_users
udmabuf_last_error_step
udmabuf_listing_new_fields
udmabuf_listing_new_name
udmabuf_module_version
udmabuf_probe
udmabuf_sysfs_dir
EOF
node_is 3 "LIBUDMABUF_1.3 has what 1.3 added: the sync checker's setter and getters" <<'EOF'
udmabuf_config_set_sync_check
udmabuf_entry_get_sync_check
udmabuf_entry_get_sync_violations
udmabuf_get_sync_check
udmabuf_get_sync_violations
EOF
sed 's/.* \([^ @]*\)@@.*/\1/' "$T/syms" | sort >"$T/exported"
diff "$T/api" "$T/exported" >>"$T/log"
check "the exported symbols are exactly the functions of udmabuf.h"

cc -std=c99 -Wall -Wextra -Werror -pedantic -o "$T/example" \
	"$SRC/examples/udmabuf-example.c" $flags >>"$T/log" 2>&1
check "the example compiles and links against the installed copy"
readelf -d "$T/example" 2>&1 | grep -q 'Shared library: \[libudmabuf.so.1\]'
check "it needs libudmabuf.so.1"
LD_LIBRARY_PATH=$L "$T/example" >"$T/out" 2>&1
[ $? -eq 2 ] && grep -q '^usage: udmabuf-example' "$T/out" &&
	LD_LIBRARY_PATH=$L ldd "$T/example" | grep -q "libudmabuf.so.1 => $L/libudmabuf.so.1"
check "it runs with the installed library"

mk uninstall PREFIX=/usr LIBDIR=/usr/lib/multi DESTDIR="$D" LDCONFIG=true &&
	[ -z "$(find "$D" ! -type d)" ] || find "$D" ! -type d >>"$T/log"
check "make uninstall removes every installed file"

# Without DESTDIR, ldconfig runs (a PREFIX in the temporary directory).
mk install PREFIX="$T/root" LDCONFIG="touch $T/ldconfig-ran" &&
	[ -e "$T/ldconfig-ran" ] && [ -f "$T/root/lib/libudmabuf.so.$V" ]
check "ldconfig runs when installing without DESTDIR"

# The guests' build (tests/vm/run): static, no shared library.
$MAKE -s --no-print-directory -C "$SRC" O="$T/static" LDFLAGS=-static all \
	>>"$T/log" 2>&1 && [ -f "$T/static/libudmabuf.a" ] &&
	[ ! -e "$T/static/libudmabuf.so.$V" ]
check "LDFLAGS=-static builds libudmabuf.a and no shared library"
nm -g --defined-only "$T/static/libudmabuf.a" 2>>"$T/log" |
	awk 'NF == 3 { print $3 }' | sort >"$T/static-syms"
diff "$T/api" "$T/static-syms" >>"$T/log"
check "libudmabuf.a defines the functions of udmabuf.h, no other global symbol"
! readelf -l "$T/static/examples/udmabuf-example" 2>>"$T/log" | grep -q INTERP &&
	{ "$T/static/examples/udmabuf-example" >>"$T/log" 2>&1; [ $? -eq 2 ]; }
check "and a static example, for the guests"

echo "1..$n"
exit $status
