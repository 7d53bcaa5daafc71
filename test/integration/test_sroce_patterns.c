/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The patterns of rdma-core's libibverbs examples (rc_pingpong, uc_pingpong,
 * ud_pingpong, srq_pingpong, xsrq_pingpong; v44), written for pollverbs: two
 * processes
 * (softroce over net_memif, default progress mode: thread safe), a blocking
 * TCP socket for the address exchange. As in the examples, the client sends
 * its QPN/PSN/GID and blocks in read() while the server takes its QPs to RTR
 * and RTS (the ARP exchange of that RTR needs the client's device to answer
 * while its only thread sleeps), then the server answers and the client
 * connects. Then ITERS ping-pongs with the payload checked byte for byte,
 * polling, and again in event mode (-e: pv_req_notify_cq, blocking
 * pv_get_cq_event, pv_ack_cq_events). Nobody calls pv_progress(). xsrq:
 * each side has an XRC domain, an XRC SRQ, an INI QP connected to the
 * peer's TGT QP and a TGT QP connected to the peer's INI QP; the SRQ number
 * travels in the LID field of the exchange; sends name the peer's SRQ.
 *
 * Then a responder that only sleeps (blocked in read()) while the client does
 * RDMA WRITE, READ, CMP_AND_SWP and FETCH_AND_ADD against it with the Rust
 * ibverbs crate's QP defaults (local ACK timeout 4: 65 us, 6 retries), and
 * last the idle cost of background progress: getrusage() over 2 s of both
 * devices idle.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pv_rtc.h"
#include "pv_verbs.h"
#include "ut_common.h"
#include "ut_sroce.h"

#define ITERS		200
#define MSG		64
#define RX_DEPTH	16
#define NQ_SRQ		4	/* srq_pingpong's QPs (it defaults to 16) */
#define GRH		40
#define SLOT		(GRH + MSG)
#define WAIT_MS		10000
#define QKEY		0x11111111
#define RESP_LEN	(64 * 1024)
#define IDLE_MAX_PCT	5.0

enum pp_kind { PP_RC, PP_UC, PP_UD, PP_SRQ, PP_XSRQ };

static const char *const pp_names[] = { "rc", "uc", "ud", "srq", "xsrq" };

static struct pv_context *ctx;
static struct pv_pd *pd;
static int is_server;
static int tcp;			/* the connected TCP socket */
/* the GID index the examples' -g selects: 1 (IPv4), 0 (IPv6 link-local) */
static uint8_t sgid = 1;

/* one pingpong context, as the examples' struct pingpong_context */
struct pp {
	enum pp_kind kind;
	int events;
	int nq;
	struct pv_comp_channel *ch;
	struct pv_cq *cq;
	struct pv_srq *srq;
	struct pv_qp *qp[NQ_SRQ];
	struct pv_ah *ah;
	struct pv_xrcd *xrcd;	/* xsrq: qp[0] is the INI QP, qp[1] the TGT QP */
	uint32_t srqn, rsrqn;	/* xsrq: our XRC SRQ's number, the peer's */
	uint8_t *buf;		/* RX_DEPTH receive slots, then the send slot */
	struct pv_mr *mr;
	uint32_t psn[NQ_SRQ];
	uint32_t rqpn[NQ_SRQ];
};

/* the examples' wire format: "LID:QPN:PSN:GID" in text, one line per QP */
struct pp_dest {
	uint32_t lid;		/* xsrq: the XRC SRQ number travels here */
	uint32_t qpn;
	uint32_t psn;
	union pv_gid gid;
};

static int
full_write(int fd, const void *p, size_t n)
{
	return write(fd, p, n) == (ssize_t)n ? 0 : -1;
}

static int
full_read(int fd, void *p, size_t n)
{
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		r = read(fd, (uint8_t *)p + got, n - got);	/* blocks: the point */
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

static int
dest_send(const struct pp_dest *d)
{
	char msg[80], gid[33];
	int i;

	for (i = 0; i < 16; i++)
		snprintf(gid + 2 * i, 3, "%02x", d->gid.raw[i]);
	snprintf(msg, sizeof(msg), "%04x:%06x:%06x:%s", d->lid, d->qpn, d->psn, gid);
	return full_write(tcp, msg, sizeof(msg));
}

static int
dest_recv(struct pp_dest *d)
{
	char msg[80], *g;
	unsigned int lid, b;
	int i;

	if (full_read(tcp, msg, sizeof(msg)) != 0)
		return -1;
	msg[sizeof(msg) - 1] = '\0';
	if (sscanf(msg, "%x:%x:%x:", &lid, &d->qpn, &d->psn) != 3)
		return -1;
	d->lid = lid;
	g = strrchr(msg, ':') + 1;
	for (i = 0; i < 16; i++) {
		if (sscanf(g + 2 * i, "%2x", &b) != 1)
			return -1;
		d->gid.raw[i] = (uint8_t)b;
	}
	return 0;
}

static uint8_t
pattern(int from_server, uint32_t iter, uint32_t i)
{
	return (uint8_t)(iter * 37u + i * 3u + (from_server ? 101u : 7u));
}

static int
pp_post_recv(struct pp *p, uint32_t slot)
{
	struct pv_sge sge = {
		.addr = (uintptr_t)(p->buf + (size_t)slot * SLOT),
		.length = SLOT,
		.lkey = p->mr->lkey,
	};
	struct pv_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1 }, *bad;

	if (p->srq != NULL)
		return pv_post_srq_recv(p->srq, &wr, &bad);
	return pv_post_recv(p->qp[0], &wr, &bad);
}

