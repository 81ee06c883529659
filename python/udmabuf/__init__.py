# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""udmabuf-cfs DMA buffers as numpy arrays.

A udmabuf-cfs buffer is physically contiguous memory that a program maps
and a DMA master (an FPGA, a PCIe device) reads or writes. This module
gives it to Python the way PYNQ's ``allocate()`` does::

    import numpy as np
    import udmabuf

    with udmabuf.allocate((1024,), dtype=np.uint32) as buf:
        buf[:] = np.arange(1024)
        buf.flush()                       # CPU writes -> memory
        dma.start(buf.physical_address)   # program the DMA master
        dma.wait()
        buf.invalidate()                  # memory -> CPU reads
        print(buf[:16])

:func:`allocate` takes PYNQ's arguments (``allocate(shape, dtype='u4',
target=None, cacheable=...)``, positional or keyword, as PYNQ's calls
pass them; see Caching for the one difference in defaults), creates a
new buffer and returns a :class:`BufferArray`, a numpy array that is a
zero-copy view of the buffer's mapping. :class:`Buffer` opens one that
exists already (made by ``udmabufctl create``, a module parameter or the
device tree) by name or ``/dev`` path; its :meth:`Buffer.array` gives
arrays on it.

Two kinds of buffer. By default :func:`allocate` makes a
*process-scoped* one (``/dev/udmabuf-cfs``, libudmabuf 1.1's
``udmabuf_alloc()``): no root needed, only the right to open
``/dev/udmabuf-cfs``, which the shipped udev rule gives to the group
``udmabuf`` (``adduser USER udmabuf``); it has no configfs item and no
``/dev`` node, is listed as ``proc-PID-N`` with its owner process
(``udmabufctl list``), and the kernel frees it when its file and the last
array on it are gone, however the program ends: a ``kill -9``, an OOM
kill or a Jupyter kernel restart leaves nothing behind. With ``name=`` or
``persistent=True`` it makes a *named* buffer instead, a configfs item
(``/dev/NAME``) that other programs can open by name, normally root's
business; this module removes it when done unless ``persistent=True``,
but a killed program leaves it (``udmabufctl delete NAME``).

Addresses, in the words of the rest of udmabuf-cfs: the *DMA address* is
what a device is programmed with (the address of the buffer for its DMA
master, an IOVA behind an IOMMU); the *CPU physical address* is where the
memory is for the CPU. ``physical_address`` and ``device_address`` keep
PYNQ's names and are both the DMA address; ``cpu_physical_address`` is
the CPU one. They differ only behind an IOMMU or a translating bus.

Everything goes through libudmabuf (``libudmabuf.so.1``, see
``libudmabuf(3)``): the DMA address comes from the driver's GET_INFO ioctl,
so anyone who may open the device may know it, and a flush or invalidate
is one ioctl. Failures raise :class:`OSError` (its subclasses:
``FileNotFoundError``, ``PermissionError``, ...) with the errno and a
message naming the buffer, the action and the reason; misuse of a closed
buffer raises :class:`ValueError`, as for closed files.

Caching (``cacheable``): a cacheable buffer is mapped cached and the
program must call :meth:`~BufferArray.flush` after writing what a device
will read and :meth:`~BufferArray.invalidate` before reading what a device
wrote (both are cheap where DMA is cache-coherent, e.g. on x86). A
non-cacheable named buffer is opened with ``O_SYNC``, a non-cacheable
process-scoped one is made with ``sync_mode | 4`` (its file is never
``O_SYNC``); the ``sync_mode`` then chooses the mapping: 1 (the default)
uncached, 2 write-combined, 3 DMA-coherent. PYNQ's default is not
cacheable, this module's is: code that never calls flush() and
invalidate() should pass ``cacheable=False``. x86 maps RAM cached
whatever is asked (the module says so in
``/sys/class/udmabuf/NAME/cache_mode_sync``).

Lifetime: the memory stays valid while any mapping of it exists, so no
array made here ever points at freed memory. ``freebuffer()`` (or leaving
the ``with`` block) closes the buffer at once; the mapping, and with it
the memory, goes when the last array that uses it is gone (Python's mmap
object keeps its own duplicate of the file until then). A named buffer
made by :func:`allocate` is removed (its configfs item and ``/dev`` node)
by ``freebuffer()`` or when its last array is garbage collected, unless
it is persistent.

Finding a missing sync: ``allocate(..., sync_check=True)`` (or
``'sigbus'``) turns the module's sync checker on for the buffer. Each
page is then the CPU's or the device's: flush() gives its range to the
device, invalidate() gives it back, and a CPU access to what the device
owns (the invalidate is missing), an invalidate of what the device never
had (the flush is missing) or one whose ends split a cache line is
reported: a line in the kernel log naming the buffer, the offset and the
process, and one more in ``sync_violations`` (on the array and on its
buffer). With ``'sigbus'`` the faulting access also gets ``SIGBUS``. So a
program that would read stale data on a non-coherent board is found on a
PC, in QEMU, in CI. ``UDMABUF_SYNC_CHECK=report python3 prog.py`` checks
every buffer an unmodified program allocates (libudmabuf reads it).

