/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * udmabuf-cfs: internal interfaces between the parts of the driver.
 */
#ifndef _UDMABUF_CFS_INTERNAL_H
#define _UDMABUF_CFS_INTERNAL_H

#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/ratelimit.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <linux/udmabuf-cfs.h>

struct reserved_mem;
struct cred;
struct dmem_cgroup_pool_state;

#define UDMABUF_CFS_VERSION	"0.1.0"

/* Minors are handed out from the whole range of our major. */
#define UDMABUF_MINORS		BIT(MINORBITS)

/* Largest size whose page-rounded length fits size_t and loff_t. */
#define UDMABUF_SIZE_MAX \
	((u64)min_t(u64, SIZE_MAX, LLONG_MAX) & (u64)PAGE_MASK)

/*
 * x86 keeps RAM write-back in every mapping (PAT refuses other memory types
 * for pages the kernel maps write-back), so asking for an uncached user
 * mapping there would only earn a log line per mmap.  Say so instead.
 */
#define UDMABUF_RAM_ALWAYS_CACHED	IS_ENABLED(CONFIG_X86)

/*
 * ARM: the linear map has RAM as Normal write-back, and another alias of it
 * as Device (arm64) or Strongly-ordered (32-bit) memory is a mismatch the
 * architecture does not allow; on real cores memset() and memcpy() through
 * one (DC ZVA, unaligned accesses) fault.  An "uncached" mapping of RAM is
 * Normal non-cacheable there, as mainline maps O_SYNC mappings of RAM: the
 * same memory type as write-combine, and reported as such.
 */
#define UDMABUF_RAM_NEVER_DEVICE	(IS_ENABLED(CONFIG_ARM) || IS_ENABLED(CONFIG_ARM64))

/* Who created a buffer; shown in sysfs "origin". */
enum udmabuf_origin {
	UDMABUF_ORIGIN_CONFIGFS,
	UDMABUF_ORIGIN_PARAM,
	UDMABUF_ORIGIN_DT,
	UDMABUF_ORIGIN_PROCESS,	/* /dev/udmabuf-cfs: lives as long as its files */
};

/*
 * Where the memory of a buffer comes from (memory.c); what one may ask for
 * has the UAPI's UDMABUF_CFS_ALLOCATOR_* number.
 */
enum udmabuf_mem {
	UDMABUF_MEM_NONE = UDMABUF_CFS_ALLOCATOR_AUTO,	/* not yet, or any */
	UDMABUF_MEM_PAGE = UDMABUF_CFS_ALLOCATOR_PAGE,	/* split pages */
	UDMABUF_MEM_CONTIG = UDMABUF_CFS_ALLOCATOR_CONTIG, /* found or placed */
	UDMABUF_MEM_CMA = UDMABUF_CFS_ALLOCATOR_CMA,	/* dma_alloc_pages() */
	UDMABUF_MEM_POOL,	/* a no-map reserved region, no struct pages */
};

/* The CPU mapping a file gets; index into udmabuf_cache_names[]. */
enum udmabuf_cache {
	UDMABUF_CACHE_CACHED,
	UDMABUF_CACHE_UNCACHED,
	UDMABUF_CACHE_WRITE_COMBINE,
	UDMABUF_CACHE_DMA_COHERENT,
};

/**
 * struct udmabuf_config - what a buffer is made from
 * @size: bytes; the allocation is rounded up to whole pages
 * @minor: requested minor, or -1 for the first free one
 * @sync_mode: initial sync_mode, 0..%UDMABUF_CFS_SYNC_MODE_MAX
 * @dma_bits: width of the DMA mask the memory must fit in
 * @mode: permissions of the device node
 * @origin: creator, for user space to tell buffers apart
 * @sync_offset: initial sysfs sync_offset
 * @sync_size: initial sysfs sync_size; 0 means the whole buffer
 * @sync_direction: initial sysfs sync_direction
 * @parent: parent of the class device in sysfs, or NULL
 * @of_node: device-tree node whose memory-region the buffer takes, or NULL
 * @dma_target: the DMA device, held by the caller (a device-tree buffer's
 *	own platform device), or NULL to use @dma_device
 * @dma_device: "BUS/DEVICE" of the DMA device, or empty for none
 * @placed: the memory must be at CPU physical address @place
 * @place: that address, page-aligned
 * @want: the allocator asked for (configfs allocator), or
 *	%UDMABUF_MEM_NONE for the default order (memory.c)
 * @name: device name, validated by udmabuf_name_valid()
 * @nodeless: make no device node: the buffer is reached only through the
 *	files its creator hands out (process-scoped buffers)
 * @owner_pid: the process that asked for a process-scoped buffer
 * @owner_comm: its command name
 * @sync_check: %UDMABUF_CFS_SYNC_CHECK_* to start with (synccheck.c)
 */
