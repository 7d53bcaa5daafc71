/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * File and block device namespaces through io_uring (liburing), polled by
 * the lcore that submits: each lcore gets its own ring on its first I/O (no
 * lock between lcores). submit() only queues SQEs; the poll op, which the
 * transport's poll group calls through pv_nvmf_tgt_ns_poll() on every
 * iteration, hands all the lcore queued since its last pass to the kernel
 * with one io_uring_submit() and then reaps the completion queue without a
 * system call. With SQPOLL a kernel thread consumes the SQ and
 * io_uring_submit() enters the kernel only when that thread sleeps.
 *
 * With O_DIRECT there are two descriptors on the file: a Read or Write whose
 * buffer address, offset and length meet the file's direct I/O alignment
 * goes through the O_DIRECT one, any other (in-capsule data sits 64 bytes
 * into a receive buffer) through a buffered one, so that correctness never
 * depends on alignment. The kernel keeps the two coherent: a direct read
 * writes the cached dirty pages of its range back first, a direct write
 * drops the cached pages of its range (open(2), NOTES, "O_DIRECT").
 *
 * Read and Write are IORING_OP_READ / WRITE, Flush is fdatasync
 * (IORING_OP_FSYNC), Write Zeroes is fallocate(FALLOC_FL_ZERO_RANGE) and
 * deallocate fallocate(PUNCH_HOLE), both IORING_OP_FALLOCATE (deallocate:
 * one range per entry). Those three act on the inode, whichever descriptor:
 * they use the buffered one.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include <rte_lcore.h>

#include "pv_autoconf.h"
#include "nvmf_priv.h"

#ifdef PV_HAVE_LIBURING

#include <liburing.h>

/* NVMe media errors (SCT 2, base figure 130) in pv_nvmf_req_ns_done()'s form */
#define NVMF_FILE_WRITE_FAULT	(PV_NVME_SCT_MEDIA << 8 | 0x80)
#define NVMF_FILE_READ_ERROR	(PV_NVME_SCT_MEDIA << 8 | 0x81)

#define NVMF_FILE_SQ_IDLE_MS	100	/* sqpoll_idle_ms 0 */

/* one lcore's ring and counters: only that lcore writes them */
struct nvmf_file_ring {
	struct io_uring ring;
	unsigned int unsubmitted;	/* SQEs queued since the last io_uring_submit() */
	struct pv_nvmf_ns_file_stats st;
};

struct nvmf_file {
	int fd;				/* buffered */
	int fd_direct;			/* O_DIRECT, or -1 */
	uintptr_t dio_mem_mask;		/* O_DIRECT: buffer address alignment - 1 */
	uint64_t dio_off_mask;		/* O_DIRECT: offset and length alignment - 1 */
	unsigned int depth;		/* SQ entries */
	unsigned int ring_flags;	/* IORING_SETUP_* */
	unsigned int sq_idle_ms;
	struct nvmf_file_ring *rings[RTE_MAX_LCORE];	/* made by their lcore */
};

static int
nvmf_file_ring_init(const struct nvmf_file *f, struct io_uring *r)
{
	struct io_uring_params p;
	int ret;

	memset(&p, 0, sizeof(p));
	p.flags = f->ring_flags;
	p.sq_thread_idle = f->sq_idle_ms;
	ret = io_uring_queue_init_params(f->depth, r, &p);
	if (ret < 0) {
		if ((f->ring_flags & IORING_SETUP_SQPOLL) != 0)
			NVMF_LOG(ERR, "file namespace: io_uring with SQPOLL refused: %s%s\n",
				 strerror(-ret), ret == -EPERM ?
				 " (before Linux 5.11 SQPOLL needs CAP_SYS_ADMIN)" : "");
		else
			NVMF_LOG(ERR, "file namespace: io_uring_queue_init: %s\n", strerror(-ret));
		return ret;
	}
	/* before 5.11 the SQ thread only takes registered files: every SQE would fail */
	if ((f->ring_flags & IORING_SETUP_SQPOLL) != 0 &&
	    (p.features & IORING_FEAT_SQPOLL_NONFIXED) == 0) {
		io_uring_queue_exit(r);
		NVMF_LOG(ERR, "file namespace: SQPOLL on this kernel needs registered files "
			 "(no IORING_FEAT_SQPOLL_NONFIXED): not supported\n");
		return -EOPNOTSUPP;
	}
	return 0;
}