/* xsrq_pingpong's objects: an XRC domain, an XRC SRQ, an INI and a TGT QP */
static int
pp_init_xsrq(struct pp *p)
{
	struct pv_xrcd_init_attr xa = { PV_XRCD_INIT_ATTR_FD | PV_XRCD_INIT_ATTR_OFLAGS, -1,
					O_CREAT };
	struct pv_srq_init_attr_ex sa;
	struct pv_qp_init_attr_ex ia;
	struct pv_qp_attr a;
	uint32_t i;
	int q;

	p->nq = 2;
	p->xrcd = pv_open_xrcd(ctx, &xa);
	if (p->xrcd == NULL)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = RX_DEPTH;
	sa.attr.max_sge = 1;
	sa.comp_mask = PV_SRQ_INIT_ATTR_TYPE | PV_SRQ_INIT_ATTR_XRCD | PV_SRQ_INIT_ATTR_CQ |
		       PV_SRQ_INIT_ATTR_PD;
	sa.srq_type = PV_SRQT_XRC;
	sa.xrcd = p->xrcd;
	sa.cq = p->cq;
	sa.pd = pd;
	p->srq = pv_create_srq_ex(ctx, &sa);
	if (p->srq == NULL || pv_get_srq_num(p->srq, &p->srqn) != 0)
		return -1;
	for (q = 0; q < 2; q++) {
		memset(&ia, 0, sizeof(ia));
		if (q == 0) {
			ia.qp_type = PV_QPT_XRC_SEND;
			ia.send_cq = p->cq;
			ia.cap.max_send_wr = 1;
			ia.cap.max_send_sge = 1;
			ia.comp_mask = PV_QP_INIT_ATTR_PD;
			ia.pd = pd;
		} else {
			ia.qp_type = PV_QPT_XRC_RECV;
			ia.comp_mask = PV_QP_INIT_ATTR_XRCD;
			ia.xrcd = p->xrcd;
		}
		p->qp[q] = pv_create_qp_ex(ctx, &ia);
		if (p->qp[q] == NULL)
			return -1;
		memset(&a, 0, sizeof(a));
		a.qp_state = PV_QPS_INIT;
		a.port_num = 1;
		if (pv_modify_qp(p->qp[q], &a, PV_QP_STATE | PV_QP_PKEY_INDEX | PV_QP_PORT |
				 PV_QP_ACCESS_FLAGS) != 0)
			return -1;
		p->psn[q] = (uint32_t)(lrand48() & 0xffffff);
	}
	for (i = 0; i < RX_DEPTH; i++)
		if (pp_post_recv(p, i) != 0)
			return -1;
	if (p->events && pv_req_notify_cq(p->cq, 0) != 0)
		return -1;
	return 0;
}

/* xsrq: our INI QP towards the peer's TGT QP, our TGT QP towards its INI QP */
static int
pp_connect_xsrq(struct pp *p, const struct pp_dest *d)
{
	struct pv_qp_attr a;
	int q;

	for (q = 0; q < 2; q++) {
		const struct pp_dest *r = &d[1 - q];

		memset(&a, 0, sizeof(a));
		a.qp_state = PV_QPS_RTR;
		a.path_mtu = PV_MTU_1024;
		a.dest_qp_num = r->qpn;
		a.rq_psn = r->psn;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 12;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = r->gid;
		a.ah_attr.grh.sgid_index = sgid;
		a.ah_attr.grh.hop_limit = 1;
		a.ah_attr.port_num = 1;
		if (pv_modify_qp(p->qp[q], &a, PV_QP_STATE | PV_QP_AV | PV_QP_PATH_MTU |
				 PV_QP_DEST_QPN | PV_QP_RQ_PSN |
				 (q == 1 ? PV_QP_MAX_DEST_RD_ATOMIC | PV_QP_MIN_RNR_TIMER : 0)) != 0)
			return -1;
		memset(&a, 0, sizeof(a));
		a.qp_state = PV_QPS_RTS;
		a.sq_psn = p->psn[q];
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		if (pv_modify_qp(p->qp[q], &a, PV_QP_STATE | PV_QP_TIMEOUT | PV_QP_SQ_PSN |
				 (q == 0 ? PV_QP_RETRY_CNT | PV_QP_RNR_RETRY |
				  PV_QP_MAX_QP_RD_ATOMIC : 0)) != 0)
			return -1;
		p->rqpn[q] = r->qpn;
	}
	p->rsrqn = d[1].lid;
	return 0;
}