struct udmabuf_config {
	u64 size;
	int minor;
	unsigned int sync_mode;
	unsigned int dma_bits;
	umode_t mode;
	enum udmabuf_origin origin;
	u64 sync_offset;
	u64 sync_size;
	unsigned int sync_direction;
	struct device *parent;
	struct device_node *of_node;
	struct device *dma_target;
	char dma_device[UDMABUF_CFS_DMA_DEVICE_LEN];
	bool placed;
	phys_addr_t place;
	enum udmabuf_mem want;
	char name[UDMABUF_CFS_NAME_MAX + 1];
	bool nodeless;
	pid_t owner_pid;
	char owner_comm[TASK_COMM_LEN];
	unsigned int sync_check;
};

/**
 * struct udmabuf_buffer - one DMA buffer and its character device
 * @ref: the buffer's lifetime.  The creator holds one reference until it
 *	destroys the buffer, every open file holds one (and every mapping
 *	holds its file).  The memory is freed when the last of them is gone;
 *	then the reference on @dev is dropped.
 * @dev: the class device; its release callback frees the structure only
 * @dma_mask: storage for @dev's DMA mask; @dev allocates the memory
 * @mem: where the memory comes from, and so how it goes back
 * @placed: the memory had to be at @place (configfs phys_addr written)
 * @place: that CPU physical address
 * @want: the allocator asked for, %UDMABUF_MEM_NONE for the default order
 * @cma: @mem is %UDMABUF_MEM_CMA and the memory is CMA's
 * @page_backed: every page carries its own reference and may be pinned for
 *	good: user mappings are made of the pages, and get_user_pages() works
 *	on them, FOLL_LONGTERM included
 * @pages: first page of the physically contiguous allocation, or NULL for
 *	memory from a no-map reserved region (@pool)
 * @vaddr: kernel address of the allocation, or NULL for memory in highmem
 *	(32-bit), which has no permanent kernel mapping
 * @alloc_addr: the allocation as seen through @dev
 * @phys_addr: the allocation as seen by the CPU
 * @pool: the memory comes from a no-map reserved region, which the kernel
 *	maps non-cacheable: every mapping is then DMA-coherent, and cache
 *	maintenance has nothing to do
 * @rmem: the device-tree memory-region the memory comes from, or NULL
 * @dma_lock: see dma.c; protects @dma_dev and @dma_addr
 * @dma_dev: the device @dma_addr is valid for and syncs are done for: @dev
 *	itself, the bound device, or NULL once that has gone away
 * @dma_addr: the address to program into the DMA device
 * @dma_target: the bound device (a reference), or NULL if unbound
 * @dma_own_target: @dma_target is the platform device of a device-tree
 *	buffer, whose driver is this module
 * @dma_node: entry in dma.c's list while mapped for @dma_target
 * @dma_device: "BUS/DEVICE" of @dma_target, empty if unbound
 * @size: bytes usable through read/write; mappings cover @alloc_size
 * @alloc_size: @size rounded up to whole pages
 * @sync_mode: current sync_mode; read locklessly by mmap and read/write
 * @origin: creator of the buffer
 * @minor: the key in the global buffer table: the node's minor number, or
 *	an entry above every minor for a buffer without a node
 * @mode: permissions of the device node
 * @users: open files and dma-buf exports, under udmabuf_lock
 * @live: openable; cleared under udmabuf_lock before teardown starts
 * @sync_lock: serialises the sysfs sync_* values and their use
 * @sync_offset: start of the range the sysfs sync triggers act on
 * @sync_size: length of that range
 * @sync_direction: UDMABUF_CFS_DIR_* of that range
 * @sync_owner: true while the device owns the buffer (after sync_for_device)
 * @owner_pid: the process that allocated a process-scoped buffer, else 0
 * @owner_comm: its command name
 * @charged: bytes of a process-scoped buffer counted against process_max
 *	and, unless @charge_cred is NULL, its user's RLIMIT_MEMLOCK; given
 *	back as the memory goes (memory.c)
 * @charge_cred: the credentials whose user is charged for RLIMIT_MEMLOCK (a
 *	reference, which keeps the user), or NULL
 * @dmem_pool: the dmem cgroup pool charged with a process-scoped buffer's
 *	contiguous or CMA memory (@alloc_size bytes), or NULL; given back
 *	when the last of the memory has gone (memory.c)
 * @inode: the buffer's own inode, whose address space every file of the
 *	buffer uses, so that every CPU mapping of it can be found (mmap.c)
 * @sync_check: %UDMABUF_CFS_SYNC_CHECK_* in force (synccheck.c); read
 *	locklessly
 * @sc_lock: serialises changes of @sync_check and @sc_device, taken for
 *	writing; a fault holds it for reading while it checks the page and
 *	makes its entry (mmap.c), so that no entry made by a fault that saw
 *	the page still the CPU's outlives a sync for the device
 * @sc_device: a bit per page, set while the device owns it; made when the
 *	checker is first turned on
 * @sync_violations: reports of the sync checker
 * @sc_ratelimit: the rate limit of the buffer's reports in the kernel log,
 *	the buffer's own: a program that keeps breaking the rules on one
 *	buffer does not hide the first report of another buffer
 */
