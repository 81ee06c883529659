// SPDX-License-Identifier: GPL-2.0-only
/*
 * udmabuf-cfs: the DMA side of a buffer.
 *
 * A buffer's memory is always allocated against its own class device, with
 * the smaller of the buffer's dma_mask and its DMA master's mask, so the
 * CPU side (the pages, the kernel mapping, every user mapping) never
 * depends on another device.  The address user space programs into its DMA
 * master is valid for one device, the buffer's DMA device:
 *
 *  - unbound (no dma_device): the class device itself, with the platform's
 *    direct mapping: the address dma_alloc_pages() returned.
 *  - bound (configfs dma_device, module parameter udmabufN_bind, or the
 *    platform device of a device-tree node): the memory is mapped for that
 *    device with the streaming DMA API, so its DMA ops, its IOMMU domain
 *    (the address is then an IOVA), its dma-ranges and its coherency apply.
 *    Cache maintenance is done for that device.
 *
 * A bound device may go away under a buffer that is still open and mapped
 * (its driver is unbound, it is removed or unplugged).  A bus notifier then
 * tears down the mapping for it at once: no IOMMU entry is left for a gone
 * device, the CPU side keeps its memory and data, and asking for the DMA
 * address or a sync fails with -ENODEV from then on.  The mapping is
 * otherwise kept until the buffer's memory is freed, so a device can never
 * reach memory that has been given back.
 *
 * Locking: udmabuf_dma_lock protects the list of bound buffers and every
 * teardown; buf->dma_lock (read) is held by the users of the mapping (sync,
 * the address attributes) so that a teardown waits for them.  Order:
 * device_lock of the bound device, udmabuf_dma_lock, buf->dma_lock.
 */

#include <linux/ctype.h>
#include <linux/device.h>
#include <linux/dma-direct.h>
#include <linux/dma-mapping.h>
#include <linux/iommu.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/of.h>
#include <linux/of_reserved_mem.h>
#include <linux/pci.h>
#include <linux/platform_device.h>
#include <linux/rwsem.h>
#include <linux/string.h>

#include "internal.h"

/* Buffers mapped for a bound device, and every teardown of such a mapping. */
static DEFINE_MUTEX(udmabuf_dma_lock);
static LIST_HEAD(udmabuf_dma_bound);

/* The buses a dma_device may name, as "BUS/DEVICE". */
static udmabuf_bus_const struct bus_type *udmabuf_dma_bus(const char *name)
{
#ifdef CONFIG_PCI
	if (!strcmp(name, "pci"))
		return &pci_bus_type;
#endif
	if (!strcmp(name, "platform"))
		return &platform_bus_type;
	return NULL;
}

/* Split "BUS/DEVICE" (one trailing newline allowed) into @bus and @name. */
static int udmabuf_dma_split(const char *str, char *bus, size_t bus_len,
			     char *name, size_t name_len)
{
	size_t len = strlen(str);
	const char *slash;
	size_t i;

	if (len && str[len - 1] == '\n')
		len--;
	if (!len || len >= UDMABUF_CFS_DMA_DEVICE_LEN)
		return -EINVAL;
	slash = strnchr(str, len, '/');
	if (!slash || slash == str || slash - str >= bus_len ||
	    slash + 1 == str + len)
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (!isgraph(str[i]) || (str[i] & 0x80))
			return -EINVAL;
	if (strnchr(slash + 1, str + len - slash - 1, '/'))
		return -EINVAL;

	memcpy(bus, str, slash - str);
	bus[slash - str] = '\0';
	if (str + len - slash - 1 >= name_len)
		return -EINVAL;
	memcpy(name, slash + 1, str + len - slash - 1);
	name[str + len - slash - 1] = '\0';
	return 0;
}

/*
 * Find the device "BUS/DEVICE" names.  Return: the device with a reference,
 * ERR_PTR(-EINVAL) if @str is malformed, ERR_PTR(-ENODEV) if there is no
 * such bus or device.
 */
static struct device *udmabuf_dma_find(const char *str)
{
	udmabuf_bus_const struct bus_type *bus;
	char bus_name[16], name[UDMABUF_CFS_DMA_DEVICE_LEN];
	struct device *dev;
	int ret;

	ret = udmabuf_dma_split(str, bus_name, sizeof(bus_name), name,
				sizeof(name));
	if (ret)
		return ERR_PTR(ret);
	bus = udmabuf_dma_bus(bus_name);
	if (!bus)
		return ERR_PTR(-ENODEV);
	dev = bus_find_device_by_name(bus, NULL, name);
	return dev ? dev : ERR_PTR(-ENODEV);
}

