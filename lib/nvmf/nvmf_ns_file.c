/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * File and block device namespaces through io_uring (liburing), polled by
 * the lcore that submits: each lcore gets its own ring on its first I/O
 * (no lock between lcores), submits with io_uring_submit() and reaps the
 * completion queue without a system call from pv_nvmf_tgt_ns_poll(), which
 * the transport's poll group calls each iteration. Read and Write are
 * IORING_OP_READ / WRITE, Flush is fdatasync (IORING_OP_FSYNC), Write Zeroes
 * is fallocate(FALLOC_FL_ZERO_RANGE) and deallocate fallocate(PUNCH_HOLE),
 * both IORING_OP_FALLOCATE (deallocate: one range per entry).
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

#include "nvmf_priv.h"

#ifdef PV_HAVE_LIBURING

#include <liburing.h>

/* NVMe media errors (SCT 2, base figure 130) in pv_nvmf_req_ns_done()'s form */
#define NVMF_FILE_WRITE_FAULT	(PV_NVME_SCT_MEDIA << 8 | 0x80)
#define NVMF_FILE_READ_ERROR	(PV_NVME_SCT_MEDIA << 8 | 0x81)

struct nvmf_file {
	int fd;
	unsigned int depth;
	struct io_uring *rings[RTE_MAX_LCORE];	/* made by their lcore */
};

static struct io_uring *
nvmf_file_ring(struct nvmf_file *f)
{
	unsigned int lc = rte_lcore_id();
	struct io_uring *r;
	int ret;

	if (unlikely(lc >= RTE_MAX_LCORE))
		return NULL;
	if (likely(f->rings[lc] != NULL))
		return f->rings[lc];
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return NULL;
	ret = io_uring_queue_init(f->depth, r, 0);
	if (ret < 0) {
		NVMF_LOG(ERR, "file namespace: io_uring_queue_init: %s\n", strerror(-ret));
		free(r);
		return NULL;
	}
	f->rings[lc] = r;
	return r;
}

static struct io_uring_sqe *
nvmf_file_sqe(struct io_uring *r)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(r);

	if (unlikely(sqe == NULL)) {
		io_uring_submit(r);
		sqe = io_uring_get_sqe(r);
	}
	return sqe;
}

static int
nvmf_file_submit(struct pv_nvmf_ns *ns, struct pv_nvmf_req *req, enum pv_nvmf_ns_op op,
		 uint64_t slba, uint32_t nlb, uint16_t *status_p)
{
	struct nvmf_file *f = ns->ctx;
	struct io_uring *r = nvmf_file_ring(f);
	struct io_uring_sqe *sqe;
	off_t off = (off_t)(slba << ns->lbads);
	size_t len = (size_t)nlb << ns->lbads;
	uint32_t i, n = 1;

	if (unlikely(r == NULL))
		goto err;
	if (op == PV_NVMF_NS_DEALLOCATE)
		n = nlb;	/* one entry per range */
	req->ns_ctx[0] = (void *)(uintptr_t)n;	/* completions still due */
	req->ns_ctx[1] = (void *)(uintptr_t)0;	/* status so far */
	for (i = 0; i < n; i++) {
		sqe = nvmf_file_sqe(r);
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
			io_uring_prep_read(sqe, f->fd, req->data, (unsigned int)len, (uint64_t)off);
			break;
		case PV_NVMF_NS_WRITE:
			io_uring_prep_write(sqe, f->fd, req->data, (unsigned int)len, (uint64_t)off);
			break;
		case PV_NVMF_NS_FLUSH:
			io_uring_prep_fsync(sqe, f->fd, IORING_FSYNC_DATASYNC);
			break;
		case PV_NVMF_NS_WRITE_ZEROES:
			io_uring_prep_fallocate(sqe, f->fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
						off, (off_t)len);
			break;
		case PV_NVMF_NS_DEALLOCATE: {
			struct pv_nvme_dsm_range d;

			memcpy(&d, req->data + i * sizeof(d), sizeof(d));
			io_uring_prep_fallocate(sqe, f->fd,
						FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
						(off_t)(rte_le_to_cpu_64(d.slba) << ns->lbads),
						(off_t)((uint64_t)rte_le_to_cpu_32(d.nlb) << ns->lbads));
			break;
		}
		}
		io_uring_sqe_set_data(sqe, req);
	}
	if (unlikely(io_uring_submit(r) < 0))
		NVMF_LOG(ERR, "file namespace %u: io_uring_submit failed\n", ns->nsid);
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
	struct io_uring_cqe *cqe;
	struct io_uring *r;

	if (unlikely(lc >= RTE_MAX_LCORE) || (r = f->rings[lc]) == NULL)
		return 0;
	while (io_uring_peek_cqe(r, &cqe) == 0) {
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
		io_uring_cqe_seen(r, cqe);
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
			io_uring_queue_exit(f->rings[i]);
			free(f->rings[i]);
		}
	close(f->fd);
	free(f);
	ns->ctx = NULL;
}

static const struct pv_nvmf_ns_ops nvmf_file_ops = {
	.submit = nvmf_file_submit,
	.poll = nvmf_file_poll,
	.destroy = nvmf_file_destroy,
};

struct pv_nvmf_ns *
pv_nvmf_ns_file_create(const char *path, uint32_t block_size, long long queue_depth)
{
	struct pv_nvmf_ns *ns;
	struct nvmf_file *f;
	struct stat st;
	uint64_t size;
	int fd, err;

	if (path == NULL || (block_size != 512 && block_size != 4096) || queue_depth < 1 ||
	    queue_depth > 4096) {
		NVMF_LOG(ERR, "file namespace: path, block size 512/4096, depth 1..4096\n");
		errno = EINVAL;
		return NULL;
	}
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		NVMF_LOG(ERR, "file namespace: %s: %s\n", path, strerror(err));
		errno = err;
		return NULL;
	}
	if (fstat(fd, &st) != 0)
		goto err_errno;
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(fd, BLKGETSIZE64, &size) != 0)
			goto err_errno;
	} else if (S_ISREG(st.st_mode)) {
		size = (uint64_t)st.st_size;
	} else {
		errno = EINVAL;
		goto err_errno;
	}
	if (size / block_size == 0) {
		NVMF_LOG(ERR, "file namespace: %s is smaller than one block\n", path);
		errno = EINVAL;
		goto err_errno;
	}
	ns = calloc(1, sizeof(*ns));
	f = calloc(1, sizeof(*f));
	if (ns == NULL || f == NULL) {
		free(ns);
		free(f);
		errno = ENOMEM;
		goto err_errno;
	}
	f->fd = fd;
	f->depth = (unsigned int)queue_depth;
	ns->block_size = block_size;
	ns->lbads = (uint8_t)rte_log2_u32(block_size);
	ns->num_blocks = size / block_size;
	ns->ops = &nvmf_file_ops;
	ns->ctx = f;
	return ns;
err_errno:
	err = errno;
	close(fd);
	errno = err;
	return NULL;
}

#else /* !PV_HAVE_LIBURING */

struct pv_nvmf_ns *
pv_nvmf_ns_file_create(const char *path, uint32_t block_size, long long queue_depth)
{
	(void)path;
	(void)block_size;
	(void)queue_depth;
	NVMF_LOG(ERR, "file namespaces: built without liburing\n");
	errno = EOPNOTSUPP;
	return NULL;
}

#endif /* PV_HAVE_LIBURING */