Libraries: everything but process-scoped buffers, ``allocator=`` and the
sync checker works with libudmabuf 1.0; process-scoped buffers and
``allocator=`` need 1.1, the sync checker 1.3, and raise ``OSError``
``ENOSYS`` naming the missing function with an older library.

NumPy: 1.24 and 2.x; nothing here uses what NumPy 2 removed
(``np.byte_bounds``: the byte range of a view is computed here).

Thread safety: one buffer may be used from several threads, except that
closing it must not race with other calls on it.
"""

import errno
import itertools
import math
import mmap
import operator
import os
import sys
import threading
import weakref

import numpy as np

from . import _libudmabuf as _c

__all__ = [
    "Buffer",
    "BufferArray",
    "allocate",
    "library_version",
    "DIR_BIDIRECTIONAL",
    "DIR_TO_DEVICE",
    "DIR_FROM_DEVICE",
    "SYNC_CHECK_OFF",
    "SYNC_CHECK_REPORT",
    "SYNC_CHECK_SIGBUS",
]

__version__ = "0.1.0"

DIR_BIDIRECTIONAL = _c.DIR_BIDIRECTIONAL
DIR_TO_DEVICE = _c.DIR_TO_DEVICE
DIR_FROM_DEVICE = _c.DIR_FROM_DEVICE

# The sync checker's modes: what sync_check reads; allocate() takes them
# too, and True ('report'), 'sigbus', False ('off').
SYNC_CHECK_OFF = _c.SYNC_CHECK_OFF
SYNC_CHECK_REPORT = _c.SYNC_CHECK_REPORT
SYNC_CHECK_SIGBUS = _c.SYNC_CHECK_SIGBUS

_PAGE = mmap.PAGESIZE


def library_version():
    """Version of the libudmabuf in use, e.g. ``"1.0.0"``."""
    return os.fsdecode(_c.lib.udmabuf_library_version())


def _release(state):
    """Undo what a Buffer holds. Runs once: from close() or when the
    Buffer is garbage collected (weakref.finalize), so it must not refer
    to the Buffer itself. Returns the first error, or None."""
    err = None
    # Never mm.close(): numpy does not hold the mmap's buffer export, so
    # close() would unmap memory under arrays that use it. Every array
    # references the mmap object (its base); dropping this reference
    # unmaps now if no array is left, else with the last one.
    state["mmap"] = None
    handle, state["handle"] = state["handle"], None
    if handle:
        ret = _c.lib.udmabuf_close(handle)
        if ret < 0:
            err = _c.error(ret, f"{state['name']}: close")
    owned, state["owned"] = state["owned"], None
    # Only the process that made the buffer removes it: a child of
    # os.fork() has a copy of this state (and runs it when it exits or
    # frees its copy) but the buffer is still its parent's.
    if owned and state["pid"] == os.getpid():
        # Forced: the device goes now, the memory when the last mapping
        # (an array still alive) goes.
        ret = _c.lib.udmabuf_destroy(_c.encode(owned), _c.DESTROY_FORCE)
        if ret < 0 and err is None:
            err = _c.error(ret, f"{owned}: destroy")
    return err


def _finalize(state):
    # Nobody to report to from a finalizer.
    _release(state)


def _int_arg(value, what, ctype=None):
    """VALUE as an int (Python's or numpy's), else TypeError. With CTYPE
    (the library's C type for it) ValueError if CTYPE cannot hold it:
    ctypes would pass only its low bits (2**32 + 40 as 40)."""
    try:
        value = operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an integer, not "
                        f"{type(value).__name__}") from None
    if ctype is not None:
        bits = 8 * _c.ctypes.sizeof(ctype)
        signed = ctype(-1).value < 0
        low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed \
            else (0, (1 << bits) - 1)
        if not low <= value <= high:
            raise ValueError(f"{what} {value}: out of range {low}..{high}")
    return value


def _dtype_arg(dtype):
    """DTYPE as a numpy dtype an array on a buffer may have: ValueError
    for one that holds Python objects (also inside a structured or
    subarray dtype). Its elements would be pointers in memory that a
    device or another process writes, dereferenced by whoever reads
    them."""
    dtype = np.dtype(dtype)
    if dtype.hasobject:
        raise ValueError(f"udmabuf: dtype {dtype}: object arrays cannot live in "
                         "DMA memory (use a numeric or structured dtype without "
                         "objects)")
    return dtype


def _shape_arg(shape, dtype):
    """SHAPE (an integer or a sequence of them) as a tuple, and the bytes
    an array of it and DTYPE has. TypeError for what is not integers,
    ValueError for a shape no array can have: a negative dimension, more
    elements or bytes than NumPy (and mmap) can count (sys.maxsize).
    Counted exactly: a product that wrapped around would make a small
    buffer for a huge shape."""
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    shape = tuple(_int_arg(n, "shape") for n in shape)
    if any(n < 0 for n in shape):
        raise ValueError(f"negative dimensions are not allowed: {shape}")
    count = math.prod(shape)
    nbytes = count * dtype.itemsize
    if max(count, nbytes) > sys.maxsize:
        raise ValueError(f"{shape} of {dtype}: {nbytes} bytes in {count} elements, "
                         "more than an array can have")
    return shape, nbytes


def _byte_bounds(a):
    """(low, high): the addresses of the first byte array A spans and of
    the byte after its last, whatever its strides (negative, zero, not
    contiguous); low == high if A is empty. What NumPy's byte_bounds
    gives, which NumPy 2 moved from np.byte_bounds to
    np.lib.array_utils."""
    low = high = a.__array_interface__["data"][0]
    if a.size == 0:
        return low, low
    for n, stride in zip(a.shape, a.strides):
        if stride < 0:
            low += (n - 1) * stride
        else:
            high += (n - 1) * stride
    return low, high + a.itemsize


class Buffer:
    """An open udmabuf-cfs buffer.

    ``Buffer(name)`` opens an existing buffer: NAME is a configfs item
    name, a device name (``/dev/NAME``) or a path containing a ``/``.
    The buffer is not removed when this object is closed.

    Attributes: ``name`` (the device name; ``proc-PID-N`` for a
    process-scoped buffer), ``path`` (``/dev/NAME``; None for a
    process-scoped buffer, which has no node), ``size``, ``minor`` (None
    for a process-scoped buffer), ``cacheable``, ``readonly`` and
    ``process_scoped`` (True for a buffer :func:`allocate` made from
    ``/dev/udmabuf-cfs``, freed when it and its arrays are gone).

    cacheable
        True (default): the mapping is cached; call flush()/invalidate()
        around DMA. False: opened with ``O_SYNC``, the mapping the
        buffer's ``sync_mode`` gives (see the module's documentation).
    readonly
        Open for reading only; arrays are then read-only.

    Raises OSError (FileNotFoundError if there is no such buffer, ENODEV
    if it is not enabled, ENOTTY if the file is not a udmabuf-cfs device,
    PermissionError, ...).
    """

    def __init__(self, name, *, cacheable=True, readonly=False):
        name = os.fsdecode(name)
        flags = os.O_RDONLY if readonly else os.O_RDWR
        if not cacheable:
            flags |= os.O_SYNC
        handle = _c._ptr()
        ret = _c.lib.udmabuf_open(_c.encode(name), flags, _c.ctypes.byref(handle))
        if ret < 0:
            raise _c.error(ret, f"{name}: open")
        self._adopt(handle.value, name, cacheable=cacheable, readonly=readonly,
                    owned=None, process_scoped=False)

    def _adopt(self, handle, name, *, cacheable, readonly, owned, process_scoped):
        """Take HANDLE, an open libudmabuf handle, closed with this object
        (and the configfs item OWNED, if not None, removed)."""
        self._state = {"handle": handle, "mmap": None, "owned": owned, "name": name,
                       "pid": os.getpid()}
        self._finalizer = weakref.finalize(self, _finalize, self._state)
        self._lock = threading.Lock()
        h = handle
        self.name = os.fsdecode(_c.lib.udmabuf_get_name(h))
        self._state["name"] = self.name if process_scoped else name
        self.process_scoped = bool(process_scoped)
        if process_scoped:
            # No node: the buffer is only this file (and its mappings).
            self.path = None
            self.minor = None
        else:
            self.path = os.path.join(os.path.dirname(name) if "/" in name else "/dev",
                                     self.name)
            self.minor = _c.lib.udmabuf_get_minor(h)
        self.size = _c.lib.udmabuf_get_size(h)
        self.cacheable = bool(cacheable)
        self.readonly = bool(readonly)

    # -- state -----------------------------------------------------------

    @property
    def closed(self):
        """True once close() (or freebuffer()) was called."""
        return self._state["handle"] is None

    def _handle(self, action):
        h = self._state["handle"]
        if h is None:
            raise ValueError(f"{self._state['name']}: {action}: the buffer is closed")
        return h

    def close(self):
        """Close the buffer; remove it if :func:`allocate` made it named and
        not persistent, in the process that made it (a child of
        ``os.fork()`` only closes its copy). (A process-scoped buffer has
        nothing to remove: the kernel frees it with the last array.)

        Arrays on the buffer stay usable (their memory stays valid) but
        flush(), invalidate() and the addresses raise ValueError. Closing
        twice is allowed. Raises OSError if removing the buffer failed.
        """
        # detach() returns None if the finalizer ran already.
        if self._finalizer.detach() is None:
            return
        err = _release(self._state)
        if err:
            raise err

    freebuffer = close

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        state = "closed" if self.closed else f"{self.size} bytes"
        return f"<udmabuf.Buffer {self.name!r} ({state})>"

    # -- what the driver says --------------------------------------------

    def _get(self, fn, ctype, action):
        v = ctype()
        _c.check(fn(self._handle(action), _c.ctypes.byref(v)),
                 f"{self.name}: {action}")
        return v.value

    @property
    def physical_address(self):
        """The DMA address (PYNQ's name): what to program into the DMA
        master (the bound device's address, an IOVA behind an IOMMU).
        One ioctl; no root needed. ENODEV if the bound device went
        away."""
        return self._get(_c.lib.udmabuf_get_dma_addr, _c._u64, "get the DMA address")

    device_address = physical_address

    @property
    def cpu_physical_address(self):
        """The CPU physical address: where the memory is for the CPU
        (differs from the DMA address behind an IOMMU or a translating
        bus)."""
        return self._get(_c.lib.udmabuf_get_phys_addr, _c._u64,
                         "get the CPU physical address")

    @property
    def sync_mode(self):
        """The buffer's current sync_mode, 0..7."""
        return self._get(_c.lib.udmabuf_get_sync_mode, _c._uint, "get sync_mode")

    @property
    def coherent(self):
        """True if the DMA master snoops the CPU caches (flush and
        invalidate are then cheap)."""
        flags = self._get(_c.lib.udmabuf_get_flags, _c._u32, "get flags")
        return bool(flags & _c.INFO_DMA_COHERENT)

    @property
    def sync_check(self):
        """The module's sync checker on this buffer now: SYNC_CHECK_OFF
        (0), SYNC_CHECK_REPORT (1) or SYNC_CHECK_SIGBUS (2). One ioctl;
        libudmabuf 1.3."""
        return self._get(_c.lib.udmabuf_get_sync_check, _c._uint, "get sync_check")

    @property
    def sync_violations(self):
        """How many times the sync checker reported a missing sync on this
        buffer since it was made: 0 for a program that hands the buffer
        over right (the kernel log has a line for each report, naming the
        offset and the process). One ioctl; libudmabuf 1.3."""
        return self._get(_c.lib.udmabuf_get_sync_violations, _c._u64,
                         "get sync_violations")

    @property
    def driver_version(self):
        """Version of the loaded udmabuf-cfs module."""
        return os.fsdecode(_c.lib.udmabuf_get_driver_version(self._handle("get version")))

    def fileno(self):
        """The open device's file descriptor (do not close it)."""
        return _c.lib.udmabuf_get_fd(self._handle("fileno"))

    # -- cache maintenance -------------------------------------------------

    def _range(self, action, offset, size, limit):
        offset = _int_arg(offset, "offset")
        size = limit - offset if size is None else _int_arg(size, "size")
        if offset < 0 or size < 0 or offset > limit or size > limit - offset:
            raise OSError(errno.EINVAL,
                          f"{self.name}: {action} {size} bytes at {offset}: "
                          f"outside the {limit} bytes")
        return offset, size

    def _sync(self, for_device, offset, size, direction, base=0, limit=None):
        action = "flush" if for_device else "invalidate"
        if limit is None:
            limit = self.size
        offset, size = self._range(action, offset, size, limit)
        direction = _int_arg(direction, "direction", _c._int)
        h = self._handle(action)
        if size == 0:
            return
        fn = _c.lib.udmabuf_sync_for_device if for_device else _c.lib.udmabuf_sync_for_cpu
        _c.check(fn(h, base + offset, size, direction), f"{self.name}: {action}")

    def flush(self, offset=0, size=None, direction=DIR_TO_DEVICE):
        """Hand [offset, offset + size) bytes (default: to the end) to the
        device after the CPU wrote them: one SYNC_FOR_DEVICE ioctl.
        EINVAL (OSError) for a range outside the buffer, ValueError for a
        direction beyond a C int; size 0 does nothing."""
        self._sync(True, offset, size, direction)

    def invalidate(self, offset=0, size=None, direction=DIR_FROM_DEVICE):
        """Hand [offset, offset + size) bytes (default: to the end) back to
        the CPU after the device wrote them: one SYNC_FOR_CPU ioctl.
        EINVAL (OSError) for a range outside the buffer, ValueError for a
        direction beyond a C int; size 0 does nothing."""
        self._sync(False, offset, size, direction)

    sync_to_device = flush
    sync_from_device = invalidate

    # -- arrays ------------------------------------------------------------

    def _mapping(self):
        with self._lock:
            mm = self._state["mmap"]
            if mm is None:
                h = self._handle("map")
                prot = mmap.PROT_READ if self.readonly else mmap.PROT_READ | mmap.PROT_WRITE
                try:
                    mm = mmap.mmap(_c.lib.udmabuf_get_fd(h), self.size,
                                   flags=mmap.MAP_SHARED, prot=prot)
                except OSError as e:
                    raise OSError(e.errno, f"{self.name}: map {self.size} bytes: "
                                  f"{os.strerror(e.errno)}") from None
                self._state["mmap"] = mm
            return mm

    def array(self, shape=None, dtype=np.uint8, offset=0):
        """A :class:`BufferArray` of SHAPE and DTYPE on the buffer's memory
        from byte OFFSET (no copy). Without SHAPE: one dimension, as many
        elements as fit. ValueError if it does not fit or DTYPE holds
        Python objects (``object``: they cannot live in DMA memory)."""
        dtype = _dtype_arg(dtype)
        offset = _int_arg(offset, "offset")
        if offset < 0 or offset > self.size:
            raise ValueError(f"{self.name}: offset {offset} outside the "
                             f"{self.size} bytes")
        if shape is None:
            if dtype.itemsize == 0:
                raise ValueError(f"{self.name}: dtype {dtype} has no size")
            shape = ((self.size - offset) // dtype.itemsize,)
        shape, nbytes = _shape_arg(shape, dtype)
        if nbytes > self.size - offset:
            raise ValueError(f"{self.name}: {shape} of {dtype} ({nbytes} bytes) "
                             f"at {offset} does not fit in {self.size} bytes")
        mm = self._mapping()
        arr = np.ndarray.__new__(BufferArray, shape, dtype=dtype, buffer=mm,
                                 offset=offset)
        if self.readonly:
            arr.flags.writeable = False
        arr._udmabuf = self
        # Address of the mapping's first byte: views find their offset
        # in the buffer from it.
        arr._udmabuf_base = arr.__array_interface__["data"][0] - offset
        return arr


class BufferArray(np.ndarray):
    """A numpy array on a udmabuf-cfs buffer's memory (PYNQ's Buffer).

    Slices and views of it are BufferArrays on the same memory: their
    addresses are those of the lowest byte they span (their first
    element's, unless a stride is negative), and flush() and
    invalidate() without arguments cover the bytes from there to their
    highest byte, nothing else of the buffer. Results of arithmetic and
    copies are ordinary memory, not the buffer: ``physical_address`` on
    them raises ValueError.
    """

    _udmabuf = None
    _udmabuf_base = 0

    def __array_finalize__(self, obj):
        if obj is None:
            return
        buf = getattr(obj, "_udmabuf", None)
        if buf is None:
            return
        # A view shares the mapping only if its data lies inside it.
        lo, hi = _byte_bounds(self)
        base = obj._udmabuf_base
        if base <= lo and hi <= base + buf.size:
            self._udmabuf = buf
            self._udmabuf_base = base

    def _buffer(self, action):
        buf = self._udmabuf
        if buf is None:
            raise ValueError(f"udmabuf: {action}: this array is not on a udmabuf-cfs "
                             "buffer (a copy or a computed result)")
        return buf

    def _span(self):
        """Byte offset in the buffer and length of the bytes this array
        spans."""
        lo, hi = _byte_bounds(self)
        return lo - self._udmabuf_base, hi - lo

    @property
    def buffer(self):
        """The :class:`Buffer` this array is on."""
        return self._buffer("buffer")

    @property
    def physical_address(self):
        """The DMA address (PYNQ's name) of the lowest byte this array
        spans: what to program into the DMA master (see
        :attr:`Buffer.physical_address`)."""
        return self._buffer("physical_address").physical_address + self._span()[0]

    device_address = physical_address

    @property
    def cpu_physical_address(self):
        """The CPU physical address of the lowest byte this array spans
        (see :attr:`Buffer.cpu_physical_address`)."""
        return (self._buffer("cpu_physical_address").cpu_physical_address
                + self._span()[0])

    @property
    def virtual_address(self):
        """The virtual address of this array's first byte in this process
        (neither the DMA address nor the CPU physical address)."""
        return self.__array_interface__["data"][0]

    @property
    def cacheable(self):
        """True if the buffer is mapped cached (flush() and invalidate()
        needed around DMA); False if it was opened with O_SYNC."""
        return self._buffer("cacheable").cacheable

    @property
    def coherent(self):
        """True if the device snoops the CPU caches."""
        return self._buffer("coherent").coherent

    @property
    def sync_check(self):
        """The buffer's sync checker (see :attr:`Buffer.sync_check`)."""
        return self._buffer("sync_check").sync_check

    @property
    def sync_violations(self):
        """The sync checker's reports on the whole buffer, not only this
        array's bytes (see :attr:`Buffer.sync_violations`)."""
        return self._buffer("sync_violations").sync_violations

    def _sync(self, for_device, offset, size, direction):
        buf = self._buffer("flush" if for_device else "invalidate")
        start, span = self._span()
        buf._sync(for_device, offset, size, direction, base=start, limit=span)

    def flush(self, offset=0, size=None, direction=DIR_TO_DEVICE):
        """Write the CPU caches back for the bytes [offset, offset + size)
        of this array (default: all it spans), so that the device sees
        what the CPU wrote. One ioctl; none for an empty array. OSError
        EINVAL for a range outside the array, ValueError once the buffer
        is freed."""
        self._sync(True, offset, size, direction)

    def invalidate(self, offset=0, size=None, direction=DIR_FROM_DEVICE):
        """Discard the CPU caches for the bytes [offset, offset + size) of
        this array (default: all it spans), so that the CPU sees what the
        device wrote. One ioctl; none for an empty array. OSError EINVAL
        for a range outside the array, ValueError once the buffer is
        freed."""
        self._sync(False, offset, size, direction)

    sync_to_device = flush
    sync_from_device = invalidate

    def freebuffer(self):
        """Close the buffer and remove it if :func:`allocate` made it named
        and not persistent (also from a slice: the whole buffer).

        The array's memory stays valid (the kernel frees it with the last
        mapping, when the last array on it is gone), so using the array
        afterwards cannot crash; flush(), invalidate() and
        physical_address raise ValueError. Freeing twice is allowed."""
        self._buffer("freebuffer").close()

    close = freebuffer

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.freebuffer()

    def __reduce__(self):
        # A pickled copy is no longer on the buffer.
        return np.asarray(self).copy().__reduce__()


_names = itertools.count()


def _new_name():
    return f"pyudmabuf-{os.getpid()}-{next(_names)}"


_SET = {
    "sync_mode": "udmabuf_config_set_sync_mode",
    "dma_mask": "udmabuf_config_set_dma_mask",
    "mode": "udmabuf_config_set_mode",
    "minor": "udmabuf_config_set_minor",
    "phys_addr": "udmabuf_config_set_phys_addr",
}


_SYNC_CHECKS = {"off": SYNC_CHECK_OFF, "report": SYNC_CHECK_REPORT,
                "sigbus": SYNC_CHECK_SIGBUS}


def _sync_check_arg(value):
    """allocate()'s sync_check as the library's mode; None if not given."""
    if value is None:
        return None
    if isinstance(value, bool):
        return SYNC_CHECK_REPORT if value else SYNC_CHECK_OFF
    if isinstance(value, (str, bytes)):
        word = os.fsdecode(value)
        if word not in _SYNC_CHECKS:
            raise ValueError(f"sync_check {value!r}: True or 'report', 'sigbus', "
                             "False or 'off'")
        return _SYNC_CHECKS[word]
    # SYNC_CHECK_*; the library refuses a number beyond them (ERANGE).
    return _int_arg(value, "sync_check", _c._uint)


def _new_config(label, size, values, dma_device, allocator, sync_check=None):
    """A libudmabuf configuration of SIZE bytes with the attributes VALUES
    (None: the module's default), DMA_DEVICE, ALLOCATOR and SYNC_CHECK
    (SYNC_CHECK_*, None: not set); the caller frees it. LABEL names the
    buffer in errors. Raises OSError."""
    cfg = _c.lib.udmabuf_config_new()
    if not cfg:
        raise MemoryError(f"{label}: allocate: out of memory")

    def configure(ret, what):
        # The configuration does not know the buffer: name it here.
        if ret < 0:
            raise OSError(-ret, f"{label}: {_c.last_error() or what}")

    try:
        configure(_c.lib.udmabuf_config_set_size(cfg, size), "set size")
        for a, value in values.items():
            if value is not None:
                configure(getattr(_c.lib, _SET[a])(cfg, value), f"set {a}")
        if dma_device is not None:
            configure(_c.lib.udmabuf_config_set_dma_device(cfg, _c.encode(dma_device)),
                      "set dma_device")
        if allocator is not None:
            configure(_c.lib.udmabuf_config_set_allocator(cfg, _c.encode(allocator)),
                      "set allocator")
        # Off is the default: a library older than the checker needs no
        # setter for it.
        if sync_check:
            configure(_c.lib.udmabuf_config_set_sync_check(cfg, sync_check),
                      "set sync_check")
    except BaseException:
        _c.lib.udmabuf_config_free(cfg)
        raise
    return cfg


def _alloc_process(size, *, cacheable, values, dma_device, allocator,
                   sync_check=None):
    """A new process-scoped buffer of SIZE bytes (libudmabuf's
    udmabuf_alloc(): a file from /dev/udmabuf-cfs that is the buffer),
    owned by the returned :class:`Buffer`. Raises OSError; ENOSYS if the
    library is older than 1.1."""
    if not _c.lib.has("udmabuf_alloc"):
        raise OSError(errno.ENOSYS,
                      f"{_c.lib.missing('udmabuf_alloc')}: allocate() makes "
                      "process-scoped buffers with it; install a libudmabuf1 that "
                      "has it, or pass name= or persistent=True for a configfs buffer")
    label = "udmabuf: allocate"
    cfg = _new_config(label, size, values, dma_device, allocator, sync_check)
    handle = _c._ptr()
    try:
        # The library asks the module for sync_mode | 4 with O_SYNC: the
        # mapping cacheable=False asks for (the new file is never O_SYNC).
        flags = os.O_RDWR if cacheable else os.O_RDWR | os.O_SYNC
        _c.check(_c.lib.udmabuf_alloc(cfg, flags, _c.ctypes.byref(handle)),
                 f"{label} {size} bytes")
    finally:
        _c.lib.udmabuf_config_free(cfg)
    buf = Buffer.__new__(Buffer)
    buf._adopt(handle.value, None, cacheable=cacheable, readonly=False, owned=None,
               process_scoped=True)
    return buf


def _create_named(size, *, cacheable, name, values, dma_device, allocator,
                  sync_check=None):
    """A new configfs buffer NAME (None: a new ``pyudmabuf-PID-N``) of
    SIZE bytes, enabled and open. The returned :class:`Buffer` removes it
    when closed (a persistent buffer's caller disowns it once it has its
    array). Raises OSError; nothing is left behind."""
    item = name if name is not None else _new_name()
    cfg = _new_config(item, size, values, dma_device, allocator, sync_check)
    try:
        while True:
            ret = _c.lib.udmabuf_create(_c.encode(item), cfg, 0)
            # A generated name that another process left: take the next.
            if ret == -errno.EEXIST and name is None:
                item = _new_name()
                continue
            _c.check(ret, f"{item}: create")
            break
    finally:
        _c.lib.udmabuf_config_free(cfg)

    flags = os.O_RDWR if cacheable else os.O_RDWR | os.O_SYNC
    handle = _c._ptr()
    ret = _c.lib.udmabuf_open(_c.encode(item), flags, _c.ctypes.byref(handle))
    if ret < 0:
        err = _c.error(ret, f"{item}: open")
        _c.lib.udmabuf_destroy(_c.encode(item), _c.DESTROY_FORCE)
        raise err
    buf = Buffer.__new__(Buffer)
    buf._adopt(handle.value, item, cacheable=cacheable, readonly=False,
               owned=item, process_scoped=False)
    return buf


def allocate(shape, dtype="u4", target=None, *, cacheable=True, name=None,
             persistent=False, sync_mode=None, dma_mask=None, dma_device=None,
             allocator=None, mode=None, minor=None, phys_addr=None,
             sync_check=None):
    """A new buffer as a :class:`BufferArray` of SHAPE and DTYPE: PYNQ's
    ``allocate(shape, dtype='u4', target=None, **kwargs)``, so that
    ``allocate((1024,), 'u4')``, ``allocate((4, 4), np.uint8, None,
    cacheable=0)`` and ``allocate(shape=(4, 4), dtype=np.uint8,
    cacheable=False)`` work as in PYNQ. The buffer is the array's size
    rounded up to whole pages.

    By default the buffer is **process-scoped** (libudmabuf's
    ``udmabuf_alloc()`` on ``/dev/udmabuf-cfs``): no root needed, only
    the right to open ``/dev/udmabuf-cfs`` (the shipped udev rule gives
    it to group ``udmabuf``); no configfs item and no ``/dev`` node; its
    name is ``proc-PID-N`` (``/sys/class/udmabuf/proc-PID-N``, with the
    owner process, in ``udmabufctl list``). The kernel frees its memory
    when its file and the last array on it are gone, whatever ends the
    program: ``freebuffer()``, garbage collection, exit, an exception, a
    ``kill -9``.

    With NAME or PERSISTENT the buffer is a **named** configfs item
    instead (``/sys/kernel/config/udmabuf/NAME``, device ``/dev/NAME``),
    which other programs can open by name (:class:`Buffer`); creating one
    is normally root's business. A named buffer is removed by
    ``freebuffer()``, at the end of a ``with`` block, or when its last
    array is garbage collected or the interpreter exits, but not if the
    process is killed, and only by the process that made it (not by a
    child of ``os.fork()``); a persistent one (``persistent=True``) is never
    removed by this module: it stays, after the program too, until
    ``udmabufctl delete NAME``.

    target
        PYNQ's device or memory bank to allocate in. None: the module's
        own device. A string is the DMA master as ``BUS/DEVICE``, as
        DMA_DEVICE below. Anything else (a PYNQ object) is ignored: the
        memory is always the system RAM the module allocates from.
    cacheable
        True (default; PYNQ's own default is not cacheable): a cached
        mapping, flush() and invalidate() around DMA. False (PYNQ passes
        0 and 1 too): an uncached mapping (sync_mode 1 with ``O_SYNC``),
        or write-combined with sync_mode=2, DMA-coherent with
        sync_mode=3.
    name
        A named buffer: the configfs item and device name.
    persistent
        A named buffer (default name ``pyudmabuf-PID-N``) that this
        module never removes.
    sync_mode
        0..7 (the configfs attribute); must agree with ``cacheable``
        (0 is always cached, 4..7 never).
    dma_mask
        Address bits of the DMA master, 12..64 (module default 32).
    dma_device
        The DMA master as ``BUS/DEVICE`` (``"pci/0000:01:00.0"``,
        ``"platform/a0000000.dma"``): its DMA ops and IOMMU apply and
        physical_address is its DMA address.
    allocator
        Where the memory comes from: ``"auto"`` (the module's choice),
        ``"page"``, ``"contig"`` or ``"cma"`` (needs libudmabuf 1.1).
    mode, minor, phys_addr
        Named buffers only: permissions of ``/dev/NAME`` (default
        0o600), the minor number, the CPU physical address to allocate
        at (see udmabufctl(8)).
    sync_check
        The module's sync checker, to find a missing flush() or
        invalidate() on any machine: True or ``'report'`` (each CPU
        access to bytes the device owns, each invalidate of bytes it
        never had, is a line in the kernel log and one more in
        ``sync_violations``), ``'sigbus'`` (and ``SIGBUS`` at the
        faulting access), False or ``'off'``; None (default): the
        module's default, off, unless ``UDMABUF_SYNC_CHECK=report`` or
        ``=sigbus`` is in the environment, which libudmabuf applies to
        every buffer and which raises, never lowers, what is asked here.
        Needs libudmabuf 1.3 (and a module with the checker).

    Raises TypeError for an argument PYNQ and this module do not know or
    a value of the wrong type, ValueError for contradicting ones (MODE,
    MINOR or PHYS_ADDR without a name), for a DTYPE that holds Python
    objects (they cannot live in DMA memory), for a SHAPE no array can
    have (a negative dimension, more than ``sys.maxsize`` bytes) and for
    an integer the library's C type for it cannot hold (naming it:
    SYNC_MODE, DMA_MASK, MODE, SYNC_CHECK are unsigned int, MINOR a long,
    PHYS_ADDR 64 bits; the library checks the ranges it allows), all
    before anything is made; OSError with the errno of the
    step that failed: FileNotFoundError if the module (or its
    ``/dev/udmabuf-cfs``) is not there, PermissionError if the user may
    not allocate, ENOMEM (also beyond the module's ``process_max``),
    EEXIST (NAME exists), EINVAL/ERANGE (a bad value), ENOSYS (a
    process-scoped buffer, or ALLOCATOR, with a libudmabuf older than
    1.1; SYNC_CHECK with one older than 1.3), EOPNOTSUPP (a sync checker
    the module does not have); ValueError for a SYNC_CHECK word it does
    not know, EINVAL for a bad UDMABUF_SYNC_CHECK. A failure leaves
    nothing behind, with PERSISTENT too.
    """
    dtype = _dtype_arg(dtype)
    shape, nbytes = _shape_arg(shape, dtype)
    if isinstance(target, (str, bytes)):
        if dma_device is not None:
            raise ValueError(f"target {target!r} and dma_device {dma_device!r}: "
                             "give one")
        dma_device = os.fsdecode(target)
    elif dma_device is not None:
        dma_device = os.fsdecode(dma_device)
    if allocator is not None:
        allocator = os.fsdecode(allocator)
    sync_check = _sync_check_arg(sync_check)
    cacheable = bool(cacheable)
    named = name is not None or bool(persistent)
    if not named:
        given = [k for k, v in (("mode", mode), ("minor", minor), ("phys_addr", phys_addr))
                 if v is not None]
        if given:
            raise ValueError(f"{', '.join(given)}: only for a named buffer "
                             "(pass name= or persistent=True)")
    size = max(-(-nbytes // _PAGE), 1) * _PAGE
    if sync_mode is not None:
        sync_mode = _int_arg(sync_mode, "sync_mode")
        if cacheable and sync_mode >= 4:
            raise ValueError(f"sync_mode {sync_mode} never maps cached: "
                             "pass cacheable=False")
        if not cacheable and sync_mode in (0, 4):
            raise ValueError(f"sync_mode {sync_mode} always maps cached: "
                             "pass cacheable=True")
    if sync_mode is None and not cacheable:
        sync_mode = 1
    values = {"sync_mode": sync_mode, "dma_mask": dma_mask, "mode": mode,
              "minor": minor, "phys_addr": phys_addr}
    # Each in its setter's C type (the value is its second argument).
    values = {k: None if v is None else _int_arg(v, k, _c.argtype(_SET[k], 1))
              for k, v in values.items()}
    if named:
        buf = _create_named(size, cacheable=cacheable, name=name, values=values,
                            dma_device=dma_device, allocator=allocator,
                            sync_check=sync_check)
    else:
        buf = _alloc_process(size, cacheable=cacheable, values=values,
                             dma_device=dma_device, allocator=allocator,
                             sync_check=sync_check)
    try:
        arr = buf.array(shape, dtype)
    except BaseException:
        # The buffer still owns its item, a persistent one too: nothing
        # made here stays behind.
        buf.close()
        raise
    if persistent:
        # From here on the buffer outlives this program.
        buf._state["owned"] = None
    return arr