struct udmabuf_buffer {
	struct kref ref;
	struct device dev;
	u64 dma_mask;
	enum udmabuf_mem mem;
	bool placed;
	phys_addr_t place;
	enum udmabuf_mem want;
	bool cma;
	bool page_backed;
	struct page *pages;
	void *vaddr;
	dma_addr_t alloc_addr;
	phys_addr_t phys_addr;
	bool pool;
	struct reserved_mem *rmem;

	struct rw_semaphore dma_lock;	/* see above */
	struct device *dma_dev;
	dma_addr_t dma_addr;
	struct device *dma_target;
	bool dma_own_target;
	struct list_head dma_node;
	char dma_device[UDMABUF_CFS_DMA_DEVICE_LEN];

	size_t size;
	size_t alloc_size;
	unsigned int sync_mode;
	enum udmabuf_origin origin;
	int minor;
	umode_t mode;
	unsigned int users;
	bool live;

	struct mutex sync_lock;	/* see above */
	u64 sync_offset;
	u64 sync_size;
	unsigned int sync_direction;
	bool sync_owner;

	pid_t owner_pid;
	char owner_comm[TASK_COMM_LEN];
	u64 charged;
	const struct cred *charge_cred;
	struct dmem_cgroup_pool_state *dmem_pool;

	struct inode *inode;
	unsigned int sync_check;
	struct rw_semaphore sc_lock;	/* see above */
	unsigned long *sc_device;
	atomic64_t sync_violations;
	struct ratelimit_state sc_ratelimit;
};

static inline struct udmabuf_buffer *to_udmabuf(struct device *dev)
{
	return container_of(dev, struct udmabuf_buffer, dev);
}

/* config.c: a buffer's configuration, checked */
bool udmabuf_name_valid(const char *name);
int udmabuf_parse_size(const char *str, u64 *size);
void udmabuf_config_init(struct udmabuf_config *cfg);
int udmabuf_check_size(u64 size);
int udmabuf_check_sync_mode(u64 sync_mode);
int udmabuf_check_dma_bits(u64 bits);
int udmabuf_check_minor(s64 minor);
int udmabuf_check_mode(u64 mode);
int udmabuf_check_direction(u64 direction);
int udmabuf_check_sync_check(u64 mode);
int udmabuf_check_sync_offset(u64 size, u64 offset);
int udmabuf_check_sync_size(u64 size, u64 len);
int udmabuf_config_check(const struct udmabuf_config *cfg);

