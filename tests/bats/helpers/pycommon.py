# SPDX-License-Identifier: GPL-2.0
"""Shared helpers of tests/bats/python.bats and python-dma.bats: python3 - <<EOF scripts start
with "from pycommon import *" (PYTHONPATH is tests/bats/helpers)."""

import errno
import gc
import os
import subprocess
import sys

import numpy as np

import udmabuf

CFS = "/sys/kernel/config/udmabuf"
CLASS = "/sys/class/udmabuf"
PAGE = os.sysconf("SC_PAGESIZE")


def sh(*cmd):
    """stdout of CMD, which must succeed."""
    p = subprocess.run(cmd, capture_output=True, text=True)
    assert p.returncode == 0, f"{cmd}: exit {p.returncode}: {p.stdout}{p.stderr}"
    return p.stdout.strip()


def raises(exc, errname, fn, *args, **kwargs):
    """FN(*ARGS) must raise EXC (with errno ERRNAME unless None); returns
    the exception."""
    try:
        fn(*args, **kwargs)
    except exc as e:
        if errname is not None:
            got = errno.errorcode.get(e.errno, e.errno)
            assert got == errname, f"{fn}{args}: {got} ({e}), expected {errname}"
        return e
    raise AssertionError(f"{fn}{args} raised no {exc.__name__}")


def item_exists(name):
    return os.path.isdir(f"{CFS}/{name}")


def device_exists(name):
    return os.path.exists(f"/dev/{name}") or os.path.exists(f"{CLASS}/{name}")


def attr(name, a):
    with open(f"{CFS}/{name}/{a}") as f:
        return f.read().strip()


def ctl_dma_addr(name):
    """The DMA address as udmabufctl info shows it (DMA-ADDR: sysfs, root)."""
    return int(sh("udmabufctl", "info", "-n", "-r", "-o", "DMA-ADDR", name), 16)


def ctl_cpu_phys_addr(name):
    """The CPU physical address as udmabufctl info shows it (CPU-PHYS-ADDR:
    GET_INFO)."""
    return int(sh("udmabufctl", "info", "-n", "-r", "-o", "CPU-PHYS-ADDR", name), 16)


def fd_flags(fd):
    """The open flags of FD (/proc/self/fdinfo), an int."""
    with open(f"/proc/self/fdinfo/{fd}") as f:
        for line in f:
            if line.startswith("flags:"):
                return int(line.split()[1], 8)
    raise AssertionError(f"no flags in /proc/self/fdinfo/{fd}")


PARAMS = "/sys/module/udmabuf_cfs/parameters"


def cls_attr(name, a):
    """/sys/class/udmabuf/NAME/A, stripped."""
    with open(f"{CLASS}/{name}/{a}") as f:
        return f.read().strip()


def proc_bufs(pid=None):
    """The process-scoped buffers (class devices proc-PID-N) of process
    PID (default: this one), sorted."""
    pid = os.getpid() if pid is None else pid
    return sorted(n for n in os.listdir(CLASS) if n.startswith(f"proc-{pid}-"))


def process_used():
    """The module's process_used parameter: bytes process-scoped buffers
    hold."""
    with open(f"{PARAMS}/process_used") as f:
        return int(f.read())


def configfs_items():
    return sorted(n for n in os.listdir(CFS) if n != "features")


def assert_no_missing_sync(*arrays):
    """Each array's buffer has the sync checker on (the test set
    UDMABUF_SYNC_CHECK=report) and it reported nothing."""
    for a in arrays:
        assert a.sync_check == udmabuf.SYNC_CHECK_REPORT, (a.buffer.name, a.sync_check)
        assert a.sync_violations == 0, \
            f"{a.buffer.name}: {a.sync_violations} missing syncs (see the kernel log)"


EDU_N = 4032


def edu_copy(src, dst, view):
    """QEMU's edu (UDMABUF_EDU) copies a pattern of EDU_N bytes from SRC
    into VIEW, a view of DST: SRC's first EDU_N bytes (the pattern) and all
    of DST (0xee) are written and flushed first.  Returns the pattern."""
    edu = ["udmabuf-edu", "--pci", os.environ["UDMABUF_EDU"]]
    pattern = (np.arange(EDU_N, dtype=np.uint32) * 2654435761 >> 13).astype(np.uint8)
    src[:EDU_N] = pattern
    src.flush(0, EDU_N)
    dst[:] = 0xee
    dst.flush()
    assert sh(*edu, "to-dev", hex(src.physical_address), str(EDU_N)) == "OK"
    assert sh(*edu, "from-dev", hex(view.physical_address), str(EDU_N)) == "OK"
    return pattern