static int
pp_init(struct pp *p, enum pp_kind kind, int events)
{
	struct pv_qp_init_attr ia;
	struct pv_qp_attr a;
	uint32_t i;
	int q;

	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->events = events;
	p->nq = kind == PP_SRQ ? NQ_SRQ : 1;
	p->buf = calloc(RX_DEPTH + 1, SLOT);
	if (p->buf == NULL)
		return -1;
	p->mr = pv_reg_mr(pd, p->buf, (size_t)(RX_DEPTH + 1) * SLOT, PV_ACCESS_LOCAL_WRITE);
	if (events)
		p->ch = pv_create_comp_channel(ctx);
	p->cq = pv_create_cq(ctx, RX_DEPTH + 2 * p->nq + 1, NULL, p->ch, 0);
	if (p->mr == NULL || (events && p->ch == NULL) || p->cq == NULL)
		return -1;
	if (kind == PP_SRQ) {
		struct pv_srq_init_attr sa = { .attr = { .max_wr = RX_DEPTH, .max_sge = 1 } };

		p->srq = pv_create_srq(pd, &sa);
		if (p->srq == NULL)
			return -1;
	}
	if (kind == PP_XSRQ)
		return pp_init_xsrq(p);
	for (q = 0; q < p->nq; q++) {
		memset(&ia, 0, sizeof(ia));
		ia.send_cq = p->cq;
		ia.recv_cq = p->cq;
		ia.srq = p->srq;
		ia.qp_type = kind == PP_UD ? PV_QPT_UD : kind == PP_UC ? PV_QPT_UC : PV_QPT_RC;
		ia.cap.max_send_wr = 1;
		ia.cap.max_recv_wr = RX_DEPTH;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		p->qp[q] = pv_create_qp(pd, &ia);
		if (p->qp[q] == NULL)
			return -1;
		memset(&a, 0, sizeof(a));
		a.qp_state = PV_QPS_INIT;
		a.pkey_index = 0;
		a.port_num = 1;
		if (kind == PP_UD) {
			a.qkey = QKEY;
			if (pv_modify_qp(p->qp[q], &a, PV_QP_STATE | PV_QP_PKEY_INDEX |
					 PV_QP_PORT | PV_QP_QKEY) != 0)
				return -1;
		} else {
			a.qp_access_flags = 0;
			if (pv_modify_qp(p->qp[q], &a, PV_QP_STATE | PV_QP_PKEY_INDEX |
					 PV_QP_PORT | PV_QP_ACCESS_FLAGS) != 0)
				return -1;
		}
		p->psn[q] = (uint32_t)(lrand48() & 0xffffff);
	}
	for (i = 0; i < RX_DEPTH; i++)
		if (pp_post_recv(p, i) != 0)
			return -1;
	if (events && pv_req_notify_cq(p->cq, 0) != 0)
		return -1;
	return 0;
}

