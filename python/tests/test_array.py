# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Host tests of allocate() and BufferArray on a fake module.

libudmabuf's fake-configfs.so must be preloaded (what it fakes: the header
of lib/libudmabuf/tests/fake-configfs.c); without it these tests are
skipped. Its process-scoped buffers (proc-PID-N files), unlike the kernel's,
stay when closed, so these tests check that the binding closes and unmaps
them. tests/python/check runs this file with it, under the host's NumPy 1
and sid's NumPy 2 (it checks that each run has the NumPy it is for), and
fails if anything was skipped.
"""

import collections
import contextlib
import errno
import fcntl
import gc
import mmap
import os
import unittest
from unittest import mock

import numpy as np

import udmabuf

from .test_host import TreeTest, old_library

PAGE = mmap.PAGESIZE
DMA = 0x80000000            # the DMA address the fake gives every buffer
CPU = 0x3f000000            # and its CPU physical address
# An ALLOC ioctl as the fake logs it.
Alloc = collections.namedtuple("Alloc", "size flags sync_mode dma_bits allocator dma_device")


def numpy_byte_bounds(a):
    """NumPy's own byte_bounds: np.byte_bounds before 2.0, then
    np.lib.array_utils.byte_bounds."""
    au = getattr(np.lib, "array_utils", None)
    return (au.byte_bounds if au is not None else np.byte_bounds)(a)


class FakeModuleTest(TreeTest):
    @classmethod
    def setUpClass(cls):
        if "fake-configfs.so" not in os.environ.get("LD_PRELOAD", ""):
            # tests/python/check preloads it and fails on any skip.
            raise unittest.SkipTest("needs lib/libudmabuf/tests/fake-configfs.so "
                                    "in LD_PRELOAD")

    def setUp(self):
        super().setUp()
        d = self.tree(UDMABUF_CONFIGFS_DIR="config", UDMABUF_SYSFS_DIR="class",
                      UDMABUF_DEV_DIR="dev", UDMABUF_FAKE_DEV_DIR="dev")
        self.cfs, self.class_dir, self.dev = d["config"], d["class"], d["dev"]
        self.logfile = os.path.join(self.root, "log")
        with open(os.path.join(self.cfs, "features"), "w") as f:
            f.write("allocator,dev,device_name,dma_device,dma_mask,enable,"
                    "minor,mode,phys_addr,size,sync_check,sync_mode\n")
        # The fake /dev/udmabuf-cfs.
        open(os.path.join(self.dev, "udmabuf-cfs"), "w").close()
        os.environ.update(UDMABUF_FAKE_LOG=self.logfile, UDMABUF_FAKE_DMA_ADDR=hex(DMA),
                          UDMABUF_FAKE_PHYS_ADDR=hex(CPU))
        for var in ("UDMABUF_FAKE_INFO_FLAGS", "UDMABUF_SYNC_CHECK"):
            os.environ.pop(var, None)
        self.log()          # the write of features: each test's log starts empty

    def log(self):
        """The fake's log lines since the last call."""
        try:
            with open(self.logfile) as f:
                lines = f.read().splitlines()
        except FileNotFoundError:
            return []
        os.unlink(self.logfile)
        return lines

    def syncs(self):
        """The sync ioctls since the last call, as (what, offset, size,
        direction)."""
        out = []
        for line in self.log():
            if line.startswith("ioctl=sync_"):
                what, off, size, d = line[len("ioctl="):].split()
                out.append((what, int(off), int(size), int(d)))
        return out

    def allocs(self):
        """The ALLOC ioctls since the last call, as Allocs; their
        sync_check fields go to self.checks."""
        out = []
        self.checks = []
        for line in self.log():
            if line.startswith("ioctl=alloc "):
                line, _, check = line.partition(" sync_check=")
                self.checks.append(int(check or 0))
                f = line[len("ioctl=alloc "):].split(" ", 5)
                out.append(Alloc(int(f[0]), int(f[1], 8), *map(int, f[2:5]), f[5]))
        return out

    def items(self):
        return sorted(n for n in os.listdir(self.cfs) if n != "features")

    def nodes(self):
        """The fake's device nodes of configfs buffers."""
        return sorted(n for n in os.listdir(self.dev)
                      if n != "udmabuf-cfs" and not n.startswith("proc-"))

    def procs(self):
        """The files the fake made for process-scoped buffers."""
        return sorted(n for n in os.listdir(self.dev) if n.startswith("proc-"))

    def proc_names(self, paths):
        """The names of the fake's process-scoped buffers among PATHS."""
        prefix = os.path.join(self.dev, "proc-")
        return sorted(os.path.basename(p) for p in paths if p.startswith(prefix))

    def open_procs(self):
        """The process-scoped buffers this process has a file of open."""
        return self.proc_names(os.path.realpath(f"/proc/self/fd/{fd}")
                               for fd in os.listdir("/proc/self/fd"))

    def mapped_procs(self):
        """The process-scoped buffers this process maps."""
        with open("/proc/self/maps") as f:
            return sorted(set(self.proc_names(line.split(None, 5)[-1].strip() for line in f)))

    def assertNothingLeft(self):
        """No configfs item or node; of a process-scoped buffer nothing but
        what its arrays hold: the mapping and the mmap object's own
        duplicate of the file (Python's mmap keeps one), which go with the
        last array (the kernel frees the memory then)."""
        self.assertEqual(self.items(), [])
        self.assertEqual(self.nodes(), [])
        opened = self.open_procs()
        self.assertEqual(len(opened), len(set(opened)), f"a handle is still open: {opened}")
        self.assertLessEqual(set(opened), set(self.mapped_procs()))

    def assertGone(self):
        """Nothing of a process-scoped buffer left in this process: no file,
        no mapping."""
        gc.collect()
        self.assertEqual((self.open_procs(), self.mapped_procs()), ([], []))

    def held(self, a):
        """What an allocated buffer holds: the handle's file and the mmap
        object's duplicate of it."""
        return [a.buffer.name] * 2

    def assertProcessScoped(self, a, *, cacheable=True):
        """A's buffer is process-scoped: the fake's proc-PID-N file, open
        once, no configfs item or node."""
        b = a.buffer
        self.assertRegex(b.name, rf"^proc-{os.getpid()}-\d+$")
        self.assertIs(b.process_scoped, True)
        self.assertIsNone(b.path)
        self.assertIsNone(b.minor)
        self.assertIs(b.cacheable, cacheable)
        self.assertIn(b.name, self.procs())
        self.assertEqual(os.readlink(f"/proc/self/fd/{b.fileno()}"),
                         os.path.join(self.dev, b.name))
        self.assertEqual(self.items(), [])
        self.assertEqual(self.nodes(), [])

    def assertSyncs(self, a, offset, size):
        """Each of A's four syncs is one ioctl of SIZE bytes at OFFSET in
        the buffer (none if SIZE is 0)."""
        self.log()
        for f in (a.flush, a.sync_to_device, a.invalidate, a.sync_from_device):
            f()
        to, back = ("sync_for_device", offset, size, udmabuf.DIR_TO_DEVICE), \
            ("sync_for_cpu", offset, size, udmabuf.DIR_FROM_DEVICE)
        self.assertEqual(self.syncs(), [to, to, back, back] if size else [])

    # -- PYNQ's calls ------------------------------------------------------

    # The ALLOC ioctl allocate() makes by default: read-write,
    # close-on-exec, sync_mode 1, the module's DMA mask, allocator and
    # device.
    ALLOC = Alloc(PAGE, os.O_RDWR | os.O_CLOEXEC, 1, 0, 0, "")

    def alloc_req(self, **kw):
        return self.ALLOC._replace(**kw)

    def test_pynq_positional_call_is_process_scoped(self):
        a = udmabuf.allocate((1024,), 'u4')
        self.assertIs(type(a), udmabuf.BufferArray)
        self.assertIsInstance(a, np.ndarray)
        self.assertEqual((a.shape, a.dtype), ((1024,), np.dtype(np.uint32)))
        self.assertEqual(self.allocs(), [self.alloc_req(size=-(-4096 // PAGE) * PAGE)])
        self.assertProcessScoped(a)
        self.assertEqual(a.buffer.size, -(-4096 // PAGE) * PAGE)
        a[:] = np.arange(1024)
        self.assertEqual(int(a[1023]), 1023)
        self.assertEqual(self.mapped_procs(), [a.buffer.name])
        a.freebuffer()
        self.assertNothingLeft()
        self.assertEqual(int(a[1023]), 1023, "the array's memory went with the buffer")
        # The mapping goes with the last array.
        del a
        self.assertGone()

    def test_pynq_keyword_call_not_cacheable(self):
        a = udmabuf.allocate(shape=(4, 4), dtype=np.uint8, cacheable=False)
        self.assertEqual((a.shape, a.dtype), ((4, 4), np.dtype(np.uint8)))
        self.assertIs(a.cacheable, False)
        # Not cacheable: the library asks for sync_mode 1 | 4, the buffer's
        # file itself is never O_SYNC.
        self.assertEqual(self.allocs(), [self.alloc_req(sync_mode=5)])
        self.assertProcessScoped(a, cacheable=False)
        self.assertFalse(self.fd_flags(a) & os.O_SYNC)
        # PYNQ's own calls pass 0 and 1.
        b = udmabuf.allocate((4, 4), np.uint8, None, cacheable=0)
        self.assertIs(b.cacheable, False)
        c = udmabuf.allocate(16, cacheable=1)
        self.assertIs(c.cacheable, True)
        d = udmabuf.allocate(16, cacheable=False, sync_mode=2)
        e = udmabuf.allocate(16, sync_mode=3)
        self.assertEqual(self.allocs(), [self.alloc_req(sync_mode=m) for m in (5, 1, 6, 3)])
        for x in (b, c, d, e):
            self.assertProcessScoped(x, cacheable=x is c or x is e)

    def test_named_not_cacheable_opens_with_o_sync(self):
        a = udmabuf.allocate(16, cacheable=False, name="nc")
        self.assertIs(a.cacheable, False)
        self.assertTrue(self.fd_flags(a) & os.O_SYNC)
        self.assertIn("sync_mode=1", self.log())
        c = udmabuf.allocate(16, cacheable=1, name="c")
        self.assertFalse(self.fd_flags(c) & os.O_SYNC)

    @staticmethod
    def fd_flags(a):
        return fcntl.fcntl(a.buffer.fileno(), fcntl.F_GETFL)

    def test_default_dtype_and_int_shape(self):
        a = udmabuf.allocate(10)
        self.assertEqual((a.shape, a.dtype), ((10,), np.dtype("u4")))
        b = udmabuf.allocate(np.int64(3), dtype=np.float64)
        self.assertEqual((b.shape, b.dtype), ((3,), np.dtype(np.float64)))

    def test_target_none_or_pynq_object_is_the_module_default(self):
        class Device:       # what PYNQ passes: a device or a memory bank
            pass
        udmabuf.allocate(16, "u4", Device())
        udmabuf.allocate(16, "u4", None)
        self.assertEqual(self.allocs(), [self.ALLOC] * 2)
        udmabuf.allocate(16, "u4", Device(), name="n")
        self.assertNotIn("dma_device", "".join(self.log()))

    def test_target_string_is_the_dma_device(self):
        with self.assertRaises(ValueError):
            udmabuf.allocate(16, target="pci/0000:01:00.0",
                             dma_device="pci/0000:02:00.0")
        self.assertEqual(self.log(), [])
        a = udmabuf.allocate(16, target="pci/0000:01:00.0")
        b = udmabuf.allocate(16, "u4", b"platform/a0000000.dma")
        c = udmabuf.allocate(16, dma_device="pci/0000:02:00.0")
        self.assertEqual(self.allocs(), [self.alloc_req(dma_device=d) for d in (
            "pci/0000:01:00.0", "platform/a0000000.dma", "pci/0000:02:00.0")])
        d = udmabuf.allocate(16, target="pci/0000:01:00.0", name="n")
        self.assertIn("dma_device=pci/0000:01:00.0", self.log())
        self.assertEqual(len(self.procs() + self.items()), 4, (a, b, c, d))

    def test_dma_mask_and_allocator_reach_the_request(self):
        for i, name in enumerate(("auto", "page", "contig", "cma")):
            udmabuf.allocate(16, allocator=name)
            self.assertEqual(self.allocs(), [self.alloc_req(allocator=i)], name)
        udmabuf.allocate(16, dma_mask=40, allocator="")
        udmabuf.allocate(16, dma_mask=np.uint8(64))
        self.assertEqual(self.allocs(), [self.alloc_req(dma_bits=b) for b in (40, 64)])
        # A named buffer's allocator is its configfs attribute.
        udmabuf.allocate(16, name="n", allocator="cma")
        self.assertIn("allocator=cma", self.log())

    def test_sync_check_reaches_the_request_and_the_item(self):
        for value, mode in ((True, 1), ("report", 1), ("sigbus", 2), (2, 2),
                            (udmabuf.SYNC_CHECK_REPORT, 1), (False, 0), ("off", 0),
                            (None, 0)):
            with self.subTest(sync_check=value):
                a = udmabuf.allocate(16, sync_check=value)
                self.assertEqual(self.allocs(), [self.alloc_req()])
                self.assertEqual(self.checks, [mode])
                # The fake's GET_INFO tells what the request asked for.
                self.assertEqual((a.sync_check, a.buffer.sync_check), (mode, mode))
                a.freebuffer()
        # A named buffer's is its configfs attribute, written only when on.
        udmabuf.allocate(16, name="n", sync_check="sigbus").freebuffer()
        self.assertIn("sync_check=2", self.log())
        udmabuf.allocate(16, name="n", sync_check=False).freebuffer()
        self.assertNotIn("sync_check", " ".join(self.log()))
        self.assertNothingLeft()

    def test_sync_check_values_it_does_not_know_are_refused(self):
        for value, exc in (("loud", ValueError), ("1", ValueError), (1.5, TypeError),
                           ([1], TypeError)):
            with self.subTest(sync_check=value), self.assertRaises(exc) as cm:
                udmabuf.allocate(16, sync_check=value)
            self.assertIn("sync_check", str(cm.exception))
        self.assertEqual(self.log(), [])
        self.assertNothingLeft()

    def test_sync_violations_are_the_modules_count(self):
        a = udmabuf.allocate((4, 4), "u4", sync_check=True)
        path = os.path.join(self.class_dir, a.buffer.name, "sync_violations")
        self.assertEqual((a.sync_violations, a[1:].sync_violations), (0, 0))
        with open(path, "w") as f:
            f.write("5\n")
        self.assertEqual((a.sync_violations, a[2, 1:].sync_violations,
                          a.buffer.sync_violations), (5, 5, 5))
        a.freebuffer()
        with self.assertRaises(ValueError):
            a.sync_violations
        with self.assertRaises(ValueError):
            np.zeros(4).view(udmabuf.BufferArray).sync_violations

    def test_a_1_2_library_has_no_sync_check_and_says_so(self):
        with old_library("1.2"):
            self.assertOSError(errno.ENOSYS, lambda: udmabuf.allocate(16, sync_check=True),
                               says=("udmabuf_config_set_sync_check()", "libudmabuf 1.3"))
            self.assertEqual(self.allocs(), [])
            # Off needs no setter; the rest works, the count says ENOSYS.
            a = udmabuf.allocate(16, sync_check=False)
            self.assertEqual(self.allocs(), [self.alloc_req()])
            self.assertOSError(errno.ENOSYS, lambda: a.sync_violations,
                               says=("udmabuf_get_sync_violations()",))
            a.freebuffer()
        self.assertNothingLeft()

    def test_unknown_keyword_is_type_error_and_leaves_nothing(self):
        with self.assertRaises(TypeError) as cm:
            udmabuf.allocate(16, cachable=False)
        self.assertIn("cachable", str(cm.exception))
        self.assertEqual(self.log(), [])
        self.assertNothingLeft()

    def test_what_only_a_named_buffer_has_is_refused_without_a_name(self):
        for kw in ({"mode": 0o660}, {"minor": 2}, {"phys_addr": 0x10000000},
                   {"mode": 0o660, "minor": 2}):
            with self.subTest(kw=kw), self.assertRaises(ValueError) as cm:
                udmabuf.allocate(16, **kw)
            for k in kw:
                self.assertIn(k, str(cm.exception))
            self.assertIn("name=", str(cm.exception))
        self.assertEqual(self.log(), [])
        a = udmabuf.allocate(16, name="m", mode=0o660, minor=2)
        self.assertEqual([x for x in self.log() if x[:5] in ("mode=", "minor")],
                         ["minor=2", "mode=0660"])
        b = udmabuf.allocate(16, persistent=True, mode=0o640)
        self.assertIn("mode=0640", self.log())
        self.assertEqual(len(self.items()), 2, (a, b))

    def test_object_dtypes_are_refused_before_anything_is_made(self):
        # Their elements are pointers: what a device wrote would be
        # dereferenced.
        b = udmabuf.allocate(16).buffer
        self.log()
        makers = (lambda d: udmabuf.allocate(4, d), lambda d: b.array(2, d),
                  lambda d: udmabuf.allocate(4, d, persistent=True),
                  lambda d: b.array(dtype=d))
        for dtype in (object, "O", [("x", "u8"), ("o", "O")], ("O", 2)):
            for i, make in enumerate(makers):
                with self.subTest(dtype=dtype, maker=i), \
                        self.assertRaisesRegex(ValueError, "object arrays cannot"):
                    make(dtype)
        self.assertEqual((self.log(), self.items(), self.procs()), ([], [], [b.name]))

    def test_integers_beyond_the_c_types_are_value_errors(self):
        # ctypes would pass them cut to the low bits (2**32 + 40 as 40).
        rows = [("dma_mask", 2**32 + 40), ("dma_mask", -1), ("mode", 2**32 + 0o666),
                ("sync_mode", 2**32 + 1), ("phys_addr", 2**64 + 0x1000),
                ("phys_addr", -1), ("minor", 2**64 - 1), ("minor", -2**63 - 1),
                ("sync_check", 2**32 + 2), ("sync_check", -1)]
        for arg, value in rows:
            for name in ("n", None):
                if name is None and arg in ("mode", "minor", "phys_addr"):
                    continue        # (named buffers only)
                with self.subTest(arg=arg, value=value, name=name), \
                        self.assertRaisesRegex(ValueError, rf"^{arg} {value}: out of range"):
                    udmabuf.allocate(16, name=name, cacheable=arg != "sync_mode",
                                     **{arg: value})
        self.assertEqual(self.log(), [])
        a = udmabuf.allocate(16)
        for f in (a.flush, a.invalidate, a.buffer.flush, a.buffer.invalidate):
            with self.assertRaisesRegex(ValueError, r"^direction 4294967297: out of"):
                f(direction=2**32 + 1)
        self.assertEqual(self.syncs(), [])

    # -- attributes ----------------------------------------------------------

    def test_virtual_address_cacheable_and_coherent_is_what_the_driver_says(self):
        # (The addresses: the slice tests, and for a Buffer
        # test_buffer_opens_an_existing_buffer_and_leaves_it.)
        a = udmabuf.allocate((8, 16), "u4")
        self.assertEqual(a.virtual_address, a.__array_interface__["data"][0])
        self.assertIs(a.cacheable, True)
        self.assertIs(a.coherent, False)
        os.environ["UDMABUF_FAKE_INFO_FLAGS"] = "1"
        b = udmabuf.allocate(16)
        for coherent in (b.coherent, b[4:].coherent, b.buffer.coherent):
            self.assertIs(coherent, True)

    def test_syncs_of_the_whole_array_cover_its_bytes(self):
        # (Its ranges are those of a slice at offset 0: the slice tests.)
        a = udmabuf.allocate(100, np.uint8)
        self.assertSyncs(a, 0, 100)
        for f in (a.flush, a.invalidate, a.sync_to_device, a.sync_from_device):
            self.assertOSError(errno.EINVAL, f, 0, 101)
        # The buffer's own syncs reach the page's end.
        a.buffer.flush(0, PAGE)
        self.assertEqual(self.syncs(), [("sync_for_device", 0, PAGE, 1)])

    # -- slices and views ----------------------------------------------------

    def test_slices_have_offset_addresses_and_sync_their_bytes(self):
        a = udmabuf.allocate((8, 16), "u4")          # rows of 64 bytes
        cases = [
            # view, offset of its lowest byte, bytes from lowest to highest
            (a[2], 128, 64),
            (a[:, 4:], 16, 512 - 16),
            (a[2:4, 4:8], 128 + 16, 64 + 16),
            (a[1::2, ::4], 64, 7 * 64 + 12 * 4 + 4 - 64),    # strided
            (a[::-1], 0, 512),                                # reversed
            (a[5:1:-1], 128, 4 * 64),
            (a[0, ::-1][2:], 0, 14 * 4),
            (a[::-2, ::-3], 64, 7 * 64 + 15 * 4 + 4 - 64),
            (a.T, 0, 512),
            (a.ravel()[7:100:3], 28, 97 * 4 + 4 - 28),
            (a.ravel().view(np.uint8)[3:5], 3, 2),
        ]
        for v, offset, span in cases:
            with self.subTest(shape=v.shape, strides=v.strides, offset=offset):
                self.assertIsInstance(v, udmabuf.BufferArray)
                self.assertIs(v.buffer, a.buffer)
                self.assertEqual(v.physical_address, DMA + offset)
                self.assertEqual(v.device_address, DMA + offset)
                self.assertEqual(v.cpu_physical_address, CPU + offset)
                self.assertSyncs(v, offset, span)
                if v.size:
                    lo, hi = numpy_byte_bounds(v)
                    base = a.__array_interface__["data"][0]
                    self.assertEqual((lo - base, hi - lo), (offset, span))
        # An empty view has no bytes to sync.
        for v in (a[3:3], a[::-1][8:], a[:, 5:5]):
            with self.subTest(empty=v.shape):
                self.assertSyncs(v, None, 0)

    def test_a_slice_syncs_ranges_of_its_own_bytes(self):
        a = udmabuf.allocate(1024, np.uint8)
        v = a[100:200]
        self.log()
        v.flush(10, 20)
        v.invalidate(50)
        self.assertEqual(self.syncs(), [("sync_for_device", 110, 20, 1),
                                        ("sync_for_cpu", 150, 50, 2)])
        for bad in ((0, 101), (101,), (-1, 1), (0, -1)):
            with self.subTest(args=bad):
                self.assertOSError(errno.EINVAL, v.flush, *bad)
        self.assertEqual(self.syncs(), [])

    def test_copies_and_results_are_no_buffer(self):
        a = udmabuf.allocate(16)
        self.assertIs(type(np.array(a)), np.ndarray)
        for x in (a.copy(), a + 1, a[::2].copy(), np.sort(a[::-1])):
            with self.subTest(x=x):
                self.assertIs(type(x), udmabuf.BufferArray)
                for f in (lambda: x.physical_address, lambda: x.cpu_physical_address,
                          x.flush, x.invalidate, x.freebuffer):
                    with self.assertRaises(ValueError):
                        f()
        self.assertEqual(self.open_procs(), self.held(a))

    # -- lifetime --------------------------------------------------------------

    def test_context_manager_of_an_array_or_a_slice_frees_and_returns_it(self):
        with udmabuf.allocate((2, 8), "u2") as a:
            self.assertIs(type(a), udmabuf.BufferArray)
            self.assertEqual(self.open_procs(), self.held(a))
            a[:] = 5
        self.assertNothingLeft()
        self.assertTrue((a == 5).all())
        for f in (lambda: a.physical_address, lambda: a.device_address,
                  lambda: a.cpu_physical_address, lambda: a.coherent,
                  a.flush, a.invalidate, a.sync_to_device, a.sync_from_device):
            with self.assertRaises(ValueError) as cm:
                f()
            self.assertRegex(str(cm.exception), rf"^{a.buffer.name}: .*closed")
        # An exception in the block goes on, the buffer goes too.
        with self.assertRaises(KeyError):
            with udmabuf.allocate(4):
                raise KeyError("x")
        self.assertNothingLeft()
        # A slice as context manager frees its buffer.
        b = udmabuf.allocate(64, np.uint8)
        with b[8:16] as v:
            self.assertEqual(v.physical_address, DMA + 8)
        self.assertNothingLeft()
        a = b = v = f = cm = None     # what held the buffers
        self.assertGone()

    def test_freebuffer_twice_and_close(self):
        a = udmabuf.allocate(16)
        v = a[4:]
        self.assertEqual(self.open_procs(), self.held(a))
        a.freebuffer()
        self.assertNothingLeft()
        self.assertEqual(self.open_procs(), [a.buffer.name])
        a.freebuffer()
        a.close()
        v.freebuffer()
        v.close()
        self.assertNothingLeft()
        with self.assertRaises(ValueError):
            v.flush()
        del a, v
        self.assertGone()

    def test_named_freebuffer_twice_and_close_removes_once(self):
        a = udmabuf.allocate(16, name="n")
        v = a[4:]
        self.log()
        a.freebuffer()
        a.freebuffer()
        a.close()
        v.freebuffer()
        v.close()
        self.assertEqual([x for x in self.log() if x.startswith("enable")],
                         ["enable=0"])
        self.assertNothingLeft()

    def test_process_scoped_buffer_goes_with_its_last_array(self):
        a = udmabuf.allocate(16)
        v = a[4:8]
        name = a.buffer.name
        del a
        gc.collect()
        # The view holds the buffer: open and mapped.
        self.assertEqual((self.open_procs(), self.mapped_procs()), ([name] * 2, [name]))
        v.flush()
        del v
        self.assertGone()

    def test_persistent_buffer_stays(self):
        a = udmabuf.allocate(16, persistent=True)
        [item] = self.items()
        self.assertRegex(item, rf"^pyudmabuf-{os.getpid()}-\d+$")
        self.assertEqual(self.allocs(), [])
        self.assertEqual((a.buffer.name, a.buffer.path, a.buffer.process_scoped),
                         (item, f"/dev/{item}", False))
        b = udmabuf.allocate(16, name="keep", persistent=1, sync_mode=2, cacheable=False)
        self.assertEqual(self.items(), sorted([item, "keep"]))
        self.assertIn("sync_mode=2", self.log())
        a.freebuffer()
        del b
        gc.collect()
        self.assertEqual(self.items(), sorted([item, "keep"]))
        self.assertEqual(self.nodes(), sorted([item, "keep"]))
        self.assertNotIn("enable=0", self.log())
        self.assertTrue(a.buffer.closed)
        # A name without persistent is removed; persistent=False is the
        # default.
        c = udmabuf.allocate(16, name="gone", persistent=False)
        c.freebuffer()
        self.assertEqual(self.items(), sorted([item, "keep"]))

    def test_a_forked_child_never_removes_its_parents_buffer(self):
        # How the child lets go: its exit (atexit runs the finalizer, as
        # garbage collection does), freebuffer().
        for i, let_go in enumerate((lambda a: a.buffer._finalizer(),
                                    lambda a: a.freebuffer())):
            a = udmabuf.allocate(16, name="n")
            pid = os.fork()
            if pid == 0:
                code = 1
                try:
                    let_go(a)
                    code = 0
                finally:
                    os._exit(code)
            with self.subTest(let_go=i):
                self.assertEqual(os.waitpid(pid, 0)[1], 0)
                self.assertEqual((self.items(), self.nodes()), (["n"], ["n"]))
                a.flush()
            a.freebuffer()
            self.assertNothingLeft()

    def test_a_failed_allocate_leaves_nothing_not_even_persistent(self):
        # A shape no array can have is refused before anything is made; a
        # failure after the buffer was made removes it.
        no_map = mock.patch("mmap.mmap", side_effect=OSError(errno.ENOMEM, "mmap"))
        for shape, dtype, patch in (((2**40, 2**40), "u1", None), ((2**62,), "u8", None),
                                    ((2**63,), "u1", None), ((4,), "u4", no_map)):
            for kw in ({"persistent": True}, {"name": "n", "persistent": True},
                       {"name": "n"}, {}):
                with self.subTest(shape=shape, **kw), patch or contextlib.nullcontext():
                    with self.assertRaises(OSError if patch else ValueError):
                        udmabuf.allocate(shape, dtype, **kw)
                    if not patch:
                        self.assertEqual(self.log(), [])
                    self.assertNothingLeft()

    def test_a_1_0_library_makes_named_buffers(self):
        with old_library():     # (its ENOSYS for process-scoped: test_host.py)
            a = udmabuf.allocate(16, name="old")
            self.assertEqual((self.items(), self.nodes()), (["old"], ["old"]))
            a[:] = 3
            a.flush()
            self.assertEqual(a.physical_address, DMA)
            a.freebuffer()
            self.assertNothingLeft()

    def test_allocate_as_named_buffer(self):
        a = udmabuf.allocate(16, name="cam0")
        self.assertEqual((self.items(), self.nodes(), a.buffer.name),
                         (["cam0"], ["cam0"], "cam0"))
        del a
        gc.collect()
        self.assertNothingLeft()

    def test_buffer_opens_an_existing_buffer_and_leaves_it(self):
        with open(os.path.join(self.dev, "ub"), "wb") as f:
            f.truncate(2 * PAGE)
        # A buffer's node is that of its class device, as the library checks.
        os.makedirs(os.path.join(self.class_dir, "ub"))
        with open(os.path.join(self.class_dir, "ub", "dev"), "w") as f:
            f.write("240:7\n")
        with udmabuf.Buffer("ub") as b:
            self.assertEqual((b.name, b.size), ("ub", 2 * PAGE))
            self.assertEqual((b.physical_address, b.device_address,
                              b.cpu_physical_address), (DMA, DMA, CPU))
            x = b.array((4, 4), "u4", offset=PAGE)
            self.assertEqual(x[1:].physical_address, DMA + PAGE + 16)
            self.assertSyncs(x[::-1, 1], PAGE + 4, 3 * 16 + 4)
        self.assertEqual(self.nodes(), ["ub"])
        self.assertTrue(b.closed)


class ByteBoundsTest(unittest.TestCase):
    """The byte range of any view, as NumPy's byte_bounds gives it."""

    def test_like_numpy(self):
        m = np.zeros((6, 10), dtype="u2")
        views = [m, m[1], m[:, 3], m[::2, ::-3], m[::-1, ::-1], m.T, m[2:5, 7:1:-2],
                 m.ravel()[::7], np.broadcast_to(m[0], (4, 10)), m[1, 1, ...],
                 m.view("u1")[:, 1::2], np.lib.stride_tricks.as_strided(
                     m[3:], shape=(2, 2), strides=(-20, 2))]
        for v in views:
            with self.subTest(shape=v.shape, strides=v.strides):
                self.assertEqual(udmabuf._byte_bounds(v), numpy_byte_bounds(v))

    def test_empty_is_empty(self):
        m = np.zeros((4, 4), dtype="u4")
        for v in (m[2:2], m[::-1][4:], m[:, 1:1]):
            lo, hi = udmabuf._byte_bounds(v)
            self.assertEqual(lo, hi)


if __name__ == "__main__":
    unittest.main()