/*
 * Whether a driver is bound to @dev (udmabuf_dma_has_driver() says why a
 * buffer needs one).  Under the device lock the answer holds until it is
 * dropped (udmabuf_dma_map()); without it, it is a hint that the driver may
 * change right after, so creating a buffer checks again.
 */
static bool udmabuf_dma_driven(struct device *dev)
{
	return READ_ONCE(dev->driver);
}

/**
 * udmabuf_dma_parse - check a dma_device value as it is written
 * @str: "BUS/DEVICE", or empty (a lone newline) for the module's own device
 * @out: the value without its newline
 * @len: size of @out, at least %UDMABUF_CFS_DMA_DEVICE_LEN
 *
 * A typo or a device not yet bound to its driver fails here, where it is
 * written, rather than only at enable (which checks both again).
 *
 * Return: 0, -EINVAL if malformed, -ENODEV if no such bus or device exists,
 * -ENXIO if the device has no driver.
 */
int udmabuf_dma_parse(const char *str, char *out, size_t len)
{
	struct device *dev;
	bool driven;

	if (sysfs_streq(str, "")) {
		out[0] = '\0';
		return 0;
	}
	dev = udmabuf_dma_find(str);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	driven = udmabuf_dma_driven(dev);
	put_device(dev);
	if (!driven)
		return -ENXIO;
	strscpy(out, str, len);
	out[strcspn(out, "\n")] = '\0';
	return 0;
}

/* The largest DMA address @dev can reach, as the DMA API sees it. */
static u64 udmabuf_dma_limit(struct device *dev)
{
	return min_not_zero(dma_get_mask(dev), dev->bus_dma_limit);
}

/*
 * Take a device-tree node's memory-region for the class device.  Only the
 * two kinds of region an allocation can come from are accepted, and only
 * if the whole region is within reach of the DMA mask: anything else would
 * silently give memory from elsewhere.
 */
static int udmabuf_dma_of_region(struct udmabuf_buffer *buf,
				 struct device_node *np, struct device *log)
{
	struct device_node *region;
	struct reserved_mem *rmem;
	bool nomap, reusable;
	int ret;

	region = of_parse_phandle(np, "memory-region", 0);
	if (!region)
		return 0;
	rmem = of_reserved_mem_lookup(region);
	nomap = of_property_read_bool(region, "no-map");
	reusable = of_property_read_bool(region, "reusable");
	of_node_put(region);
	if (!rmem) {
		dev_err(log, "memory-region: not a reserved-memory region\n");
		return -EINVAL;
	}
	if (!nomap && !reusable) {
		dev_err(log, "memory-region %s: neither no-map nor reusable: nothing to allocate from\n",
			rmem->name);
		return -EINVAL;
	}
	if (rmem->base + rmem->size - 1 > udmabuf_dma_limit(&buf->dev)) {
		dev_err(log, "memory-region %s: %pa+%pa is beyond the dma-mask (%u bits)\n",
			rmem->name, &rmem->base, &rmem->size,
			fls64(udmabuf_dma_limit(&buf->dev)));
		return -ERANGE;
	}

	ret = of_reserved_mem_device_init_by_idx(&buf->dev, np, 0);
	if (ret) {
		dev_err(log, "memory-region %s: cannot use it: %pe\n",
			rmem->name, ERR_PTR(ret));
		return ret;
	}
	buf->rmem = rmem;
	buf->pool = nomap;
	return 0;
}

/* Make a new buffer's DMA side empty; first thing after allocation. */
void udmabuf_dma_init_buffer(struct udmabuf_buffer *buf)
{
	init_rwsem(&buf->dma_lock);
	INIT_LIST_HEAD(&buf->dma_node);
}

/*
 * A device's DMA configuration is complete only while a driver is bound to
 * it: on device-tree and ACPI platforms the bus sets up its IOMMU group,
 * dma-ranges and coherency in the probe (dma_configure()) and takes them
 * down at unbind or when the probe fails.  So a buffer is bound only to a
 * device with a driver (vfio-pci or uio_pci_generic for a PCIe card), and
 * an unbind detaches it.  A device-tree buffer's own device is being
 * probed by this module.
 */