/* pp_connect_ctx() of the examples: RTR then RTS towards @p d */
static int
pp_connect(struct pp *p, const struct pp_dest *d)
{
	struct pv_qp_attr a;
	int q;

	if (p->kind == PP_XSRQ)
		return pp_connect_xsrq(p, d);
	for (q = 0; q < p->nq; q++) {
		memset(&a, 0, sizeof(a));
		a.qp_state = PV_QPS_RTR;
		if (p->kind == PP_UD) {
			if (pv_modify_qp(p->qp[q], &a, PV_QP_STATE) != 0)
				return -1;
		} else {
			a.path_mtu = PV_MTU_1024;
			a.dest_qp_num = d[q].qpn;
			a.rq_psn = d[q].psn;
			a.ah_attr.is_global = 1;
			a.ah_attr.grh.dgid = d[q].gid;
			a.ah_attr.grh.sgid_index = sgid;
			a.ah_attr.grh.hop_limit = 1;
			a.ah_attr.port_num = 1;
			if (p->kind == PP_UC) {
				if (pv_modify_qp(p->qp[q], &a, PV_QP_STATE | PV_QP_AV |
						 PV_QP_PATH_MTU | PV_QP_DEST_QPN |
						 PV_QP_RQ_PSN) != 0)
					return -1;
			} else {
				a.max_dest_rd_atomic = 1;
				a.min_rnr_timer = 12;
				if (pv_modify_qp(p->qp[q], &a, PV_QP_STATE | PV_QP_AV |
						 PV_QP_PATH_MTU | PV_QP_DEST_QPN |
						 PV_QP_RQ_PSN | PV_QP_MAX_DEST_RD_ATOMIC |
						 PV_QP_MIN_RNR_TIMER) != 0)
					return -1;
			}
		}
		memset(&a, 0, sizeof(a));
		a.qp_state = PV_QPS_RTS;
		a.sq_psn = p->psn[q];
		if (p->kind == PP_RC || p->kind == PP_SRQ) {
			a.timeout = 14;
			a.retry_cnt = 7;
			a.rnr_retry = 7;
			a.max_rd_atomic = 1;
			if (pv_modify_qp(p->qp[q], &a, PV_QP_STATE | PV_QP_TIMEOUT |
					 PV_QP_RETRY_CNT | PV_QP_RNR_RETRY | PV_QP_SQ_PSN |
					 PV_QP_MAX_QP_RD_ATOMIC) != 0)
				return -1;
		} else if (pv_modify_qp(p->qp[q], &a, PV_QP_STATE | PV_QP_SQ_PSN) != 0) {
			return -1;
		}
		p->rqpn[q] = d[q].qpn;
	}
	if (p->kind == PP_UD) {
		struct pv_ah_attr ah;

		memset(&ah, 0, sizeof(ah));
		ah.is_global = 1;
		ah.grh.dgid = d[0].gid;
		ah.grh.sgid_index = sgid;
		ah.grh.hop_limit = 1;
		ah.port_num = 1;
		p->ah = pv_create_ah(pd, &ah);	/* never waits for ARP either */
		if (p->ah == NULL)
			return -1;
	}
	return 0;
}

/* the exchange of the examples: client first, server connects, then answers */
static int
pp_exchange(struct pp *p)
{
	struct pp_dest mine[NQ_SRQ], rem[NQ_SRQ];
	int q;

	for (q = 0; q < p->nq; q++) {
		mine[q].lid = p->srqn;		/* 0 but for xsrq */
		mine[q].qpn = p->qp[q]->qp_num;
		mine[q].psn = p->psn[q];
		if (pv_query_gid(ctx, 1, sgid, &mine[q].gid) != 0)
			return -1;
	}
	if (!is_server) {
		for (q = 0; q < p->nq; q++)
			if (dest_send(&mine[q]) != 0)
				return -1;
		/* the server connects now, while this thread blocks here */
		for (q = 0; q < p->nq; q++)
			if (dest_recv(&rem[q]) != 0)
				return -1;
		return pp_connect(p, rem);
	}
	for (q = 0; q < p->nq; q++)
		if (dest_recv(&rem[q]) != 0)
			return -1;
	if (pp_connect(p, rem) != 0)
		return -1;
	for (q = 0; q < p->nq; q++)
		if (dest_send(&mine[q]) != 0)
			return -1;
	return 0;
}

static int
pp_post_send(struct pp *p, uint32_t iter)
{
	uint8_t *s = p->buf + (size_t)RX_DEPTH * SLOT;
	int q = p->kind == PP_XSRQ ? 0 : (int)(iter % (uint32_t)p->nq);
	struct pv_sge sge = { .addr = (uintptr_t)s, .length = MSG, .lkey = p->mr->lkey };
	struct pv_send_wr wr, *bad;
	uint32_t i;

	for (i = 0; i < MSG; i++)
		s[i] = pattern(is_server, iter, i);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = RX_DEPTH + iter;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PV_WR_SEND;
	wr.send_flags = PV_SEND_SIGNALED;
	if (p->kind == PP_UD) {
		wr.wr.ud.ah = p->ah;
		wr.wr.ud.remote_qpn = p->rqpn[0];
		wr.wr.ud.remote_qkey = QKEY;
	}
	wr.qp_type.xrc.remote_srqn = p->rsrqn;	/* xsrq: the peer's XRC SRQ */
	return pv_post_send(p->qp[q], &wr, &bad);
}

