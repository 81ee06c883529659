#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The Python binding on the guest's architecture: Debian's python3 and
# python3-numpy of that arch import udmabuf over its libudmabuf.so.1;
# numpy arrays over the mapping each sync_mode and O_SYNC choose; flush and
# invalidate (cache maintenance where DMA is not coherent); the DMA and CPU
# physical addresses and the coherent flag; DMA by QEMU's edu device into
# configfs and process-scoped arrays, as in dma.bats.  The rest of the
# binding, the same everywhere, is python.bats.
# The DMA tests run under the sync checker (UDMABUF_SYNC_CHECK=report, as a
# user checks an unmodified program): each array's buffer has it on, and
# neither sync_violations nor the kernel log has a report at the end.
# vm: needs python
# check-all: weight 19

# Variables such as cfs come from helpers/common.bash, stderr from bats' run.
# shellcheck disable=SC2154
load helpers/common
load helpers/edu
load helpers/python

bats_require_minimum_version 1.5.0

# py_checked: py with the sync checker on for every buffer the script
# allocates (UDMABUF_SYNC_CHECK=report); no "sync check:" line in the
# kernel log meanwhile.  The script itself asserts its buffers' checker is
# on and their sync_violations 0 (assert_no_missing_sync), before they go.
py_checked() {
	local seq
	seq=$("$UT" kmsg-seq)
	UDMABUF_SYNC_CHECK=report py
	run -0 "$UT" kmsg-since "$seq"
	refute_output --partial "sync check:"
}

# The python the harness put in (tests/vm/run: UDMABUF_PYTHON_*) is the one
# that runs: bookworm's 3.11 with NumPy 1.24, or on the amd64-sid lane sid's
# own python3 with NumPy 2.  The versions go into the TAP output.
@test "Debian's python3 and numpy of the guest's release and architecture import udmabuf over libudmabuf.so.1 (NumPy 2 on sid)" {
	py <<-'EOF'
		import platform, ctypes
		machine = {"amd64": "x86_64", "arm64": "aarch64"}[os.environ["UDMABUF_ARCH"]]
		assert platform.machine() == machine, platform.machine()
		release = os.environ["UDMABUF_PYTHON_RELEASE"]
		pyver = "%d.%d" % sys.version_info[:2]
		assert pyver == os.environ["UDMABUF_PYTHON_VERSION"], (pyver, os.environ["UDMABUF_PYTHON_VERSION"])
		assert np.__version__ == os.environ["UDMABUF_PYTHON_NUMPY"], (np.__version__, os.environ["UDMABUF_PYTHON_NUMPY"])
		major = {"bookworm": 1, "sid": 2}[release]
		assert np.__version__.split(".")[0] == str(major), (release, np.__version__)
		assert udmabuf.library_version() == "1.3.0", udmabuf.library_version()
		assert udmabuf._c.lib.has("udmabuf_alloc"), "the guest's libudmabuf has no udmabuf_alloc"
		assert udmabuf.__file__ == "/usr/lib/python3/dist-packages/udmabuf/__init__.py", udmabuf.__file__
		print(f"{release}: python {platform.python_version()}, NumPy {np.__version__}", file=sys.stderr)
		print("OK")
	EOF
	printf '# %s\n' "${stderr_lines[@]}" >&3
}

