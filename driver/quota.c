// SPDX-License-Identifier: GPL-2.0-only
/*
 * udmabuf-cfs: what process-scoped buffers may hold.
 *
 * As the kernel limits memory that user space keeps resident (io_uring's
 * fixed buffers, VFIO's DMA mappings): all of them together against the
 * parameter process_max, since contiguous memory is scarce; and each
 * user's against its RLIMIT_MEMLOCK, in the user's locked_vm (shared with
 * io_uring), unless the allocating program has CAP_IPC_LOCK.  A charge is
 * taken before any memory is, and given back, page by page, as the memory
 * goes (memory.c).  Contiguous and CMA memory, which the memory cgroup does
 * not see, is charged to the allocating program's dmem cgroup, in a region
 * of the module's ("udmabuf-cfs" in dmem.capacity, dmem.max), on kernels
 * with that controller.
 */

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/spinlock.h>

#include "internal.h"

/* process_max and what is charged against it. */
static DEFINE_SPINLOCK(udmabuf_quota_lock);
static u64 udmabuf_quota_max;
static bool udmabuf_quota_max_set;
static u64 udmabuf_quota_used;

void udmabuf_quota_set_max(u64 max)
{
	spin_lock(&udmabuf_quota_lock);
	udmabuf_quota_max = max;
	udmabuf_quota_max_set = true;
	spin_unlock(&udmabuf_quota_lock);
}

void udmabuf_quota_read(u64 *max, u64 *used)
{
	spin_lock(&udmabuf_quota_lock);
	*max = udmabuf_quota_max;
	*used = udmabuf_quota_used;
	spin_unlock(&udmabuf_quota_lock);
}

/* At load: process_max is a quarter of RAM unless a parameter said. */
void udmabuf_quota_init(void)
{
	spin_lock(&udmabuf_quota_lock);
	if (!udmabuf_quota_max_set)
		udmabuf_quota_max = ((u64)totalram_pages() << PAGE_SHIFT) / 4;
	spin_unlock(&udmabuf_quota_lock);
}

/*
 * Count @pages against the caller's RLIMIT_MEMLOCK in @locked_vm, its
 * user's count, as io_uring counts its fixed buffers; -ENOMEM if over.
 */
static int udmabuf_memlock_charge(atomic_long_t *locked_vm,
				  unsigned long pages, unsigned long *limit)
{
	unsigned long cur = atomic_long_read(locked_vm), new;

	*limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	do {
		new = cur + pages;
		if (new < cur || new > *limit)
			return -ENOMEM;
	} while (!atomic_long_try_cmpxchg(locked_vm, &cur, new));
	return 0;
}

/**
 * udmabuf_quota_charge - charge a new buffer
 * @bytes: its size, in whole pages
 * @cred: set to the caller's credentials (a reference) when its user was
 *	charged for RLIMIT_MEMLOCK, else NULL (CAP_IPC_LOCK, or a kernel
 *	without the count).  The
 *	credentials keep the user: free_uid() is not for modules on every
 *	kernel, put_cred() is.
 *
 * Charges process_max and, without CAP_IPC_LOCK, the calling user's
 * RLIMIT_MEMLOCK.  Return: 0, or -ENOMEM with the reason in the log.
 */
