# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""ctypes declarations of libudmabuf.so.1 (see libudmabuf(3)).

Only what the Python module uses is declared. Every function that can fail
returns 0 or a negative errno value; :func:`check` turns the latter into an
:class:`OSError` carrying the library's message, which names the buffer,
the action and the reason.

The functions of libudmabuf 1.0 must all be there. Those added later
(:data:`_OPTIONAL`: process-scoped buffers, allocator choice, the sync
checker) may be
missing from an older library: then ``lib.has(NAME)`` is False and
``lib.NAME`` raises :class:`OSError` ``ENOSYS`` saying which library
lacks what, so that only what needs them fails.
"""

import ctypes
import errno
import os

SONAME = "libudmabuf.so.1"

# udmabuf.h
INFO_DMA_COHERENT = 1 << 0
INFO_RAM_CACHED = 1 << 1
INFO_DMA_BOUND = 1 << 2
INFO_DMA_DETACHED = 1 << 3

DIR_BIDIRECTIONAL = 0
DIR_TO_DEVICE = 1
DIR_FROM_DEVICE = 2

CREATE_NO_ENABLE = 0x1
DESTROY_FORCE = 0x1

# The sync checker's modes (UDMABUF_SYNC_CHECK_*, libudmabuf 1.3).
SYNC_CHECK_OFF = 0
SYNC_CHECK_REPORT = 1
SYNC_CHECK_SIGBUS = 2

_u64 = ctypes.c_uint64
_u32 = ctypes.c_uint32
_uint = ctypes.c_uint
_int = ctypes.c_int
_long = ctypes.c_long
_str = ctypes.c_char_p
_ptr = ctypes.c_void_p

# name: (restype, argtypes).  Handles (struct udmabuf *, struct
# udmabuf_config *) are opaque: c_void_p.
_PROTOTYPES = {
    "udmabuf_library_version": (_str, []),
    "udmabuf_last_error": (_str, []),
    "udmabuf_module_has_feature": (_int, [_str]),
    "udmabuf_open": (_int, [_str, _int, ctypes.POINTER(_ptr)]),
    "udmabuf_close": (_int, [_ptr]),
    "udmabuf_get_fd": (_int, [_ptr]),
    "udmabuf_get_name": (_str, [_ptr]),
    "udmabuf_get_size": (_u64, [_ptr]),
    "udmabuf_get_dma_addr": (_int, [_ptr, ctypes.POINTER(_u64)]),
    "udmabuf_get_phys_addr": (_int, [_ptr, ctypes.POINTER(_u64)]),
    "udmabuf_get_flags": (_int, [_ptr, ctypes.POINTER(_u32)]),
    "udmabuf_get_sync_mode": (_int, [_ptr, ctypes.POINTER(_uint)]),
    "udmabuf_get_minor": (_uint, [_ptr]),
    "udmabuf_get_driver_version": (_str, [_ptr]),
    "udmabuf_sync_for_cpu": (_int, [_ptr, _u64, _u64, _int]),
    "udmabuf_sync_for_device": (_int, [_ptr, _u64, _u64, _int]),
    "udmabuf_config_new": (_ptr, []),
    "udmabuf_config_free": (None, [_ptr]),
    "udmabuf_config_set_size": (_int, [_ptr, _u64]),
    "udmabuf_config_set_minor": (_int, [_ptr, _long]),
    "udmabuf_config_set_device_name": (_int, [_ptr, _str]),
    "udmabuf_config_set_sync_mode": (_int, [_ptr, _uint]),
    "udmabuf_config_set_dma_mask": (_int, [_ptr, _uint]),
    "udmabuf_config_set_mode": (_int, [_ptr, _uint]),
    "udmabuf_config_set_dma_device": (_int, [_ptr, _str]),
    "udmabuf_config_set_phys_addr": (_int, [_ptr, _u64]),
    "udmabuf_create": (_int, [_str, _ptr, _uint]),
    "udmabuf_destroy": (_int, [_str, _uint]),
    # 1.1: process-scoped buffers (/dev/udmabuf-cfs), the allocator, and
    # syncs named for what they do. The binding's flush()/invalidate()
    # keep the direction-taking 1.0 calls (the same ioctls), so that
    # Buffer works with a 1.0 library.
    "udmabuf_config_set_allocator": (_int, [_ptr, _str]),
    "udmabuf_alloc": (_int, [_ptr, _int, ctypes.POINTER(_ptr)]),
    "udmabuf_flush": (_int, [_ptr, _u64, _u64]),
    "udmabuf_invalidate": (_int, [_ptr, _u64, _u64]),
    # 1.3: the module's sync checker.
    "udmabuf_config_set_sync_check": (_int, [_ptr, _uint]),
    "udmabuf_get_sync_check": (_int, [_ptr, ctypes.POINTER(_uint)]),
    "udmabuf_get_sync_violations": (_int, [_ptr, ctypes.POINTER(_u64)]),
}

# Since which library version each function that may be missing is there.
_OPTIONAL = {
    "udmabuf_config_set_allocator": "1.1",
    "udmabuf_alloc": "1.1",
    "udmabuf_flush": "1.1",
    "udmabuf_invalidate": "1.1",
    "udmabuf_config_set_sync_check": "1.3",
    "udmabuf_get_sync_check": "1.3",
    "udmabuf_get_sync_violations": "1.3",
}


class _Lib:
    """The library, loaded on first use (importing udmabuf never fails)."""

    def __init__(self):
        self._funcs = None

    @staticmethod
    def _open():
        return ctypes.CDLL(SONAME, use_errno=True)

    def _load(self):
        if self._funcs is None:
            try:
                cdll = self._open()
            except OSError as e:
                raise OSError(
                    getattr(e, "errno", None) or errno.ENOENT,
                    f"udmabuf: load {SONAME}: {e} (install libudmabuf1)",
                ) from None
            funcs = {}
            for fname, (restype, argtypes) in _PROTOTYPES.items():
                try:
                    f = getattr(cdll, fname)
                except AttributeError:
                    if fname in _OPTIONAL:
                        continue
                    raise OSError(errno.ENOSYS,
                                  f"udmabuf: load {SONAME}: it has no {fname}(), "
                                  "not libudmabuf 1.0 or later") from None
                f.restype = restype
                f.argtypes = argtypes
                funcs[fname] = f
            self._funcs = funcs
        return self._funcs

    def has(self, name):
        """True if the library has function NAME (loading it if needed)."""
        return name in self._load()

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        funcs = self._load()
        if name not in _PROTOTYPES:
            raise AttributeError(name)
        try:
            return funcs[name]
        except KeyError:
            raise OSError(errno.ENOSYS, self.missing(name)) from None

    def missing(self, name):
        """What to say when the library has no function NAME."""
        version = os.fsdecode(self._load()["udmabuf_library_version"]())
        return (f"udmabuf: {SONAME} (libudmabuf {version}) has no {name}(), "
                f"new in libudmabuf {_OPTIONAL[name]}")


lib = _Lib()


def argtype(fname, i):
    """The C type of argument I of function FNAME."""
    return _PROTOTYPES[fname][1][i]


def encode(s):
    """A name or path as the library takes it (file system encoding)."""
    return os.fsencode(s)


def last_error():
    msg = lib.udmabuf_last_error()
    return os.fsdecode(msg) if msg else ""


def error(ret, fallback):
    """The OSError for a negative return value RET, with the library's
    message (or FALLBACK if it left none)."""
    err = -ret
    msg = last_error() or f"{fallback}: {os.strerror(err)}"
    # OSError(errno, ...) picks the subclass: FileNotFoundError for
    # ENOENT, PermissionError for EACCES, ...
    return OSError(err, msg)


def check(ret, fallback):
    """Raise the OSError for RET if it is negative; else return it."""
    if ret < 0:
        raise error(ret, fallback)
    return ret