/* a receive completion of message @p iter: check it, post the slot again */
static int
pp_recv_done(struct pp *p, const struct pv_wc *wc, uint32_t iter)
{
	uint32_t off = p->kind == PP_UD ? GRH : 0, i;
	const uint8_t *r;

	if (wc->wr_id >= RX_DEPTH || wc->byte_len != off + MSG) {
		fprintf(stderr, "%s: iter %u: wr_id %" PRIu64 " byte_len %u\n",
			pp_names[p->kind], iter, wc->wr_id, wc->byte_len);
		return -1;
	}
	/* xsrq: receives complete on the TGT QP (qp[1]) */
	if (wc->qp_num != p->qp[p->kind == PP_XSRQ ? 1 : iter % (uint32_t)p->nq]->qp_num) {
		fprintf(stderr, "%s: iter %u: on qp 0x%x\n", pp_names[p->kind], iter, wc->qp_num);
		return -1;
	}
	r = p->buf + wc->wr_id * SLOT + off;
	for (i = 0; i < MSG; i++) {
		if (r[i] != pattern(!is_server, iter, i)) {
			fprintf(stderr, "%s: iter %u: byte %u is %02x\n", pp_names[p->kind], iter,
				i, r[i]);
			return -1;
		}
	}
	return pp_post_recv(p, (uint32_t)wc->wr_id);
}

/* one completion of @p p, polling or through the channel as the examples */
static int
pp_next_wc(struct pp *p, struct pv_wc *wc, uint64_t end)
{
	struct pv_cq *ev_cq;
	void *ev_ctx;
	int n;

	for (;;) {
		n = pv_poll_cq(p->cq, 1, wc);
		if (n != 0)
			return n == 1 ? 0 : -1;
		if (ut_now_ms() > end)
			return -1;
		if (p->events) {
			struct pollfd pfd = { .fd = p->ch->fd, .events = POLLIN };

			/* a watchdog only; pv_get_cq_event() itself blocks */
			if (poll(&pfd, 1, (int)(end - ut_now_ms())) != 1)
				return -1;
			if (pv_get_cq_event(p->ch, &ev_cq, &ev_ctx) != 0 || ev_cq != p->cq)
				return -1;
			pv_ack_cq_events(ev_cq, 1);
			if (pv_req_notify_cq(ev_cq, 0) != 0)
				return -1;
		}
	}
}

/* wait for the send and/or the receive completion of message @p iter */
static int
pp_wait(struct pp *p, int want_send, int want_recv, uint32_t iter)
{
	uint64_t end = ut_now_ms() + WAIT_MS;
	struct pv_wc wc;

	while (want_send || want_recv) {
		if (pp_next_wc(p, &wc, end) != 0) {
			fprintf(stderr, "%s%s: iter %u: no completion\n", pp_names[p->kind],
				p->events ? " -e" : "", iter);
			return -1;
		}
		if (wc.status != PV_WC_SUCCESS) {
			fprintf(stderr, "%s: iter %u: %s\n", pp_names[p->kind], iter,
				pv_wc_status_str(wc.status));
			return -1;
		}
		if (wc.opcode == PV_WC_SEND && want_send && wc.wr_id == RX_DEPTH + iter) {
			want_send = 0;
		} else if (wc.opcode == PV_WC_RECV && want_recv) {
			if (pp_recv_done(p, &wc, iter) != 0)
				return -1;
			want_recv = 0;
		} else {
			return -1;
		}
	}
	return 0;
}

static void
pp_fini(struct pp *p)
{
	int q;

	if (p->ah != NULL)
		pv_destroy_ah(p->ah);
	for (q = 0; q < p->nq; q++)
		if (p->qp[q] != NULL)
			pv_destroy_qp(p->qp[q]);
	if (p->srq != NULL)
		pv_destroy_srq(p->srq);
	if (p->xrcd != NULL)
		pv_close_xrcd(p->xrcd);
	if (p->cq != NULL)
		pv_destroy_cq(p->cq);
	if (p->ch != NULL)
		pv_destroy_comp_channel(p->ch);
	if (p->mr != NULL)
		pv_dereg_mr(p->mr);
	free(p->buf);
}

