/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * NVM command set I/O commands (NVM Command Set 1.0 / NVMe base 1.4 6):
 * Read, Write, Flush, Write Zeroes, Dataset Management (deallocate),
 * checked against the namespace before any data moves, then handed to the
 * namespace backend; and the RAM namespace backend.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "nvmf_priv.h"

static inline struct pv_nvmf_ns *
nvmf_io_ns(const struct pv_nvmf_req *req, uint32_t nsid)
{
	const struct pv_nvmf_subsys *s = req->qp->ctrlr->subsys;

	if (nsid == 0 || nsid > PV_NVMF_MAX_NS)
		return NULL;
	return s->ns[nsid - 1];
}

static inline uint16_t
nvmf_io_range(const struct pv_nvmf_ns *ns, uint64_t slba, uint64_t nlb)
{
	if (slba >= ns->num_blocks || nlb > ns->num_blocks - slba)
		return PV_NVME_STATUS(0, PV_NVME_SC_LBA_OUT_OF_RANGE);
	return 0;
}

uint16_t
pv_nvmf_io_check(struct pv_nvmf_req *req)
{
	const struct pv_nvme_cmd *cmd = &req->cmd;
	uint32_t nsid = rte_le_to_cpu_32(cmd->nsid);
	uint64_t slba = rte_le_to_cpu_32(cmd->cdw10) |
			(uint64_t)rte_le_to_cpu_32(cmd->cdw11) << 32;
	uint32_t nlb = (rte_le_to_cpu_32(cmd->cdw12) & 0xffff) + 1;
	struct pv_nvmf_ns *ns;
	uint64_t bytes;
	uint16_t st;

	if (cmd->opc == PV_NVME_OPC_FLUSH && nsid == 0xffffffff) {
		req->ns = NULL;		/* every namespace: RAM ones have nothing to flush */
		return 0;
	}
	ns = nvmf_io_ns(req, nsid);
	if (ns == NULL)
		return PV_NVME_STATUS(0, PV_NVME_SC_INVALID_NS);
	req->ns = ns;
	switch (cmd->opc) {
	case PV_NVME_OPC_READ:
	case PV_NVME_OPC_WRITE:
		st = nvmf_io_range(ns, slba, nlb);
		if (st != 0)
			return st;
		bytes = (uint64_t)nlb << ns->lbads;
		/* base 5.15.2.1 MDTS: a larger transfer is an Invalid Field */
		if (bytes > req->qp->tgt->opts.max_io_size)
			return PV_NVME_STATUS(0, PV_NVME_SC_INVALID_FIELD);
		if (req->length < bytes)
			return PV_NVME_STATUS(0, PV_NVME_SC_DATA_SGL_LEN_INVALID);
		req->length = (uint32_t)bytes;
		return 0;
	case PV_NVME_OPC_WRITE_ZEROES:
		return nvmf_io_range(ns, slba, nlb);
	case PV_NVME_OPC_DATASET_MGMT:
		bytes = ((rte_le_to_cpu_32(cmd->cdw10) & 0xff) + 1) * sizeof(struct pv_nvme_dsm_range);
		if (req->length < bytes)
			return PV_NVME_STATUS(0, PV_NVME_SC_DATA_SGL_LEN_INVALID);
		req->length = (uint32_t)bytes;
		return 0;
	default:	/* FLUSH */
		return 0;
	}
}

static void
nvmf_io_finish(struct pv_nvmf_req *req, uint16_t sc)
{
	struct pv_nvmf_qpair *qp = req->qp;

	if (sc == 0) {
		if (req->cmd.opc == PV_NVME_OPC_READ) {
			qp->num_read_cmds++;
			qp->bytes_read += req->length;
		} else if (req->cmd.opc == PV_NVME_OPC_WRITE) {
			qp->num_write_cmds++;
			qp->bytes_written += req->length;
		}
	}
	nvmf_req_status(req, (sc >> 8) & 0x7, sc & 0xff);
	pv_nvmf_req_complete(req);
}

void
pv_nvmf_req_ns_done(struct pv_nvmf_req *req, uint16_t sc)
{
	nvmf_io_finish(req, sc);
}

