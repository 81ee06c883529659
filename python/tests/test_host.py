# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Host tests of the binding: what works without the module.

The directories libudmabuf looks in are replaced by empty temporary ones
(UDMABUF_CONFIGFS_DIR, UDMABUF_SYSFS_DIR, UDMABUF_DEV_DIR), so nothing of
this machine's is touched. The guest tests (tests/bats/python.bats) test
the binding against the real module. Run with libudmabuf.so.1 on the
loader's path, e.g. LD_LIBRARY_PATH=tools/udmabufctl.
"""

import errno
import os
import tempfile
import unittest
from unittest import mock

import numpy as np

import udmabuf


class HostTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.dirs = {}
        # The whole environment comes back at cleanup (stdlib).
        env = mock.patch.dict(os.environ)
        env.start()
        self.addCleanup(env.stop)
        for var, sub in (("UDMABUF_CONFIGFS_DIR", "cfs"),
                         ("UDMABUF_SYSFS_DIR", "sys"),
                         ("UDMABUF_DEV_DIR", "dev")):
            d = os.path.join(self.tmp.name, sub)
            os.mkdir(d)
            self.dirs[sub] = d
            os.environ[var] = d

    def test_library_version(self):
        self.assertRegex(udmabuf.library_version(), r"^1\.\d+\.\d+$")

    def test_missing_buffer_is_file_not_found_naming_it(self):
        with self.assertRaises(FileNotFoundError) as cm:
            udmabuf.Buffer("nosuchbuf")
        self.assertEqual(cm.exception.errno, errno.ENOENT)
        self.assertIn("nosuchbuf: open", str(cm.exception))

    def test_a_file_that_is_no_buffer_is_enotty(self):
        with self.assertRaises(OSError) as cm:
            udmabuf.Buffer("/dev/null")
        self.assertEqual(cm.exception.errno, errno.ENOTTY)
        self.assertIn("/dev/null", str(cm.exception))

    def test_allocate_failure_leaves_nothing_behind(self):
        # An empty directory is no configfs: mkdir works, the attribute
        # files are missing.
        with self.assertRaises(OSError) as cm:
            udmabuf.allocate((16,), name="pybuf")
        self.assertIn("pybuf", str(cm.exception))
        self.assertEqual(os.listdir(self.dirs["cfs"]), [])

    def test_cacheable_contradicting_sync_mode_is_refused(self):
        for sync_mode, cacheable in ((4, True), (7, True), (0, False), (4, False)):
            with self.subTest(sync_mode=sync_mode, cacheable=cacheable):
                with self.assertRaises(ValueError):
                    udmabuf.allocate(16, sync_mode=sync_mode, cacheable=cacheable)
        self.assertEqual(os.listdir(self.dirs["cfs"]), [])

    def test_bad_shapes_and_values_are_refused(self):
        with self.assertRaises(ValueError):
            udmabuf.allocate((-1, 4))
        with self.assertRaises(TypeError):
            udmabuf.allocate(16, dma_mask="32")
        with self.assertRaises(TypeError):
            udmabuf.allocate(16, dtype="no such dtype")

    def test_arrays_not_on_a_buffer_have_no_address(self):
        a = np.zeros(8).view(udmabuf.BufferArray)
        for what in (lambda: a.physical_address, a.flush, a.invalidate,
                     a.freebuffer):
            with self.subTest(what=what):
                with self.assertRaises(ValueError):
                    what()


if __name__ == "__main__":
    unittest.main()
