/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * A command's way through the core: queue-state checks, the SGL (NVMe base
 * 4.4, RDMA transport binding 3.2: keyed data blocks, in-capsule data with
 * an offset, a Last Segment of keyed descriptors in the capsule), the data
 * hand-off to the transport, dispatch and completion.
 */

#include <errno.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>

#include "nvmf_priv.h"

RTE_LOG_REGISTER_DEFAULT(pv_nvmf_logtype, NOTICE);

uint64_t
pv_nvmf_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void
pv_nvmf_qpair_init(struct pv_nvmf_qpair *qp, struct pv_nvmf_tgt *tgt, uint16_t qid,
		   const struct pv_nvmf_qpair_ops *ops)
{
	memset(qp, 0, sizeof(*qp));
	qp->tgt = tgt;
	qp->qid = qid;
	qp->ops = ops;
}

void
pv_nvmf_req_complete(struct pv_nvmf_req *req)
{
	struct pv_nvmf_qpair *qp = req->qp;

	req->cpl.cid = req->cmd.cid;
	req->cpl.sqid = rte_cpu_to_le_16(qp->qid);
	req->cpl.sqhd = rte_cpu_to_le_16(qp->sqhd);
	qp->outstanding--;
	qp->ops->done(req);
}

void
pv_nvmf_req_fail(struct pv_nvmf_req *req, uint8_t sct, uint8_t sc)
{
	nvmf_req_status(req, sct, sc);
	pv_nvmf_req_complete(req);
}

static uint16_t
nvmf_sgl_keyed_add(struct pv_nvmf_req *req, const struct pv_nvme_sgl *d, bool allow_inv)
{
	uint8_t sub = d->keyed.type & 0xf;
	uint32_t key = pv_nvme_sgl_keyed_key(d);

	if ((d->keyed.type >> 4) != PV_NVME_SGL_TYPE_KEYED_DATA)
		return PV_NVME_STATUS(0, PV_NVME_SC_SGL_TYPE_INVALID);
	if (sub == PV_NVME_SGL_SUBTYPE_INVALIDATE && allow_inv) {
		req->invalidate = true;
		req->invalidate_rkey = key;
	} else if (sub != PV_NVME_SGL_SUBTYPE_ADDRESS) {
		return PV_NVME_STATUS(0, PV_NVME_SC_SGL_TYPE_INVALID);
	}
	req->sgl[req->nseg].addr = rte_le_to_cpu_64(d->addr);
	req->sgl[req->nseg].len = pv_nvme_sgl_keyed_len(d);
	req->sgl[req->nseg].key = key;
	req->length += req->sgl[req->nseg].len;
	req->nseg++;
	return 0;
}

