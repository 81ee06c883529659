// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * pcie-dma - a PCIe card's DMA engine reads a buffer and writes one back,
 * driven from user space: the whole path from "the card has a driver" to
 * "the data arrived", as Documentation/admin-guide.rst walks through it.
 *
 *   pcie-dma BDF        e.g. pcie-dma 0000:01:00.0
 *
 * Before it runs, the card needs a driver that gives user space its BARs
 * (the IOMMU, if there is one, is set up for the card only then):
 *
 *   echo 1234 11e8 > /sys/bus/pci/drivers/uio_pci_generic/new_id
 *
 * The engine here is QEMU's "edu" device (PCI 1234:11e8), a real DMA
 * master with a small register block; yours has other registers, and only
 * edu_copy() below would change.  edu's registers in BAR0:
 *
 *   0x80  source address       (64 bits)
 *   0x88  destination address  (64 bits)
 *   0x90  length in bytes      (64 bits)
 *   0x98  command: bit 0 start (cleared by the card when done),
 *         bit 1 direction (0: host memory to the card, 1: card to host)
 *
 * and 4 KiB of memory of its own at the card-side address 0x40000.
 *
 * Build: cc -o pcie-dma pcie-dma.c $(pkg-config --cflags --libs udmabuf)
 * Run as root (PCI config space, BAR0 and buffer creation need it).
 * A 64-bit program: edu's 64-bit registers take one 64-bit store each.
 */
#define _DEFAULT_SOURCE		/* pread, pwrite, nanosleep, O_SYNC */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <udmabuf.h>

#define BUF_NAME	"pcie-dma"
#define LEN		2048		/* one transfer; edu takes < 4 KiB */

#define PCI_COMMAND		0x04
#define PCI_COMMAND_MEMORY	0x2
#define PCI_COMMAND_MASTER	0x4

#define EDU_SRC		0x80
#define EDU_DST		0x88
#define EDU_LEN		0x90
#define EDU_CMD		0x98
#define EDU_CMD_START	0x1
#define EDU_CMD_TO_HOST	0x2
#define EDU_MEM		0x40000ULL

static int fail(const char *what, int err)
{
	fprintf(stderr, "pcie-dma: %s: %s\n", what, strerror(err));
	return 1;
}

/*
 * Step 1: bus mastering.  A card may read and write host memory only with
 * bit 2 of its PCI command register set; uio_pci_generic does not set it
 * (vfio-pci users set it the same way, through the config region), and
 * without it the engine's transfers silently never happen.
 */
static int enable_bus_master(const char *bdf)
{
	char path[128];
	uint8_t cmd[2];
	int fd, err = 0;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/config", bdf);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return fail(path, errno);
	if (pread(fd, cmd, 2, PCI_COMMAND) != 2) {
		err = errno ? errno : EIO;
	} else if (!(cmd[0] & PCI_COMMAND_MASTER)) {
		cmd[0] |= PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
		if (pwrite(fd, cmd, 2, PCI_COMMAND) != 2)
			err = errno ? errno : EIO;
	}
	close(fd);
	return err ? fail("PCI command register", err) : 0;
}

/* Step 2: the card's registers, BAR0, mapped through sysfs. */
static volatile uint64_t *map_bar0(const char *bdf)
{
	char path[128];
	void *p;
	int fd;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource0", bdf);
	fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	if (fd < 0) {
		fail(path, errno);
		return NULL;
	}
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		fail("mmap of BAR0", errno);
		return NULL;
	}
	return p;
}

static void reg_write(volatile uint64_t *bar, unsigned int reg, uint64_t v)
{
	bar[reg / 8] = v;
}

