/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Controllers: the Fabrics commands (NVMe-oF 1.1 3: Connect, Property
 * Get/Set, Disconnect), the admin commands a fabrics controller serves
 * (Identify, Get Log Page, Set/Get Features, Asynchronous Event Request,
 * Keep Alive, Abort) and the keep-alive timer.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "nvmf_priv.h"

/* ------------------------------------------------------------------ */
/* controller lifetime                                                  */
/* ------------------------------------------------------------------ */

static uint64_t
nvmf_cap(const struct pv_nvmf_tgt *tgt)
{
	/* MQES 15:0 (0-based), CQR 16, TO 31:24 (500 ms units), CSS NVM 37,
	 * MPSMIN = MPSMAX = 0 (4 KiB) */
	return (uint64_t)(tgt->opts.max_queue_depth - 1) | 1u << 16 | (uint64_t)30 << 24 |
	       (uint64_t)1 << 37;
}

/* KATO rounded up to a multiple of the granularity KAS (base 5.21.1.15) */
static uint32_t
nvmf_kato_round(uint32_t kato_ms, uint32_t kas_ms)
{
	uint64_t r = ((uint64_t)kato_ms + kas_ms - 1) / kas_ms * kas_ms;

	return r > UINT32_MAX ? UINT32_MAX / kas_ms * kas_ms : (uint32_t)r;
}

static void
nvmf_ctrlr_free(struct pv_nvmf_ctrlr *c)
{
	struct pv_nvmf_tgt *tgt = c->subsys->tgt;

	rte_spinlock_lock(&tgt->lock);
	TAILQ_REMOVE(&c->subsys->ctrlrs, c, link);
	rte_spinlock_unlock(&tgt->lock);
	free(c);
}

/* disconnect every queue of @p c but @p except (keep-alive, reset, admin loss) */
static void
nvmf_ctrlr_disconnect_all(struct pv_nvmf_ctrlr *c, struct pv_nvmf_qpair *except, bool io_only)
{
	struct pv_nvmf_qpair *qps[PV_NVMF_MAX_QPAIRS];
	unsigned int i, n = 0;

	rte_spinlock_lock(&c->lock);
	for (i = io_only ? 1 : 0; i < c->max_qpairs; i++)
		if (c->qpairs[i] != NULL && c->qpairs[i] != except)
			qps[n++] = c->qpairs[i];
	rte_spinlock_unlock(&c->lock);
	for (i = 0; i < n; i++)
		qps[i]->ops->disconnect(qps[i]);
}

void
pv_nvmf_qpair_fini(struct pv_nvmf_qpair *qp)
{
	struct pv_nvmf_ctrlr *c = qp->ctrlr;
	struct pv_nvmf_req *aer;
	bool last;

	if (c == NULL) {
		qp->connected = false;
		return;
	}
	if (qp->qid == 0) {
		while ((aer = TAILQ_FIRST(&c->aers)) != NULL) {
			TAILQ_REMOVE(&c->aers, aer, link);
			c->num_aers--;
			pv_nvmf_req_fail(aer, 0, PV_NVME_SC_ABORTED_SQ_DELETION);
		}
		/* no admin queue, no controller: its I/O queues go too */
		nvmf_ctrlr_disconnect_all(c, qp, false);
	}
	rte_spinlock_lock(&c->lock);
	if (c->qpairs[qp->qid] == qp)
		c->qpairs[qp->qid] = NULL;
	last = --c->refs == 0;
	rte_spinlock_unlock(&c->lock);
	qp->ctrlr = NULL;
	qp->connected = false;
	if (last)
		nvmf_ctrlr_free(c);
}

int
pv_nvmf_qpair_keep_alive_check(struct pv_nvmf_qpair *qp, uint64_t now_ms)
{
	struct pv_nvmf_ctrlr *c = qp->ctrlr;
	bool expired = false;

	if (c == NULL || qp->qid != 0)
		return 0;
	rte_spinlock_lock(&c->lock);
	if (c->failed) {
		rte_spinlock_unlock(&c->lock);
		return -ETIMEDOUT;
	}
	if (c->kato_ms != 0 && now_ms - c->last_ka_ms > c->kato_ms) {
		/* NVMe base 7.12: keep-alive expired: the controller fails */
		c->failed = true;
		c->csts |= PV_NVME_CSTS_CFS;
		expired = true;
	}
	rte_spinlock_unlock(&c->lock);
	if (!expired)
		return 0;
	NVMF_LOG(NOTICE, "%s: controller %u: keep-alive timeout (%u ms) expired\n",
		 c->subsys->nqn, c->cntlid, c->kato_ms);
	nvmf_ctrlr_disconnect_all(c, NULL, false);
	return -ETIMEDOUT;
}