uint16_t
pv_nvmf_req_parse_sgl(struct pv_nvmf_req *req, uint32_t max_len)
{
	const struct pv_nvme_sgl *sgl = &req->cmd.sgl1;
	uint8_t type = sgl->unkeyed.type >> 4;
	uint8_t sub = sgl->unkeyed.type & 0xf;
	uint64_t off;
	uint32_t len, n, i;
	uint16_t st;

	req->nseg = 0;
	req->length = 0;
	req->invalidate = false;
	req->data_in_capsule = false;
	if (type == PV_NVME_SGL_TYPE_KEYED_DATA) {
		st = nvmf_sgl_keyed_add(req, sgl, true);
		if (st != 0)
			return st;
	} else if (type == PV_NVME_SGL_TYPE_DATA_BLOCK && sub == PV_NVME_SGL_SUBTYPE_OFFSET) {
		/* in-capsule data (RDMA binding 3.2: offset from the capsule's data) */
		off = rte_le_to_cpu_64(sgl->addr);
		len = rte_le_to_cpu_32(sgl->unkeyed.length);
		if (off > req->icd_len)
			return PV_NVME_STATUS(0, PV_NVME_SC_SGL_OFFSET_INVALID);
		if (len > req->icd_len - off)
			return PV_NVME_STATUS(0, PV_NVME_SC_DATA_SGL_LEN_INVALID);
		req->data_in_capsule = true;
		req->data = len != 0 ? req->icd + off : NULL;
		req->length = len;
	} else if (type == PV_NVME_SGL_TYPE_LAST_SEGMENT && sub == PV_NVME_SGL_SUBTYPE_OFFSET) {
		/* a list of keyed descriptors in the capsule */
		off = rte_le_to_cpu_64(sgl->addr);
		len = rte_le_to_cpu_32(sgl->unkeyed.length);
		if (len == 0 || len % sizeof(struct pv_nvme_sgl) != 0)
			return PV_NVME_STATUS(0, PV_NVME_SC_INVALID_SGL_SEG);
		n = len / sizeof(struct pv_nvme_sgl);
		if (n > PV_NVMF_MAX_SGL_DESC)
			return PV_NVME_STATUS(0, PV_NVME_SC_INVALID_NUM_SGL);
		if (off > req->icd_len || len > req->icd_len - off)
			return PV_NVME_STATUS(0, PV_NVME_SC_SGL_OFFSET_INVALID);
		for (i = 0; i < n; i++) {
			struct pv_nvme_sgl d;

			memcpy(&d, req->icd + off + i * sizeof(d), sizeof(d));
			st = nvmf_sgl_keyed_add(req, &d, false);
			if (st != 0)
				return st;
		}
	} else if (type == PV_NVME_SGL_TYPE_DATA_BLOCK && sub == PV_NVME_SGL_SUBTYPE_ADDRESS &&
		   sgl->unkeyed.length == 0) {
		/* a null descriptor: no data (Set Features of a value in cdw11) */
		return 0;
	} else {
		return PV_NVME_STATUS(0, PV_NVME_SC_SGL_TYPE_INVALID);
	}
	if (req->length > max_len)
		return PV_NVME_STATUS(0, PV_NVME_SC_DATA_SGL_LEN_INVALID);
	return 0;
}

/* opcode known on this kind of queue? (checked before any data moves) */
static bool
nvmf_opc_known(const struct pv_nvmf_qpair *qp, uint8_t opc)
{
	if (qp->qid != 0) {
		switch (opc) {
		case PV_NVME_OPC_FLUSH:
		case PV_NVME_OPC_WRITE:
		case PV_NVME_OPC_READ:
		case PV_NVME_OPC_WRITE_ZEROES:
		case PV_NVME_OPC_DATASET_MGMT:
			return true;
		default:
			return false;
		}
	}
	switch (opc) {
	case PV_NVME_OPC_GET_LOG_PAGE:
	case PV_NVME_OPC_IDENTIFY:
	case PV_NVME_OPC_SET_FEATURES:
	case PV_NVME_OPC_GET_FEATURES:
	case PV_NVME_OPC_ASYNC_EVENT_REQ:
	case PV_NVME_OPC_KEEP_ALIVE:
		return true;
	case PV_NVME_OPC_ABORT:
		return !qp->is_discovery;
	default:
		return false;
	}
}

static bool
nvmf_fctype_known(uint8_t fctype)
{
	return fctype == PV_NVMF_FCTYPE_CONNECT || fctype == PV_NVMF_FCTYPE_PROPERTY_GET ||
	       fctype == PV_NVMF_FCTYPE_PROPERTY_SET || fctype == PV_NVMF_FCTYPE_DISCONNECT;
}

