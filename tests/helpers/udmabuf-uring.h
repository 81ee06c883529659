/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An io_uring without liburing, for the guest test helpers: a ring of four
 * entries, one request at a time (udmabuf-zc, udmabuf-stress).  Static
 * functions; the includer includes <errno.h>, <stdint.h>, <string.h>,
 * <sys/mman.h>, <sys/syscall.h>, <unistd.h> and <linux/io_uring.h> first.
 */
#ifndef UDMABUF_URING_H
#define UDMABUF_URING_H

struct udmabuf_ring {
	int fd;
	unsigned int *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	void *sq, *cq;			/* the rings' mappings, for ring_exit() */
	size_t sq_len, cq_len, sqes_len;
};

static void *ring_map(int fd, size_t len, off_t what)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, fd, what);
}

/* Unmap the rings and close the ring: what ring_init() made, or part of it. */
static void ring_exit(struct udmabuf_ring *r)
{
	if (r->sqes && r->sqes != MAP_FAILED)
		munmap(r->sqes, r->sqes_len);
	if (r->cq && r->cq != MAP_FAILED && r->cq != r->sq)
		munmap(r->cq, r->cq_len);
	if (r->sq && r->sq != MAP_FAILED)
		munmap(r->sq, r->sq_len);
	if (r->fd >= 0)
		close(r->fd);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

/* Set up a ring: 0, or -errno (with what was made undone). */
static int ring_init(struct udmabuf_ring *r)
{
	struct io_uring_params p;
	int ret;

	memset(r, 0, sizeof(*r));
	memset(&p, 0, sizeof(p));
	r->fd = syscall(__NR_io_uring_setup, 4, &p);
	if (r->fd < 0)
		return -errno;
	r->sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	r->cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		r->sq_len = r->sq_len > r->cq_len ? r->sq_len : r->cq_len;
		r->cq_len = r->sq_len;
	}
	r->sq = ring_map(r->fd, r->sq_len, IORING_OFF_SQ_RING);
	if (r->sq == MAP_FAILED)
		goto fail;
	r->cq = r->sq;
	if (!(p.features & IORING_FEAT_SINGLE_MMAP)) {
		r->cq = ring_map(r->fd, r->cq_len, IORING_OFF_CQ_RING);
		if (r->cq == MAP_FAILED)
			goto fail;
	}
	r->sqes_len = p.sq_entries * sizeof(struct io_uring_sqe);
	r->sqes = ring_map(r->fd, r->sqes_len, IORING_OFF_SQES);
	if (r->sqes == MAP_FAILED)
		goto fail;
	r->sq_tail = (unsigned int *)((char *)r->sq + p.sq_off.tail);
	r->sq_mask = (unsigned int *)((char *)r->sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned int *)((char *)r->sq + p.sq_off.array);
	r->cq_head = (unsigned int *)((char *)r->cq + p.cq_off.head);
	r->cq_tail = (unsigned int *)((char *)r->cq + p.cq_off.tail);
	r->cq_mask = (unsigned int *)((char *)r->cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)((char *)r->cq + p.cq_off.cqes);
	return 0;
fail:
	ret = -errno;
	ring_exit(r);
	return ret;
}

/*
 * One read or write of registered buffer 0 at @addr (a user address inside
 * the range it was registered with, mapped or not), waited for: the bytes
 * done, or -errno.
 */
static int ring_fixed(struct udmabuf_ring *r, int op, int fd, void *addr,
		      unsigned int len, uint64_t off)
{
	unsigned int tail = *r->sq_tail, idx = tail & *r->sq_mask, head;
	struct io_uring_sqe *sqe = &r->sqes[idx];
	int res;

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = op;
	sqe->fd = fd;
	sqe->addr = (uintptr_t)addr;
	sqe->len = len;
	sqe->off = off;
	sqe->buf_index = 0;
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, r->fd, 1, 1, IORING_ENTER_GETEVENTS,
		    NULL, 0) < 0)
		return -errno;
	head = *r->cq_head;
	if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
		return -EAGAIN;
	res = r->cqes[head & *r->cq_mask].res;
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return res;
}

#endif /* UDMABUF_URING_H */