/* ------------------------------------------------------------------ */
/* Fabrics commands                                                     */
/* ------------------------------------------------------------------ */

static void
nvmf_connect_invalid(struct pv_nvmf_req *req, uint8_t iattr, uint16_t ipo)
{
	/* NVMe-oF 1.1 figure 21: IATTR byte 0 (1: in the data), IPO bytes 3:2 */
	req->cpl.cdw0 = rte_cpu_to_le_32((uint32_t)iattr | (uint32_t)ipo << 16);
	pv_nvmf_req_fail(req, PV_NVME_SCT_CMD_SPECIFIC, PV_NVMF_SC_CONNECT_INVALID_PARAM);
}

static bool
nvmf_host_allowed(const struct pv_nvmf_subsys *s, const char *hostnqn)
{
	unsigned int i;

	if (s->allow_any_host)
		return true;
	for (i = 0; i < s->num_hosts; i++)
		if (strcmp(s->hosts[i], hostnqn) == 0)
			return true;
	return false;
}

static struct pv_nvmf_ctrlr *
nvmf_ctrlr_create(struct pv_nvmf_subsys *s, const struct pv_nvmf_connect_data *d,
		  uint32_t kato_ms)
{
	struct pv_nvmf_tgt *tgt = s->tgt;
	struct pv_nvmf_ctrlr *c, *o;
	unsigned int tries;
	bool used;

	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return NULL;
	c->subsys = s;
	memcpy(c->hostnqn, d->hostnqn, sizeof(c->hostnqn) - 1);
	memcpy(c->hostid, d->hostid, sizeof(c->hostid));
	rte_spinlock_init(&c->lock);
	TAILQ_INIT(&c->aers);
	c->max_qpairs = s->is_discovery ? 1 : tgt->opts.max_qpairs_per_ctrlr;
	c->kato_ms = nvmf_kato_round(kato_ms, tgt->opts.kas_ms);
	c->last_ka_ms = pv_nvmf_now_ms();
	rte_spinlock_lock(&tgt->lock);
	/* dynamic controller model: the next free ID in 1 .. 0xffef */
	for (tries = 0; tries < 0xffef; tries++) {
		c->cntlid = s->next_cntlid;
		s->next_cntlid = s->next_cntlid >= 0xffef ? 1 : s->next_cntlid + 1;
		used = false;
		TAILQ_FOREACH(o, &s->ctrlrs, link)
			if (o->cntlid == c->cntlid)
				used = true;
		if (!used)
			break;
	}
	if (tries < 0xffef)
		TAILQ_INSERT_TAIL(&s->ctrlrs, c, link);
	rte_spinlock_unlock(&tgt->lock);
	if (tries == 0xffef) {
		free(c);
		return NULL;
	}
	return c;
}

