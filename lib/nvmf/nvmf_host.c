/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * A minimal NVMe over Fabrics RDMA host (pv_nvmf_host.h): synchronous
 * pv_rdma_cm ids carrying the NVMe RDMA CM request, capsules sent with
 * SEND (keyed SGL, or the data in the capsule for small writes), responses
 * received into one buffer per queue entry. A command's entry is free again
 * once both its response and its SEND's completion are in.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <rte_common.h>
#include <rte_malloc.h>

#include "pv_rdma_cma.h"
#include "nvmf_priv.h"
#include "pv_nvmf_host.h"

#define HOST_ADMIN_DEPTH	32
#define HOST_TIMEOUT_MS		5000
#define HOST_DEFAULT_HOSTNQN	"nqn.2014-08.org.nvmexpress:uuid:0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9"
#define HOST_SCRATCH		4096

enum { HOST_WRID_RECV = 0, HOST_WRID_SEND = 1 };

struct host_slot {
	pv_nvmf_host_cb_fn cb;
	void *arg;
	bool busy;
	bool send_done;
	bool cpl_done;
	struct pv_nvme_cpl cpl;
};

struct pv_nvmf_host_qpair {
	struct pv_nvmf_host_ctrlr *c;
	struct pv_rdma_cm_id *id;
	struct pv_cq *cq;
	uint16_t qid;
	uint16_t depth;
	uint32_t capsule_size;
	uint8_t *mem;			/* depth capsules, then depth responses */
	struct pv_mr *mr;
	struct host_slot *slots;
	uint16_t *free_cids;
	unsigned int nfree;
	unsigned int outstanding;
	bool failed;
};

struct pv_nvmf_host_ctrlr {
	char traddr[64];
	uint16_t port;
	char subnqn[PV_NVME_NQN_MAX_LEN + 1];
	char hostnqn[PV_NVME_NQN_MAX_LEN + 1];
	uint8_t hostid[16];
	uint32_t kato_ms;
	uint16_t cntlid;
	uint16_t mqes;
	uint32_t max_xfer;
	uint32_t icd_size;		/* in-capsule bytes of I/O queues */
	struct pv_pd *pd;
	struct pv_nvmf_host_qpair *admin;
	uint8_t *scratch;		/* registered, for admin data */
	struct pv_mr *scratch_mr;
	struct pv_nvme_id_ctrl id;
	unsigned int nns;
	struct pv_nvmf_host_ns ns[PV_NVMF_HOST_MAX_NS];
};

static int
host_recv_post(struct pv_nvmf_host_qpair *qp, unsigned int i)
{
	struct pv_sge sge = {
		.addr = (uintptr_t)(qp->mem + (size_t)qp->depth * qp->capsule_size +
				    i * sizeof(struct pv_nvme_cpl)),
		.length = sizeof(struct pv_nvme_cpl),
		.lkey = qp->mr->lkey,
	};
	struct pv_recv_wr wr = {
		.wr_id = (uint64_t)i << 1 | HOST_WRID_RECV,
		.sg_list = &sge,
		.num_sge = 1,
	}, *bad;

	return pv_post_recv(qp->id->qp, &wr, &bad);
}

static void
host_qpair_free(struct pv_nvmf_host_qpair *qp)
{
	if (qp->id != NULL) {
		if (qp->id->qp != NULL)
			pv_rdma_destroy_qp(qp->id);
		pv_rdma_destroy_id(qp->id);
	}
	if (qp->cq != NULL)
		pv_destroy_cq(qp->cq);
	if (qp->mr != NULL)
		pv_dereg_mr(qp->mr);
	rte_free(qp->mem);
	free(qp->slots);
	free(qp->free_cids);
	free(qp);
}