static bool udmabuf_dma_has_driver(struct udmabuf_buffer *buf,
				   struct device *target)
{
	if (buf->dma_own_target || udmabuf_dma_driven(target))
		return true;
	dev_notice_ratelimited(&buf->dev,
			       "DMA device %s has no driver: bind one first (vfio-pci or uio_pci_generic for a PCI device); until then its DMA setup is incomplete\n",
			       buf->dma_device);
	return false;
}

/**
 * udmabuf_dma_setup - choose a buffer's DMA device, before allocation
 * @buf: buffer being created, its class device initialised
 * @cfg: the configuration: @cfg->dma_target (a device-tree buffer's own
 *	platform device), else @cfg->dma_device ("BUS/DEVICE"), else none
 *
 * Sets the class device's DMA mask (the smaller of @cfg->dma_bits and the
 * DMA device's) and coherency, and takes a device-tree node's
 * memory-region.  Undone by udmabuf_dma_release().
 *
 * Return: 0, -EINVAL/-ENODEV for a bad or missing device, -ENXIO for a
 * device without a driver, -ERANGE if the platform cannot allocate within
 * the mask, or a reserved-memory error.
 */
int udmabuf_dma_setup(struct udmabuf_buffer *buf,
		      const struct udmabuf_config *cfg)
{
	struct device *dev = &buf->dev;
	u64 mask = DMA_BIT_MASK(cfg->dma_bits);
	struct device *target = NULL;

	if (cfg->dma_target) {
		target = get_device(cfg->dma_target);
		buf->dma_own_target = true;
	} else if (cfg->dma_device[0]) {
		target = udmabuf_dma_find(cfg->dma_device);
		if (IS_ERR(target))
			return PTR_ERR(target);
	}

	if (target) {
		buf->dma_target = target;
		snprintf(buf->dma_device, sizeof(buf->dma_device), "%s/%s",
			 target->bus ? target->bus->name : "none",
			 dev_name(target));
		if (!target->dma_mask)
			return -EINVAL;	/* not a DMA master */
		if (!udmabuf_dma_has_driver(buf, target))
			return -ENXIO;
		mask = min(mask, udmabuf_dma_limit(target));
		/*
		 * The class device allocates the memory; its coherency must
		 * be the DMA device's, so that the allocator and the mmap of
		 * pool memory treat the memory as that device will.
		 */
		dev_assign_dma_coherent(dev, dev_is_dma_coherent(target));
	}

	if (dma_set_mask_and_coherent(dev, mask))
		return -ERANGE;

	if (cfg->of_node)
		return udmabuf_dma_of_region(buf, cfg->of_node,
					     cfg->dma_target ?: dev);
	return 0;
}

/* Is @dev still on its bus?  A removed device is not found by name. */
static bool udmabuf_dma_present(struct device *dev)
{
	struct device *found;

	if (!dev->bus)
		return false;
	found = bus_find_device_by_name(dev->bus, NULL, dev_name(dev));
	put_device(found);
	return found == dev;
}

/**
 * udmabuf_dma_reach - where @dev sees memory, if it reaches it as it is
 * @dev: a device without a translating IOMMU
 * @phys: CPU physical address of the memory
 * @size: its length
 *
 * The streaming DMA API would otherwise bounce the memory through swiotlb
 * (a copy that the device and the CPU would not share) or warn.
 *
 * Return: the DMA address of @phys for @dev, or DMA_MAPPING_ERROR.
 */
dma_addr_t udmabuf_dma_reach(struct device *dev, phys_addr_t phys,
			     size_t size)
{
	dma_addr_t addr, last;

	if (is_swiotlb_force_bounce(dev))
		return DMA_MAPPING_ERROR;
	addr = phys_to_dma(dev, phys);
	last = phys_to_dma(dev, phys + size - 1);
	if (addr == DMA_MAPPING_ERROR || last == DMA_MAPPING_ERROR ||
	    last < addr || last > udmabuf_dma_limit(dev))
		return DMA_MAPPING_ERROR;
	return addr;
}

static bool udmabuf_dma_has_page(struct udmabuf_buffer *buf)
{
	return buf->pages || pfn_valid(PHYS_PFN(buf->phys_addr));
}

static void __udmabuf_dma_unmap(struct udmabuf_buffer *buf,
				struct device *target, dma_addr_t addr)
{
	if (udmabuf_dma_has_page(buf))
		dma_unmap_page_attrs(target, addr, buf->alloc_size,
				     DMA_BIDIRECTIONAL, DMA_ATTR_SKIP_CPU_SYNC);
	else
		dma_unmap_resource(target, addr, buf->alloc_size,
				   DMA_BIDIRECTIONAL, 0);
}