static void
nvmf_connect(struct pv_nvmf_req *req)
{
	const struct pv_nvmf_connect_cmd *cc = (const struct pv_nvmf_connect_cmd *)&req->cmd;
	struct pv_nvmf_qpair *qp = req->qp;
	struct pv_nvmf_tgt *tgt = qp->tgt;
	struct pv_nvmf_connect_data d;
	struct pv_nvmf_subsys *s;
	struct pv_nvmf_ctrlr *c = NULL, *o;
	uint16_t qid = rte_le_to_cpu_16(cc->qid);
	uint16_t sqsize = rte_le_to_cpu_16(cc->sqsize);
	uint16_t cntlid;

	/*
	 * Checked again here, not only at submit: a second Connect submitted
	 * while the first one's data was still being read (RDMA READ of a
	 * keyed SGL) would bind a second controller to the queue and leave
	 * the first one behind.
	 */
	if (qp->connected)
		return pv_nvmf_req_fail(req, 0, PV_NVME_SC_CMD_SEQ_ERROR);
	if (req->length < sizeof(d))
		return pv_nvmf_req_fail(req, 0, PV_NVME_SC_INVALID_FIELD);
	memcpy(&d, req->data, sizeof(d));
	if (rte_le_to_cpu_16(cc->recfmt) != 0)
		return pv_nvmf_req_fail(req, PV_NVME_SCT_CMD_SPECIFIC,
					PV_NVMF_SC_CONNECT_INCOMPAT_FMT);
	if (strnlen(d.subnqn, sizeof(d.subnqn)) > PV_NVME_NQN_MAX_LEN)
		return nvmf_connect_invalid(req, 1, PV_NVMF_CONNECT_DATA_OFF_SUBNQN);
	if (strnlen(d.hostnqn, sizeof(d.hostnqn)) > PV_NVME_NQN_MAX_LEN)
		return nvmf_connect_invalid(req, 1, PV_NVMF_CONNECT_DATA_OFF_HOSTNQN);
	s = pv_nvmf_subsys_find(tgt, d.subnqn);
	if (s == NULL) {
		NVMF_LOG(NOTICE, "connect: no subsystem %s\n", d.subnqn);
		return nvmf_connect_invalid(req, 1, PV_NVMF_CONNECT_DATA_OFF_SUBNQN);
	}
	if (!nvmf_host_allowed(s, d.hostnqn)) {
		NVMF_LOG(NOTICE, "connect: host %s not allowed on %s\n", d.hostnqn, s->nqn);
		return pv_nvmf_req_fail(req, PV_NVME_SCT_CMD_SPECIFIC,
					PV_NVMF_SC_CONNECT_INVALID_HOST);
	}
	/* the queue is the one the transport's connection was made for */
	if (qid != qp->qid)
		return nvmf_connect_invalid(req, 0, PV_NVMF_CONNECT_OFF_QID);
	if (sqsize == 0 || sqsize >= tgt->opts.max_queue_depth)
		return nvmf_connect_invalid(req, 0, PV_NVMF_CONNECT_OFF_SQSIZE);
	cntlid = rte_le_to_cpu_16(d.cntlid);
	if (qid == 0) {
		if (cntlid != 0xffff)	/* only the dynamic controller model */
			return nvmf_connect_invalid(req, 1, PV_NVMF_CONNECT_DATA_OFF_CNTLID);
		c = nvmf_ctrlr_create(s, &d, rte_le_to_cpu_32(cc->kato));
		if (c == NULL)
			return pv_nvmf_req_fail(req, PV_NVME_SCT_CMD_SPECIFIC,
						PV_NVMF_SC_CONNECT_CTRL_BUSY);
		c->qpairs[0] = qp;
		c->refs = 1;
	} else {
		if (s->is_discovery)
			return nvmf_connect_invalid(req, 0, PV_NVMF_CONNECT_OFF_QID);
		rte_spinlock_lock(&tgt->lock);
		TAILQ_FOREACH(o, &s->ctrlrs, link)
			if (o->cntlid == cntlid)
				c = o;
		if (c == NULL) {
			rte_spinlock_unlock(&tgt->lock);
			return nvmf_connect_invalid(req, 1, PV_NVMF_CONNECT_DATA_OFF_CNTLID);
		}
		if (strncmp(c->hostnqn, d.hostnqn, sizeof(c->hostnqn)) != 0) {
			rte_spinlock_unlock(&tgt->lock);
			return nvmf_connect_invalid(req, 1, PV_NVMF_CONNECT_DATA_OFF_HOSTNQN);
		}
		rte_spinlock_lock(&c->lock);
		if (c->failed || (c->cc & PV_NVME_CC_EN) == 0 ||
		    (c->csts & PV_NVME_CSTS_RDY) == 0) {
			/* I/O queues only on an enabled controller (NVMe-oF 1.1 3.3) */
			rte_spinlock_unlock(&c->lock);
			rte_spinlock_unlock(&tgt->lock);
			return pv_nvmf_req_fail(req, 0, PV_NVME_SC_CMD_SEQ_ERROR);
		}
		if (qid >= c->max_qpairs || c->qpairs[qid] != NULL) {
			rte_spinlock_unlock(&c->lock);
			rte_spinlock_unlock(&tgt->lock);
			return nvmf_connect_invalid(req, 0, PV_NVMF_CONNECT_OFF_QID);
		}
		c->qpairs[qid] = qp;
		c->refs++;
		rte_spinlock_unlock(&c->lock);
		rte_spinlock_unlock(&tgt->lock);
	}
	qp->ctrlr = c;
	qp->connected = true;
	qp->is_discovery = s->is_discovery;
	qp->sq_size = sqsize + 1;
	NVMF_LOG(INFO, "%s: controller %u queue %u connected (host %s, %u entries)\n",
		 s->nqn, c->cntlid, qid, c->hostnqn, qp->sq_size);
	req->cpl.cdw0 = rte_cpu_to_le_32(c->cntlid);
	pv_nvmf_req_complete(req);
}