static __rte_noinline struct nvmf_file_ring *
nvmf_file_ring_create(struct nvmf_file *f, unsigned int lc)
{
	struct nvmf_file_ring *rg = calloc(1, sizeof(*rg));

	if (rg == NULL)
		return NULL;
	if (nvmf_file_ring_init(f, &rg->ring) != 0) {
		free(rg);
		return NULL;
	}
	f->rings[lc] = rg;
	return rg;
}

static inline struct nvmf_file_ring *
nvmf_file_ring(struct nvmf_file *f)
{
	unsigned int lc = rte_lcore_id();

	if (unlikely(lc >= RTE_MAX_LCORE))
		return NULL;
	if (likely(f->rings[lc] != NULL))
		return f->rings[lc];
	return nvmf_file_ring_create(f, lc);
}

/* hand the SQEs the lcore queued to the kernel (SQPOLL: wake its thread if it sleeps) */
static void
nvmf_file_ring_flush(struct pv_nvmf_ns *ns, struct nvmf_file_ring *rg)
{
	int ret = io_uring_submit(&rg->ring);

	rg->st.submit_calls++;
	if (likely(ret >= 0)) {
		/* fewer than queued: the rest stay in the SQ for the next pass */
		rg->unsubmitted -= RTE_MIN((unsigned int)ret, rg->unsubmitted);
		return;
	}
	/* EAGAIN, EBUSY: short of memory or completions to reap first; the
	 * SQEs stay queued and the next pass, after reaping, submits them */
	if (ret != -EAGAIN && ret != -EBUSY)
		NVMF_LOG(ERR, "file namespace %u: io_uring_submit: %s\n", ns->nsid,
			 strerror(-ret));
}

/* the SQ is full: submit what is queued to make room */
static __rte_noinline struct io_uring_sqe *
nvmf_file_sqe_full(struct pv_nvmf_ns *ns, struct nvmf_file_ring *rg)
{
	struct io_uring_sqe *sqe;

	nvmf_file_ring_flush(ns, rg);
	sqe = io_uring_get_sqe(&rg->ring);
	/* SQPOLL: submitting does not consume; wait for the SQ thread to */
	if (sqe == NULL && (rg->ring.flags & IORING_SETUP_SQPOLL) != 0 &&
	    io_uring_sqring_wait(&rg->ring) >= 0)
		sqe = io_uring_get_sqe(&rg->ring);
	return sqe;
}

static inline struct io_uring_sqe *
nvmf_file_sqe(struct pv_nvmf_ns *ns, struct nvmf_file_ring *rg)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&rg->ring);

	if (unlikely(sqe == NULL))
		sqe = nvmf_file_sqe_full(ns, rg);
	if (likely(sqe != NULL)) {
		rg->unsubmitted++;
		rg->st.sqes++;
	}
	return sqe;
}

/* the descriptor of a Read or Write: O_DIRECT when buffer, offset and length allow it */
static inline int
nvmf_file_rw_fd(const struct nvmf_file *f, struct nvmf_file_ring *rg, const void *buf,
		uint64_t off, uint64_t len)
{
	if (f->fd_direct >= 0) {
		if (likely(((uintptr_t)buf & f->dio_mem_mask) == 0 &&
			   ((off | len) & f->dio_off_mask) == 0)) {
			rg->st.direct_ios++;
			return f->fd_direct;
		}
		rg->st.unaligned_ios++;
	}
	rg->st.buffered_ios++;
	return f->fd;
}

