/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The NVMe over Fabrics RDMA transport (NVMe-oF 1.1 RDMA transport binding)
 * of the target, on pv_rdma_cm and pollverbs verbs.
 *
 * Control thread (pv-ctrl, a 1 ms timer draining the CM event channel):
 * CONNECT_REQUEST -> check the NVMe RDMA CM request (binding 3.1: recfmt,
 * qid, hrqsize, hsqsize), reject with its status when wrong, else create
 * the QP on the next poll group's CQ, register its receive buffers (one
 * capsule each: SQE + in-capsule data) and response buffers, post the
 * receives, accept with crqsize, and hand the queue pair to the group.
 * DISCONNECTED (or a failed connection) -> tell the group; the group
 * detaches the queue pair from its controller, moves the QP to ERR and
 * posts a marker receive and a marker send; once both have flushed, no
 * completion of that QP is left in the CQ and the control thread frees it.
 *
 * Listeners: one cm_id each on the one event channel; every device they are
 * on (a pv_context, found from the bound id's verbs) has one PD, and every
 * poll group has, per device, its own CQ, an MR of its data buffers and
 * (use_srq) an SRQ: a QP needs all of them on its own device. A connection
 * takes the resources of its device (the request's id->verbs) in the next
 * poll group in turn.
 *
 * Poll group (a pv_rtc poller on its lcore): pv_poll_cq() on each of the
 * group's CQs;
 * a receive becomes a request of the controller core (pv_nvmf_req_submit);
 * data_prep takes a data buffer from the group's pool (queued when there is
 * none) and, for host-to-controller data, posts RDMA READs of the keyed
 * segments; done() reposts the capsule's receive buffer, posts the RDMA
 * WRITEs of controller-to-host data and the response SEND (SEND_WITH_INV
 * when the SGL asked for it) as one chain; the SEND's completion frees the
 * request.
 *
 * With use_srq, the receive buffers are the poll group's: one SRQ per group
 * and device (SPDK's layout), shared by every QP of the group on that
 * device, its srq_depth buffers posted once at start; a receive completion
 * finds its queue pair by the completion's qp_num among the group's queue
 * pairs of the CQ's device (QP numbers are per device), and a consumed
 * buffer goes back to that SRQ.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <rte_common.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_tailq.h>

#include "pv_rdma_cma.h"
#include "pv_rtc.h"
#include "pv_verbs.h"
#include "nvmf_priv.h"
#include "pv_nvmf_rdma.h"

#define NVMF_RDMA_CQ_BURST	32
#define NVMF_RDMA_CM_PERIOD_US	1000
#define NVMF_RDMA_KA_PERIOD_US	100000
#define NVMF_RDMA_CQE		16384	/* a group's CQ; connections past it are refused */
#define NVMF_RDMA_DESTROY_MS	5000

enum nvmf_wrid_tag {
	NVMF_WRID_RECV = 0,
	NVMF_WRID_READ = 1,
	NVMF_WRID_SEND = 2,
	NVMF_WRID_DRAIN = 3,
};
#define NVMF_WRID_MASK 3ull

struct nvmf_rdma_qpair;

struct nvmf_rdma_recv {
	struct nvmf_rdma_qpair *tq;	/* NULL: a buffer of an SRQ of the group */
	uint8_t *buf;			/* capsule: SQE + in-capsule data */
} __rte_aligned(8);

struct nvmf_rdma_req {
	struct pv_nvmf_req req;		/* first: container_of from the core's */
	struct nvmf_rdma_qpair *tq;
	struct nvmf_rdma_recv *recv;	/* the capsule, until done() reposts it */
	struct pv_nvme_cpl *rsp;	/* registered response buffer */
	uint8_t *buf;			/* data buffer of the group, or NULL */
	TAILQ_ENTRY(nvmf_rdma_req) link;	/* free list or the group's pending list */
} __rte_aligned(8);

/* a device listened on: the transport's PD there */
struct nvmf_rdma_dev {
	struct pv_context *ctx;
	struct pv_pd *pd;
	struct pv_device_attr attr;
};

/* a poll group's resources on one device */
struct nvmf_rdma_gdev {
	struct pv_cq *cq;
	struct nvmf_rdma_dev *dev;
	struct pv_mr *data_mr;		/* the group's data buffers on dev->pd */
	uint32_t cq_used;		/* WRs the QPs on this CQ may have (control thread) */
	/* use_srq: the receive buffers of the group's QPs on this device */
	struct pv_srq *srq;
	uint8_t *srq_mem;
	struct pv_mr *srq_mr;
	struct nvmf_rdma_recv *srq_recvs;
	uint32_t srq_depth;
	struct nvmf_rdma_qpair *last_tq;	/* of the last SRQ receive */
};

struct nvmf_rdma_group {
	struct pv_nvmf_rdma *rt;
	unsigned int idx;
	unsigned int lcore;
	unsigned int num_devs;		/* entries of devs[]: the transport's */
	struct nvmf_rdma_gdev devs[PV_NVMF_RDMA_MAX_LISTEN];
	uint8_t *data;			/* nbuf buffers of max_io_size */
	uint8_t **free_bufs;
	uint32_t nfree;
	uint32_t nbuf;
	TAILQ_HEAD(, nvmf_rdma_req) pending;	/* waiting for a data buffer */
	TAILQ_HEAD(, nvmf_rdma_qpair) qpairs;
	struct pv_rtc_poller *poller;
	struct pv_rtc_poller *ka_poller;
	volatile int started;		/* 1 running, 2 stopped */
	struct pv_nvmf_rdma_group_stats st;
};

struct nvmf_rdma_qpair {
	struct pv_nvmf_qpair nq;	/* first */
	struct pv_nvmf_rdma *rt;
	struct nvmf_rdma_group *grp;
	struct nvmf_rdma_gdev *gd;	/* the group's CQ, SRQ, data MR on the QP's device */
	struct pv_rdma_cm_id *id;
	uint32_t qp_num;
	uint32_t depth;			/* receive buffers (host SQ size) */
	uint32_t nreqs;
	uint32_t send_wr;		/* the QP's send queue */
	uint8_t *mem;			/* receive buffers, then responses */
	struct pv_mr *mr;
	struct nvmf_rdma_recv *recvs;
	struct nvmf_rdma_req *reqs;
	TAILQ_HEAD(, nvmf_rdma_req) free_reqs;
	TAILQ_ENTRY(nvmf_rdma_qpair) glink;	/* group's list (group lcore) */
	TAILQ_ENTRY(nvmf_rdma_qpair) clink;	/* transport's list (control thread) */
	/* group lcore */
	bool disconnecting;
	bool release_wait;		/* drained, namespace I/O still in flight */
	unsigned int drains;
	/* control thread */
	bool teardown_sent;
	bool cm_disconnected;
};

struct pv_nvmf_rdma {
	struct pv_nvmf_tgt *tgt;
	struct pv_nvmf_rdma_opts opts;	/* listen[] of num_listen: no traddr (not kept) */
	uint32_t capsule_size;
	struct pv_rdma_event_channel *ch;
	struct pv_rdma_cm_id *listen[PV_NVMF_RDMA_MAX_LISTEN];	/* opts.num_listen */
	unsigned int num_devs;
	struct nvmf_rdma_dev devs[PV_NVMF_RDMA_MAX_LISTEN];
	struct pv_rtc_ctrl_timer *cm_timer;
	unsigned int next_group;
	TAILQ_HEAD(, nvmf_rdma_qpair) conns;	/* control thread */
	unsigned int nconns;			/* control thread; read by destroy */
	struct nvmf_rdma_group groups[PV_NVMF_RDMA_MAX_GROUPS];
};

static void nvmf_rdma_req_done(struct pv_nvmf_req *req);
static void nvmf_rdma_qpair_error(struct nvmf_rdma_qpair *tq, const char *what);
static int nvmf_rdma_data_prep(struct pv_nvmf_req *req);
static void nvmf_rdma_disconnect(struct pv_nvmf_qpair *nq);

static const struct pv_nvmf_qpair_ops nvmf_rdma_qpair_ops = {
	.data_prep = nvmf_rdma_data_prep,
	.done = nvmf_rdma_req_done,
	.disconnect = nvmf_rdma_disconnect,
};

/* ------------------------------------------------------------------ */
/* poll group: data path                                                */
/* ------------------------------------------------------------------ */

/* the receive completions a QP on @p gd may add to its CQ (the SRQ's are
 * counted once, by the group) */
static uint32_t
nvmf_rdma_qp_recv_cqe(const struct nvmf_rdma_gdev *gd, uint32_t depth)
{
	return gd->srq != NULL ? 0 : depth + 1;
}

/* the receive WR of capsule buffer @p rv (registered with @p lkey) */
static void
nvmf_rdma_recv_wr(const struct pv_nvmf_rdma *rt, struct nvmf_rdma_recv *rv, uint32_t lkey,
		  struct pv_recv_wr *wr, struct pv_sge *sge)
{
	*sge = (struct pv_sge){
		.addr = (uintptr_t)rv->buf,
		.length = rt->capsule_size,
		.lkey = lkey,
	};
	*wr = (struct pv_recv_wr){
		.wr_id = (uintptr_t)rv | NVMF_WRID_RECV,
		.sg_list = sge,
		.num_sge = 1,
	};
}

static int
nvmf_rdma_recv_post(struct nvmf_rdma_qpair *tq, struct nvmf_rdma_recv *rv)
{
	struct pv_recv_wr wr, *bad;
	struct pv_sge sge;

	nvmf_rdma_recv_wr(tq->rt, rv, tq->mr->lkey, &wr, &sge);
	return pv_post_recv(tq->id->qp, &wr, &bad);
}

/* a receive buffer back to the SRQ of @p gd (the group's lcore) */
static int
nvmf_rdma_srq_post(const struct pv_nvmf_rdma *rt, struct nvmf_rdma_gdev *gd,
		   struct nvmf_rdma_recv *rv)
{
	struct pv_recv_wr wr, *bad;
	struct pv_sge sge;

	nvmf_rdma_recv_wr(rt, rv, gd->srq_mr->lkey, &wr, &sge);
	return pv_post_srq_recv(gd->srq, &wr, &bad);
}

/* a capsule buffer back to the SRQ of @p gd; a failure only costs the
 * group that buffer (logged) */
static void
nvmf_rdma_srq_repost(struct nvmf_rdma_group *g, struct nvmf_rdma_gdev *gd,
		     struct nvmf_rdma_recv *rv)
{
	if (nvmf_rdma_srq_post(g->rt, gd, rv) != 0)
		NVMF_LOG(ERR, "rdma: group %u: reposting an SRQ receive failed\n", g->idx);
}

/* a consumed capsule buffer back where it came from */
static void
nvmf_rdma_recv_repost(struct nvmf_rdma_qpair *tq, struct nvmf_rdma_recv *rv)
{
	if (rv->tq == NULL) {
		/* the SRQ's, whatever becomes of this queue pair */
		nvmf_rdma_srq_repost(tq->grp, tq->gd, rv);
		return;
	}
	if (!tq->disconnecting && nvmf_rdma_recv_post(tq, rv) != 0)
		nvmf_rdma_qpair_error(tq, "reposting a receive failed");
}

static void
nvmf_rdma_req_free(struct nvmf_rdma_req *r)
{
	struct nvmf_rdma_group *g = r->tq->grp;

	if (r->buf != NULL) {
		g->free_bufs[g->nfree++] = r->buf;
		r->buf = NULL;
	}
	TAILQ_INSERT_HEAD(&r->tq->free_reqs, r, link);
}

static void nvmf_rdma_cm_gone(struct nvmf_rdma_qpair *tq);

/* ask the control thread to disconnect (any thread) */
static void
nvmf_rdma_ctrl_disconnect(void *arg)
{
	struct nvmf_rdma_qpair *tq = arg, *o;
	struct pv_nvmf_rdma *rt = tq->rt;

	/* only a queue pair still on the list: it is freed on this thread */
	TAILQ_FOREACH(o, &rt->conns, clink)
		if (o == tq)
			break;
	if (o == NULL || tq->cm_disconnected)
		return;
	pv_rdma_disconnect(tq->id);
	/* no need to wait for the peer's DREP (a dead host never sends one) */
	nvmf_rdma_cm_gone(tq);
}

static void
nvmf_rdma_disconnect(struct pv_nvmf_qpair *nq)
{
	struct nvmf_rdma_qpair *tq = container_of(nq, struct nvmf_rdma_qpair, nq);

	if (pv_rtc_ctrl_call(nvmf_rdma_ctrl_disconnect, tq, 0) != 0)
		NVMF_LOG(ERR, "rdma: qpair %u: cannot queue its disconnect\n", nq->qid);
}

/* a fatal transport error on the group's lcore: drop the connection */
static void
nvmf_rdma_qpair_error(struct nvmf_rdma_qpair *tq, const char *what)
{
	if (tq->disconnecting)
		return;
	NVMF_LOG(NOTICE, "rdma: qpair %u: %s: disconnecting\n", tq->nq.qid, what);
	nvmf_rdma_disconnect(&tq->nq);
}

/*
 * One unsignaled @p op WR per keyed segment of @p r, over req->length bytes
 * of its buffer, chained each to the next (the caller ends the chain).
 * @return WRs written to @p wrs / @p sges (at least 1: length is never 0 here).
 */
static uint32_t
nvmf_rdma_seg_wrs(struct nvmf_rdma_req *r, enum pv_wr_opcode op, uint64_t tag,
		  struct pv_send_wr *wrs, struct pv_sge *sges)
{
	const struct pv_nvmf_req *req = &r->req;
	uint32_t off = 0, n, i, k = 0;

	for (i = 0; i < req->nseg && off < req->length; i++) {
		n = RTE_MIN(req->sgl[i].len, req->length - off);
		sges[k] = (struct pv_sge){
			.addr = (uintptr_t)r->buf + off,
			.length = n,
			.lkey = r->tq->gd->data_mr->lkey,	/* the QP's device */
		};
		wrs[k] = (struct pv_send_wr){
			.wr_id = (uintptr_t)r | tag,
			.next = &wrs[k + 1],
			.sg_list = &sges[k],
			.num_sge = 1,
			.opcode = op,
			.wr.rdma = { .remote_addr = req->sgl[i].addr, .rkey = req->sgl[i].key },
		};
		off += n;
		k++;
	}
	return k;
}

/* give @p r its data buffer and, host to controller, start the reads */
static int
nvmf_rdma_data_start(struct nvmf_rdma_req *r)
{
	struct nvmf_rdma_qpair *tq = r->tq;
	struct nvmf_rdma_group *g = tq->grp;
	struct pv_nvmf_req *req = &r->req;
	struct pv_send_wr wrs[PV_NVMF_MAX_SGL_DESC], *bad;
	struct pv_sge sges[PV_NVMF_MAX_SGL_DESC];
	uint32_t k;
	int ret;

	r->buf = g->free_bufs[--g->nfree];
	req->data = r->buf;
	if (req->xfer != PV_NVMF_XFER_H2C)
		return 0;
	k = nvmf_rdma_seg_wrs(r, PV_WR_RDMA_READ, NVMF_WRID_READ, wrs, sges);
	wrs[k - 1].next = NULL;
	wrs[k - 1].send_flags = PV_SEND_SIGNALED;
	ret = pv_post_send(tq->id->qp, wrs, &bad);
	if (ret != 0) {
		nvmf_rdma_qpair_error(tq, "posting an RDMA READ failed");
		return -EIO;
	}
	return 1;
}

static int
nvmf_rdma_data_prep(struct pv_nvmf_req *req)
{
	struct nvmf_rdma_req *r = container_of(req, struct nvmf_rdma_req, req);
	struct nvmf_rdma_group *g = r->tq->grp;

	if (unlikely(g->nfree == 0 || !TAILQ_EMPTY(&g->pending))) {
		/* no buffer now: in order, when one comes back */
		g->st.no_buffer++;
		TAILQ_INSERT_TAIL(&g->pending, r, link);
		return 1;
	}
	return nvmf_rdma_data_start(r);
}

static __rte_noinline void
nvmf_rdma_pending_run(struct nvmf_rdma_group *g)
{
	struct nvmf_rdma_req *r;
	int ret;

	while (g->nfree != 0 && (r = TAILQ_FIRST(&g->pending)) != NULL) {
		TAILQ_REMOVE(&g->pending, r, link);
		if (unlikely(r->tq->disconnecting)) {
			/* its queue is draining: the command must not run */
			pv_nvmf_req_fail(&r->req, 0, PV_NVME_SC_ABORTED_SQ_DELETION);
			continue;
		}
		ret = nvmf_rdma_data_start(r);
		if (ret == 0)
			pv_nvmf_req_exec(&r->req);
		else if (ret < 0)
			pv_nvmf_req_fail(&r->req, 0, PV_NVME_SC_DATA_XFER_ERROR);
	}
}

static void nvmf_rdma_qpair_drained(struct nvmf_rdma_qpair *tq);

static void
nvmf_rdma_req_done(struct pv_nvmf_req *req)
{
	struct nvmf_rdma_req *r = container_of(req, struct nvmf_rdma_req, req);
	struct nvmf_rdma_qpair *tq = r->tq;
	struct nvmf_rdma_group *g = tq->grp;
	struct pv_send_wr wrs[PV_NVMF_MAX_SGL_DESC + 1], *bad;
	struct pv_sge sges[PV_NVMF_MAX_SGL_DESC + 1];
	uint32_t k = 0;

	/* the capsule was consumed: its buffer takes the next one */
	if (r->recv != NULL) {
		nvmf_rdma_recv_repost(tq, r->recv);
		r->recv = NULL;
	}
	g->st.completed++;
	if (unlikely(tq->disconnecting)) {
		/*
		 * The QP is in ERR (or going): no response. Nothing may be
		 * posted behind the drain markers, whose flush lets the queue
		 * pair go (a WR posted now would complete after it). A
		 * namespace's late I/O (io_uring) is the last user of the
		 * request's buffer: once the last one is done, the release
		 * the drain deferred runs.
		 */
		nvmf_rdma_req_free(r);
		if (tq->release_wait && tq->nq.outstanding == 0)
			nvmf_rdma_qpair_drained(tq);
		return;
	}
	*r->rsp = req->cpl;
	if (req->xfer == PV_NVMF_XFER_C2H && req->cpl.status == 0)
		k = nvmf_rdma_seg_wrs(r, PV_WR_RDMA_WRITE, NVMF_WRID_SEND, wrs, sges);
	sges[k] = (struct pv_sge){
		.addr = (uintptr_t)r->rsp,
		.length = sizeof(*r->rsp),
		.lkey = tq->mr->lkey,
	};
	wrs[k] = (struct pv_send_wr){
		.wr_id = (uintptr_t)r | NVMF_WRID_SEND,
		.sg_list = &sges[k],
		.num_sge = 1,
		.opcode = req->invalidate ? PV_WR_SEND_WITH_INV : PV_WR_SEND,
		.send_flags = PV_SEND_SIGNALED,
	};
	if (req->invalidate)
		wrs[k].invalidate_rkey = req->invalidate_rkey;
	if (pv_post_send(tq->id->qp, wrs, &bad) != 0) {
		nvmf_rdma_qpair_error(tq, "posting a response failed");
		nvmf_rdma_req_free(r);
	}
}

/* the queue pair of a receive of @p gd's SRQ: its completion's qp_num, a
 * number of that device (NULL: gone) */
static struct nvmf_rdma_qpair *
nvmf_rdma_srq_qpair(struct nvmf_rdma_group *g, struct nvmf_rdma_gdev *gd, uint32_t qp_num)
{
	struct nvmf_rdma_qpair *tq = gd->last_tq;

	if (likely(tq != NULL && tq->qp_num == qp_num))
		return tq;
	TAILQ_FOREACH(tq, &g->qpairs, glink)
		if (tq->gd == gd && tq->qp_num == qp_num) {
			gd->last_tq = tq;
			return tq;
		}
	return NULL;
}

static void
nvmf_rdma_recv_handle(struct nvmf_rdma_group *g, struct nvmf_rdma_gdev *gd,
		      struct nvmf_rdma_recv *rv, const struct pv_wc *wc)
{
	struct nvmf_rdma_qpair *tq = rv->tq;
	struct nvmf_rdma_req *r;

	if (tq == NULL) {
		/* an SRQ buffer: flushed only when the SRQ goes, else owned by
		 * the sender's queue pair until its request is done */
		if (unlikely(wc->status == PV_WC_WR_FLUSH_ERR))
			return;
		tq = nvmf_rdma_srq_qpair(g, gd, wc->qp_num);
		if (unlikely(tq == NULL || wc->status != PV_WC_SUCCESS || tq->disconnecting)) {
			if (tq != NULL && wc->status != PV_WC_SUCCESS)
				nvmf_rdma_qpair_error(tq, pv_wc_status_str(wc->status));
			nvmf_rdma_srq_repost(g, gd, rv);
			return;
		}
	}
	if (unlikely(wc->status != PV_WC_SUCCESS || tq->disconnecting)) {
		if (wc->status != PV_WC_WR_FLUSH_ERR && wc->status != PV_WC_SUCCESS)
			nvmf_rdma_qpair_error(tq, pv_wc_status_str(wc->status));
		return;
	}
	r = TAILQ_FIRST(&tq->free_reqs);
	if (unlikely(r == NULL || wc->byte_len < sizeof(struct pv_nvme_cmd))) {
		/* more commands than the queue's size, or a runt capsule */
		nvmf_rdma_qpair_error(tq, r == NULL ? "host overran its queue" : "short capsule");
		if (rv->tq == NULL)
			nvmf_rdma_srq_repost(g, gd, rv);
		return;
	}
	TAILQ_REMOVE(&tq->free_reqs, r, link);
	r->recv = rv;
	memcpy(&r->req.cmd, rv->buf, sizeof(r->req.cmd));
	r->req.icd = rv->buf + sizeof(struct pv_nvme_cmd);
	r->req.icd_len = wc->byte_len - sizeof(struct pv_nvme_cmd);
	if (rv->tq == NULL && r->req.icd_len == 0) {
		/*
		 * An SRQ capsule without in-capsule data: nothing of it is read
		 * past the SQE just copied, so the buffer goes back to the
		 * group's SRQ now, not when the command completes. A request
		 * waiting on a host (its RDMA READ, a dead host's retries) then
		 * holds no receive buffer the group's other queue pairs need.
		 */
		r->recv = NULL;
		nvmf_rdma_srq_repost(g, gd, rv);
	}
	pv_nvmf_req_submit(&r->req);
}

/* one burst of the CQ of @p gd: completions handled, or < 0 (poll failed) */
static int
nvmf_rdma_cq_poll(struct nvmf_rdma_group *g, struct nvmf_rdma_gdev *gd)
{
	struct pv_wc wc[NVMF_RDMA_CQ_BURST];
	struct nvmf_rdma_req *r;
	int n, i;

	n = pv_poll_cq(gd->cq, NVMF_RDMA_CQ_BURST, wc);
	for (i = 0; i < n; i++) {
		void *p = (void *)(uintptr_t)(wc[i].wr_id & ~NVMF_WRID_MASK);

		switch (wc[i].wr_id & NVMF_WRID_MASK) {
		case NVMF_WRID_RECV:
			nvmf_rdma_recv_handle(g, gd, p, &wc[i]);
			break;
		case NVMF_WRID_READ:
			r = p;
			if (unlikely(wc[i].status != PV_WC_SUCCESS)) {
				/* the host's key or range is bad: the QP is in ERR now */
				if (wc[i].status != PV_WC_WR_FLUSH_ERR)
					nvmf_rdma_qpair_error(r->tq,
							      pv_wc_status_str(wc[i].status));
				pv_nvmf_req_fail(&r->req, 0, PV_NVME_SC_DATA_XFER_ERROR);
				break;
			}
			if (unlikely(r->tq->disconnecting)) {
				/* the data came, but the queue was torn down
				 * (pv_nvmf_qpair_fini): the command must not run */
				pv_nvmf_req_fail(&r->req, 0, PV_NVME_SC_ABORTED_SQ_DELETION);
				break;
			}
			pv_nvmf_req_exec(&r->req);
			break;
		case NVMF_WRID_SEND:
			r = p;
			if (unlikely(wc[i].status != PV_WC_SUCCESS)) {
				if (wc[i].status != PV_WC_WR_FLUSH_ERR)
					nvmf_rdma_qpair_error(r->tq,
							      pv_wc_status_str(wc[i].status));
				/* an unsignaled WRITE failing reports too: once per request */
				if (wc[i].opcode != PV_WC_SEND && wc[i].status != PV_WC_WR_FLUSH_ERR)
					break;
			}
			nvmf_rdma_req_free(r);
			break;
		default:	/* NVMF_WRID_DRAIN */
			nvmf_rdma_qpair_drained(p);
			break;
		}
	}
	return n;
}

static int
nvmf_rdma_group_poll(void *arg)
{
	struct nvmf_rdma_group *g = arg;
	unsigned int d;
	bool failed = false;
	int n = 0, ret;

	for (d = 0; d < g->num_devs; d++) {
		ret = nvmf_rdma_cq_poll(g, &g->devs[d]);
		if (unlikely(ret < 0))
			failed = true;	/* the other devices' CQs still run */
		else
			n += ret;
	}
	if (unlikely(!TAILQ_EMPTY(&g->pending)))
		nvmf_rdma_pending_run(g);
	/* after this pass's commands: their I/O goes to the kernel in one
	 * submission per file namespace, then completions are reaped; the
	 * namespaces' I/O in flight completes even when a CQ failed */
	if (g->rt->tgt->num_poll_ns != 0)
		n += (int)pv_nvmf_tgt_ns_poll(g->rt->tgt);
	return unlikely(failed) ? -EIO : n;
}

static int
nvmf_rdma_group_ka(void *arg)
{
	struct nvmf_rdma_group *g = arg;
	struct nvmf_rdma_qpair *tq;
	uint64_t now = pv_nvmf_now_ms();
	uint64_t out = 0;

	TAILQ_FOREACH(tq, &g->qpairs, glink) {
		if (tq->nq.qid == 0 && !tq->disconnecting)
			pv_nvmf_qpair_keep_alive_check(&tq->nq, now);
		out += tq->nq.outstanding;
		g->st.read_cmds += tq->nq.num_read_cmds;
		g->st.write_cmds += tq->nq.num_write_cmds;
		g->st.bytes_read += tq->nq.bytes_read;
		g->st.bytes_written += tq->nq.bytes_written;
		tq->nq.num_read_cmds = 0;
		tq->nq.num_write_cmds = 0;
		tq->nq.bytes_read = 0;
		tq->nq.bytes_written = 0;
	}
	g->st.outstanding = out;
	return 0;
}

/* ------------------------------------------------------------------ */
/* poll group: queue pairs coming and going (messages)                  */
/* ------------------------------------------------------------------ */

static void
nvmf_rdma_group_add(void *arg)
{
	struct nvmf_rdma_qpair *tq = arg;

	TAILQ_INSERT_TAIL(&tq->grp->qpairs, tq, glink);
	tq->grp->st.qpairs++;
}

static void nvmf_rdma_ctrl_free(void *arg);

static void
nvmf_rdma_qpair_drained(struct nvmf_rdma_qpair *tq)
{
	struct nvmf_rdma_group *g = tq->grp;
	struct nvmf_rdma_req *r, *t;
	uint32_t i;

	if (!tq->release_wait && ++tq->drains < 2)
		return;
	/*
	 * Nothing of this QP is left in the CQ. A file namespace may still
	 * read into or write from a request's buffer (io_uring): the buffers
	 * and the queue pair stay until its last completion
	 * (nvmf_rdma_req_done() calls this again).
	 */
	if (tq->nq.outstanding != 0) {
		if (!tq->release_wait)
			NVMF_LOG(NOTICE, "rdma: qpair %u: drained with %u I/O(s) still in a "
				 "namespace: released after them\n", tq->nq.qid,
				 tq->nq.outstanding);
		tq->release_wait = true;
		return;
	}
	if (tq->release_wait)
		NVMF_LOG(NOTICE, "rdma: qpair %u: its last namespace I/O done: released\n",
			 tq->nq.qid);
	tq->release_wait = false;
	/* give the buffers back */
	RTE_TAILQ_FOREACH_SAFE(r, &g->pending, link, t)
		if (r->tq == tq)
			TAILQ_REMOVE(&g->pending, r, link);
	for (i = 0; i < tq->nreqs; i++) {
		if (tq->reqs[i].buf != NULL) {
			g->free_bufs[g->nfree++] = tq->reqs[i].buf;
			tq->reqs[i].buf = NULL;
		}
		/* a capsule of the SRQ still held: back to the SRQ */
		if (tq->reqs[i].recv != NULL && tq->reqs[i].recv->tq == NULL) {
			nvmf_rdma_srq_repost(g, tq->gd, tq->reqs[i].recv);
			tq->reqs[i].recv = NULL;
		}
	}
	if (tq->gd->last_tq == tq)
		tq->gd->last_tq = NULL;
	TAILQ_REMOVE(&g->qpairs, tq, glink);
	g->st.qpairs--;
	if (pv_rtc_ctrl_call(nvmf_rdma_ctrl_free, tq, 0) != 0)
		NVMF_LOG(ERR, "rdma: qpair %u: cannot queue its release\n", tq->nq.qid);
}

static void
nvmf_rdma_group_teardown(void *arg)
{
	struct nvmf_rdma_qpair *tq = arg;
	struct pv_qp_attr attr = { .qp_state = PV_QPS_ERR };
	struct pv_send_wr swr = {
		.wr_id = (uintptr_t)tq | NVMF_WRID_DRAIN,
		.opcode = PV_WR_SEND,
		.send_flags = PV_SEND_SIGNALED,
	}, *sbad;
	struct pv_recv_wr rwr = { .wr_id = (uintptr_t)tq | NVMF_WRID_DRAIN }, *rbad;

	if (tq->disconnecting)
		return;
	tq->disconnecting = true;
	/* held AERs end through done() before the QP goes */
	pv_nvmf_qpair_fini(&tq->nq);
	pv_modify_qp(tq->id->qp, &attr, PV_QP_STATE);
	/*
	 * Markers behind everything posted: their flush says the QP is empty.
	 * A QP on the group's SRQ has no receive queue of its own: its
	 * receive completions are all in the CQ before the send marker's
	 * flush (the QP is in ERR: nothing more arrives), and the SRQ's
	 * buffers stay posted for the other queue pairs.
	 */
	if (tq->gd->srq != NULL || pv_post_recv(tq->id->qp, &rwr, &rbad) != 0)
		tq->drains++;
	if (pv_post_send(tq->id->qp, &swr, &sbad) != 0)
		tq->drains++;
	if (tq->drains == 2) {
		tq->drains = 1;
		nvmf_rdma_qpair_drained(tq);
	}
}

static void
nvmf_rdma_group_start(void *arg)
{
	struct nvmf_rdma_group *g = arg;

	g->poller = pv_rtc_poller_register(nvmf_rdma_group_poll, g, 0);
	g->ka_poller = pv_rtc_poller_register(nvmf_rdma_group_ka, g, NVMF_RDMA_KA_PERIOD_US);
	if (g->poller == NULL || g->ka_poller == NULL)
		NVMF_LOG(ERR, "rdma: group %u: cannot register its pollers on lcore %u\n",
			 g->idx, g->lcore);
	__atomic_store_n(&g->started, 1, __ATOMIC_RELEASE);
}

static void
nvmf_rdma_group_stop(void *arg)
{
	struct nvmf_rdma_group *g = arg;

	pv_rtc_poller_unregister(g->poller);
	pv_rtc_poller_unregister(g->ka_poller);
	__atomic_store_n(&g->started, 2, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------------ */
/* control thread: connections                                          */
/* ------------------------------------------------------------------ */

static void
nvmf_rdma_qpair_release(struct nvmf_rdma_qpair *tq)
{
	if (tq->id != NULL) {
		if (tq->id->qp != NULL)
			pv_rdma_destroy_qp(tq->id);
		pv_rdma_destroy_id(tq->id);
	}
	if (tq->mr != NULL)
		pv_dereg_mr(tq->mr);
	rte_free(tq->mem);
	free(tq->recvs);
	free(tq->reqs);
	free(tq);
}

static void
nvmf_rdma_ctrl_free(void *arg)
{
	struct nvmf_rdma_qpair *tq = arg;
	struct pv_nvmf_rdma *rt = tq->rt;

	TAILQ_REMOVE(&rt->conns, tq, clink);
	tq->gd->cq_used -= tq->send_wr + nvmf_rdma_qp_recv_cqe(tq->gd, tq->depth);
	nvmf_rdma_qpair_release(tq);
	/* after the QP is gone: pv_nvmf_rdma_destroy() then frees its CQ and SRQ */
	__atomic_fetch_sub(&rt->nconns, 1, __ATOMIC_RELEASE);
}

static void
nvmf_rdma_reject(struct pv_rdma_cm_id *id, uint16_t sts)
{
	struct pv_nvmf_rdma_cm_rej rej = { .sts = rte_cpu_to_le_16(sts) };

	NVMF_LOG(NOTICE, "rdma: connection request rejected (NVMe RDMA status %u)\n", sts);
	pv_rdma_reject(id, &rej, sizeof(rej));
	pv_rdma_destroy_id(id);
}

/* the index in rt->devs of device @p ctx; rt->num_devs when it is none of them */
static unsigned int
nvmf_rdma_dev_idx(const struct pv_nvmf_rdma *rt, const struct pv_context *ctx)
{
	unsigned int d;

	for (d = 0; d < rt->num_devs; d++)
		if (rt->devs[d].ctx == ctx)
			break;
	return d;
}

static void
nvmf_rdma_connect_request(struct pv_nvmf_rdma *rt, struct pv_rdma_cm_event *ev)
{
	const struct pv_nvmf_tgt_opts *o = &rt->tgt->opts;
	struct pv_rdma_cm_id *id = ev->id;
	struct pv_nvmf_rdma_cm_req creq;
	struct pv_nvmf_rdma_cm_accept acc;
	struct pv_rdma_conn_param param;
	const struct pv_device_attr *da;
	struct pv_qp_init_attr qa;
	struct nvmf_rdma_group *g;
	struct nvmf_rdma_gdev *gd;
	struct nvmf_rdma_qpair *tq;
	uint32_t i, depth, rsp_off;
	uint16_t qid, hsqsize, hrqsize;
	unsigned int d;

	if (ev->param.conn.private_data == NULL ||
	    ev->param.conn.private_data_len < sizeof(creq))
		return nvmf_rdma_reject(id, PV_NVMF_RDMA_CM_INVALID_LEN);
	memcpy(&creq, ev->param.conn.private_data, sizeof(creq));
	qid = rte_le_to_cpu_16(creq.qid);
	hsqsize = rte_le_to_cpu_16(creq.hsqsize);
	hrqsize = rte_le_to_cpu_16(creq.hrqsize);
	if (rte_le_to_cpu_16(creq.recfmt) != 0)
		return nvmf_rdma_reject(id, PV_NVMF_RDMA_CM_INVALID_RECFMT);
	if (qid >= o->max_qpairs_per_ctrlr)
		return nvmf_rdma_reject(id, PV_NVMF_RDMA_CM_INVALID_QID);
	if (hsqsize == 0 || hsqsize >= o->max_queue_depth)
		return nvmf_rdma_reject(id, PV_NVMF_RDMA_CM_INVALID_HSQSIZE);
	if (hrqsize == 0 || hrqsize > o->max_queue_depth)
		return nvmf_rdma_reject(id, PV_NVMF_RDMA_CM_INVALID_HRQSIZE);
	depth = hsqsize + 1u;
	/* the request came in on the device of one of our listeners */
	d = nvmf_rdma_dev_idx(rt, id->verbs);
	if (d == rt->num_devs) {
		NVMF_LOG(ERR, "rdma: queue %u: request on a device of no listener\n", qid);
		return nvmf_rdma_reject(id, PV_NVMF_RDMA_CM_NO_RSC);
	}
	da = &rt->devs[d].attr;
	g = &rt->groups[rt->next_group++ % rt->opts.num_groups];
	gd = &g->devs[d];

	tq = calloc(1, sizeof(*tq));
	if (tq == NULL)
		return nvmf_rdma_reject(id, PV_NVMF_RDMA_CM_NO_RSC);
	tq->rt = rt;
	tq->grp = g;
	tq->gd = gd;
	tq->depth = depth;
	tq->nreqs = 2 * depth;
	/* per request: a READ chain or WRITEs + SEND; Linux uses one keyed SGL */
	tq->send_wr = RTE_MIN((uint32_t)da->max_qp_wr, 3 * tq->nreqs + 1);
	TAILQ_INIT(&tq->free_reqs);
	if (gd->cq_used + tq->send_wr + nvmf_rdma_qp_recv_cqe(gd, depth) > NVMF_RDMA_CQE) {
		free(tq);
		return nvmf_rdma_reject(id, PV_NVMF_RDMA_CM_NO_RSC);
	}
	tq->id = id;
	id->context = tq;
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = gd->cq;
	qa.recv_cq = gd->cq;
	qa.qp_type = PV_QPT_RC;
	qa.cap.max_send_wr = tq->send_wr;
	qa.cap.max_recv_wr = depth + 1;		/* + the drain marker */
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	rsp_off = depth * rt->capsule_size;
	if (gd->srq != NULL) {
		/* receives from the group's SRQ: this QP owns no capsule buffer */
		qa.srq = gd->srq;
		qa.cap.max_recv_wr = 0;
		qa.cap.max_recv_sge = 0;
		rsp_off = 0;
	}
	tq->mem = rte_zmalloc("pv_nvmf_rdma_qp",
			      rsp_off + tq->nreqs * sizeof(struct pv_nvme_cpl), 64);
	tq->recvs = calloc(gd->srq != NULL ? 1 : depth, sizeof(*tq->recvs));
	tq->reqs = calloc(tq->nreqs, sizeof(*tq->reqs));
	if (tq->mem == NULL || tq->recvs == NULL || tq->reqs == NULL)
		goto err_no_rsc;
	tq->mr = pv_reg_mr(gd->dev->pd, tq->mem,
			   rsp_off + tq->nreqs * sizeof(struct pv_nvme_cpl), PV_ACCESS_LOCAL_WRITE);
	if (tq->mr == NULL || pv_rdma_create_qp(id, gd->dev->pd, &qa) != 0) {
		NVMF_LOG(ERR, "rdma: queue %u: MR or QP (%u send, %u recv): %s\n", qid,
			 qa.cap.max_send_wr, qa.cap.max_recv_wr, strerror(errno));
		goto err_no_rsc;
	}
	tq->qp_num = id->qp->qp_num;
	pv_nvmf_qpair_init(&tq->nq, rt->tgt, qid, &nvmf_rdma_qpair_ops);
	for (i = 0; i < tq->nreqs; i++) {
		tq->reqs[i].tq = tq;
		tq->reqs[i].rsp = (struct pv_nvme_cpl *)(tq->mem + rsp_off) + i;
		tq->reqs[i].req.qp = &tq->nq;
		TAILQ_INSERT_TAIL(&tq->free_reqs, &tq->reqs[i], link);
	}
	for (i = 0; gd->srq == NULL && i < depth; i++) {
		tq->recvs[i].tq = tq;
		tq->recvs[i].buf = tq->mem + i * rt->capsule_size;
		if (nvmf_rdma_recv_post(tq, &tq->recvs[i]) != 0)
			goto err_no_rsc;
	}
	memset(&acc, 0, sizeof(acc));
	acc.crqsize = rte_cpu_to_le_16(depth);
	memset(&param, 0, sizeof(param));
	param.private_data = &acc;
	param.private_data_len = sizeof(acc);
	/*
	 * Our RDMA READs are bounded by the host's responder resources: the
	 * event already gives them from this side (rdma_accept(3): its
	 * initiator_depth is the REQ's responder resources, its
	 * responder_resources the REQ's initiator depth). Linux's host asks
	 * responder resources = its device's max_qp_rd_atom and initiator
	 * depth 0 (it reads nothing from a target); a REP with initiator
	 * depth 0 would leave its QP's max_dest_rd_atomic at 0 and every
	 * READ of ours NAKed (invalid request).
	 */
	param.initiator_depth = RTE_MIN(ev->param.conn.initiator_depth,
					(uint8_t)RTE_MIN(da->max_qp_init_rd_atom, 255));
	param.responder_resources = RTE_MIN(ev->param.conn.responder_resources,
					    (uint8_t)RTE_MIN(da->max_qp_rd_atom, 255));
	param.rnr_retry_count = 7;
	/* the group knows the queue pair before anything of it can complete */
	gd->cq_used += tq->send_wr + nvmf_rdma_qp_recv_cqe(gd, depth);
	TAILQ_INSERT_TAIL(&rt->conns, tq, clink);
	__atomic_fetch_add(&rt->nconns, 1, __ATOMIC_RELEASE);
	if (pv_rtc_msg_send(g->lcore, nvmf_rdma_group_add, tq) != 0) {
		NVMF_LOG(ERR, "rdma: cannot hand queue %u to group %u\n", qid, g->idx);
		TAILQ_REMOVE(&rt->conns, tq, clink);
		__atomic_fetch_sub(&rt->nconns, 1, __ATOMIC_RELEASE);
		gd->cq_used -= tq->send_wr + nvmf_rdma_qp_recv_cqe(gd, depth);
		goto err_no_rsc;
	}
	if (pv_rdma_accept(id, &param) != 0) {
		NVMF_LOG(ERR, "rdma: accept of queue %u failed: %s\n", qid, strerror(errno));
		/* the group has it: tear it down the normal way */
		tq->teardown_sent = true;
		pv_rtc_msg_send(g->lcore, nvmf_rdma_group_teardown, tq);
		return;
	}
	NVMF_LOG(INFO, "rdma: queue %u (%u entries) accepted on group %u, device %s\n", qid,
		 depth, g->idx, pv_get_device_name(id->verbs->device));
	return;

err_no_rsc:
	tq->id = NULL;	/* the reject destroys the id */
	if (id->qp != NULL)
		pv_rdma_destroy_qp(id);
	nvmf_rdma_qpair_release(tq);
	nvmf_rdma_reject(id, PV_NVMF_RDMA_CM_NO_RSC);
}

static void
nvmf_rdma_cm_gone(struct nvmf_rdma_qpair *tq)
{
	if (tq == NULL || tq->teardown_sent)
		return;
	tq->teardown_sent = true;
	tq->cm_disconnected = true;
	if (pv_rtc_msg_send(tq->grp->lcore, nvmf_rdma_group_teardown, tq) != 0)
		NVMF_LOG(ERR, "rdma: cannot tell group %u of a disconnect\n", tq->grp->idx);
}

static bool
nvmf_rdma_is_listen_id(const struct pv_nvmf_rdma *rt, const struct pv_rdma_cm_id *id)
{
	unsigned int i;

	for (i = 0; i < rt->opts.num_listen; i++)
		if (rt->listen[i] == id)
			return true;
	return false;
}

static void
nvmf_rdma_cm_poll(void *arg)
{
	struct pv_nvmf_rdma *rt = arg;
	struct pv_rdma_cm_event *ev;
	struct pv_rdma_cm_event copy;

	while (pv_rdma_get_cm_event(rt->ch, &ev) == 0) {
		copy = *ev;
		switch (ev->event) {
		case PV_RDMA_CM_EVENT_CONNECT_REQUEST:
			/* private data lives until the ack */
			nvmf_rdma_connect_request(rt, ev);
			pv_rdma_ack_cm_event(ev);
			continue;
		default:
			break;
		}
		pv_rdma_ack_cm_event(ev);
		switch (copy.event) {
		case PV_RDMA_CM_EVENT_ESTABLISHED:
			break;
		case PV_RDMA_CM_EVENT_DISCONNECTED:
		case PV_RDMA_CM_EVENT_REJECTED:
		case PV_RDMA_CM_EVENT_CONNECT_ERROR:
		case PV_RDMA_CM_EVENT_UNREACHABLE:
		case PV_RDMA_CM_EVENT_DEVICE_REMOVAL:
			if (!nvmf_rdma_is_listen_id(rt, copy.id))
				nvmf_rdma_cm_gone(copy.id->context);
			break;
		default:
			NVMF_LOG(DEBUG, "rdma: CM event %s ignored\n",
				 pv_rdma_event_str(copy.event));
			break;
		}
	}
}

/* ------------------------------------------------------------------ */
/* create / destroy                                                     */
/* ------------------------------------------------------------------ */

/* use_srq: the SRQ of @p g on @p gd's device and its srq_depth capsule
 * buffers, all posted */
static int
nvmf_rdma_gdev_srq_init(struct pv_nvmf_rdma *rt, struct nvmf_rdma_group *g,
			struct nvmf_rdma_gdev *gd)
{
	struct pv_srq_init_attr sa = { .srq_context = g };
	size_t len;
	uint32_t i;

	gd->srq_depth = rt->opts.srq_depth != 0 ? rt->opts.srq_depth : 1024;
	gd->srq_depth = RTE_MIN(gd->srq_depth, (uint32_t)gd->dev->attr.max_srq_wr);
	sa.attr.max_wr = gd->srq_depth;
	sa.attr.max_sge = 1;
	len = (size_t)gd->srq_depth * rt->capsule_size;
	gd->srq = pv_create_srq(gd->dev->pd, &sa);
	gd->srq_mem = rte_zmalloc_socket("pv_nvmf_rdma_srq", len, 64,
					 (int)rte_lcore_to_socket_id(g->lcore));
	gd->srq_recvs = calloc(gd->srq_depth, sizeof(*gd->srq_recvs));
	if (gd->srq == NULL || gd->srq_mem == NULL || gd->srq_recvs == NULL) {
		NVMF_LOG(ERR, "rdma: group %u: no SRQ of %u receives on %s, or no memory\n",
			 g->idx, gd->srq_depth, pv_get_device_name(gd->dev->ctx->device));
		return -ENOMEM;
	}
	gd->srq_mr = pv_reg_mr(gd->dev->pd, gd->srq_mem, len, PV_ACCESS_LOCAL_WRITE);
	if (gd->srq_mr == NULL)
		return -errno;
	gd->cq_used += gd->srq_depth;
	for (i = 0; i < gd->srq_depth; i++) {
		gd->srq_recvs[i].tq = NULL;
		gd->srq_recvs[i].buf = gd->srq_mem + (size_t)i * rt->capsule_size;
		if (nvmf_rdma_srq_post(rt, gd, &gd->srq_recvs[i]) != 0)
			return -EIO;
	}
	return 0;
}

/* the resources of @p g on device @p dev: CQ, the data buffers' MR, SRQ */
static int
nvmf_rdma_gdev_init(struct pv_nvmf_rdma *rt, struct nvmf_rdma_group *g,
		    struct nvmf_rdma_gdev *gd, struct nvmf_rdma_dev *dev)
{
	int nvec = dev->ctx->num_comp_vectors;
	size_t len = (size_t)g->nbuf * rt->tgt->opts.max_io_size;

	gd->dev = dev;
	/* a device with an engine per completion vector gives each group its own */
	gd->cq = pv_create_cq(dev->ctx, NVMF_RDMA_CQE, g, NULL,
			      nvec > 0 ? (int)(g->idx % (unsigned int)nvec) : 0);
	if (gd->cq == NULL) {
		NVMF_LOG(ERR, "rdma: group %u: no CQ on %s: %s\n", g->idx,
			 pv_get_device_name(dev->ctx->device), strerror(errno));
		return errno != 0 ? -errno : -ENOMEM;
	}
	/* the group's one pool of buffers, registered on every device */
	gd->data_mr = pv_reg_mr(dev->pd, g->data, len, PV_ACCESS_LOCAL_WRITE);
	if (gd->data_mr == NULL)
		return -errno;
	return rt->opts.use_srq ? nvmf_rdma_gdev_srq_init(rt, g, gd) : 0;
}

static int
nvmf_rdma_group_init(struct pv_nvmf_rdma *rt, struct nvmf_rdma_group *g, unsigned int idx)
{
	uint32_t i, bsz = rt->tgt->opts.max_io_size;
	unsigned int d;
	int ret;

	g->rt = rt;
	g->idx = idx;
	g->lcore = rt->opts.lcores[idx];
	g->st.lcore = g->lcore;
	TAILQ_INIT(&g->pending);
	TAILQ_INIT(&g->qpairs);
	g->nbuf = rt->opts.buffers_per_group;
	g->data = rte_zmalloc_socket("pv_nvmf_rdma_data", (size_t)g->nbuf * bsz, 4096,
				     (int)rte_lcore_to_socket_id(g->lcore));
	g->free_bufs = calloc(g->nbuf, sizeof(*g->free_bufs));
	if (g->data == NULL || g->free_bufs == NULL) {
		NVMF_LOG(ERR, "rdma: group %u: no memory for %u buffers of %u bytes\n",
			 idx, g->nbuf, bsz);
		return -ENOMEM;
	}
	for (i = 0; i < g->nbuf; i++)
		g->free_bufs[i] = g->data + (size_t)i * bsz;
	g->nfree = g->nbuf;
	/* all of them, so that nvmf_rdma_group_fini() undoes a partial one */
	g->num_devs = rt->num_devs;
	for (d = 0; d < rt->num_devs; d++) {
		ret = nvmf_rdma_gdev_init(rt, g, &g->devs[d], &rt->devs[d]);
		if (ret != 0)
			return ret;
	}
	return 0;
}

static void
nvmf_rdma_group_fini(struct nvmf_rdma_group *g)
{
	struct nvmf_rdma_gdev *gd;
	unsigned int d;

	for (d = 0; d < g->num_devs; d++) {
		gd = &g->devs[d];
		if (gd->srq != NULL)
			pv_destroy_srq(gd->srq);
		if (gd->srq_mr != NULL)
			pv_dereg_mr(gd->srq_mr);
		rte_free(gd->srq_mem);
		free(gd->srq_recvs);
		if (gd->data_mr != NULL)
			pv_dereg_mr(gd->data_mr);
		if (gd->cq != NULL)
			pv_destroy_cq(gd->cq);
	}
	rte_free(g->data);
	free(g->free_bufs);
}

static void
nvmf_rdma_free(struct pv_nvmf_rdma *rt)
{
	unsigned int i;

	for (i = 0; i < rt->opts.num_groups; i++)
		nvmf_rdma_group_fini(&rt->groups[i]);
	for (i = 0; i < rt->num_devs; i++)
		pv_dealloc_pd(rt->devs[i].pd);
	for (i = 0; i < RTE_DIM(rt->listen); i++)
		if (rt->listen[i] != NULL)
			pv_rdma_destroy_id(rt->listen[i]);
	if (rt->ch != NULL)
		pv_rdma_destroy_event_channel(rt->ch);
	free(rt);
}

static bool
nvmf_rdma_is_group_lcore(const struct pv_nvmf_rdma *rt, unsigned int lcore)
{
	unsigned int i;

	for (i = 0; i < rt->opts.num_groups; i++)
		if (rt->groups[i].lcore == lcore)
			return true;
	return false;
}

/* a moment's wait for another lcore; the caller's own loop runs meanwhile
 * when it is a group's lcore */
static void
nvmf_rdma_wait_step(const struct pv_nvmf_rdma *rt)
{
	if (nvmf_rdma_is_group_lcore(rt, rte_lcore_id()))
		pv_rtc_loop_once();
	else
		usleep(100);
}

/*
 * Stop the pollers of the first @p n poll groups, whose start messages were
 * sent, and wait until each has stopped. A start message still queued
 * would otherwise register its poller after the group is freed: wait for
 * it first. The groups' lcores must run their loops.
 */
static void
nvmf_rdma_groups_stop(struct pv_nvmf_rdma *rt, unsigned int n)
{
	struct nvmf_rdma_group *g;
	unsigned int i;

	for (i = 0; i < n; i++) {
		g = &rt->groups[i];
		while (__atomic_load_n(&g->started, __ATOMIC_ACQUIRE) == 0)
			nvmf_rdma_wait_step(rt);
		if (__atomic_load_n(&g->started, __ATOMIC_ACQUIRE) == 2)
			continue;
		if (g->lcore == rte_lcore_id()) {
			nvmf_rdma_group_stop(g);
			continue;
		}
		/* a full message ring empties as that lcore's loop runs */
		while (pv_rtc_msg_send(g->lcore, nvmf_rdma_group_stop, g) != 0)
			nvmf_rdma_wait_step(rt);
		while (__atomic_load_n(&g->started, __ATOMIC_ACQUIRE) != 2)
			nvmf_rdma_wait_step(rt);
	}
}

/*
 * The listeners of @p opts (listen[], or traddr : port when num_listen is 0)
 * as addresses into @p sins (PV_NVMF_RDMA_MAX_LISTEN entries).
 * @return their number, or -EINVAL (logged): too many, an address that is
 *         not IPv4 or is 0.0.0.0, an address and port given twice
 */
static int
nvmf_rdma_opts_listen(const struct pv_nvmf_rdma_opts *opts, struct sockaddr_in *sins)
{
	const struct pv_nvmf_rdma_listen one = { .traddr = opts->traddr, .port = opts->port };
	const struct pv_nvmf_rdma_listen *ls = opts->num_listen != 0 ? opts->listen : &one;
	unsigned int n = opts->num_listen != 0 ? opts->num_listen : 1;
	unsigned int i, j;

	if (n > PV_NVMF_RDMA_MAX_LISTEN) {
		NVMF_LOG(ERR, "rdma: %u listeners: at most %u\n", n, PV_NVMF_RDMA_MAX_LISTEN);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		sins[i] = (struct sockaddr_in){
			.sin_family = AF_INET,
			.sin_port = htons(ls[i].port != 0 ? ls[i].port : PV_NVMF_RDMA_PORT),
		};
		if (ls[i].traddr == NULL ||
		    inet_pton(AF_INET, ls[i].traddr, &sins[i].sin_addr) != 1 ||
		    sins[i].sin_addr.s_addr == INADDR_ANY) {
			NVMF_LOG(ERR, "rdma: listener %u: traddr must be a device's IPv4 address\n",
				 i);
			return -EINVAL;
		}
		for (j = 0; j < i; j++)
			if (sins[j].sin_addr.s_addr == sins[i].sin_addr.s_addr &&
			    sins[j].sin_port == sins[i].sin_port) {
				NVMF_LOG(ERR, "rdma: listeners %u and %u are both %s:%u\n", j, i,
					 ls[i].traddr, ntohs(sins[i].sin_port));
				return -EINVAL;
			}
	}
	return (int)n;
}

/* listener @p i: its id bound to @p sin, a PD on its device if it is a new one */
static int
nvmf_rdma_listen_init(struct pv_nvmf_rdma *rt, unsigned int i, struct sockaddr_in *sin)
{
	char addr[INET_ADDRSTRLEN];
	struct nvmf_rdma_dev *dev;
	struct pv_rdma_cm_id *id;
	int ret;

	inet_ntop(AF_INET, &sin->sin_addr, addr, sizeof(addr));
	if (pv_rdma_create_id(rt->ch, &rt->listen[i], rt, PV_RDMA_PS_TCP) != 0)
		return -errno;
	id = rt->listen[i];
	if (pv_rdma_bind_addr(id, (struct sockaddr *)sin) != 0) {
		ret = -errno;
		NVMF_LOG(ERR, "rdma: bind to %s:%u: %s\n", addr, ntohs(sin->sin_port),
			 strerror(-ret));
		return ret;
	}
	if (id->verbs == NULL) {
		NVMF_LOG(ERR, "rdma: no pollverbs device has address %s\n", addr);
		return -EADDRNOTAVAIL;
	}
	NVMF_LOG(INFO, "rdma: listener %u: %s:%u on %s\n", i, addr, ntohs(sin->sin_port),
		 pv_get_device_name(id->verbs->device));
	if (nvmf_rdma_dev_idx(rt, id->verbs) < rt->num_devs)
		return 0;
	dev = &rt->devs[rt->num_devs];
	ret = pv_query_device(id->verbs, &dev->attr);
	if (ret != 0)
		return -ret;
	dev->pd = pv_alloc_pd(id->verbs);
	if (dev->pd == NULL)
		return -errno;
	dev->ctx = id->verbs;
	rt->num_devs++;
	return 0;
}

struct pv_nvmf_rdma *
pv_nvmf_rdma_create(struct pv_nvmf_tgt *tgt, const struct pv_nvmf_rdma_opts *opts)
{
	struct sockaddr_in sins[PV_NVMF_RDMA_MAX_LISTEN];
	struct pv_nvmf_rdma *rt;
	unsigned int i, nstart = 0;
	int ret, fl, n;

	if (tgt == NULL || opts == NULL || opts->num_groups == 0 ||
	    opts->num_groups > PV_NVMF_RDMA_MAX_GROUPS) {
		NVMF_LOG(ERR, "rdma: bad options (no target, or poll groups not 1..%u)\n",
			 PV_NVMF_RDMA_MAX_GROUPS);
		errno = EINVAL;
		return NULL;
	}
	n = nvmf_rdma_opts_listen(opts, sins);
	if (n < 0) {
		errno = EINVAL;
		return NULL;
	}
	for (i = 0; i < opts->num_groups; i++)
		if (!rte_lcore_is_enabled(opts->lcores[i])) {
			NVMF_LOG(ERR, "rdma: lcore %u is not enabled (-l)\n", opts->lcores[i]);
			errno = EINVAL;
			return NULL;
		}
	rt = calloc(1, sizeof(*rt));
	if (rt == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	rt->tgt = tgt;
	/* the copy keeps no caller's string: listen[] holds the ports only */
	rt->opts = *opts;
	rt->opts.traddr = NULL;
	rt->opts.port = 0;
	rt->opts.num_listen = (unsigned int)n;
	for (i = 0; i < (unsigned int)n; i++)
		rt->opts.listen[i] = (struct pv_nvmf_rdma_listen){
			.port = ntohs(sins[i].sin_port),
		};
	if (rt->opts.buffers_per_group == 0)
		rt->opts.buffers_per_group = 256;
	rt->capsule_size = sizeof(struct pv_nvme_cmd) + tgt->opts.in_capsule_data_size;
	TAILQ_INIT(&rt->conns);
	rt->ch = pv_rdma_create_event_channel();
	if (rt->ch == NULL)
		goto err;
	fl = fcntl(rt->ch->fd, F_GETFL);
	if (fl < 0 || fcntl(rt->ch->fd, F_SETFL, fl | O_NONBLOCK) != 0)
		goto err;
	for (i = 0; i < rt->opts.num_listen; i++) {
		ret = nvmf_rdma_listen_init(rt, i, &sins[i]);
		if (ret != 0) {
			errno = -ret;
			goto err;
		}
	}
	for (i = 0; i < rt->opts.num_groups; i++) {
		ret = nvmf_rdma_group_init(rt, &rt->groups[i], i);
		if (ret != 0) {
			errno = -ret;
			goto err;
		}
	}
	for (i = 0; i < rt->opts.num_listen; i++)
		if (pv_rdma_listen(rt->listen[i], 128) != 0)
			goto err;
	for (nstart = 0; nstart < rt->opts.num_groups; nstart++)
		if (pv_rtc_msg_send(rt->groups[nstart].lcore, nvmf_rdma_group_start,
				    &rt->groups[nstart]) != 0) {
			errno = ENOBUFS;
			goto err;
		}
	rt->cm_timer = pv_rtc_ctrl_timer_start(nvmf_rdma_cm_poll, rt, NVMF_RDMA_CM_PERIOD_US);
	if (rt->cm_timer == NULL)
		goto err;
	NVMF_LOG(NOTICE, "rdma: %u listener(s) on %u device(s), %u poll group(s)\n",
		 rt->opts.num_listen, rt->num_devs, rt->opts.num_groups);
	return rt;
err:
	ret = errno;
	/* groups already started keep a poller on a CQ we free: stop them first */
	nvmf_rdma_groups_stop(rt, nstart);
	nvmf_rdma_free(rt);
	errno = ret != 0 ? ret : EIO;
	return NULL;
}

static void
nvmf_rdma_ctrl_disconnect_all(void *arg)
{
	struct pv_nvmf_rdma *rt = arg;
	struct nvmf_rdma_qpair *tq;

	TAILQ_FOREACH(tq, &rt->conns, clink)
		if (!tq->cm_disconnected) {
			pv_rdma_disconnect(tq->id);
			nvmf_rdma_cm_gone(tq);
		}
}

void
pv_nvmf_rdma_destroy(struct pv_nvmf_rdma *rt)
{
	uint64_t deadline;

	if (rt == NULL)
		return;
	pv_rtc_ctrl_call(nvmf_rdma_ctrl_disconnect_all, rt, 1);
	deadline = pv_nvmf_now_ms() + NVMF_RDMA_DESTROY_MS;
	while (__atomic_load_n(&rt->nconns, __ATOMIC_ACQUIRE) != 0 &&
	       pv_nvmf_now_ms() < deadline) {
		if (nvmf_rdma_is_group_lcore(rt, rte_lcore_id()))
			pv_rtc_loop_once();	/* our own group drains too */
		else
			usleep(1000);
	}
	if (rt->nconns != 0)
		NVMF_LOG(ERR, "rdma: %u queue pair(s) did not drain\n", rt->nconns);
	pv_rtc_ctrl_timer_stop(rt->cm_timer);
	nvmf_rdma_groups_stop(rt, rt->opts.num_groups);
	nvmf_rdma_free(rt);
}

int
pv_nvmf_rdma_group_stats(const struct pv_nvmf_rdma *rt, unsigned int idx,
			 struct pv_nvmf_rdma_group_stats *st)
{
	if (rt == NULL || st == NULL || idx >= rt->opts.num_groups)
		return -EINVAL;
	*st = rt->groups[idx].st;
	return 0;
}

unsigned int
pv_nvmf_rdma_num_groups(const struct pv_nvmf_rdma *rt)
{
	return rt == NULL ? 0 : rt->opts.num_groups;
}