int udmabuf_quota_charge(u64 bytes, const struct cred **cred)
{
	unsigned long pages = bytes >> PAGE_SHIFT, limit;
	atomic_long_t *locked_vm;
	u64 max, used;
	bool over;

	spin_lock(&udmabuf_quota_lock);
	max = udmabuf_quota_max;
	used = udmabuf_quota_used;
	over = bytes > max || used > max - bytes;
	if (!over)
		udmabuf_quota_used += bytes;
	spin_unlock(&udmabuf_quota_lock);
	if (over) {
		pr_info_ratelimited("%s[%d]: process-scoped buffer of %llu bytes refused: %llu of process_max=%llu bytes in use\n",
				    current->comm, task_tgid_nr(current),
				    bytes, used, max);
		return -ENOMEM;
	}

	/*
	 * A kernel without a per-user count of pinned memory cannot limit
	 * a user's share: process_max alone applies there.
	 */
	*cred = NULL;
	locked_vm = udmabuf_user_locked_vm(current_user());
	if (capable(CAP_IPC_LOCK) || !locked_vm)
		return 0;
	*cred = get_current_cred();
	if (udmabuf_memlock_charge(locked_vm, pages, &limit)) {
		pr_info_ratelimited("%s[%d]: process-scoped buffer of %llu bytes refused: over RLIMIT_MEMLOCK of %lu KiB (%lu KiB locked by user %u)\n",
				    current->comm, task_tgid_nr(current), bytes,
				    limit << (PAGE_SHIFT - 10),
				    atomic_long_read(locked_vm) <<
				    (PAGE_SHIFT - 10),
				    from_kuid_munged(current_user_ns(),
						     current_uid()));
		put_cred(*cred);
		*cred = NULL;
		udmabuf_quota_uncharge(NULL, bytes);
		return -ENOMEM;
	}
	return 0;
}

/**
 * udmabuf_quota_uncharge - give back a charge, or part of it
 * @cred: the credentials whose user was charged for RLIMIT_MEMLOCK, or
 *	NULL; the reference stays the caller's
 * @bytes: whole pages of memory that is gone
 */
void udmabuf_quota_uncharge(const struct cred *cred, u64 bytes)
{
	if (cred)
		atomic_long_sub(bytes >> PAGE_SHIFT,
				udmabuf_user_locked_vm(cred->user));
	spin_lock(&udmabuf_quota_lock);
	if (!WARN_ON(bytes > udmabuf_quota_used))
		udmabuf_quota_used -= bytes;
	spin_unlock(&udmabuf_quota_lock);
}

/* The module's dmem cgroup region, or NULL (no controller, or not had). */
static struct dmem_cgroup_region *udmabuf_dmem_region;

/* At load, before any buffer: the region, as large as RAM. */
void udmabuf_dmem_init(void)
{
	struct dmem_cgroup_region *region;

	region = dmem_cgroup_register_region((u64)totalram_pages() << PAGE_SHIFT,
					     "udmabuf-cfs");
	if (IS_ERR(region)) {
		pr_warn("no dmem cgroup region (%pe): contiguous memory is not charged to the dmem cgroup\n",
			region);
		region = NULL;
	}
	udmabuf_dmem_region = region;
}

/* At unload, every charge given back. */
void udmabuf_dmem_exit(void)
{
	dmem_cgroup_unregister_region(udmabuf_dmem_region);
	udmabuf_dmem_region = NULL;
}

/**
 * udmabuf_dmem_charge - charge contiguous or CMA memory to the dmem cgroup
 * @bytes: what is about to be allocated
 * @pool: set to the pool charged, for udmabuf_dmem_uncharge(); NULL where
 *	nothing was (no controller)
 *
 * Return: 0, or -ENOMEM with the reason in the log.
 */
int udmabuf_dmem_charge(u64 bytes, struct dmem_cgroup_pool_state **pool)
{
	int ret;

	*pool = NULL;
	if (!udmabuf_dmem_region)
		return 0;
	ret = dmem_cgroup_try_charge(udmabuf_dmem_region, bytes, pool, NULL);
	if (ret) {
		pr_info_ratelimited("%s[%d]: process-scoped buffer of %llu bytes refused: over the dmem cgroup's limit for udmabuf-cfs (%d)\n",
				    current->comm, task_tgid_nr(current), bytes,
				    ret);
		*pool = NULL;
		return -ENOMEM;
	}
	return 0;
}

/**
 * udmabuf_dmem_uncharge - give back a dmem charge, once, whole
 * @pool: what udmabuf_dmem_charge() set, or NULL
 * @bytes: what it charged
 *
 * A charge holds a reference on its cgroup that the uncharge drops: it is
 * given back in one piece, when the last of its memory has gone.
 */
void udmabuf_dmem_uncharge(struct dmem_cgroup_pool_state *pool, u64 bytes)
{
	if (pool)
		dmem_cgroup_uncharge(pool, bytes);
}