static int
nvmf_file_submit(struct pv_nvmf_ns *ns, struct pv_nvmf_req *req, enum pv_nvmf_ns_op op,
		 uint64_t slba, uint32_t nlb, uint16_t *status_p)
{
	struct nvmf_file *f = ns->ctx;
	struct nvmf_file_ring *rg = nvmf_file_ring(f);
	struct io_uring_sqe *sqe;
	uint64_t off = slba << ns->lbads;
	uint64_t len = (uint64_t)nlb << ns->lbads;
	uint32_t i, n = 1;
	int fd = f->fd;

	if (unlikely(rg == NULL))
		goto err;
	if (op == PV_NVMF_NS_DEALLOCATE)
		n = nlb;	/* one entry per range */
	else if (op == PV_NVMF_NS_READ || op == PV_NVMF_NS_WRITE)
		fd = nvmf_file_rw_fd(f, rg, req->data, off, len);
	req->ns_ctx[0] = (void *)(uintptr_t)n;	/* completions still due */
	req->ns_ctx[1] = (void *)(uintptr_t)0;	/* status so far */
	for (i = 0; i < n; i++) {
		sqe = nvmf_file_sqe(ns, rg);
		if (unlikely(sqe == NULL)) {
			if (i == 0)
				goto err;
			/* the ones queued complete; the rest fail */
			req->ns_ctx[0] = (void *)(uintptr_t)i;
			req->ns_ctx[1] = (void *)(uintptr_t)PV_NVME_SC_INTERNAL;
			break;
		}
		switch (op) {
		case PV_NVMF_NS_READ:
			io_uring_prep_read(sqe, fd, req->data, (unsigned int)len, off);
			break;
		case PV_NVMF_NS_WRITE:
			io_uring_prep_write(sqe, fd, req->data, (unsigned int)len, off);
			break;
		case PV_NVMF_NS_FLUSH:
			io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC);
			break;
		case PV_NVMF_NS_WRITE_ZEROES:
			io_uring_prep_fallocate(sqe, fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
						(off_t)off, (off_t)len);
			break;
		case PV_NVMF_NS_DEALLOCATE: {
			struct pv_nvme_dsm_range d;

			memcpy(&d, req->data + i * sizeof(d), sizeof(d));
			io_uring_prep_fallocate(sqe, fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				(off_t)(rte_le_to_cpu_64(d.slba) << ns->lbads),
				(off_t)((uint64_t)rte_le_to_cpu_32(d.nlb) << ns->lbads));
			break;
		}
		}
		io_uring_sqe_set_data(sqe, req);
	}
	/* submitted by nvmf_file_poll(), with the rest of this poll pass */
	return 1;
err:
	*status_p = PV_NVME_SC_INTERNAL;
	return 0;
}

static unsigned int
nvmf_file_poll(struct pv_nvmf_ns *ns)
{
	struct nvmf_file *f = ns->ctx;
	unsigned int lc = rte_lcore_id(), n = 0;
	struct nvmf_file_ring *rg;
	struct io_uring_cqe *cqe;

	if (unlikely(lc >= RTE_MAX_LCORE) || (rg = f->rings[lc]) == NULL)
		return 0;
	if (rg->unsubmitted != 0)
		nvmf_file_ring_flush(ns, rg);
	while (io_uring_peek_cqe(&rg->ring, &cqe) == 0) {
		struct pv_nvmf_req *req = io_uring_cqe_get_data(cqe);
		uintptr_t left = (uintptr_t)req->ns_ctx[0] - 1;
		uintptr_t sc = (uintptr_t)req->ns_ctx[1];

		if (cqe->res < 0 || (req->cmd.opc == PV_NVME_OPC_READ &&
				     (uint32_t)cqe->res != req->length) ||
		    (req->cmd.opc == PV_NVME_OPC_WRITE && (uint32_t)cqe->res != req->length)) {
			if (sc == 0)
				sc = req->cmd.opc == PV_NVME_OPC_READ ? NVMF_FILE_READ_ERROR :
									NVMF_FILE_WRITE_FAULT;
		}
		io_uring_cqe_seen(&rg->ring, cqe);
		n++;
		req->ns_ctx[0] = (void *)left;
		req->ns_ctx[1] = (void *)sc;
		if (left == 0)
			pv_nvmf_req_ns_done(req, (uint16_t)sc);
	}
	return n;
}

static void
nvmf_file_destroy(struct pv_nvmf_ns *ns)
{
	struct nvmf_file *f = ns->ctx;
	unsigned int i;

	for (i = 0; i < RTE_MAX_LCORE; i++)
		if (f->rings[i] != NULL) {
			io_uring_queue_exit(&f->rings[i]->ring);
			free(f->rings[i]);
		}
	if (f->fd_direct >= 0)
		close(f->fd_direct);
	close(f->fd);
	free(f);
	ns->ctx = NULL;
}

static const struct pv_nvmf_ns_ops nvmf_file_ops = {
	.submit = nvmf_file_submit,
	.poll = nvmf_file_poll,
	.destroy = nvmf_file_destroy,
};

/* direct I/O alignment from statx(2) STATX_DIOALIGN: 0, -EINVAL (O_DIRECT
 * not supported on @p fd), -EOPNOTSUPP (not known: headers or kernel before 6.1) */