void
pv_nvmf_io_exec(struct pv_nvmf_req *req)
{
	const struct pv_nvme_cmd *cmd = &req->cmd;
	struct pv_nvmf_ns *ns = req->ns;
	uint64_t slba = rte_le_to_cpu_32(cmd->cdw10) |
			(uint64_t)rte_le_to_cpu_32(cmd->cdw11) << 32;
	uint32_t nlb = (rte_le_to_cpu_32(cmd->cdw12) & 0xffff) + 1;
	enum pv_nvmf_ns_op op;
	uint16_t sc = 0;
	uint32_t i, nr;

	switch (cmd->opc) {
	case PV_NVME_OPC_READ:
		op = PV_NVMF_NS_READ;
		break;
	case PV_NVME_OPC_WRITE:
		op = PV_NVMF_NS_WRITE;
		break;
	case PV_NVME_OPC_WRITE_ZEROES:
		op = PV_NVMF_NS_WRITE_ZEROES;
		break;
	case PV_NVME_OPC_FLUSH:
		if (ns == NULL)
			return nvmf_io_finish(req, 0);
		op = PV_NVMF_NS_FLUSH;
		slba = 0;
		nlb = 0;
		break;
	default:	/* DATASET_MGMT, checked by pv_nvmf_io_check() */
		if ((rte_le_to_cpu_32(cmd->cdw11) & PV_NVME_DSM_AD) == 0)
			return nvmf_io_finish(req, 0);	/* hints only: nothing to do */
		nr = req->length / sizeof(struct pv_nvme_dsm_range);
		for (i = 0; i < nr; i++) {
			struct pv_nvme_dsm_range r;

			memcpy(&r, req->data + i * sizeof(r), sizeof(r));
			if (nvmf_io_range(ns, rte_le_to_cpu_64(r.slba),
					  rte_le_to_cpu_32(r.nlb)) != 0)
				return nvmf_io_finish(req, PV_NVME_SC_LBA_OUT_OF_RANGE);
		}
		op = PV_NVMF_NS_DEALLOCATE;
		slba = 0;
		nlb = nr;
		break;
	}
	if (ns->ops->submit(ns, req, op, slba, nlb, &sc) == 0)
		nvmf_io_finish(req, sc);
}

/* ------------------------------------------------------------------ */
/* RAM namespace                                                        */
/* ------------------------------------------------------------------ */

static int
nvmf_ram_submit(struct pv_nvmf_ns *ns, struct pv_nvmf_req *req, enum pv_nvmf_ns_op op,
		uint64_t slba, uint32_t nlb, uint16_t *status_p)
{
	uint8_t *base = ns->ctx;
	uint32_t i;

	switch (op) {
	case PV_NVMF_NS_READ:
		memcpy(req->data, base + (slba << ns->lbads), (size_t)nlb << ns->lbads);
		break;
	case PV_NVMF_NS_WRITE:
		memcpy(base + (slba << ns->lbads), req->data, (size_t)nlb << ns->lbads);
		break;
	case PV_NVMF_NS_WRITE_ZEROES:
		memset(base + (slba << ns->lbads), 0, (size_t)nlb << ns->lbads);
		break;
	case PV_NVMF_NS_DEALLOCATE:
		/* ranges checked by the core; deallocated blocks read zero (DLFEAT) */
		for (i = 0; i < nlb; i++) {
			struct pv_nvme_dsm_range r;

			memcpy(&r, req->data + i * sizeof(r), sizeof(r));
			memset(base + (rte_le_to_cpu_64(r.slba) << ns->lbads), 0,
			       (size_t)rte_le_to_cpu_32(r.nlb) << ns->lbads);
		}
		break;
	case PV_NVMF_NS_FLUSH:
		break;
	}
	*status_p = 0;
	return 0;
}

static void
nvmf_ram_destroy(struct pv_nvmf_ns *ns)
{
	rte_free(ns->ctx);
	ns->ctx = NULL;
}

static const struct pv_nvmf_ns_ops nvmf_ram_ops = {
	.submit = nvmf_ram_submit,
	.destroy = nvmf_ram_destroy,
};

