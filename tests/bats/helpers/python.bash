# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# What the Python files (python.bats, python-dma.bats) share: the setup
# that puts back what a test changed, a non-root user in group udmabuf,
# the py runner and the edu ready for DMA.  Load after helpers/common and
# helpers/edu.
# Variables such as cfs come from helpers/common.bash, stderr from bats' run.
# shellcheck disable=SC2154
# A user for the non-root tests, member of the group udmabuf (made and
# removed here: the guest's /etc has root and nobody only).
PYUSER=udmabuf-py
PYUSER_UID=4711
PYGROUP_GID=4712

setup_file() {
	export PYTHONPATH=$BATS_TEST_DIRNAME/helpers
	# Byte code of the tests' own helpers: not written into /tests.
	export PYTHONDONTWRITEBYTECODE=1
}

PARAMS=/sys/module/$MODNAME/parameters

teardown() {
	# The user and group as_pyuser made, even when the test failed half-way.
	sed -i "/^$PYUSER:/d" /etc/passwd || true
	sed -i "/^udmabuf:/d" /etc/group || true
	common_teardown
}

# as_pyuser CMD ARGS...: run CMD as $PYUSER (not root; primary group
# nogroup, supplementary group udmabuf), made here.
as_pyuser() {
	grep -q "^$PYUSER:" /etc/passwd ||
		echo "$PYUSER:x:$PYUSER_UID:65534:udmabuf test user:/nonexistent:/bin/sh" >>/etc/passwd
	grep -q "^udmabuf:" /etc/group ||
		echo "udmabuf:x:$PYGROUP_GID:$PYUSER" >>/etc/group
	# shellcheck disable=SC2016 # expanded by the user's shell
	su -s /bin/sh -c 'exec "$0" "$@"' -- "$PYUSER" "$@"
}

# node_for_group: /dev/udmabuf-cfs as the shipped udev rule makes it
# (group udmabuf, 0660).
node_for_group() {
	as_pyuser true
	give_node udmabuf
}

process_used() {
	local v
	read -r v <"$PARAMS/process_used" || fail "no $PARAMS/process_used"
	echo "$v"
}

# py: run the python3 script on stdin (after "from pycommon import *"),
# which prints OK at its end; fails with the script's output otherwise.
py() {
	run --separate-stderr python3 -X faulthandler -c "from pycommon import *
$(cat)"
	if [ "$status" -ne 0 ] || [ "$output" != OK ]; then
		fail "$(printf 'python3 exited %s\nstdout: %s\nstderr: %s' "$status" "$output" "$stderr")"
	fi
}

# The edu at $UDMABUF_EDU bound to uio_pci_generic (helpers/edu.bash), and
# answering.
edu_ready() {
	edu_present "$UDMABUF_EDU" || fail "no edu at $UDMABUF_EDU"
	run -0 "$ED" --pci "$UDMABUF_EDU" probe
}
