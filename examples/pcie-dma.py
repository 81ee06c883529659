#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""pcie-dma.py - a PCIe card's DMA engine reads a buffer and writes one
back, from Python: the path of examples/pcie-dma.c with udmabuf.allocate().

    pcie-dma.py BDF        e.g. pcie-dma.py 0000:01:00.0

Before it runs, the card needs a driver that gives user space its BARs
(the IOMMU, if there is one, is set up for the card only then):

    echo 1234 11e8 > /sys/bus/pci/drivers/uio_pci_generic/new_id

The engine is QEMU's "edu" device (PCI 1234:11e8); a card of your own has
other registers, and only edu_copy() would change.  edu's registers in
BAR0: 0x80 source address, 0x88 destination address, 0x90 length (64 bits
each), 0x98 command (bit 0 start, cleared by the card when done; bit 1
direction, 1: card to host); its own 4 KiB of memory is at the card-side
address 0x40000.  Run as root.
"""
import mmap
import os
import sys
import time

import numpy as np
import udmabuf

LEN = 2048                      # one transfer; edu takes less than 4 KiB
PCI_COMMAND = 0x04
PCI_COMMAND_MEMORY = 0x2
PCI_COMMAND_MASTER = 0x4
EDU_SRC, EDU_DST, EDU_LEN, EDU_CMD = 0x80, 0x88, 0x90, 0x98
EDU_CMD_START, EDU_CMD_TO_HOST = 0x1, 0x2
EDU_MEM = 0x40000


def enable_bus_master(bdf):
    """Step 1: bus mastering.  A card may read and write host memory only
    with bit 2 of its PCI command register set; uio_pci_generic does not
    set it, and without it the engine's transfers silently never
    happen."""
    fd = os.open(f"/sys/bus/pci/devices/{bdf}/config", os.O_RDWR)
    try:
        cmd = bytearray(os.pread(fd, 2, PCI_COMMAND))
        if not cmd[0] & PCI_COMMAND_MASTER:
            cmd[0] |= PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER
            os.pwrite(fd, bytes(cmd), PCI_COMMAND)
    finally:
        os.close(fd)


def map_bar0(bdf):
    """Step 2: the card's registers, BAR0, mapped through sysfs, as 64-bit
    words (one store per register write)."""
    fd = os.open(f"/sys/bus/pci/devices/{bdf}/resource0",
                 os.O_RDWR | os.O_SYNC)
    try:
        bar = mmap.mmap(fd, 4096, mmap.MAP_SHARED,
                        mmap.PROT_READ | mmap.PROT_WRITE)
    finally:
        os.close(fd)
    return np.frombuffer(bar, dtype=np.uint64)


def edu_copy(regs, src, dst, to_host):
    """The engine copies LEN bytes; wait until it says it is done."""
    regs[EDU_SRC // 8] = src
    regs[EDU_DST // 8] = dst
    regs[EDU_LEN // 8] = LEN
    regs[EDU_CMD // 8] = EDU_CMD_START | (EDU_CMD_TO_HOST if to_host else 0)
    deadline = time.monotonic() + 10
    while int(regs[EDU_CMD // 8]) & EDU_CMD_START:
        if time.monotonic() > deadline:
            raise TimeoutError("the DMA engine did not finish")
        time.sleep(0.001)


def main(bdf):
    enable_bus_master(bdf)
    regs = map_bar0(bdf)
    # Step 3: a buffer bound to the card (PYNQ's allocate(); the target is
    # the card; process-scoped: the kernel frees it when this program ends,
    # however it ends).  physical_address is its DMA address, the one the
    # card must be given: behind an IOMMU an IOVA made for this card.
    with udmabuf.allocate(2 * LEN, dtype=np.uint8, target=f"pci/{bdf}") as buf:
        src, dst = buf[:LEN], buf[LEN:]
        print(f"pcie-dma.py: buffer at DMA address {buf.physical_address:#x} "
              f"for {bdf}")
        # Step 4: the CPU writes the first half and hands it to the card.
        data = (np.arange(LEN) * 13 + 1).astype(np.uint8)
        src[:] = data
        dst[:] = 0
        buf.flush()
        # Step 5: the card reads it into its memory and writes it back
        # into the second half.
        edu_copy(regs, src.physical_address, EDU_MEM, to_host=False)
        edu_copy(regs, EDU_MEM, dst.physical_address, to_host=True)
        # Step 6: the CPU takes the second half back, then reads it (and
        # only it: the first half is the card's until it is taken back
        # too, so what arrived is compared with the data, not with src).
        dst.invalidate()
        bad = np.flatnonzero(dst != data)
        if bad.size:
            print(f"pcie-dma.py: byte {bad[0]} did not arrive "
                  f"({dst[bad[0]]:#04x})", file=sys.stderr)
            return 1
    print(f"pcie-dma.py: {LEN} bytes went to the card and came back by DMA")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: pcie-dma.py BDF   (e.g. 0000:01:00.0)", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