static int
pp_run(enum pp_kind kind, int events)
{
	struct pp p;
	uint32_t it;
	int ret = -1;
	char ok;

	if (pp_init(&p, kind, events) != 0 || pp_exchange(&p) != 0)
		goto out;
	/* UD and UC lose nothing here, but a receive must be posted before the
	 * peer sends: one more TCP round trip, as the examples' sync */
	if ((is_server ? full_write(tcp, "r", 1) || full_read(tcp, &ok, 1) :
			 full_read(tcp, &ok, 1) || full_write(tcp, "r", 1)) != 0)
		goto out;
	for (it = 0; it < ITERS; it++) {
		if (!is_server) {
			if (pp_post_send(&p, it) != 0 || pp_wait(&p, 1, 1, it) != 0)
				goto out;
		} else {
			if (pp_wait(&p, 0, 1, it) != 0 || pp_post_send(&p, it) != 0 ||
			    pp_wait(&p, 1, 0, it) != 0)
				goto out;
		}
	}
	ret = 0;
out:
	pp_fini(&p);
	printf("%s: %s_pingpong%s: %s (%u iterations, %d B, payload checked)\n",
	       is_server ? "server" : "client", pp_names[kind], events ? " -e" : "",
	       ret == 0 ? "ok" : "FAILED", ITERS, MSG);
	return ret;
}

/*
 * The responder only sleeps in read() while the client does RDMA against
 * it; the requester uses the Rust ibverbs crate's defaults (timeout 4,
 * retry_cnt 6, rnr_retry 6).
 */
struct resp_info {
	uint64_t addr;
	uint32_t rkey;
	uint32_t qpn;
	uint32_t psn;
	union pv_gid gid;
};

static uint8_t
resp_pattern(int which, uint32_t i)
{
	return (uint8_t)(i * 13u + (which ? 0x5au : 0xa5u));
}

#define ATOMIC_OFF	(RESP_LEN - 64)
#define CAS_OLD		0x1122334455667788ull
#define CAS_NEW		0x0102030405060708ull
#define FADD		5

static int
resp_qp(struct pv_cq *cq, struct pv_qp **qp_p)
{
	struct pv_qp_init_attr ia;
	struct pv_qp_attr a;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = PV_QPT_RC;
	ia.cap.max_send_wr = 8;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	*qp_p = pv_create_qp(pd, &ia);
	if (*qp_p == NULL)
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = PV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = PV_ACCESS_REMOTE_WRITE | PV_ACCESS_REMOTE_READ |
			    PV_ACCESS_REMOTE_ATOMIC;
	return pv_modify_qp(*qp_p, &a, PV_QP_STATE | PV_QP_PKEY_INDEX | PV_QP_PORT |
			    PV_QP_ACCESS_FLAGS) != 0 ? -1 : 0;
}