static void
nvmf_prop_get(struct pv_nvmf_req *req)
{
	const struct pv_nvmf_prop_cmd *pc = (const struct pv_nvmf_prop_cmd *)&req->cmd;
	struct pv_nvmf_ctrlr *c = req->qp->ctrlr;
	bool size8 = (pc->attrib & 0x7) == PV_NVMF_PROP_SIZE_8;
	uint64_t v;

	if (req->qp->qid != 0)
		return pv_nvmf_req_fail(req, 0, PV_NVME_SC_INVALID_OPCODE);
	switch (rte_le_to_cpu_32(pc->ofst)) {
	case PV_NVMF_PROP_CAP:
		if (!size8)
			return pv_nvmf_req_fail(req, 0, PV_NVME_SC_INVALID_FIELD);
		v = nvmf_cap(c->subsys->tgt);
		break;
	case PV_NVMF_PROP_VS:
		v = NVMF_VS;
		goto size4;
	case PV_NVMF_PROP_CC:
		v = c->cc;
		goto size4;
	case PV_NVMF_PROP_CSTS:
		v = c->csts;
size4:
		if (size8)
			return pv_nvmf_req_fail(req, 0, PV_NVME_SC_INVALID_FIELD);
		break;
	default:
		return pv_nvmf_req_fail(req, 0, PV_NVME_SC_INVALID_FIELD);
	}
	req->cpl.cdw0 = rte_cpu_to_le_32((uint32_t)v);
	req->cpl.cdw1 = rte_cpu_to_le_32((uint32_t)(v >> 32));
	pv_nvmf_req_complete(req);
}

static void
nvmf_prop_set(struct pv_nvmf_req *req)
{
	const struct pv_nvmf_prop_cmd *pc = (const struct pv_nvmf_prop_cmd *)&req->cmd;
	struct pv_nvmf_ctrlr *c = req->qp->ctrlr;
	uint32_t v = (uint32_t)rte_le_to_cpu_64(pc->value);
	uint32_t old;
	bool reset = false;

	if (req->qp->qid != 0)
		return pv_nvmf_req_fail(req, 0, PV_NVME_SC_INVALID_OPCODE);
	if (rte_le_to_cpu_32(pc->ofst) != PV_NVMF_PROP_CC ||
	    (pc->attrib & 0x7) == PV_NVMF_PROP_SIZE_8)
		return pv_nvmf_req_fail(req, 0, PV_NVME_SC_INVALID_FIELD);
	rte_spinlock_lock(&c->lock);
	old = c->cc;
	c->cc = v;
	if ((v & PV_NVME_CC_EN) && !(old & PV_NVME_CC_EN)) {
		c->csts |= PV_NVME_CSTS_RDY;
		c->csts &= ~(PV_NVME_CSTS_SHST_COMPLETE << PV_NVME_CSTS_SHST_SHIFT);
	} else if (!(v & PV_NVME_CC_EN) && (old & PV_NVME_CC_EN)) {
		/* controller reset (base 7.6.2): its I/O queues are deleted */
		c->csts &= ~PV_NVME_CSTS_RDY;
		reset = true;
	}
	if (((v >> PV_NVME_CC_SHN_SHIFT) & PV_NVME_CC_SHN_MASK) != 0) {
		/* shutdown: nothing is cached, it completes at once */
		c->csts = (c->csts & ~(0x3u << PV_NVME_CSTS_SHST_SHIFT)) |
			  PV_NVME_CSTS_SHST_COMPLETE << PV_NVME_CSTS_SHST_SHIFT;
	}
	rte_spinlock_unlock(&c->lock);
	if (reset)
		nvmf_ctrlr_disconnect_all(c, req->qp, true);
	pv_nvmf_req_complete(req);
}

void
pv_nvmf_fabrics_exec(struct pv_nvmf_req *req)
{
	const struct pv_nvmf_cmd *fc = (const struct pv_nvmf_cmd *)&req->cmd;
	struct pv_nvmf_qpair *qp = req->qp;

	switch (fc->fctype) {
	case PV_NVMF_FCTYPE_CONNECT:
		return nvmf_connect(req);
	case PV_NVMF_FCTYPE_PROPERTY_GET:
		return nvmf_prop_get(req);
	case PV_NVMF_FCTYPE_PROPERTY_SET:
		return nvmf_prop_set(req);
	case PV_NVMF_FCTYPE_DISCONNECT:
		/* NVMe-oF 1.1 3.5: deletes an I/O queue; the transport then drops it */
		if (qp->qid == 0)
			return pv_nvmf_req_fail(req, 0, PV_NVME_SC_INVALID_OPCODE);
		pv_nvmf_req_complete(req);
		qp->ops->disconnect(qp);
		return;
	default:
		return pv_nvmf_req_fail(req, 0, PV_NVME_SC_INVALID_OPCODE);
	}
}

/* ------------------------------------------------------------------ */
/* admin commands                                                       */
/* ------------------------------------------------------------------ */