void
pv_nvmf_req_submit(struct pv_nvmf_req *req)
{
	struct pv_nvmf_qpair *qp = req->qp;
	const struct pv_nvme_cmd *cmd = &req->cmd;
	const struct pv_nvmf_cmd *fc = (const struct pv_nvmf_cmd *)cmd;
	bool fabrics = cmd->opc == PV_NVME_OPC_FABRICS;
	uint8_t dir;
	uint16_t st;
	int rc;

	memset(&req->cpl, 0, sizeof(req->cpl));
	req->xfer = PV_NVMF_XFER_NONE;
	req->length = 0;
	req->data = NULL;
	req->nseg = 0;
	req->invalidate = false;
	req->data_in_capsule = false;
	qp->outstanding++;
	if (qp->sq_size != 0)
		qp->sqhd = (uint16_t)((qp->sqhd + 1) % qp->sq_size);

	/* NVMe-oF 1.1 2.2: fused operations are not supported; data uses SGLs */
	if ((cmd->flags & 0x3) != 0 || (cmd->flags >> 6) == 0)
		return pv_nvmf_req_fail(req, 0, PV_NVME_SC_INVALID_FIELD);
	if (!qp->connected) {
		/* NVMe-oF 1.1 3.3: nothing but Connect before the queue is connected */
		if (!fabrics || fc->fctype != PV_NVMF_FCTYPE_CONNECT)
			return pv_nvmf_req_fail(req, 0, PV_NVME_SC_CMD_SEQ_ERROR);
	} else if (fabrics && fc->fctype == PV_NVMF_FCTYPE_CONNECT) {
		return pv_nvmf_req_fail(req, 0, PV_NVME_SC_CMD_SEQ_ERROR);
	}
	if (fabrics) {
		if (!nvmf_fctype_known(fc->fctype))
			return pv_nvmf_req_fail(req, 0, PV_NVME_SC_INVALID_OPCODE);
		dir = fc->fctype & 0x3;
	} else {
		if (!nvmf_opc_known(qp, cmd->opc))
			return pv_nvmf_req_fail(req, 0, PV_NVME_SC_INVALID_OPCODE);
		dir = cmd->opc & 0x3;
	}
	if (dir == 0x3)
		return pv_nvmf_req_fail(req, 0, PV_NVME_SC_INVALID_OPCODE);
	if (dir != 0) {
		st = pv_nvmf_req_parse_sgl(req, qp->tgt->opts.max_io_size);
		if (st != 0) {
			req->cpl.status = rte_cpu_to_le_16(st | PV_NVME_STATUS_DNR);
			return pv_nvmf_req_complete(req);
		}
		req->xfer = dir == 0x1 ? PV_NVMF_XFER_H2C : PV_NVMF_XFER_C2H;
		/* in-capsule data only flows host to controller (RDMA binding 3.2) */
		if (req->data_in_capsule && req->xfer != PV_NVMF_XFER_H2C)
			return pv_nvmf_req_fail(req, 0, PV_NVME_SC_SGL_TYPE_INVALID);
	}
	if (!fabrics && qp->qid != 0) {
		/* checks that must hold before any data moves: range, MDTS, length */
		st = pv_nvmf_io_check(req);
		if (st != 0) {
			req->cpl.status = rte_cpu_to_le_16(st | PV_NVME_STATUS_DNR);
			return pv_nvmf_req_complete(req);
		}
	}
	if (req->length == 0 || req->data_in_capsule) {
		if (req->length == 0)
			req->xfer = PV_NVMF_XFER_NONE;
		return pv_nvmf_req_exec(req);
	}
	rc = qp->ops->data_prep(req);
	if (rc == 0)
		return pv_nvmf_req_exec(req);
	if (rc == -EFAULT)	/* the host's memory could not be read or written */
		pv_nvmf_req_fail(req, 0, PV_NVME_SC_DATA_XFER_ERROR);
	else if (rc < 0)
		pv_nvmf_req_fail(req, 0, PV_NVME_SC_INTERNAL);
}

void
pv_nvmf_req_exec(struct pv_nvmf_req *req)
{
	if (req->cmd.opc == PV_NVME_OPC_FABRICS)
		pv_nvmf_fabrics_exec(req);
	else if (req->qp->qid == 0)
		pv_nvmf_admin_exec(req);
	else
		pv_nvmf_io_exec(req);
}