static int
resp_connect(struct pv_qp *qp, const struct resp_info *r, uint32_t my_psn)
{
	struct pv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = PV_QPS_RTR;
	a.path_mtu = PV_MTU_1024;
	a.dest_qp_num = r->qpn;
	a.rq_psn = r->psn;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 16;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = r->gid;
	a.ah_attr.grh.sgid_index = 1;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	if (pv_modify_qp(qp, &a, PV_QP_STATE | PV_QP_AV | PV_QP_PATH_MTU | PV_QP_DEST_QPN |
			 PV_QP_RQ_PSN | PV_QP_MAX_DEST_RD_ATOMIC | PV_QP_MIN_RNR_TIMER) != 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = PV_QPS_RTS;
	a.sq_psn = my_psn;
	a.timeout = 4;		/* 65 us: the ibverbs crate's default */
	a.retry_cnt = 6;
	a.rnr_retry = 6;
	a.max_rd_atomic = 16;
	return pv_modify_qp(qp, &a, PV_QP_STATE | PV_QP_TIMEOUT | PV_QP_RETRY_CNT |
			    PV_QP_RNR_RETRY | PV_QP_SQ_PSN | PV_QP_MAX_QP_RD_ATOMIC) != 0 ? -1 : 0;
}

/* post one RDMA WR and wait for its completion (the client polls) */
static int
resp_op(struct pv_qp *qp, struct pv_cq *cq, enum pv_wr_opcode op, void *laddr, uint32_t len,
	uint32_t lkey, const struct resp_info *r, uint64_t off, uint64_t cmp, uint64_t swp)
{
	struct pv_sge sge = { .addr = (uintptr_t)laddr, .length = len, .lkey = lkey };
	struct pv_send_wr wr, *bad;
	struct pv_wc wc;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = op;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = PV_SEND_SIGNALED;
	if (op == PV_WR_ATOMIC_CMP_AND_SWP || op == PV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = r->addr + off;
		wr.wr.atomic.rkey = r->rkey;
		wr.wr.atomic.compare_add = cmp;
		wr.wr.atomic.swap = swp;
	} else {
		wr.wr.rdma.remote_addr = r->addr + off;
		wr.wr.rdma.rkey = r->rkey;
	}
	if (pv_post_send(qp, &wr, &bad) != 0 || !ut_wait_wc(cq, &wc, WAIT_MS))
		return -1;
	if (wc.status != PV_WC_SUCCESS) {
		fprintf(stderr, "client: opcode %d against a sleeping responder: %s\n", op,
			pv_wc_status_str(wc.status));
		return -1;
	}
	return 0;
}

static int
sleeping_responder(void)
{
	struct resp_info mine, rem;
	uint8_t *buf = aligned_alloc(64, RESP_LEN);
	struct pv_cq *cq = pv_create_cq(ctx, 16, NULL, NULL, 0);
	struct pv_qp *qp = NULL;
	struct pv_mr *mr = NULL;
	int ret = -1, bad = 0;
	uint64_t v;
	uint32_t i;
	char c;

	if (buf == NULL || cq == NULL)
		goto out;
	for (i = 0; i < RESP_LEN; i++)
		buf[i] = is_server ? resp_pattern(0, i) : 0;
	mr = pv_reg_mr(pd, buf, RESP_LEN, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE |
		       PV_ACCESS_REMOTE_READ | PV_ACCESS_REMOTE_ATOMIC);
	if (mr == NULL || resp_qp(cq, &qp) != 0)
		goto out;
	memset(&mine, 0, sizeof(mine));
	mine.addr = (uintptr_t)buf;
	mine.rkey = mr->rkey;
	mine.qpn = qp->qp_num;
	mine.psn = 0x4242;
	pv_query_gid(ctx, 1, 1, &mine.gid);
	if (is_server) {
		v = CAS_OLD;
		memcpy(buf + ATOMIC_OFF, &v, sizeof(v));
		if (full_read(tcp, &rem, sizeof(rem)) != 0 || resp_connect(qp, &rem, mine.psn) != 0 ||
		    full_write(tcp, &mine, sizeof(mine)) != 0)
			goto out;
		/* sleep: nothing but a blocking read() until the client is done */
		if (full_read(tcp, &c, 1) != 0)
			goto out;
		for (i = 0; i < RESP_LEN / 2; i++)
			bad += buf[i] != resp_pattern(1, i);
		for (; i < ATOMIC_OFF; i++)
			bad += buf[i] != resp_pattern(0, i);
		memcpy(&v, buf + ATOMIC_OFF, sizeof(v));
		bad += v != CAS_NEW + FADD;
		c = bad == 0 ? 'y' : 'n';
		printf("server: slept in read() while the client wrote, read and ran atomics: "
		       "memory %s\n", bad == 0 ? "as expected, byte for byte" : "WRONG");
		ret = full_write(tcp, &c, 1) == 0 && bad == 0 ? 0 : -1;
		goto out;
	}
	if (full_write(tcp, &mine, sizeof(mine)) != 0 || full_read(tcp, &rem, sizeof(rem)) != 0 ||
	    resp_connect(qp, &rem, mine.psn) != 0)
		goto out;
	/* WRITE the first half, READ it back, READ the second half (the
	 * server's own bytes), CMP_AND_SWP then FETCH_AND_ADD on one word */
	for (i = 0; i < RESP_LEN / 2; i++)
		buf[i] = resp_pattern(1, i);
	if (resp_op(qp, cq, PV_WR_RDMA_WRITE, buf, RESP_LEN / 2, mr->lkey, &rem, 0, 0, 0) != 0)
		goto out;
	memset(buf, 0, RESP_LEN);
	if (resp_op(qp, cq, PV_WR_RDMA_READ, buf, RESP_LEN, mr->lkey, &rem, 0, 0, 0) != 0)
		goto out;
	for (i = 0; i < RESP_LEN / 2; i++)
		bad += buf[i] != resp_pattern(1, i);
	for (; i < ATOMIC_OFF; i++)
		bad += buf[i] != resp_pattern(0, i);
	if (resp_op(qp, cq, PV_WR_ATOMIC_CMP_AND_SWP, buf, 8, mr->lkey, &rem, ATOMIC_OFF,
		    CAS_OLD, CAS_NEW) != 0)
		goto out;
	memcpy(&v, buf, sizeof(v));
	bad += v != CAS_OLD;
	if (resp_op(qp, cq, PV_WR_ATOMIC_FETCH_AND_ADD, buf, 8, mr->lkey, &rem, ATOMIC_OFF,
		    FADD, 0) != 0)
		goto out;
	memcpy(&v, buf, sizeof(v));
	bad += v != CAS_NEW;
	printf("client: WRITE 32 KiB, READ 64 KiB, CMP_AND_SWP, FETCH_AND_ADD against a "
	       "sleeping responder (timeout 4, retry_cnt 6): %s\n",
	       bad == 0 ? "all completed, data as expected" : "DATA WRONG");
	if (full_write(tcp, "d", 1) != 0 || full_read(tcp, &c, 1) != 0)
		goto out;
	ret = bad == 0 && c == 'y' ? 0 : -1;
out:
	if (qp != NULL)
		pv_destroy_qp(qp);
	if (mr != NULL)
		pv_dereg_mr(mr);
	if (cq != NULL)
		pv_destroy_cq(cq);
	free(buf);
	return ret;
}

/* CPU of this process (every thread) over 2 s of an idle device, in % of one core */
static int
idle_cpu(void)
{
	struct rusage r0, r1;
	uint64_t t0, t1;
	double cpu_us, pct;
	char c;

	/* both sides idle together */
	if ((is_server ? full_write(tcp, "i", 1) || full_read(tcp, &c, 1) :
			 full_read(tcp, &c, 1) || full_write(tcp, "i", 1)) != 0)
		return -1;
	getrusage(RUSAGE_SELF, &r0);
	t0 = ut_now_ms();
	sleep(2);
	getrusage(RUSAGE_SELF, &r1);
	t1 = ut_now_ms();
	cpu_us = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) * 1e6 +
		 (double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) +
		 (double)(r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) * 1e6 +
		 (double)(r1.ru_stime.tv_usec - r0.ru_stime.tv_usec);
	pct = cpu_us / ((double)(t1 - t0) * 1e3) * 100.0;
	printf("%s: idle device in background mode: %.2f %% of one core over %" PRIu64
	       " ms (getrusage, all threads; limit %.0f %%)\n",
	       is_server ? "server" : "client", pct, t1 - t0, IDLE_MAX_PCT);
	return pct < IDLE_MAX_PCT ? 0 : -1;
}