/* the RDMA connection of queue @p qid with @p depth entries (NVMe RDMA CM request) */
static int
host_qpair_connect(struct pv_nvmf_host_ctrlr *c, uint16_t qid, uint16_t depth,
		   uint32_t icd_size, struct pv_nvmf_host_qpair **qp_p)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(c->port) };
	struct pv_nvmf_rdma_cm_req req;
	struct pv_rdma_conn_param param;
	struct pv_qp_init_attr qa;
	struct pv_nvmf_host_qpair *qp;
	size_t len;
	unsigned int i;
	int ret;

	inet_pton(AF_INET, c->traddr, &sin.sin_addr);
	qp = calloc(1, sizeof(*qp));
	if (qp == NULL)
		return -ENOMEM;
	qp->c = c;
	qp->qid = qid;
	qp->depth = depth;
	qp->capsule_size = sizeof(struct pv_nvme_cmd) + icd_size;
	qp->slots = calloc(depth, sizeof(*qp->slots));
	qp->free_cids = calloc(depth, sizeof(*qp->free_cids));
	if (qp->slots == NULL || qp->free_cids == NULL) {
		ret = -ENOMEM;
		goto err;
	}
	for (i = 0; i < depth; i++)
		qp->free_cids[qp->nfree++] = (uint16_t)(depth - 1 - i);
	if (pv_rdma_create_id(NULL, &qp->id, qp, PV_RDMA_PS_TCP) != 0 ||
	    pv_rdma_resolve_addr(qp->id, NULL, (struct sockaddr *)&sin, 2000) != 0 ||
	    pv_rdma_resolve_route(qp->id, 2000) != 0) {
		ret = -errno;
		NVMF_LOG(ERR, "host: %s:%u: address or route: %s\n", c->traddr, c->port,
			 strerror(errno));
		goto err;
	}
	if (c->pd == NULL) {
		c->pd = pv_alloc_pd(qp->id->verbs);
		if (c->pd == NULL) {
			ret = -errno;
			goto err;
		}
	}
	/*
	 * Queue q on completion vector q mod N: the queues spread over the
	 * engines of a multi-queue device (softroce queues=N), as a NIC
	 * spreads them over its EQs; a target that hands queue q to poll
	 * group q mod N (pv-nvmf-tgt's round robin, admin queue first) then
	 * receives each queue's frames on that group's own port queue.
	 */
	qp->cq = pv_create_cq(qp->id->verbs, 2 * depth + 2, qp, NULL,
			      qid % RTE_MAX(qp->id->verbs->num_comp_vectors, 1));
	len = (size_t)depth * (qp->capsule_size + sizeof(struct pv_nvme_cpl));
	qp->mem = rte_zmalloc("pv_nvmf_host_qp", len, 64);
	if (qp->cq == NULL || qp->mem == NULL) {
		ret = -ENOMEM;
		goto err;
	}
	qp->mr = pv_reg_mr(c->pd, qp->mem, len, PV_ACCESS_LOCAL_WRITE);
	if (qp->mr == NULL) {
		ret = -errno;
		goto err;
	}
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = qp->cq;
	qa.recv_cq = qp->cq;
	qa.qp_type = PV_QPT_RC;
	qa.cap.max_send_wr = depth;
	qa.cap.max_recv_wr = depth;
	qa.cap.max_send_sge = 2;
	qa.cap.max_recv_sge = 1;
	if (pv_rdma_create_qp(qp->id, c->pd, &qa) != 0) {
		ret = -errno;
		goto err;
	}
	for (i = 0; i < depth; i++)
		if (host_recv_post(qp, i) != 0) {
			ret = -EIO;
			goto err;
		}
	memset(&req, 0, sizeof(req));
	req.qid = rte_cpu_to_le_16(qid);
	req.hrqsize = rte_cpu_to_le_16(depth);
	req.hsqsize = rte_cpu_to_le_16(depth - 1);
	req.cntlid = rte_cpu_to_le_16(qid == 0 ? 0xffff : c->cntlid);
	memset(&param, 0, sizeof(param));
	param.private_data = &req;
	param.private_data_len = sizeof(req);
	/* as Linux's host (nvme_rdma_route_resolved()): the target READs
	 * host-to-controller data from us, we READ nothing from it */
	param.responder_resources = 16;
	param.initiator_depth = 0;
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	if (pv_rdma_connect(qp->id, &param) != 0) {
		ret = -errno;
		NVMF_LOG(ERR, "host: queue %u: connect: %s\n", qid, strerror(errno));
		goto err;
	}
	*qp_p = qp;
	return 0;
err:
	host_qpair_free(qp);
	return ret;
}

static void
host_slot_finish(struct pv_nvmf_host_qpair *qp, uint16_t cid)
{
	struct host_slot *s = &qp->slots[cid];

	if (!s->send_done || !s->cpl_done)
		return;
	s->busy = false;
	qp->outstanding--;
	qp->free_cids[qp->nfree++] = cid;
	s->cb(s->arg, &s->cpl);
}