/* Map the memory for @target.  Called with udmabuf_dma_lock held. */
static int udmabuf_dma_map_target(struct udmabuf_buffer *buf,
				  struct device *target)
{
	struct iommu_domain *domain = iommu_get_domain_for_dev(target);
	bool translated = domain && iommu_is_dma_domain(domain);
	dma_addr_t expected = DMA_MAPPING_ERROR, addr;
	struct page *page;

	/* Another owner (VFIO, a user-space driver) manages its IOMMU. */
	if (domain && !translated && domain->type != IOMMU_DOMAIN_IDENTITY)
		return -EBUSY;
	if (!translated) {
		expected = udmabuf_dma_reach(target, buf->phys_addr,
					     buf->alloc_size);
		if (expected == DMA_MAPPING_ERROR)
			return -ERANGE;
	}

	/*
	 * The allocation already did the cache maintenance; from here on the
	 * syncs for @target do it.  Skipping it here also keeps DMA-API
	 * debugging from taking this second mapping of the same memory for a
	 * driver bug.
	 */
	if (udmabuf_dma_has_page(buf)) {
		page = buf->pages ?: pfn_to_page(PHYS_PFN(buf->phys_addr));
		addr = dma_map_page_attrs(target, page, 0, buf->alloc_size,
					  DMA_BIDIRECTIONAL,
					  DMA_ATTR_SKIP_CPU_SYNC);
	} else {
		addr = dma_map_resource(target, buf->phys_addr,
					buf->alloc_size, DMA_BIDIRECTIONAL, 0);
	}
	if (dma_mapping_error(target, addr))
		return -ENOMEM;

	/* Bounced after all, or an IOVA beyond the buffer's dma_mask. */
	if ((!translated && addr != expected) ||
	    addr + buf->alloc_size - 1 > buf->dma_mask) {
		__udmabuf_dma_unmap(buf, target, addr);
		return -ERANGE;
	}

	down_write(&buf->dma_lock);
	buf->dma_addr = addr;
	buf->dma_dev = target;
	up_write(&buf->dma_lock);
	list_add(&buf->dma_node, &udmabuf_dma_bound);
	return 0;
}

/* Undo udmabuf_dma_map_target().  Called with udmabuf_dma_lock held. */
static void udmabuf_dma_unmap_target(struct udmabuf_buffer *buf)
{
	down_write(&buf->dma_lock);
	__udmabuf_dma_unmap(buf, buf->dma_target, buf->dma_addr);
	buf->dma_dev = NULL;
	buf->dma_addr = 0;
	up_write(&buf->dma_lock);
	list_del_init(&buf->dma_node);
}

/* A memory-region buffer must come from its region, or not at all. */
static bool udmabuf_dma_in_region(struct udmabuf_buffer *buf)
{
	phys_addr_t end = buf->rmem->base + buf->rmem->size;

	return buf->phys_addr >= buf->rmem->base &&
	       buf->phys_addr + buf->alloc_size <= end;
}

/**
 * udmabuf_dma_map - give the allocated memory its DMA address
 * @buf: buffer whose memory udmabuf_alloc() allocated
 *
 * Return: 0; -ENOMEM if a memory-region buffer did not come from its
 * region or no IOVA space is left; -ERANGE if the bound device cannot reach
 * the memory without bounce buffering or its address is beyond dma_mask;
 * -EBUSY if another owner manages the device's IOMMU; -ENODEV if the
 * device went away meanwhile, -ENXIO if its driver did.
 */
int udmabuf_dma_map(struct udmabuf_buffer *buf)
{
	struct device *target = buf->dma_target;
	int ret;

	if (buf->rmem && !udmabuf_dma_in_region(buf))
		return -ENOMEM;
	if (!target) {
		buf->dma_dev = &buf->dev;
		buf->dma_addr = buf->alloc_addr;
		return 0;
	}

	/*
	 * The device lock orders this against an unbind of the device's
	 * driver, whose notification would otherwise come before the mapping
	 * exists; presence on the bus, checked under udmabuf_dma_lock,
	 * against its removal.  A device-tree buffer is created by the probe
	 * of its own device, which holds that lock already.
	 */
	if (!buf->dma_own_target)
		device_lock(target);
	mutex_lock(&udmabuf_dma_lock);
	if (!udmabuf_dma_present(target))
		ret = -ENODEV;
	else if (!udmabuf_dma_has_driver(buf, target))
		ret = -ENXIO;	/* unbound since udmabuf_dma_setup() */
	else
		ret = udmabuf_dma_map_target(buf, target);
	mutex_unlock(&udmabuf_dma_lock);
	if (!buf->dma_own_target)
		device_unlock(target);
	return ret;
}