static int
nvmf_file_dio_statx(int fd, uint32_t *mem_align_p, uint32_t *off_align_p)
{
#ifdef PV_HAVE_STATX_DIOALIGN
	struct statx sx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) != 0 ||
	    (sx.stx_mask & STATX_DIOALIGN) == 0)
		return -EOPNOTSUPP;
	if (sx.stx_dio_mem_align == 0 || sx.stx_dio_offset_align == 0)
		return -EINVAL;
	*mem_align_p = sx.stx_dio_mem_align;
	*off_align_p = sx.stx_dio_offset_align;
	return 0;
#else
	(void)fd;
	(void)mem_align_p;
	(void)off_align_p;
	return -EOPNOTSUPP;
#endif
}

/* open @p path a second time with O_DIRECT into @p f, with its alignment */
static int
nvmf_file_direct_open(struct nvmf_file *f, const char *path, const struct stat *st,
		      uint32_t block_size)
{
	uint32_t mem_align, off_align;
	int fd, ret, ss;

	fd = open(path, O_RDWR | O_CLOEXEC | O_DIRECT);
	if (fd < 0) {
		ret = -errno;
		if (ret == -EINVAL)
			NVMF_LOG(ERR, "file namespace: %s: O_DIRECT is not supported on this "
				 "file system (open: EINVAL)\n", path);
		else
			NVMF_LOG(ERR, "file namespace: %s: open(O_DIRECT): %s\n", path,
				 strerror(-ret));
		return ret;
	}
	ret = nvmf_file_dio_statx(fd, &mem_align, &off_align);
	if (ret == -EINVAL) {
		NVMF_LOG(ERR, "file namespace: %s: O_DIRECT is not supported on this "
			 "file system (statx: no direct I/O alignment)\n", path);
		goto err_close;
	}
	if (ret != 0 && S_ISBLK(st->st_mode)) {
		if (ioctl(fd, BLKSSZGET, &ss) != 0) {
			ret = -errno;
			NVMF_LOG(ERR, "file namespace: %s: BLKSSZGET: %s\n", path, strerror(-ret));
			goto err_close;
		}
		mem_align = (uint32_t)ss;
		off_align = (uint32_t)ss;
	} else if (ret != 0) {
		/* a file system's direct I/O unit is at most its block size */
		off_align = block_size;
		if (st->st_blksize > (blksize_t)block_size && st->st_blksize <= 4096 &&
		    rte_is_power_of_2((uint32_t)st->st_blksize))
			off_align = (uint32_t)st->st_blksize;
		mem_align = off_align;
	}
	if (!rte_is_power_of_2(mem_align) || !rte_is_power_of_2(off_align)) {
		NVMF_LOG(ERR, "file namespace: %s: direct I/O alignment %u / %u bytes is not "
			 "a power of two\n", path, mem_align, off_align);
		ret = -EINVAL;
		goto err_close;
	}
	if (off_align > block_size)
		NVMF_LOG(WARNING, "file namespace: %s: O_DIRECT needs %u-byte offsets, blocks "
			 "are %u bytes: commands not aligned to it use the page cache\n",
			 path, off_align, block_size);
	NVMF_LOG(INFO, "file namespace: %s: O_DIRECT, buffers aligned to %u bytes, offsets "
		 "and lengths to %u\n", path, mem_align, off_align);
	f->fd_direct = fd;
	f->dio_mem_mask = mem_align - 1;
	f->dio_off_mask = off_align - 1;
	return 0;
err_close:
	close(fd);
	return ret;
}

/* the size of the file or block device behind @p fd, in bytes */
static int
nvmf_file_size(int fd, const struct stat *st, uint64_t *size_p)
{
	if (S_ISBLK(st->st_mode))
		return ioctl(fd, BLKGETSIZE64, size_p) != 0 ? -errno : 0;
	if (S_ISREG(st->st_mode)) {
		*size_p = (uint64_t)st->st_size;
		return 0;
	}
	return -EINVAL;
}