struct pv_nvmf_ns *
pv_nvmf_ns_ram_create(uint64_t num_blocks, uint32_t block_size)
{
	struct pv_nvmf_ns *ns;

	if (block_size < 512 || block_size > 4096 || !rte_is_power_of_2(block_size) ||
	    num_blocks == 0 || num_blocks > (UINT64_MAX >> 12)) {
		NVMF_LOG(ERR, "RAM namespace: %" PRIu64 " blocks of %u bytes: invalid\n",
			 num_blocks, block_size);
		errno = EINVAL;
		return NULL;
	}
	ns = calloc(1, sizeof(*ns));
	if (ns == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	ns->ctx = rte_zmalloc("pv_nvmf_ram_ns", num_blocks * block_size, 4096);
	if (ns->ctx == NULL) {
		NVMF_LOG(ERR, "RAM namespace: no memory for %" PRIu64 " bytes\n",
			 num_blocks * block_size);
		free(ns);
		errno = ENOMEM;
		return NULL;
	}
	ns->block_size = block_size;
	ns->lbads = (uint8_t)rte_log2_u32(block_size);
	ns->num_blocks = num_blocks;
	ns->ops = &nvmf_ram_ops;
	return ns;
}

uint8_t *
pv_nvmf_ns_ram_base(struct pv_nvmf_ns *ns)
{
	if (ns == NULL || ns->ops != &nvmf_ram_ops)
		return NULL;
	return ns->ctx;
}

/* ------------------------------------------------------------------ */
/* delay namespace: a synchronous one's completions held delay_us       */
/* ------------------------------------------------------------------ */

#define NVMF_DELAY_HELD		4096	/* per lcore, a power of 2 */
#define NVMF_SC_NS_NOT_READY	0x82

struct nvmf_delay_io {
	struct pv_nvmf_req *req;
	uint64_t due_tsc;
	uint16_t sc;
};

struct nvmf_delay_q {
	uint32_t head, tail;		/* free-running: tail - head held */
	struct nvmf_delay_io io[NVMF_DELAY_HELD];
};

struct nvmf_delay {
	struct pv_nvmf_ns *base;
	uint64_t delay_tsc;
	struct nvmf_delay_q *q[RTE_MAX_LCORE];	/* made by their lcore */
};

static int
nvmf_delay_submit(struct pv_nvmf_ns *ns, struct pv_nvmf_req *req, enum pv_nvmf_ns_op op,
		  uint64_t slba, uint32_t nlb, uint16_t *status_p)
{
	struct nvmf_delay *d = ns->ctx;
	unsigned int lc = rte_lcore_id();
	struct nvmf_delay_q *q;
	uint16_t sc = 0;

	if (unlikely(lc >= RTE_MAX_LCORE)) {
		*status_p = PV_NVME_SC_INTERNAL;
		return 0;
	}
	q = d->q[lc];
	if (unlikely(q == NULL)) {
		q = rte_zmalloc("pv_nvmf_delay_q", sizeof(*q), RTE_CACHE_LINE_SIZE);
		if (q == NULL) {
			*status_p = PV_NVME_SC_INTERNAL;
			return 0;
		}
		d->q[lc] = q;
	}
	if (unlikely(q->tail - q->head == NVMF_DELAY_HELD)) {
		*status_p = NVMF_SC_NS_NOT_READY;
		return 0;
	}
	(void)d->base->ops->submit(d->base, req, op, slba, nlb, &sc);
	q->io[q->tail & (NVMF_DELAY_HELD - 1)] = (struct nvmf_delay_io){
		.req = req,
		.due_tsc = rte_get_tsc_cycles() + d->delay_tsc,
		.sc = sc,
	};
	q->tail++;
	return 1;
}

static unsigned int
nvmf_delay_poll(struct pv_nvmf_ns *ns)
{
	struct nvmf_delay *d = ns->ctx;
	unsigned int lc = rte_lcore_id(), n = 0;
	struct nvmf_delay_q *q;
	uint64_t now;

	if (unlikely(lc >= RTE_MAX_LCORE) || (q = d->q[lc]) == NULL || q->head == q->tail)
		return 0;
	now = rte_get_tsc_cycles();
	while (q->head != q->tail) {
		struct nvmf_delay_io *io = &q->io[q->head & (NVMF_DELAY_HELD - 1)];

		if (io->due_tsc > now)
			break;	/* one delay for all: the rest are later */
		q->head++;
		n++;
		pv_nvmf_req_ns_done(io->req, io->sc);
	}
	return n;
}

static void
nvmf_delay_destroy(struct pv_nvmf_ns *ns)
{
	struct nvmf_delay *d = ns->ctx;
	unsigned int i;

	for (i = 0; i < RTE_MAX_LCORE; i++)
		rte_free(d->q[i]);
	pv_nvmf_ns_destroy(d->base);
	free(d);
	ns->ctx = NULL;
}

static const struct pv_nvmf_ns_ops nvmf_delay_ops = {
	.submit = nvmf_delay_submit,
	.poll = nvmf_delay_poll,
	.destroy = nvmf_delay_destroy,
};

struct pv_nvmf_ns *
pv_nvmf_ns_delay_create(struct pv_nvmf_ns *base, uint64_t delay_us)
{
	struct pv_nvmf_ns *ns;
	struct nvmf_delay *d;

	if (base == NULL || base->ops == NULL || base->ops->poll != NULL || delay_us == 0 ||
	    delay_us > 60ULL * 1000 * 1000) {
		NVMF_LOG(ERR, "delay namespace: a synchronous (RAM) namespace and 1..60000000 us\n");
		pv_nvmf_ns_destroy(base);
		errno = EINVAL;
		return NULL;
	}
	ns = calloc(1, sizeof(*ns));
	d = calloc(1, sizeof(*d));
	if (ns == NULL || d == NULL) {
		free(ns);
		free(d);
		pv_nvmf_ns_destroy(base);
		errno = ENOMEM;
		return NULL;
	}
	d->base = base;
	d->delay_tsc = delay_us * (rte_get_tsc_hz() / 1000000);
	ns->block_size = base->block_size;
	ns->lbads = base->lbads;
	ns->num_blocks = base->num_blocks;
	ns->ops = &nvmf_delay_ops;
	ns->ctx = d;
	return ns;
}

void
pv_nvmf_ns_destroy(struct pv_nvmf_ns *ns)
{
	if (ns == NULL)
		return;
	if (ns->ops != NULL && ns->ops->destroy != NULL)
		ns->ops->destroy(ns);
	free(ns);
}