static __rte_noinline void
host_qpair_fail(struct pv_nvmf_host_qpair *qp)
{
	unsigned int i;

	if (qp->failed)
		return;
	qp->failed = true;
	for (i = 0; i < qp->depth; i++) {
		struct host_slot *s = &qp->slots[i];

		if (!s->busy)
			continue;
		memset(&s->cpl, 0, sizeof(s->cpl));
		s->cpl.cid = rte_cpu_to_le_16(i);
		s->cpl.status = rte_cpu_to_le_16(PV_NVME_STATUS(0, PV_NVME_SC_ABORTED_SQ_DELETION) |
						 PV_NVME_STATUS_DNR);
		s->send_done = true;
		s->cpl_done = true;
		host_slot_finish(qp, (uint16_t)i);
	}
}

int
pv_nvmf_host_poll(struct pv_nvmf_host_qpair *qp)
{
	struct pv_wc wc[32];
	int n, i, done = 0;

	if (unlikely(qp->failed))
		return -EIO;
	n = pv_poll_cq(qp->cq, 32, wc);
	if (unlikely(n < 0)) {
		host_qpair_fail(qp);
		return -EIO;
	}
	for (i = 0; i < n; i++) {
		uint32_t idx = (uint32_t)(wc[i].wr_id >> 1);

		if (unlikely(wc[i].status != PV_WC_SUCCESS)) {
			NVMF_LOG(NOTICE, "host: queue %u: %s\n", qp->qid,
				 pv_wc_status_str(wc[i].status));
			host_qpair_fail(qp);
			return -EIO;
		}
		if ((wc[i].wr_id & 1) == HOST_WRID_SEND) {
			qp->slots[idx].send_done = true;
			host_slot_finish(qp, (uint16_t)idx);
			continue;
		}
		/* a response: find its command by CID, then repost the buffer */
		{
			struct pv_nvme_cpl cpl;
			uint16_t cid;

			memcpy(&cpl, qp->mem + (size_t)qp->depth * qp->capsule_size +
				     idx * sizeof(cpl), sizeof(cpl));
			if (host_recv_post(qp, idx) != 0) {
				host_qpair_fail(qp);
				return -EIO;
			}
			cid = rte_le_to_cpu_16(cpl.cid);
			if (cid >= qp->depth || !qp->slots[cid].busy || qp->slots[cid].cpl_done) {
				NVMF_LOG(ERR, "host: queue %u: response for unknown CID %u\n",
					 qp->qid, cid);
				continue;
			}
			qp->slots[cid].cpl = cpl;
			qp->slots[cid].cpl_done = true;
			done++;
			host_slot_finish(qp, cid);
		}
	}
	return done;
}

/* post @p cmd (CID set here) with optional in-capsule data */
static int
host_send(struct pv_nvmf_host_qpair *qp, struct pv_nvme_cmd *cmd, const void *icd,
	  uint32_t icd_len, pv_nvmf_host_cb_fn cb, void *arg)
{
	struct pv_send_wr wr, *bad;
	struct pv_sge sge;
	struct host_slot *s;
	uint8_t *capsule;
	uint16_t cid;

	if (unlikely(qp->failed))
		return -EIO;
	if (unlikely(qp->nfree == 0))
		return -EAGAIN;
	cid = qp->free_cids[--qp->nfree];
	s = &qp->slots[cid];
	s->cb = cb;
	s->arg = arg;
	s->busy = true;
	s->send_done = false;
	s->cpl_done = false;
	qp->outstanding++;
	cmd->cid = rte_cpu_to_le_16(cid);
	capsule = qp->mem + (size_t)cid * qp->capsule_size;
	memcpy(capsule, cmd, sizeof(*cmd));
	if (icd_len != 0)
		memcpy(capsule + sizeof(*cmd), icd, icd_len);
	sge = (struct pv_sge){
		.addr = (uintptr_t)capsule,
		.length = (uint32_t)sizeof(*cmd) + icd_len,
		.lkey = qp->mr->lkey,
	};
	wr = (struct pv_send_wr){
		.wr_id = (uint64_t)cid << 1 | HOST_WRID_SEND,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = PV_WR_SEND,
		.send_flags = PV_SEND_SIGNALED,
	};
	if (unlikely(pv_post_send(qp->id->qp, &wr, &bad) != 0)) {
		s->busy = false;
		qp->outstanding--;
		qp->free_cids[qp->nfree++] = cid;
		return -EIO;
	}
	return 0;
}