/* The engine copies LEN bytes; wait until it says it is done. */
static int edu_copy(volatile uint64_t *bar, uint64_t src, uint64_t dst,
		    int to_host)
{
	struct timespec tick = { 0, 1000000 };
	int ms;

	reg_write(bar, EDU_SRC, src);
	reg_write(bar, EDU_DST, dst);
	reg_write(bar, EDU_LEN, LEN);
	reg_write(bar, EDU_CMD, EDU_CMD_START | (to_host ? EDU_CMD_TO_HOST : 0));
	for (ms = 0; ms < 10000; ms++) {
		if (!(bar[EDU_CMD / 8] & EDU_CMD_START))
			return 0;
		nanosleep(&tick, NULL);
	}
	return fail("the DMA engine", ETIMEDOUT);
}

int main(int argc, char **argv)
{
	char dev[64];
	struct udmabuf_config *cfg;
	volatile uint64_t *bar;
	struct udmabuf *buf;
	uint64_t dma, i;
	uint8_t *p;
	int ret = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: pcie-dma BDF   (e.g. 0000:01:00.0)\n");
		return 2;
	}
	if (enable_bus_master(argv[1]))
		return 1;
	bar = map_bar0(argv[1]);
	if (!bar)
		return 1;

	/*
	 * Step 3: a buffer bound to the card.  Its DMA address is the one the
	 * card must be given: behind an IOMMU an IOVA made for this card, not
	 * the CPU physical address.
	 */
	snprintf(dev, sizeof(dev), "pci/%s", argv[1]);
	cfg = udmabuf_config_new();
	if (!cfg || udmabuf_config_set_size(cfg, 2 * LEN) ||
	    udmabuf_config_set_dma_device(cfg, dev) ||
	    udmabuf_create(BUF_NAME, cfg, 0)) {
		fprintf(stderr, "pcie-dma: create: %s\n", udmabuf_last_error());
		udmabuf_config_free(cfg);
		return 1;
	}
	udmabuf_config_free(cfg);
	if (udmabuf_open(BUF_NAME, O_RDWR, &buf)) {
		fprintf(stderr, "pcie-dma: open: %s\n", udmabuf_last_error());
		goto destroy;
	}
	if (udmabuf_get_dma_addr(buf, &dma) ||
	    udmabuf_map(buf, 0, 0, 0, (void **)&p)) {
		fprintf(stderr, "pcie-dma: %s\n", udmabuf_last_error());
		goto close;
	}
	printf("pcie-dma: buffer /dev/%s at DMA address 0x%" PRIx64 " for %s\n",
	       udmabuf_get_name(buf), dma, argv[1]);

	/* Step 4: the CPU writes the first half and hands it to the card. */
	for (i = 0; i < LEN; i++) {
		p[i] = (uint8_t)(i * 13 + 1);
		p[LEN + i] = 0;
	}
	if (udmabuf_sync_for_device(buf, 0, 2 * LEN, UDMABUF_DIR_BIDIRECTIONAL))
		goto sync_failed;

	/* Step 5: the card reads it into its memory and writes it back into
	 * the second half. */
	if (edu_copy(bar, dma, EDU_MEM, 0) ||
	    edu_copy(bar, EDU_MEM, dma + LEN, 1))
		goto unmap;

	/* Step 6: the CPU takes the second half back, then reads it. */
	if (udmabuf_sync_for_cpu(buf, LEN, LEN, UDMABUF_DIR_FROM_DEVICE))
		goto sync_failed;
	for (i = 0; i < LEN; i++) {
		if (p[LEN + i] != (uint8_t)(i * 13 + 1)) {
			fprintf(stderr, "pcie-dma: byte %" PRIu64 " did not arrive (0x%02x)\n",
				i, p[LEN + i]);
			goto unmap;
		}
	}
	printf("pcie-dma: %d bytes went to the card and came back by DMA\n", LEN);
	ret = 0;
	goto unmap;

sync_failed:
	fprintf(stderr, "pcie-dma: sync: %s\n", udmabuf_last_error());
unmap:
	udmabuf_unmap(p, 2 * LEN);
close:
	udmabuf_close(buf);
destroy:
	if (udmabuf_destroy(BUF_NAME, 0)) {
		fprintf(stderr, "pcie-dma: destroy: %s\n", udmabuf_last_error());
		ret = 1;
	}
	munmap((void *)bar, 4096);
	return ret;
}