static void
nvmf_copy_out(struct pv_nvmf_req *req, const void *src, size_t len)
{
	size_t n = RTE_MIN((size_t)req->length, len);

	if (n != 0)
		memcpy(req->data, src, n);
	if (req->length > n)
		memset(req->data + n, 0, req->length - n);
}

static void
nvmf_identify_ctrlr(struct pv_nvmf_ctrlr *c, struct pv_nvme_id_ctrl *id)
{
	const struct pv_nvmf_subsys *s = c->subsys;
	const struct pv_nvmf_tgt_opts *o = &s->tgt->opts;

	nvmf_str_pad(id->sn, sizeof(id->sn), s->serial);
	nvmf_str_pad(id->mn, sizeof(id->mn), s->model);
	nvmf_str_pad(id->fr, sizeof(id->fr), "0.1");
	id->rab = 6;
	id->cmic = 0x2;			/* may have several controllers */
	id->mdts = (uint8_t)rte_log2_u32(o->max_io_size / 4096);
	id->cntlid = rte_cpu_to_le_16(c->cntlid);
	id->ver = rte_cpu_to_le_32(NVMF_VS);
	id->cntrltype = s->is_discovery ? 2 : 1;
	id->acl = 3;
	id->aerl = PV_NVMF_AERL;
	id->frmw = 0x3;			/* one slot, slot 1 read-only */
	id->lpa = 0x4;			/* extended data: offsets in Get Log Page */
	id->elpe = NVMF_ERR_LOG_ENTRIES - 1;
	id->kas = rte_cpu_to_le_16((uint16_t)(o->kas_ms / 100));
	id->sqes = 0x66;
	id->cqes = 0x44;
	id->maxcmd = rte_cpu_to_le_16(o->max_queue_depth);
	if (!s->is_discovery) {
		id->oaes = rte_cpu_to_le_32(1u << 8);	/* namespace attribute notices */
		id->nn = rte_cpu_to_le_32(PV_NVMF_MAX_NS);
		id->oncs = rte_cpu_to_le_16(1u << 2 | 1u << 3);	/* DSM, Write Zeroes */
	}
	/* SGLs without alignment, keyed data blocks, offsets (base figure 247) */
	id->sgls = rte_cpu_to_le_32(1u << 0 | 1u << 2 | 1u << 20);
	memcpy(id->subnqn, s->nqn, strlen(s->nqn));
	id->ioccsz = rte_cpu_to_le_32((sizeof(struct pv_nvme_cmd) + o->in_capsule_data_size) / 16);
	id->iorcsz = rte_cpu_to_le_32(sizeof(struct pv_nvme_cpl) / 16);
	id->msdbd = PV_NVMF_MAX_SGL_DESC;
}

static void
nvmf_identify_ns(const struct pv_nvmf_ns *ns, struct pv_nvme_id_ns *id)
{
	id->nsze = rte_cpu_to_le_64(ns->num_blocks);
	id->ncap = id->nsze;
	id->nuse = id->nsze;
	id->nmic = 1;			/* may be shared */
	id->dlfeat = 0x1;		/* deallocated blocks read as zeroes */
	id->lbaf[0].lbads = ns->lbads;
	memcpy(id->nguid, ns->nguid, sizeof(id->nguid));
}