static void
host_sgl_incapsule(struct pv_nvme_cmd *cmd, uint32_t len)
{
	cmd->sgl1.addr = 0;
	cmd->sgl1.unkeyed.length = rte_cpu_to_le_32(len);
	memset(cmd->sgl1.unkeyed.rsvd, 0, sizeof(cmd->sgl1.unkeyed.rsvd));
	cmd->sgl1.unkeyed.type = PV_NVME_SGL_TYPE_DATA_BLOCK << 4 | PV_NVME_SGL_SUBTYPE_OFFSET;
}

int
pv_nvmf_host_submit(struct pv_nvmf_host_qpair *qp, uint8_t opc, uint32_t nsid, uint64_t slba,
		    uint32_t nlb, uint32_t block_size, void *buf, struct pv_mr *mr,
		    pv_nvmf_host_cb_fn cb, void *arg)
{
	struct pv_nvme_cmd cmd;
	uint64_t len = (uint64_t)nlb * block_size;
	bool data = opc == PV_NVME_OPC_READ || opc == PV_NVME_OPC_WRITE;

	if (unlikely(nlb == 0 || nlb > 65536 || (data && len > qp->c->max_xfer)))
		return -EINVAL;
	memset(&cmd, 0, sizeof(cmd));
	cmd.opc = opc;
	cmd.flags = 0x40;		/* SGLs */
	cmd.nsid = rte_cpu_to_le_32(nsid);
	cmd.cdw10 = rte_cpu_to_le_32((uint32_t)slba);
	cmd.cdw11 = rte_cpu_to_le_32((uint32_t)(slba >> 32));
	cmd.cdw12 = rte_cpu_to_le_32(nlb - 1);
	if (opc == PV_NVME_OPC_WRITE && len <= qp->capsule_size - sizeof(cmd)) {
		host_sgl_incapsule(&cmd, (uint32_t)len);
		return host_send(qp, &cmd, buf, (uint32_t)len, cb, arg);
	}
	if (data)
		pv_nvme_sgl_keyed_set(&cmd.sgl1, (uintptr_t)buf, (uint32_t)len, mr->rkey,
				      PV_NVME_SGL_SUBTYPE_ADDRESS);
	else
		pv_nvme_sgl_keyed_set(&cmd.sgl1, 0, 0, 0, PV_NVME_SGL_SUBTYPE_ADDRESS);
	return host_send(qp, &cmd, NULL, 0, cb, arg);
}

unsigned int
pv_nvmf_host_outstanding(const struct pv_nvmf_host_qpair *qp)
{
	return qp->outstanding;
}

/* ------------------------------------------------------------------ */
/* synchronous commands                                                 */
/* ------------------------------------------------------------------ */

struct host_sync {
	bool done;
	struct pv_nvme_cpl cpl;
};

static void
host_sync_cb(void *arg, const struct pv_nvme_cpl *cpl)
{
	struct host_sync *s = arg;

	s->cpl = *cpl;
	s->done = true;
}

static int
host_sync(struct pv_nvmf_host_qpair *qp, struct pv_nvme_cmd *cmd, const void *icd,
	  uint32_t icd_len, struct pv_nvme_cpl *cpl_p)
{
	struct host_sync s = { .done = false };
	uint64_t deadline = pv_nvmf_now_ms() + HOST_TIMEOUT_MS;
	int ret;

	ret = host_send(qp, cmd, icd, icd_len, host_sync_cb, &s);
	if (ret != 0)
		return ret;
	while (!s.done) {
		if (pv_nvmf_host_poll(qp) < 0 && !s.done)
			return -EIO;
		if (pv_nvmf_now_ms() > deadline) {
			NVMF_LOG(ERR, "host: queue %u: command %#x timed out\n", qp->qid, cmd->opc);
			return -ETIMEDOUT;
		}
	}
	*cpl_p = s.cpl;
	return 0;
}

