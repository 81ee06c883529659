#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The installed packages in a guest (tests/deb/check boots it with
# tests/vm/run --installed /): the module DKMS built, the packaged
# udmabufctl, libudmabuf.so.1 and Python package, not the checkout's.
# tests/deb/check passes what it installed as UDMABUF_TEST_DEB_*.
# vm: needs python

# Variables such as cfs come from helpers/common.bash, stderr from bats' run.
# shellcheck disable=SC2154
load /tests/helpers/common

bats_require_minimum_version 1.5.0

setup() { common_setup; }
teardown() { common_teardown; }

@test "the loaded module is the one DKMS built (its build ID), of the package's version" {
	local note id
	[ -n "${UDMABUF_TEST_DEB_BUILD_ID:-}" ] || fail "tests/deb/check passes UDMABUF_TEST_DEB_BUILD_ID"
	# The GNU build-id note: name and descriptor sizes, type, "GNU\0",
	# then the ID itself.
	note=/sys/module/$MODNAME/notes/.note.gnu.build-id
	id=$(od -An -tx1 -v -j16 "$note" | tr -d ' \n') || fail "cannot read $note"
	[ "$id" = "$UDMABUF_TEST_DEB_BUILD_ID" ] ||
		fail "the loaded module's build ID is $id, DKMS built $UDMABUF_TEST_DEB_BUILD_ID"
	assert_attr "/sys/module/$MODNAME/version" "$UDMABUF_TEST_DEB_VERSION"
}

@test "udmabufctl is the packaged /usr/sbin/udmabufctl, reporting the package's and the module's versions" {
	run -0 command -v udmabufctl
	assert_output /usr/sbin/udmabufctl
	run -0 udmabufctl --version
	assert_line "udmabufctl $UDMABUF_TEST_DEB_VERSION"
	assert_line --regexp "^udmabuf-cfs module $UDMABUF_TEST_DEB_VERSION\$"
}

@test "the packaged udmabufctl creates, lists, syncs and deletes a buffer" {
	run -0 udmabufctl create pkg --size 64K
	assert_output /dev/pkg
	run -0 udmabufctl list pkg
	assert_line --regexp '^pkg +'
	run -0 udmabufctl sync pkg --for-device
	run -0 udmabufctl delete pkg
	[ ! -e /dev/pkg ] || fail "/dev/pkg is still there"
	[ ! -d "$cfs/pkg" ] || fail "the configfs item is still there"
}

@test "the packaged Python module loads the packaged library and allocates a buffer" {
	run --separate-stderr python3 -c '
import os, udmabuf
assert udmabuf.__file__ == "/usr/lib/python3/dist-packages/udmabuf/__init__.py", udmabuf.__file__
assert udmabuf.library_version() == "1.3.0", udmabuf.library_version()
lib = [l.split()[-1] for l in open("/proc/self/maps") if "libudmabuf.so" in l]
assert lib and all(p.startswith("/usr/lib/") for p in lib), lib
with udmabuf.allocate((4096,), dtype="u1") as a:
    a[:] = 7
    a.flush()
    assert int(a.sum()) == 7 * 4096
    print(hex(a.physical_address))
print("OK")'
	[ "$status" -eq 0 ] || fail "python3 exited $status: $output $stderr"
	assert_line OK
}