static void
nvmf_identify(struct pv_nvmf_req *req)
{
	struct pv_nvmf_ctrlr *c = req->qp->ctrlr;
	const struct pv_nvmf_subsys *s = c->subsys;
	uint8_t cns = rte_le_to_cpu_32(req->cmd.cdw10) & 0xff;
	uint32_t nsid = rte_le_to_cpu_32(req->cmd.nsid);
	union {
		struct pv_nvme_id_ctrl ctrlr;
		struct pv_nvme_id_ns ns;
		rte_le32_t list[1024];
		uint8_t raw[4096];
	} u;
	const struct pv_nvmf_ns *ns = NULL;
	struct pv_nvme_ns_id_desc *h;
	unsigned int i, n;

	memset(&u, 0, sizeof(u));
	if (s->is_discovery && cns != PV_NVME_CNS_CTRLR)
		return pv_nvmf_req_fail(req, 0, PV_NVME_SC_INVALID_FIELD);
	if (cns == PV_NVME_CNS_NS || cns == PV_NVME_CNS_NS_DESC_LIST) {
		if (nsid == 0 || nsid > PV_NVMF_MAX_NS)
			return pv_nvmf_req_fail(req, 0, PV_NVME_SC_INVALID_NS);
		ns = s->ns[nsid - 1];
	}
	switch (cns) {
	case PV_NVME_CNS_CTRLR:
		nvmf_identify_ctrlr(c, &u.ctrlr);
		break;
	case PV_NVME_CNS_NS:
		if (ns != NULL)		/* an inactive NSID reads as zeroes */
			nvmf_identify_ns(ns, &u.ns);
		break;
	case PV_NVME_CNS_ACTIVE_NS_LIST:
		if (nsid >= 0xfffffffe)
			return pv_nvmf_req_fail(req, 0, PV_NVME_SC_INVALID_NS);
		for (i = nsid, n = 0; i < PV_NVMF_MAX_NS; i++)
			if (s->ns[i] != NULL)
				u.list[n++] = rte_cpu_to_le_32(i + 1);
		break;
	case PV_NVME_CNS_NS_DESC_LIST:
		if (ns == NULL)
			return pv_nvmf_req_fail(req, 0, PV_NVME_SC_INVALID_NS);
		h = (struct pv_nvme_ns_id_desc *)u.raw;
		h->nidt = PV_NVME_NIDT_NGUID;
		h->nidl = 16;
		memcpy(u.raw + 4, ns->nguid, 16);
		h = (struct pv_nvme_ns_id_desc *)(u.raw + 20);
		h->nidt = PV_NVME_NIDT_UUID;
		h->nidl = 16;
		memcpy(u.raw + 24, ns->uuid, 16);
		break;
	case PV_NVME_CNS_CS_CTRLR:
		/* NVM command set specific (Linux asks for it): no limits, all zero */
		if ((rte_le_to_cpu_32(req->cmd.cdw11) >> 24) != 0)	/* CSI: NVM only */
			return pv_nvmf_req_fail(req, 0, PV_NVME_SC_INVALID_FIELD);
		break;
	default:
		return pv_nvmf_req_fail(req, 0, PV_NVME_SC_INVALID_FIELD);
	}
	nvmf_copy_out(req, u.raw, sizeof(u.raw));
	pv_nvmf_req_complete(req);
}

/* the bytes [@p pos, @p pos + @p len) of a log page at @p src, into the window */
static void
nvmf_log_put(struct pv_nvmf_req *req, uint64_t off, uint64_t pos, const void *src, size_t len)
{
	uint64_t lo = RTE_MAX(off, pos);
	uint64_t hi = RTE_MIN(off + req->length, pos + len);

	if (lo < hi)
		memcpy(req->data + (lo - off), (const uint8_t *)src + (lo - pos), hi - lo);
}

static void
nvmf_u128_set(uint8_t out[16], uint64_t v)
{
	memset(out, 0, 16);
	v = rte_cpu_to_le_64(v);
	memcpy(out, &v, 8);
}

static void
nvmf_log_smart(struct pv_nvmf_ctrlr *c, struct pv_nvme_smart_log *sl)
{
	uint64_t rd = 0, wr = 0, brd = 0, bwr = 0;
	unsigned int i;

	rte_spinlock_lock(&c->lock);
	for (i = 0; i < c->max_qpairs; i++) {
		const struct pv_nvmf_qpair *q = c->qpairs[i];

		if (q == NULL)
			continue;
		/* the owner lcores write these; a torn read is impossible on 64-bit */
		rd += __atomic_load_n(&q->num_read_cmds, __ATOMIC_RELAXED);
		wr += __atomic_load_n(&q->num_write_cmds, __ATOMIC_RELAXED);
		brd += __atomic_load_n(&q->bytes_read, __ATOMIC_RELAXED);
		bwr += __atomic_load_n(&q->bytes_written, __ATOMIC_RELAXED);
	}
	rte_spinlock_unlock(&c->lock);
	sl->temperature[0] = (298) & 0xff;	/* 25 C in kelvin */
	sl->temperature[1] = 298 >> 8;
	sl->avail_spare = 100;
	sl->spare_thresh = 10;
	/* data units: thousands of 512-byte units, rounded up (base figure 196) */
	nvmf_u128_set(sl->data_units_read, (brd / 512 + 999) / 1000);
	nvmf_u128_set(sl->data_units_written, (bwr / 512 + 999) / 1000);
	nvmf_u128_set(sl->host_reads, rd);
	nvmf_u128_set(sl->host_writes, wr);
	nvmf_u128_set(sl->power_cycles, 1);
}