int
pv_nvmf_host_admin(struct pv_nvmf_host_ctrlr *c, struct pv_nvme_cmd *cmd, void *data,
		   uint32_t len, struct pv_mr *mr, struct pv_nvme_cpl *cpl_p)
{
	cmd->flags = 0x40;
	if (data != NULL && len != 0)
		pv_nvme_sgl_keyed_set(&cmd->sgl1, (uintptr_t)data, len, mr->rkey,
				      PV_NVME_SGL_SUBTYPE_ADDRESS);
	else
		pv_nvme_sgl_keyed_set(&cmd->sgl1, 0, 0, 0, PV_NVME_SGL_SUBTYPE_ADDRESS);
	return host_sync(c->admin, cmd, NULL, 0, cpl_p);
}

static int
host_check(const char *what, int ret, const struct pv_nvme_cpl *cpl)
{
	uint16_t st;

	if (ret != 0)
		return ret;
	st = rte_le_to_cpu_16(cpl->status);
	if ((st & 0x7ffe) != 0) {
		NVMF_LOG(ERR, "host: %s failed: SCT %u SC %#x\n", what, PV_NVME_STATUS_SCT(st),
			 PV_NVME_STATUS_SC(st));
		return -EPROTO;
	}
	return 0;
}

static int
host_fabrics_connect(struct pv_nvmf_host_ctrlr *c, struct pv_nvmf_host_qpair *qp,
		     uint16_t sqsize)
{
	struct pv_nvmf_connect_cmd cc;
	struct pv_nvmf_connect_data *d = (void *)c->scratch;
	struct pv_nvme_cpl cpl;
	int ret;

	memset(&cc, 0, sizeof(cc));
	cc.opc = PV_NVME_OPC_FABRICS;
	cc.rsvd1 = 0x40;		/* flags: SGLs */
	cc.fctype = PV_NVMF_FCTYPE_CONNECT;
	cc.qid = rte_cpu_to_le_16(qp->qid);
	cc.sqsize = rte_cpu_to_le_16(sqsize);
	cc.kato = rte_cpu_to_le_32(qp->qid == 0 ? c->kato_ms : 0);
	memset(d, 0, sizeof(*d));
	memcpy(d->hostid, c->hostid, sizeof(d->hostid));
	d->cntlid = rte_cpu_to_le_16(qp->qid == 0 ? 0xffff : c->cntlid);
	snprintf(d->subnqn, sizeof(d->subnqn), "%s", c->subnqn);
	snprintf(d->hostnqn, sizeof(d->hostnqn), "%s", c->hostnqn);
	if (qp->capsule_size - sizeof(struct pv_nvme_cmd) >= sizeof(*d)) {
		/* in the capsule, as Linux does on I/O queues */
		host_sgl_incapsule((struct pv_nvme_cmd *)&cc, sizeof(*d));
		ret = host_sync(qp, (struct pv_nvme_cmd *)&cc, d, sizeof(*d), &cpl);
	} else {
		pv_nvme_sgl_keyed_set(&cc.sgl1, (uintptr_t)d, sizeof(*d), c->scratch_mr->rkey,
				      PV_NVME_SGL_SUBTYPE_ADDRESS);
		ret = host_sync(qp, (struct pv_nvme_cmd *)&cc, NULL, 0, &cpl);
	}
	ret = host_check("Connect", ret, &cpl);
	if (ret == 0 && qp->qid == 0)
		c->cntlid = (uint16_t)rte_le_to_cpu_32(cpl.cdw0);
	return ret;
}

static int
host_prop(struct pv_nvmf_host_ctrlr *c, uint8_t fctype, uint32_t ofst, bool size8,
	  uint64_t value, uint64_t *value_p)
{
	struct pv_nvmf_prop_cmd pc;
	struct pv_nvme_cpl cpl;
	int ret;

	memset(&pc, 0, sizeof(pc));
	pc.opc = PV_NVME_OPC_FABRICS;
	pc.rsvd1 = 0x40;
	pc.fctype = fctype;
	pc.attrib = size8 ? PV_NVMF_PROP_SIZE_8 : 0;
	pc.ofst = rte_cpu_to_le_32(ofst);
	pc.value = rte_cpu_to_le_64(value);
	/* no data: a keyed SGL of length 0, as Linux's host sends (its
	 * nvme_rdma_set_sg_null()); Linux's nvmet-rdma maps the SGL of every
	 * command and answers Invalid Field to a zeroed one */
	pv_nvme_sgl_keyed_set(&((struct pv_nvme_cmd *)&pc)->sgl1, 0, 0, 0,
			      PV_NVME_SGL_SUBTYPE_ADDRESS);
	ret = host_check("Property Get/Set", host_sync(c->admin, (struct pv_nvme_cmd *)&pc,
						       NULL, 0, &cpl), &cpl);
	if (ret == 0 && value_p != NULL)
		*value_p = rte_le_to_cpu_32(cpl.cdw0) |
			   (uint64_t)rte_le_to_cpu_32(cpl.cdw1) << 32;
	return ret;
}