struct pv_nvmf_ns *
pv_nvmf_ns_file_create_opts(const char *path, uint32_t block_size,
			    const struct pv_nvmf_ns_file_opts *opts)
{
	struct pv_nvmf_ns *ns;
	struct nvmf_file *f;
	struct io_uring probe;
	struct stat st;
	uint64_t size;
	int ret;

	if (path == NULL || opts == NULL || (block_size != 512 && block_size != 4096) ||
	    opts->queue_depth < 1 || opts->queue_depth > 4096) {
		NVMF_LOG(ERR, "file namespace: path, options, block size 512/4096, "
			 "depth 1..4096\n");
		errno = EINVAL;
		return NULL;
	}
	ns = calloc(1, sizeof(*ns));
	f = calloc(1, sizeof(*f));
	if (ns == NULL || f == NULL) {
		ret = -ENOMEM;
		goto err_free;
	}
	f->fd_direct = -1;
	f->depth = opts->queue_depth;
	if (opts->sqpoll) {
		f->ring_flags = IORING_SETUP_SQPOLL;
		f->sq_idle_ms = opts->sqpoll_idle_ms != 0 ? opts->sqpoll_idle_ms :
							    NVMF_FILE_SQ_IDLE_MS;
	}
	f->fd = open(path, O_RDWR | O_CLOEXEC);
	if (f->fd < 0) {
		ret = -errno;
		NVMF_LOG(ERR, "file namespace: %s: %s\n", path, strerror(-ret));
		goto err_free;
	}
	if (fstat(f->fd, &st) != 0) {
		ret = -errno;
		NVMF_LOG(ERR, "file namespace: %s: fstat: %s\n", path, strerror(-ret));
		goto err_close;
	}
	ret = nvmf_file_size(f->fd, &st, &size);
	if (ret != 0) {
		NVMF_LOG(ERR, "file namespace: %s: %s\n", path, ret == -EINVAL ?
			 "not a regular file or block device" : strerror(-ret));
		goto err_close;
	}
	if (size / block_size == 0) {
		NVMF_LOG(ERR, "file namespace: %s is smaller than one block\n", path);
		ret = -EINVAL;
		goto err_close;
	}
	if (opts->direct) {
		ret = nvmf_file_direct_open(f, path, &st, block_size);
		if (ret != 0)
			goto err_close;
	}
	/* a ring like the lcores' will be: refusals show now, not on the first I/O */
	ret = nvmf_file_ring_init(f, &probe);
	if (ret != 0)
		goto err_close_direct;
	io_uring_queue_exit(&probe);
	ns->block_size = block_size;
	ns->lbads = (uint8_t)rte_log2_u32(block_size);
	ns->num_blocks = size / block_size;
	ns->ops = &nvmf_file_ops;
	ns->ctx = f;
	return ns;
err_close_direct:
	if (f->fd_direct >= 0)
		close(f->fd_direct);
err_close:
	close(f->fd);
err_free:
	free(f);
	free(ns);
	errno = -ret;
	return NULL;
}

int
pv_nvmf_ns_file_stats_get(const struct pv_nvmf_ns *ns, struct pv_nvmf_ns_file_stats *stats_p)
{
	const struct nvmf_file *f;
	unsigned int i;

	if (ns == NULL || ns->ops != &nvmf_file_ops || stats_p == NULL)
		return -EINVAL;
	f = ns->ctx;
	memset(stats_p, 0, sizeof(*stats_p));
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		const struct nvmf_file_ring *rg = f->rings[i];

		if (rg == NULL)
			continue;
		stats_p->sqes += rg->st.sqes;
		stats_p->submit_calls += rg->st.submit_calls;
		stats_p->direct_ios += rg->st.direct_ios;
		stats_p->buffered_ios += rg->st.buffered_ios;
		stats_p->unaligned_ios += rg->st.unaligned_ios;
	}
	return 0;
}

#else /* !PV_HAVE_LIBURING */

struct pv_nvmf_ns *
pv_nvmf_ns_file_create_opts(const char *path, uint32_t block_size,
			    const struct pv_nvmf_ns_file_opts *opts)
{
	(void)path;
	(void)block_size;
	(void)opts;
	NVMF_LOG(ERR, "file namespaces: built without liburing\n");
	errno = EOPNOTSUPP;
	return NULL;
}

int
pv_nvmf_ns_file_stats_get(const struct pv_nvmf_ns *ns, struct pv_nvmf_ns_file_stats *stats_p)
{
	(void)ns;
	(void)stats_p;
	return -EOPNOTSUPP;
}

#endif /* PV_HAVE_LIBURING */

struct pv_nvmf_ns *
pv_nvmf_ns_file_create(const char *path, uint32_t block_size, long long queue_depth)
{
	struct pv_nvmf_ns_file_opts o = { .queue_depth = 0 };

	/* out of range: 0, refused with EINVAL like any bad depth */
	if (queue_depth >= 1 && queue_depth <= UINT32_MAX)
		o.queue_depth = (uint32_t)queue_depth;
	return pv_nvmf_ns_file_create_opts(path, block_size, &o);
}