/* registry.c: the table of buffers, creation and destruction */
int udmabuf_registry_init(const struct file_operations *fops);
void udmabuf_registry_exit(void);
unsigned int udmabuf_major(void);
extern struct mutex udmabuf_lock;
struct udmabuf_buffer *udmabuf_create(const struct udmabuf_config *cfg);
int udmabuf_destroy(struct udmabuf_buffer *buf, bool force);
struct udmabuf_buffer *udmabuf_user_get(unsigned int minor);
void udmabuf_user_put(struct udmabuf_buffer *buf);
struct udmabuf_buffer *udmabuf_user_add(struct udmabuf_buffer *buf);

/* Pages of the buffer's memory. */
static inline unsigned long udmabuf_nr_pages(struct udmabuf_buffer *buf)
{
	return buf->alloc_size >> PAGE_SHIFT;
}

/*
 * Put pages [first, first + count): split pages and those of a contiguous
 * range alike, each carrying its own reference.  A page that still has a
 * user (a pipe, a pin) is freed by that user.
 */
static inline void udmabuf_put_pages(struct page *first, unsigned long count)
{
	unsigned long i;

	for (i = 0; i < count; i++) {
		put_page(first + i);
		if (!((i + 1) % 4096))
			cond_resched();
	}
}

/* memory.c: allocation and freeing */
int udmabuf_memory_init(void);
void udmabuf_memory_exit(void);
int udmabuf_alloc(struct udmabuf_buffer *buf);
void udmabuf_free(struct udmabuf_buffer *buf);
void udmabuf_leftovers_reclaim(void);
const char *udmabuf_allocator(struct udmabuf_buffer *buf);
const char *udmabuf_mem_name(enum udmabuf_mem mem);
int udmabuf_mem_parse(const char *name, enum udmabuf_mem *mem);

/* contig.c: contiguous ranges, placement, and holds of placed ranges */
#ifdef CONFIG_CONTIG_ALLOC
int udmabuf_alloc_contig(struct udmabuf_buffer *buf);
int udmabuf_alloc_placed(struct udmabuf_buffer *buf);
unsigned long udmabuf_largest_range(struct udmabuf_buffer *buf);
bool udmabuf_hold(unsigned long pfn, unsigned long nr);
bool udmabuf_unhold_all(void);
unsigned long udmabuf_unhold_oldest(unsigned long want);
unsigned long udmabuf_held_pages(void);
void udmabuf_contig_exit(void);
#else
static inline int udmabuf_alloc_contig(struct udmabuf_buffer *buf)
{
	return -ENOMEM;
}

/* Without it no range can be taken: placement is not for this kernel. */
static inline int udmabuf_alloc_placed(struct udmabuf_buffer *buf)
{
	return -EINVAL;
}

static inline unsigned long udmabuf_largest_range(struct udmabuf_buffer *buf)
{
	return 0;
}

static inline bool udmabuf_hold(unsigned long pfn, unsigned long nr)
{
	return false;
}

static inline bool udmabuf_unhold_all(void)
{
	return false;
}

static inline unsigned long udmabuf_unhold_oldest(unsigned long want)
{
	return 0;
}

static inline unsigned long udmabuf_held_pages(void)
{
	return 0;
}

static inline void udmabuf_contig_exit(void)
{
}
#endif

/* buffer.c: the file of a buffer */
extern const struct file_operations udmabuf_fops;

/* mmap.c: the CPU's mappings */
extern const char * const udmabuf_cache_names[];
bool udmabuf_coherent(struct udmabuf_buffer *buf);
enum udmabuf_cache udmabuf_cache_mode(struct udmabuf_buffer *buf, bool o_sync);
int udmabuf_map_pages(struct udmabuf_buffer *buf, struct vm_area_struct *vma,
		      enum udmabuf_cache cache);
int udmabuf_mmap_buffer(struct udmabuf_buffer *buf, struct vm_area_struct *vma,
			bool o_sync);
bool udmabuf_maps_cached(struct udmabuf_buffer *buf, bool o_sync);
int udmabuf_mmap_init(void);
void udmabuf_mmap_exit(void);
int udmabuf_mapping_init(struct udmabuf_buffer *buf);
void udmabuf_mapping_release(struct udmabuf_buffer *buf);
void udmabuf_unmap_range(struct udmabuf_buffer *buf, unsigned long first,
			 unsigned long nr);