static int
host_identify(struct pv_nvmf_host_ctrlr *c, uint8_t cns, uint32_t nsid)
{
	struct pv_nvme_cmd cmd;
	struct pv_nvme_cpl cpl;

	memset(&cmd, 0, sizeof(cmd));
	cmd.opc = PV_NVME_OPC_IDENTIFY;
	cmd.nsid = rte_cpu_to_le_32(nsid);
	cmd.cdw10 = rte_cpu_to_le_32(cns);
	return host_check("Identify", pv_nvmf_host_admin(c, &cmd, c->scratch, HOST_SCRATCH,
							 c->scratch_mr, &cpl), &cpl);
}

int
pv_nvmf_host_connect(const struct pv_nvmf_host_opts *opts, struct pv_nvmf_host_ctrlr **ctrlr_p)
{
	struct pv_nvmf_host_ctrlr *c;
	uint64_t cap = 0, csts = 0, deadline;
	uint32_t list[PV_NVMF_HOST_MAX_NS];
	unsigned int i;
	int ret;

	if (opts == NULL || ctrlr_p == NULL || opts->traddr == NULL || opts->subnqn == NULL ||
	    strlen(opts->traddr) >= sizeof(c->traddr) ||
	    strlen(opts->subnqn) > PV_NVME_NQN_MAX_LEN ||
	    (opts->hostnqn != NULL && strlen(opts->hostnqn) > PV_NVME_NQN_MAX_LEN))
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	strcpy(c->traddr, opts->traddr);
	c->port = opts->port != 0 ? opts->port : PV_NVMF_RDMA_PORT;
	strcpy(c->subnqn, opts->subnqn);
	strcpy(c->hostnqn, opts->hostnqn != NULL ? opts->hostnqn : HOST_DEFAULT_HOSTNQN);
	for (i = 0; i < sizeof(c->hostid); i++)
		c->hostid[i] = (uint8_t)(0x11 * (i + 1));
	c->kato_ms = opts->kato_ms;
	c->scratch = rte_zmalloc("pv_nvmf_host_scratch", HOST_SCRATCH, 4096);
	if (c->scratch == NULL) {
		free(c);
		return -ENOMEM;
	}
	ret = host_qpair_connect(c, 0, HOST_ADMIN_DEPTH, 0, &c->admin);
	if (ret != 0)
		goto err;
	c->scratch_mr = pv_nvmf_host_reg_mr(c, c->scratch, HOST_SCRATCH);
	if (c->scratch_mr == NULL) {
		ret = -errno;
		goto err;
	}
	ret = host_fabrics_connect(c, c->admin, HOST_ADMIN_DEPTH - 1);
	if (ret == 0)
		ret = host_prop(c, PV_NVMF_FCTYPE_PROPERTY_GET, PV_NVMF_PROP_CAP, true, 0, &cap);
	if (ret == 0)
		ret = host_prop(c, PV_NVMF_FCTYPE_PROPERTY_SET, PV_NVMF_PROP_CC, false,
				PV_NVME_CC_EN | 6u << 16 | 4u << 20, NULL);
	deadline = pv_nvmf_now_ms() + HOST_TIMEOUT_MS;
	while (ret == 0 && (csts & PV_NVME_CSTS_RDY) == 0) {
		ret = host_prop(c, PV_NVMF_FCTYPE_PROPERTY_GET, PV_NVMF_PROP_CSTS, false, 0, &csts);
		if (ret == 0 && pv_nvmf_now_ms() > deadline)
			ret = -ETIMEDOUT;
	}
	if (ret != 0)
		goto err;
	c->mqes = (uint16_t)(cap & 0xffff);
	ret = host_identify(c, PV_NVME_CNS_CTRLR, 0);
	if (ret != 0)
		goto err;
	memcpy(&c->id, c->scratch, sizeof(c->id));
	c->max_xfer = c->id.mdts == 0 ? (1u << 20) : RTE_MIN(4096u << c->id.mdts, 1u << 20);
	c->icd_size = rte_le_to_cpu_32(c->id.ioccsz) * 16 - (uint32_t)sizeof(struct pv_nvme_cmd);
	if (c->id.cntrltype != 2) {
		ret = host_identify(c, PV_NVME_CNS_ACTIVE_NS_LIST, 0);
		if (ret != 0)
			goto err;
		memcpy(list, c->scratch, sizeof(list));
		for (i = 0; i < PV_NVMF_HOST_MAX_NS && list[i] != 0; i++) {
			const struct pv_nvme_id_ns *ns = (const void *)c->scratch;
			uint32_t nsid = rte_le_to_cpu_32(list[i]);

			ret = host_identify(c, PV_NVME_CNS_NS, nsid);
			if (ret != 0)
				goto err;
			c->ns[c->nns].nsid = nsid;
			c->ns[c->nns].num_blocks = rte_le_to_cpu_64(ns->nsze);
			c->ns[c->nns].block_size = 1u << ns->lbaf[ns->flbas & 0xf].lbads;
			c->nns++;
		}
	}
	*ctrlr_p = c;
	return 0;
err:
	pv_nvmf_host_disconnect(c);
	return ret;
}