/**
 * udmabuf_dma_detach - tear down the mapping for a bound device now
 * @buf: the buffer
 *
 * The CPU side is untouched.  Idempotent; nothing to do if unbound.
 */
void udmabuf_dma_detach(struct udmabuf_buffer *buf)
{
	mutex_lock(&udmabuf_dma_lock);
	if (!list_empty(&buf->dma_node))
		udmabuf_dma_unmap_target(buf);
	mutex_unlock(&udmabuf_dma_lock);
}

/* Undo udmabuf_dma_setup() and udmabuf_dma_map(), once the memory is free. */
void udmabuf_dma_release(struct udmabuf_buffer *buf)
{
	udmabuf_dma_detach(buf);
	if (buf->rmem)
		of_reserved_mem_device_release(&buf->dev);
	buf->rmem = NULL;
	put_device(buf->dma_target);
	buf->dma_target = NULL;
}

/*
 * Give [offset, offset + size) to the CPU after the device wrote it.  The
 * range is byte-granular, cache maintenance is not: an architecture that
 * invalidates whole lines only (RISC-V's Zicbom, MIPS) would drop what the
 * CPU wrote to the rest of a line the range covers in part.  So the range
 * is widened to whole cache lines, and a partly covered line at either end
 * is written back first, as ARM's own invalidation does with such lines:
 * the CPU's bytes beside the range survive, and the device's bytes in the
 * range are read back, unless the CPU wrote to that very line while the
 * device did (no order of maintenance can save both).
 */
static void udmabuf_dma_sync_for_cpu(struct device *dev, dma_addr_t addr,
				     u64 offset, u64 size,
				     enum dma_data_direction dir)
{
	u64 line = dma_get_cache_alignment(), start, end;

	if (dir == DMA_TO_DEVICE || line <= 1) {
		dma_sync_single_for_cpu(dev, addr + offset, size, dir);
		return;
	}
	start = round_down(offset, line);
	end = round_up(offset + size, line);
	if (start != offset)
		dma_sync_single_for_device(dev, addr + start, line,
					   DMA_TO_DEVICE);
	if (end != offset + size && (end - line != start || start == offset))
		dma_sync_single_for_device(dev, addr + end - line, line,
					   DMA_TO_DEVICE);
	dma_sync_single_for_cpu(dev, addr + start, end - start, dir);
}

static void udmabuf_dma_sync_dev(struct device *dev, dma_addr_t addr,
				 bool for_cpu, u64 offset, u64 size,
				 enum dma_data_direction dir)
{
	if (for_cpu)
		udmabuf_dma_sync_for_cpu(dev, addr, offset, size, dir);
	else
		dma_sync_single_for_device(dev, addr + offset, size, dir);
}

/**
 * udmabuf_dma_sync - cache maintenance for the DMA device
 * @buf: the buffer
 * @for_cpu: give the range to the CPU (true) or to the device (false)
 * @offset: start of the range, inside the buffer
 * @size: length of the range, inside the buffer
 * @dir: direction of the transfer
 *
 * Towards the CPU, a range that covers cache lines in part is widened to
 * whole lines (udmabuf_dma_sync_for_cpu()).  The buffer is mapped for the
 * device in whole pages, so the widened range stays within the mapping.
 *
 * Return: 0, or -ENODEV if the bound device has gone away.
 */
int udmabuf_dma_sync(struct udmabuf_buffer *buf, bool for_cpu, u64 offset,
		     u64 size, enum dma_data_direction dir)
{
	int ret = 0;

	down_read(&buf->dma_lock);
	if (!buf->dma_dev)
		ret = -ENODEV;
	else
		udmabuf_dma_sync_dev(buf->dma_dev, buf->dma_addr, for_cpu,
				     offset, size, dir);
	up_read(&buf->dma_lock);
	return ret;
}