static void
nvmf_log_discovery(struct pv_nvmf_req *req, uint64_t off)
{
	struct pv_nvmf_tgt *tgt = req->qp->tgt;
	struct pv_nvmf_disc_log_entry e;
	struct pv_nvmf_disc_log_hdr h;
	struct pv_nvmf_subsys *s;
	uint64_t pos = sizeof(h), n = 0;
	unsigned int i;

	TAILQ_FOREACH(s, &tgt->subsystems, link) {
		if (s->is_discovery || !nvmf_host_allowed(s, req->qp->ctrlr->hostnqn))
			continue;
		for (i = 0; i < tgt->num_listeners; i++) {
			memset(&e, 0, sizeof(e));
			e.trtype = PV_NVMF_TRTYPE_RDMA;
			e.adrfam = PV_NVMF_ADRFAM_IPV4;
			e.subtype = PV_NVMF_SUBTYPE_NVME;
			e.treq = PV_NVMF_TREQ_NOT_REQUIRED;
			e.portid = rte_cpu_to_le_16(i + 1);
			e.cntlid = rte_cpu_to_le_16(0xffff);
			e.asqsz = rte_cpu_to_le_16(32);
			/* NUL-padded, as SPDK and Linux nvmet send them */
			strcpy(e.trsvcid, tgt->listeners[i].trsvcid);
			strcpy(e.traddr, tgt->listeners[i].traddr);
			memcpy(e.subnqn, s->nqn, strlen(s->nqn));
			e.tsas.rdma.qptype = PV_NVMF_RDMA_QPTYPE_CONNECTED;
			e.tsas.rdma.prtype = PV_NVMF_RDMA_PRTYPE_NOT_SPEC;
			e.tsas.rdma.cms = PV_NVMF_RDMA_CMS_RDMA_CM;
			nvmf_log_put(req, off, pos, &e, sizeof(e));
			pos += sizeof(e);
			n++;
		}
	}
	memset(&h, 0, sizeof(h));
	h.genctr = rte_cpu_to_le_64(tgt->genctr);
	h.numrec = rte_cpu_to_le_64(n);
	nvmf_log_put(req, off, 0, &h, sizeof(h));
}

static void
nvmf_get_log_page(struct pv_nvmf_req *req)
{
	struct pv_nvmf_ctrlr *c = req->qp->ctrlr;
	const struct pv_nvme_cmd *cmd = &req->cmd;
	uint32_t cdw10 = rte_le_to_cpu_32(cmd->cdw10);
	uint8_t lid = cdw10 & 0xff;
	uint64_t numd = ((uint64_t)(rte_le_to_cpu_32(cmd->cdw11) & 0xffff) << 16 |
			 cdw10 >> 16) + 1;
	uint64_t off = rte_le_to_cpu_32(cmd->cdw12) |
		       (uint64_t)rte_le_to_cpu_32(cmd->cdw13) << 32;
	bool disc = c->subsys->is_discovery;
	union {
		struct pv_nvme_smart_log smart;
		struct pv_nvme_error_log err[NVMF_ERR_LOG_ENTRIES];
		rte_le32_t changed[1024];
		uint8_t raw[4096];
	} u;
	size_t len;

	if (numd * 4 > req->length)
		return pv_nvmf_req_fail(req, 0, PV_NVME_SC_DATA_SGL_LEN_INVALID);
	if (off % 4 != 0)
		return pv_nvmf_req_fail(req, 0, PV_NVME_SC_INVALID_FIELD);
	req->length = (uint32_t)(numd * 4);
	memset(req->data, 0, req->length);
	memset(&u, 0, sizeof(u));
	switch (lid) {
	case PV_NVME_LOG_DISCOVERY:
		if (!disc)
			break;
		nvmf_log_discovery(req, off);
		return pv_nvmf_req_complete(req);
	case PV_NVME_LOG_ERROR:
		len = sizeof(u.err);	/* no errors recorded: all entries zero */
		goto copy;
	case PV_NVME_LOG_SMART:
		if (disc)
			break;
		nvmf_log_smart(c, &u.smart);
		len = sizeof(u.smart);
		goto copy;
	case PV_NVME_LOG_FW_SLOT:
		if (disc)
			break;
		u.raw[0] = 1;		/* AFI: slot 1 active */
		memcpy(u.raw + 8, "0.1     ", 8);
		len = 512;
		goto copy;
	case PV_NVME_LOG_CHANGED_NS:
		if (disc)
			break;
		len = sizeof(u.changed);
		memcpy(u.changed, c->changed_ns, c->num_changed_ns * sizeof(uint32_t));
		if ((cdw10 & (1u << 15)) == 0)	/* RAE clear: the log is read */
			c->num_changed_ns = 0;
		goto copy;
	default:
		break;
	}
	return pv_nvmf_req_fail(req, PV_NVME_SCT_CMD_SPECIFIC, PV_NVME_SC_INVALID_LOG_PAGE);
copy:
	if (off > len)
		return pv_nvmf_req_fail(req, 0, PV_NVME_SC_INVALID_FIELD);
	nvmf_log_put(req, off, 0, u.raw, len);
	pv_nvmf_req_complete(req);
}