void
pv_nvmf_host_disconnect(struct pv_nvmf_host_ctrlr *c)
{
	if (c == NULL)
		return;
	if (c->admin != NULL) {
		if (!c->admin->failed && c->cntlid != 0)
			host_prop(c, PV_NVMF_FCTYPE_PROPERTY_SET, PV_NVMF_PROP_CC, false,
				  PV_NVME_CC_EN | 1u << PV_NVME_CC_SHN_SHIFT, NULL);
		pv_rdma_disconnect(c->admin->id);
		host_qpair_free(c->admin);
	}
	if (c->scratch_mr != NULL)
		pv_dereg_mr(c->scratch_mr);
	if (c->pd != NULL)
		pv_dealloc_pd(c->pd);
	rte_free(c->scratch);
	free(c);
}

const struct pv_nvmf_host_ns *
pv_nvmf_host_namespaces(const struct pv_nvmf_host_ctrlr *c, unsigned int *n_p)
{
	*n_p = c->nns;
	return c->ns;
}

uint32_t
pv_nvmf_host_max_xfer(const struct pv_nvmf_host_ctrlr *c)
{
	return c->max_xfer;
}

const struct pv_nvme_id_ctrl *
pv_nvmf_host_id_ctrl(const struct pv_nvmf_host_ctrlr *c)
{
	return &c->id;
}

struct pv_mr *
pv_nvmf_host_reg_mr(struct pv_nvmf_host_ctrlr *c, void *addr, size_t len)
{
	return pv_reg_mr(c->pd, addr, len,
			 PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_READ | PV_ACCESS_REMOTE_WRITE);
}

int
pv_nvmf_host_qpair_create(struct pv_nvmf_host_ctrlr *c, uint16_t qid, uint16_t depth,
			  struct pv_nvmf_host_qpair **qp_p)
{
	struct pv_nvmf_host_qpair *qp;
	int ret;

	if (c == NULL || qp_p == NULL || qid == 0 || depth < 2 || depth > (uint32_t)c->mqes + 1)
		return -EINVAL;
	ret = host_qpair_connect(c, qid, depth, c->icd_size, &qp);
	if (ret != 0)
		return ret;
	ret = host_fabrics_connect(c, qp, depth - 1);
	if (ret != 0) {
		pv_rdma_disconnect(qp->id);
		host_qpair_free(qp);
		return ret;
	}
	*qp_p = qp;
	return 0;
}

void
pv_nvmf_host_qpair_destroy(struct pv_nvmf_host_qpair *qp)
{
	if (qp == NULL)
		return;
	pv_rdma_disconnect(qp->id);
	host_qpair_free(qp);
}