static int
tcp_connect(int fd)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int s, c, one = 1;
	uint16_t port;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0)
		return -1;
	if (is_server) {
		/* an ephemeral port, told to the client over the parent's socketpair */
		if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(s, 1) != 0 ||
		    getsockname(s, (struct sockaddr *)&sa, &len) != 0)
			return -1;
		port = sa.sin_port;
		if (full_write(fd, &port, sizeof(port)) != 0)
			return -1;
		c = accept(s, NULL, NULL);
		close(s);
		s = c;
	} else {
		if (full_read(fd, &port, sizeof(port)) != 0)
			return -1;
		sa.sin_port = port;
		if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) != 0)
			return -1;
	}
	if (s >= 0)
		setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return s;
}

static int
child(int server, const char *sockpath, int fd)
{
	char prefix[64], vdev[256], pvdev[256];
	enum pp_kind k;
	int ret, fails = 0, e;

	is_server = server;
	setvbuf(stdout, NULL, _IOLBF, 0);	/* the child ends in _exit() */
	alarm(150);	/* never outlive a hung peer */
	srand48(getpid());
	snprintf(prefix, sizeof(prefix), "ut_sroce_pat_%c%d", server ? 's' : 'c', (int)getppid());
	snprintf(vdev, sizeof(vdev), "--vdev=net_memif0,role=%s,socket=%s,socket-abstract=no",
		 server ? "server" : "client", sockpath);
	snprintf(pvdev, sizeof(pvdev), "--pv-dev=softroce:port=net_memif0,ip=10.95.0.%d",
		 server ? 1 : 2);
	ret = ut_pv_init("test_sroce_patterns", 256, prefix, server ? "0" : "1", vdev, pvdev,
			 NULL);
	if (ret < 0)
		return 77;
	ret = ut_dev_open_first(&ctx);
	if (ret != 0)
		return ret == 77 ? 77 : 1;
	pd = pv_alloc_pd(ctx);
	if (pd == NULL || pv_get_progress_mode(ctx) != PV_PROGRESS_THREAD_SAFE ||
	    ut_port_wait_active(ctx, 15000) != 0)
		return 1;
	tcp = tcp_connect(fd);
	if (tcp < 0) {
		fprintf(stderr, "%s: TCP: %s\n", server ? "server" : "client", strerror(errno));
		return 1;
	}
	for (k = PP_RC; k <= PP_XSRQ; k++)
		for (e = 0; e < 2; e++)
			fails += pp_run(k, e) != 0;
	/* -g 0: RoCEv2 over IPv6 from the link-local GID, resolved by
	 * neighbour discovery */
	sgid = 0;
	fails += pp_run(PP_RC, 0) != 0;
	fails += pp_run(PP_UD, 0) != 0;
	sgid = 1;
	fails += sleeping_responder() != 0;
	fails += idle_cpu() != 0;
	close(tcp);
	pv_dealloc_pd(pd);
	pv_close_device(ctx);
	pv_cleanup();
	return fails != 0;
}

int
main(void)
{
	return ut_fork_pair("pv-sroce-patterns", child);
}