static void
nvmf_features(struct pv_nvmf_req *req, bool set)
{
	struct pv_nvmf_ctrlr *c = req->qp->ctrlr;
	uint32_t cdw10 = rte_le_to_cpu_32(req->cmd.cdw10);
	uint32_t cdw11 = rte_le_to_cpu_32(req->cmd.cdw11);
	uint8_t fid = cdw10 & 0xff;
	uint32_t max_io = (uint32_t)c->max_qpairs - 2;	/* 0-based */
	uint32_t v = 0, nsq, ncq;

	if (set && (cdw10 & (1u << 31)))	/* SV: nothing is saveable */
		return pv_nvmf_req_fail(req, PV_NVME_SCT_CMD_SPECIFIC,
					PV_NVME_SC_FEAT_NOT_SAVEABLE);
	if (!set && ((cdw10 >> 8) & 0x7) > 1)	/* SEL: current or default only */
		return pv_nvmf_req_fail(req, 0, PV_NVME_SC_INVALID_FIELD);
	switch (fid) {
	case PV_NVME_FEAT_NUM_QUEUES:
		if (c->subsys->is_discovery)
			goto invalid;
		if (set) {
			nsq = cdw11 & 0xffff;
			ncq = cdw11 >> 16;
			if (nsq == 0xffff || ncq == 0xffff)
				goto invalid;
			c->num_queues_feat = RTE_MIN(nsq, max_io) | RTE_MIN(ncq, max_io) << 16;
			c->num_queues_set = true;
		}
		v = c->num_queues_set ? c->num_queues_feat : (max_io | max_io << 16);
		break;
	case PV_NVME_FEAT_ASYNC_EVENT_CFG:
		if (set)
			c->aec = cdw11;
		v = c->aec;
		break;
	case PV_NVME_FEAT_KEEP_ALIVE_TIMER:
		rte_spinlock_lock(&c->lock);
		if (set) {
			c->kato_ms = nvmf_kato_round(cdw11, c->subsys->tgt->opts.kas_ms);
			c->last_ka_ms = pv_nvmf_now_ms();
		}
		v = c->kato_ms;
		rte_spinlock_unlock(&c->lock);
		break;
	case PV_NVME_FEAT_ARBITRATION:
	case PV_NVME_FEAT_POWER_MGMT:
		if (set && cdw11 != 0)
			goto invalid;
		break;
	default:
		goto invalid;
	}
	req->cpl.cdw0 = rte_cpu_to_le_32(v);
	return pv_nvmf_req_complete(req);
invalid:
	pv_nvmf_req_fail(req, 0, PV_NVME_SC_INVALID_FIELD);
}

void
pv_nvmf_admin_exec(struct pv_nvmf_req *req)
{
	struct pv_nvmf_ctrlr *c = req->qp->ctrlr;

	switch (req->cmd.opc) {
	case PV_NVME_OPC_IDENTIFY:
		return nvmf_identify(req);
	case PV_NVME_OPC_GET_LOG_PAGE:
		return nvmf_get_log_page(req);
	case PV_NVME_OPC_SET_FEATURES:
		return nvmf_features(req, true);
	case PV_NVME_OPC_GET_FEATURES:
		return nvmf_features(req, false);
	case PV_NVME_OPC_KEEP_ALIVE:
		rte_spinlock_lock(&c->lock);
		c->last_ka_ms = pv_nvmf_now_ms();
		rte_spinlock_unlock(&c->lock);
		return pv_nvmf_req_complete(req);
	case PV_NVME_OPC_ASYNC_EVENT_REQ:
		if (c->num_aers > PV_NVMF_AERL)
			return pv_nvmf_req_fail(req, PV_NVME_SCT_CMD_SPECIFIC,
						PV_NVME_SC_ASYNC_LIMIT);
		/* held until an event, or aborted when the admin queue goes */
		TAILQ_INSERT_TAIL(&c->aers, req, link);
		c->num_aers++;
		return;
	case PV_NVME_OPC_ABORT:
		/* nothing waits long enough to abort: "not aborted" (bit 0 set) */
		req->cpl.cdw0 = rte_cpu_to_le_32(1);
		return pv_nvmf_req_complete(req);
	default:
		return pv_nvmf_req_fail(req, 0, PV_NVME_SC_INVALID_OPCODE);
	}
}