/**
 * udmabuf_dma_sync_cpu_side - cache maintenance for the CPU's accesses
 * @buf: the buffer
 * @for_cpu: give the range to the CPU (true) or to the devices (false)
 * @offset: start of the range, inside the buffer
 * @size: length of the range, inside the buffer
 * @dir: direction of the transfer
 *
 * As udmabuf_dma_sync() while the DMA device is there.  Once a bound
 * device has gone away, the CPU's side of the memory still needs its
 * maintenance (a dma-buf importer may still be mapped, and its own sync
 * for DMA_FROM_DEVICE may only invalidate): it is done through the class
 * device, for which the memory stays mapped until it is freed.  A no-map
 * region's memory is uncached and has none to do.
 */
void udmabuf_dma_sync_cpu_side(struct udmabuf_buffer *buf, bool for_cpu,
			       u64 offset, u64 size,
			       enum dma_data_direction dir)
{
	down_read(&buf->dma_lock);
	if (buf->dma_dev)
		udmabuf_dma_sync_dev(buf->dma_dev, buf->dma_addr, for_cpu,
				     offset, size, dir);
	else if (!buf->pool)
		udmabuf_dma_sync_dev(&buf->dev, buf->alloc_addr, for_cpu,
				     offset, size, dir);
	up_read(&buf->dma_lock);
}

/**
 * udmabuf_dma_addr - the address to program into the DMA device
 * @buf: the buffer
 * @addr: result
 *
 * Return: 0, or -ENODEV if the bound device has gone away.
 */
int udmabuf_dma_addr(struct udmabuf_buffer *buf, dma_addr_t *addr)
{
	int ret = 0;

	down_read(&buf->dma_lock);
	if (buf->dma_dev)
		*addr = buf->dma_addr;
	else
		ret = -ENODEV;
	up_read(&buf->dma_lock);
	return ret;
}

/* @dev is going away: no buffer may keep a mapping for it. */
static void udmabuf_dma_gone(struct device *dev)
{
	struct udmabuf_buffer *buf, *tmp;

	mutex_lock(&udmabuf_dma_lock);
	list_for_each_entry_safe(buf, tmp, &udmabuf_dma_bound, dma_node) {
		if (buf->dma_target != dev)
			continue;
		udmabuf_dma_unmap_target(buf);
		dev_info(&buf->dev, "DMA device %s went away; DMA address and syncs are gone with it\n",
			 buf->dma_device);
	}
	mutex_unlock(&udmabuf_dma_lock);
}

/*
 * An unbind comes before the driver's remove (DMA-API debugging checks for
 * leftover mappings right after it), and takes the device's DMA
 * configuration with it; a removal of a device without a driver with
 * BUS_NOTIFY_DEL_DEVICE, and a removal that raced with udmabuf_dma_map()
 * is caught at BUS_NOTIFY_REMOVED_DEVICE.
 */
static int udmabuf_dma_notify(struct notifier_block *nb, unsigned long action,
			      void *data)
{
	switch (action) {
	case BUS_NOTIFY_UNBIND_DRIVER:
	case BUS_NOTIFY_DEL_DEVICE:
	case BUS_NOTIFY_REMOVED_DEVICE:
		udmabuf_dma_gone(data);
		break;
	}
	return NOTIFY_DONE;
}

/*
 * The IOMMU core releases a removed device from its group in its own
 * BUS_NOTIFY_REMOVED_DEVICE handler (priority 0); a mapping must be torn
 * down before that, so these run first.
 */
static struct notifier_block udmabuf_dma_platform_nb = {
	.notifier_call	= udmabuf_dma_notify,
	.priority	= 1,
};

#ifdef CONFIG_PCI
static struct notifier_block udmabuf_dma_pci_nb = {
	.notifier_call	= udmabuf_dma_notify,
	.priority	= 1,
};
#endif

int udmabuf_dma_init(void)
{
	int ret;

	ret = bus_register_notifier(&platform_bus_type,
				    &udmabuf_dma_platform_nb);
	if (ret)
		return ret;
#ifdef CONFIG_PCI
	ret = bus_register_notifier(&pci_bus_type, &udmabuf_dma_pci_nb);
	if (ret)
		bus_unregister_notifier(&platform_bus_type,
					&udmabuf_dma_platform_nb);
#endif
	return ret;
}

void udmabuf_dma_exit(void)
{
#ifdef CONFIG_PCI
	bus_unregister_notifier(&pci_bus_type, &udmabuf_dma_pci_nb);
#endif
	bus_unregister_notifier(&platform_bus_type, &udmabuf_dma_platform_nb);
}
