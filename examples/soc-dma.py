#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""soc-dma.py - a ZynqMP ZDMA channel copies within a device-tree buffer,
from Python: the path of examples/soc-dma.c with udmabuf.Buffer().

    soc-dma.py [BUFFER [CHANNEL]]     default: soc-dma.py soc-dma 0xfd500000

BUFFER is a buffer the device tree made (examples/soc-dma.dtsi), CHANNEL
the physical address of a ZDMA channel's registers that no kernel driver
holds.  The channel runs one "simple DMA" transfer (descriptors in its
registers) of the buffer's first half into its second half; soc-dma.c
lists the registers.  Run as root.
"""
import mmap
import os
import sys
import time

import numpy as np
import udmabuf

ZDMA_CH_ISR, ZDMA_CH_IDS, ZDMA_CH_CTRL0 = 0x100, 0x10C, 0x110
ZDMA_CH_STATUS, ZDMA_CH_DATA_ATTR = 0x11C, 0x120
ZDMA_CH_SRC_DSCR_WORD0, ZDMA_CH_DST_DSCR_WORD0 = 0x128, 0x138
ZDMA_CH_TOTAL_BYTE, ZDMA_CH_CTRL2 = 0x188, 0x200
ISR_ALL, ISR_DMA_DONE = 0xFFF, 1 << 10
ISR_ERRORS = (1 << 9) | (1 << 8) | (1 << 7) | (1 << 6) | 1
CTRL0_CLEAR = (1 << 6) | (3 << 4) | (1 << 1)     # POINT_TYPE, MODE, CONT
BURST_MASK, BURST_INCR = (3 << 26) | (3 << 12), (1 << 26) | (1 << 12)


class Channel:
    """Step 1: the channel's registers, one page of /dev/mem (O_SYNC:
    device memory), as 32-bit words: one load or store per access."""

    def __init__(self, addr):
        if addr % mmap.PAGESIZE:
            raise ValueError(f"channel address {addr:#x} is not page-aligned")
        fd = os.open("/dev/mem", os.O_RDWR | os.O_SYNC)
        try:
            self.mm = mmap.mmap(fd, mmap.PAGESIZE, mmap.MAP_SHARED,
                                mmap.PROT_READ | mmap.PROT_WRITE, offset=addr)
        finally:
            os.close(fd)
        self.regs = np.frombuffer(self.mm, dtype="<u4")

    def __getitem__(self, reg):
        return int(self.regs[reg // 4])

    def __setitem__(self, reg, value):
        self.regs[reg // 4] = value & 0xFFFFFFFF

    def copy(self, src, dst, length):
        """Step 4: one simple-mode transfer, polled until DMA_DONE."""
        state = self[ZDMA_CH_STATUS] & 3
        if self[ZDMA_CH_CTRL2] & 1 or state not in (0, 3):
            raise RuntimeError(f"the channel is busy (STATUS {state:#x})")
        self[ZDMA_CH_IDS] = ISR_ALL
        self[ZDMA_CH_ISR] = ISR_ALL
        self[ZDMA_CH_TOTAL_BYTE] = self[ZDMA_CH_TOTAL_BYTE]
        self[ZDMA_CH_CTRL0] = self[ZDMA_CH_CTRL0] & ~CTRL0_CLEAR
        self[ZDMA_CH_DATA_ATTR] = (self[ZDMA_CH_DATA_ATTR] & ~BURST_MASK) | BURST_INCR
        for base, addr in ((ZDMA_CH_SRC_DSCR_WORD0, src), (ZDMA_CH_DST_DSCR_WORD0, dst)):
            self[base] = addr
            self[base + 4] = addr >> 32
            self[base + 8] = length
            self[base + 12] = 0
        self[ZDMA_CH_CTRL2] = 1
        deadline = time.monotonic() + 2
        while True:
            isr = self[ZDMA_CH_ISR]
            if isr & ISR_ERRORS:
                raise RuntimeError(f"the engine reports an error (ISR {isr:#05x})")
            if isr & ISR_DMA_DONE:
                break
            if time.monotonic() > deadline:
                raise TimeoutError("the DMA engine (no DMA_DONE)")
            time.sleep(0.001)
        state = self[ZDMA_CH_STATUS] & 3
        print(f"soc-dma.py: ZDMA_CH_ISR {isr:#05x} (DMA_DONE), ZDMA_CH_STATUS {state}, "
              f"ZDMA_CH_TOTAL_BYTE {self[ZDMA_CH_TOTAL_BYTE]}")
        if state == 3:
            raise RuntimeError("the engine finished with an error")


def main(name, chan_addr):
    chan = Channel(chan_addr)
    # Step 2: the device tree's buffer; physical_address is its DMA
    # address (PYNQ's name), what the engine is programmed with.
    with udmabuf.Buffer(name) as buf:
        half = buf.size // 2
        data = buf.array()
        src, dst = data[:half], data[half:2 * half]
        dma = buf.physical_address
        print(f"soc-dma.py: buffer /dev/{name}, {buf.size} bytes at DMA address "
              f"{dma:#x}, ZDMA channel at {chan_addr:#x}")
        # Step 3: the CPU fills the first half and hands both over.
        i = np.arange(half)
        pattern = (i * 7 + (i >> 8) + 3).astype(np.uint8)
        src[:] = pattern
        dst[:] = 0
        buf.flush(0, 2 * half, udmabuf.DIR_BIDIRECTIONAL)
        # Step 4: the engine copies it into the second half.
        chan.copy(dma, dma + half, half)
        # Step 5: the CPU takes back all it gave: the second half, which
        # the engine wrote (its stale lines are invalidated), and the
        # first, which the engine read (nothing to do for the caches, but
        # the buffer is the CPU's again for whoever opens it next); then
        # reads the second half.
        buf.invalidate(half, half)
        buf.invalidate(0, half, udmabuf.DIR_TO_DEVICE)
        bad = np.flatnonzero(dst != pattern)
        if bad.size:
            print(f"soc-dma.py: byte {bad[0]} was not copied ({dst[bad[0]]:#04x})",
                  file=sys.stderr)
            return 1
        del data, src, dst
    print(f"soc-dma.py: {half} bytes copied by the ZDMA channel from {dma:#x} "
          f"to {dma + half:#x}")
    return 0


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) > 2 or (args and args[0].startswith("-")):
        print("usage: soc-dma.py [BUFFER [CHANNEL]]   (default: soc-dma 0xfd500000)",
              file=sys.stderr)
        sys.exit(2)
    try:
        sys.exit(main(args[0] if args else "soc-dma",
                      int(args[1], 0) if len(args) > 1 else 0xFD500000))
    except (OSError, RuntimeError, ValueError) as e:
        print(f"soc-dma.py: {e}", file=sys.stderr)
        sys.exit(1)