@test "what is written through the numpy array is what /dev/NAME reads, and the other way round" {
	# The array and read(2)/write(2) are both the CPU's: no sync between
	# them.  A flush() before the read() gave the buffer to the device,
	# which the sync checker reported for the read() and the write().
	py_checked <<-'EOF'
		a = udmabuf.allocate(PAGE // 4, dtype="u4", name="pyb")
		a[:] = np.arange(a.size, dtype="u4") * 2654435761
		with open("/dev/pyb", "rb", buffering=0) as f:
		    data = f.read(a.nbytes)
		assert data == a.tobytes(), "read(2) of /dev/pyb differs from the array"
		fd = os.open("/dev/pyb", os.O_WRONLY)
		os.pwrite(fd, b"\xff" * 8, 16)
		os.close(fd)
		assert a[4] == a[5] == 0xffffffff and a[3] == 3 * 2654435761 % 2**32, a[:8]
		assert_no_missing_sync(a)
		print("OK")
	EOF
}

# (The ranges a view refuses, the addresses of slices: python/tests'
# test_a_slice_syncs_ranges_of_its_own_bytes and
# test_slices_have_offset_addresses_and_sync_their_bytes.)
@test "an array's DMA address, CPU physical address and coherent flag are the driver's; flush and invalidate take the whole array, a view or a byte range, and refuse ranges outside with EINVAL" {
	py <<-'EOF'
		a = udmabuf.allocate(2 * PAGE, dtype=np.uint8, name="pyb")
		dma = ctl_dma_addr("pyb")
		cpu = ctl_cpu_phys_addr("pyb")
		assert a.physical_address == a.device_address == dma, (hex(a.physical_address), hex(dma))
		assert a.cpu_physical_address == a.buffer.cpu_physical_address == cpu, (hex(a.cpu_physical_address), hex(cpu))
		# No IOMMU in the guest: the two are the same address.
		assert cpu == dma, (hex(cpu), hex(dma))
		with open(f"{CLASS}/pyb/dma_coherent") as f:
		    assert a.coherent is (f.read().strip() == "1") and a[2:].coherent is a.coherent
		for f in (a.flush, a.invalidate, a.sync_to_device, a.sync_from_device):
		    f()
		    f(0, 16)
		    f(PAGE - 8, 16)
		    f(2 * PAGE - 1, 1)
		    f(2 * PAGE, 0)
		    a[100:200].__getattribute__(f.__name__)()
		    a[::2].__getattribute__(f.__name__)(0, 2 * PAGE - 1)
		a.buffer.flush(0, 2 * PAGE)
		a.buffer.invalidate(PAGE)
		for f in (a.flush, a.invalidate):
		    e = raises(OSError, "EINVAL", f, 0, 2 * PAGE + 1)
		    assert "pyb" in str(e) and f.__name__ in str(e), e
		    raises(TypeError, None, f, 1.5)
		# The page after the array's end is the buffer's, not the array's.
		b = udmabuf.allocate(100, dtype=np.uint8, name="pyc")
		b.buffer.flush(0, PAGE)
		raises(OSError, "EINVAL", b.buffer.flush, 0, PAGE + 1)
		print("OK")
	EOF
}

# (A cacheable contradicting sync_mode: python/tests/test_host.py.)
@test "cacheable picks the mapping: O_SYNC or not, sync_mode 1 or what was asked" {
	py <<-'EOF'
		a = udmabuf.allocate(16, name="c1")
		assert not fd_flags(a.buffer.fileno()) & os.O_SYNC and a.cacheable
		assert attr("c1", "sync_mode") == "1"
		b = udmabuf.allocate(16, cacheable=False, name="c2")
		assert fd_flags(b.buffer.fileno()) & os.O_SYNC and not b.cacheable
		assert attr("c2", "sync_mode") == "1"
		c = udmabuf.allocate(16, cacheable=False, sync_mode=2, name="c3")
		assert fd_flags(c.buffer.fileno()) & os.O_SYNC and attr("c3", "sync_mode") == "2"
		d = udmabuf.allocate(16, sync_mode=0, name="c4")
		assert attr("c4", "sync_mode") == "0"
		for x in (b, c):
		    x[:] = 0x5a
		    x.flush()
		    assert (x == 0x5a).all()
		print("OK")
	EOF
}

@test "DMA into a numpy array: edu reads one array and writes another at their physical_address" {
	edu_ready
	py_checked <<-'EOF'
		dev = "pci/" + os.environ["UDMABUF_EDU"]
		n = EDU_N
		src = udmabuf.allocate(PAGE, dtype=np.uint8, name="src", dma_device=dev)
		dst = udmabuf.allocate(2 * PAGE, dtype=np.uint8, name="dst", dma_device=dev)
		# Into a view: at the address of its first byte.
		view = dst[PAGE - 8:]
		pattern = edu_copy(src, dst, view)
		# All that was given to the device comes back: the view starts 8
		# bytes before a page, inside a cache line, so an invalidate of the
		# view alone splits that line (the sync checker reports it: on a
		# non-coherent CPU the rest of the line is lost or overwritten).
		dst.invalidate()
		assert (view[:n] == pattern).all(), "the device's data did not arrive"
		assert (dst[:PAGE - 8] == 0xee).all() and (view[n:] == 0xee).all(), "DMA outside the range"
		# Negative control: without the transfer nothing arrives.
		ctl = udmabuf.allocate(PAGE, dtype=np.uint8, name="ctl", dma_device=dev)
		ctl[:] = 0xee
		ctl.flush()
		ctl.invalidate()
		assert (ctl == 0xee).all()
		assert_no_missing_sync(src, dst, ctl)
		print("OK")
	EOF
}

@test "edu DMA into and out of process-scoped arrays bound to edu" {
	edu_ready
	py_checked <<-'EOF'
		dev = "pci/" + os.environ["UDMABUF_EDU"]
		n = EDU_N
		src = udmabuf.allocate(PAGE, np.uint8, dev)
		dst = udmabuf.allocate((2, PAGE), np.uint8, target=dev)
		assert src.buffer.process_scoped and dst.buffer.process_scoped
		view = dst[1]
		pattern = edu_copy(src, dst, view)
		# The whole row comes back, not only its first n bytes: n ends
		# inside a cache line where lines are 128 bytes (arm64), and an
		# invalidate that splits a line is what the sync checker reports.
		view.invalidate()
		assert (view[:n] == pattern).all(), "the device's data did not arrive"
		# dst[0] went to the device with dst.flush() too: it comes back
		# before the CPU reads it (the sync checker reported that read).
		dst[0].invalidate()
		assert (dst[0] == 0xee).all() and (view[n:] == 0xee).all(), "DMA outside the range"
		assert_no_missing_sync(src, dst)
		print("OK")
	EOF
}
