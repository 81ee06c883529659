# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Host tests of the binding: what works without the module.

The directories libudmabuf looks in are replaced by empty temporary ones
(UDMABUF_CONFIGFS_DIR, UDMABUF_SYSFS_DIR, UDMABUF_DEV_DIR), so nothing of
this machine's is touched. The guest tests (tests/bats/python.bats) test
the binding against the real module. Run with libudmabuf.so.1 on the
loader's path, e.g. LD_LIBRARY_PATH=lib/libudmabuf.
"""

import errno
import os
import tempfile
import unittest
from unittest import mock

import udmabuf
from udmabuf import _libudmabuf


class _OldLibrary:
    """The real library as one of VERSION looks: without the functions
    added after it, nor those of MISSING."""

    def __init__(self, cdll, version, missing):
        self._cdll = cdll
        self._version = version
        self._missing = missing

    def __getattr__(self, name):
        since = _libudmabuf._OPTIONAL.get(name)
        if name in self._missing or (since is not None and since > self._version):
            raise AttributeError(f"{name}: undefined symbol (a {self._version} library)")
        return getattr(self._cdll, name)


def old_library(version="1.0", missing=()):
    """A context in which the binding loads libudmabuf as a library of
    VERSION (default 1.0) without the functions of MISSING."""
    lib = _libudmabuf._Lib()
    real = lib._open
    lib._open = lambda: _OldLibrary(real(), version, missing)
    return mock.patch.object(_libudmabuf, "lib", lib)


class TreeTest(unittest.TestCase):
    """A temporary directory self.root (as /proc/self/fd shows it:
    fake-configfs.so compares with that), the environment restored at
    cleanup."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.root = os.path.realpath(tmp.name)
        env = mock.patch.dict(os.environ)
        env.start()
        self.addCleanup(env.stop)

    def assertOSError(self, err, func, *args, says=()):
        """FUNC(*ARGS) raises OSError ERR, with each of SAYS in its message."""
        with self.assertRaises(OSError) as cm:
            func(*args)
        self.assertEqual(cm.exception.errno, err)
        for what in says:
            self.assertIn(what, str(cm.exception))

    def tree(self, **subs):
        """For each VAR=SUB: the directory ROOT/SUB, made, in VAR; returns
        {SUB: path}."""
        dirs = {}
        for var, sub in subs.items():
            dirs[sub] = os.environ[var] = os.path.join(self.root, sub)
            os.makedirs(dirs[sub], exist_ok=True)
        return dirs


class HostTest(TreeTest):
    def setUp(self):
        super().setUp()
        self.dirs = self.tree(UDMABUF_CONFIGFS_DIR="cfs", UDMABUF_SYSFS_DIR="sys",
                              UDMABUF_DEV_DIR="dev")

    def test_library_version(self):
        self.assertRegex(udmabuf.library_version(), r"^1\.\d+\.\d+$")

    def test_missing_buffer_is_file_not_found_naming_it(self):
        with self.assertRaises(FileNotFoundError) as cm:
            udmabuf.Buffer("nosuchbuf")
        self.assertEqual(cm.exception.errno, errno.ENOENT)
        self.assertIn("nosuchbuf: open", str(cm.exception))

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
        for shape in ((2.5,), (2, "3"), 1.0):     # a shape must be integers
            with self.subTest(shape=shape), self.assertRaises(TypeError):
                udmabuf.allocate(shape)

    def test_a_1_0_library_fails_only_what_needs_1_1(self):
        self.assertTrue(_libudmabuf.lib.has("udmabuf_alloc"),
                        "the library under test has no udmabuf_alloc")
        version = udmabuf.library_version()
        with old_library():
            self.assertFalse(_libudmabuf.lib.has("udmabuf_alloc"))
            self.assertTrue(_libudmabuf.lib.has("udmabuf_open"))
            # allocate()'s default needs udmabuf_alloc: a clear ENOSYS.
            self.assertOSError(errno.ENOSYS, udmabuf.allocate, 16,
                               says=("udmabuf_alloc()", f"libudmabuf {version}",
                                     "libudmabuf 1.1", "name=", "persistent=True"))
            # So does an allocator, also for a named buffer.
            self.assertOSError(errno.ENOSYS, lambda: udmabuf.allocate(
                16, name="pybuf", allocator="page"), says=("udmabuf_config_set_allocator()",))
            self.assertOSError(errno.ENOSYS, lambda: _libudmabuf.lib.udmabuf_flush)
            # What 1.0 has works (opening and named buffers: test_array.py's
            # test_a_1_0_library_makes_named_buffers).
            self.assertEqual(udmabuf.library_version(), version)
        self.assertTrue(_libudmabuf.lib.has("udmabuf_alloc"))

    def test_a_library_without_a_1_0_function_is_refused_at_load(self):
        with old_library(missing=("udmabuf_open",)):
            self.assertOSError(errno.ENOSYS, udmabuf.Buffer, "x", says=("udmabuf_open()",))


if __name__ == "__main__":
    unittest.main()