/* synccheck.c: who owns each page, CPU or device; reports */
int udmabuf_sc_set(struct udmabuf_buffer *buf, unsigned int mode);
void udmabuf_sc_release(struct udmabuf_buffer *buf);
void udmabuf_sc_report(struct udmabuf_buffer *buf, u64 offset,
		       const char *what, const char *missing);
void udmabuf_sc_for_device(struct udmabuf_buffer *buf, u64 offset, u64 size);
void udmabuf_sc_for_cpu(struct udmabuf_buffer *buf, u64 offset, u64 size,
			bool given);
bool udmabuf_sc_cpu_access(struct udmabuf_buffer *buf, u64 offset, u64 size,
			   const char *what);
bool udmabuf_sc_fault(struct udmabuf_buffer *buf, struct vm_fault *vmf,
		      bool cached);

/* sync.c: handing the memory between CPU and device */
int udmabuf_sync(struct udmabuf_buffer *buf, bool for_cpu, u64 offset,
		 u64 size, unsigned int direction, bool writer);
int udmabuf_sync_range(struct udmabuf_buffer *buf, bool for_cpu, u64 offset,
		       u64 size, unsigned int direction, bool writer);
enum dma_data_direction udmabuf_reader_dir(bool for_cpu,
					   enum dma_data_direction dir,
					   bool *clean_first);

/* dma.c: the DMA device, its mapping of the memory, its going away */
int udmabuf_dma_init(void);
void udmabuf_dma_exit(void);
int udmabuf_dma_parse(const char *str, char *out, size_t len);
void udmabuf_dma_init_buffer(struct udmabuf_buffer *buf);
int udmabuf_dma_setup(struct udmabuf_buffer *buf,
		      const struct udmabuf_config *cfg);
int udmabuf_dma_map(struct udmabuf_buffer *buf);
void udmabuf_dma_detach(struct udmabuf_buffer *buf);
void udmabuf_dma_release(struct udmabuf_buffer *buf);
void udmabuf_dma_sync_cpu_side(struct udmabuf_buffer *buf, bool for_cpu,
			       u64 offset, u64 size,
			       enum dma_data_direction dir);
int udmabuf_dma_sync(struct udmabuf_buffer *buf, bool for_cpu, u64 offset,
		     u64 size, enum dma_data_direction dir);
int udmabuf_dma_addr(struct udmabuf_buffer *buf, dma_addr_t *addr);
dma_addr_t udmabuf_dma_reach(struct device *dev, phys_addr_t phys,
			     size_t size);

/* dmabuf.c: DMA-BUF export */
long udmabuf_ioctl_export(struct udmabuf_buffer *buf, struct file *file,
			  void __user *arg);

/* sysfs.c: attributes of the class device */
extern const struct attribute_group *udmabuf_dev_groups[];

/* process.c: /dev/udmabuf-cfs, buffers that live as long as their files */
int udmabuf_process_init(void);
void udmabuf_process_exit(void);

/* quota.c: what process-scoped buffers may hold */
void udmabuf_quota_init(void);
void udmabuf_quota_set_max(u64 max);
void udmabuf_quota_read(u64 *max, u64 *used);
int udmabuf_quota_charge(u64 bytes, const struct cred **cred);
void udmabuf_quota_uncharge(const struct cred *cred, u64 bytes);
void udmabuf_dmem_init(void);
void udmabuf_dmem_exit(void);
int udmabuf_dmem_charge(u64 bytes, struct dmem_cgroup_pool_state **pool);
void udmabuf_dmem_uncharge(struct dmem_cgroup_pool_state *pool, u64 bytes);

/* configfs.c: the configfs subsystem */
int udmabuf_configfs_init(void);
void udmabuf_configfs_exit(void);

/* params.c: buffers from module parameters and the device tree */
int udmabuf_params_init(void);
void udmabuf_params_exit(void);
int udmabuf_of_init(void);
void udmabuf_of_exit(void);

#endif /* _UDMABUF_CFS_INTERNAL_H */
