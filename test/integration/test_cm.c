/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The connection manager end to end in one process: two softroce devices
 * over crossed net_ring ports (10.0.8.1 and 10.0.8.2), each with its QP1;
 * pv_rdma_* ids on both sides connect through REQ/REP/RTU MADs on the
 * wire, move data on the QPs the CM drove to RTS (compared byte for byte),
 * reject with private data, meet a port where nothing listens, resolve a
 * UD service (SIDR), time out against an address nobody answers, and
 * connect/disconnect many times without leaking.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <CUnit/CUnit.h>
#include <rte_mempool.h>

#include "pv_rdma_cma.h"
#include "pv_rtc.h"
#include "ut_sroce.h"

#define ADDR_A "10.0.8.1"
#define ADDR_B "10.0.8.2"
#define PORT 7471
#define MSG 4096
#define EV_MS 10000

static struct pv_rdma_event_channel *ch_a, *ch_b;

static void
sin_set(struct sockaddr_in *s, const char *ip, uint16_t port)
{
	memset(s, 0, sizeof(*s));
	s->sin_family = AF_INET;
	s->sin_port = htons(port);
	inet_pton(AF_INET, ip, &s->sin_addr);
}

/* next event on @p ch within @p ms: its type, with *ev_p held (or -1);
 * TIMEWAIT_EXIT of earlier connections is acknowledged and skipped */
static int
ev_wait(struct pv_rdma_event_channel *ch, struct pv_rdma_cm_event **ev_p, int ms)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };

	for (;;) {
		if (poll(&pfd, 1, ms) != 1)
			return -1;
		if (pv_rdma_get_cm_event(ch, ev_p) != 0)
			return -1;
		if ((*ev_p)->event != PV_RDMA_CM_EVENT_TIMEWAIT_EXIT)
			return (int)(*ev_p)->event;
		pv_rdma_ack_cm_event(*ev_p);
	}
}

/* wait for @p type on @p ch, acknowledge it; the event's status or -1000 */
static int
ev_expect(struct pv_rdma_event_channel *ch, enum pv_rdma_cm_event_type type,
	  struct pv_rdma_cm_id **id_p)
{
	struct pv_rdma_cm_event *ev;
	int t = ev_wait(ch, &ev, EV_MS), status;

	if (t != (int)type) {
		fprintf(stderr, "expected %s, got %s\n", pv_rdma_event_str(type),
			t < 0 ? "nothing" : pv_rdma_event_str(ev->event));
		if (t >= 0)
			pv_rdma_ack_cm_event(ev);
		return -1000;
	}
	status = ev->status;
	if (id_p != NULL)
		*id_p = ev->id;
	pv_rdma_ack_cm_event(ev);
	return status;
}

static void
qp_attr_init(struct pv_qp_init_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->qp_type = PV_QPT_RC;
	a->cap.max_send_wr = 16;
	a->cap.max_recv_wr = 16;
	a->cap.max_send_sge = 1;
	a->cap.max_recv_sge = 1;
}

/* a client id on A, resolved to @p dst_ip:@p port, with a QP of @p qpt
 * made by the CM on its default PD; 0 or -1 */
static int
cli_open(struct pv_rdma_cm_id **cli, const char *dst_ip, uint16_t port,
	 enum pv_rdma_port_space ps, enum pv_qp_type qpt)
{
	struct pv_qp_init_attr qa;
	struct sockaddr_in a, b;

	sin_set(&b, dst_ip, port);
	sin_set(&a, ADDR_A, 0);
	if (pv_rdma_create_id(ch_a, cli, NULL, ps) != 0)
		return -1;
	if (pv_rdma_resolve_addr(*cli, (struct sockaddr *)&a, (struct sockaddr *)&b, 2000) != 0 ||
	    ev_expect(ch_a, PV_RDMA_CM_EVENT_ADDR_RESOLVED, NULL) != 0 ||
	    pv_rdma_resolve_route(*cli, 2000) != 0 ||
	    ev_expect(ch_a, PV_RDMA_CM_EVENT_ROUTE_RESOLVED, NULL) != 0)
		return -1;
	qp_attr_init(&qa);
	qa.qp_type = qpt;
	return pv_rdma_create_qp(*cli, NULL, &qa) == 0 ? 0 : -1;
}

/* a listener on B:@p port; 0 or -1 */
static int
srv_listen(struct pv_rdma_cm_id **listen, uint16_t port, enum pv_rdma_port_space ps, int backlog)
{
	struct sockaddr_in b;

	sin_set(&b, ADDR_B, port);
	if (pv_rdma_create_id(ch_b, listen, NULL, ps) != 0)
		return -1;
	return pv_rdma_bind_addr(*listen, (struct sockaddr *)&b) == 0 &&
	       pv_rdma_listen(*listen, backlog) == 0 ? 0 : -1;
}

/* one RC connection: client on A, server on B */
struct conn {
	struct pv_rdma_cm_id *listen, *srv, *cli;
	struct pv_mr *mr_c, *mr_s;
	uint8_t *buf_c, *buf_s;
};

static int
conn_up(struct conn *c, uint16_t port, const void *req_pd, uint8_t req_len,
	const void *rep_pd, uint8_t rep_len)
{
	struct pv_rdma_conn_param p;
	struct pv_qp_init_attr qa;
	struct pv_rdma_cm_event *ev;

	memset(c, 0, sizeof(*c));
	if (srv_listen(&c->listen, port, PV_RDMA_PS_TCP, 4) != 0)
		return -1;
	if (cli_open(&c->cli, ADDR_B, port, PV_RDMA_PS_TCP, PV_QPT_RC) != 0)
		return -2;
	memset(&p, 0, sizeof(p));
	p.private_data = req_pd;
	p.private_data_len = req_len;
	p.responder_resources = 4;
	p.initiator_depth = 4;
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	if (pv_rdma_connect(c->cli, &p) != 0)
		return -4;
	if (ev_wait(ch_b, &ev, EV_MS) != PV_RDMA_CM_EVENT_CONNECT_REQUEST)
		return -5;
	c->srv = ev->id;
	if (ev->listen_id != c->listen || ev->param.conn.private_data_len != 56 ||
	    (req_len && memcmp(ev->param.conn.private_data, req_pd, req_len) != 0) ||
	    ev->param.conn.qp_num != c->cli->qp->qp_num ||
	    ev->param.conn.responder_resources != 4 || ev->param.conn.initiator_depth != 4) {
		pv_rdma_ack_cm_event(ev);
		return -6;
	}
	pv_rdma_ack_cm_event(ev);
	if (ntohs(pv_rdma_get_src_port(c->srv)) != port ||
	    pv_rdma_get_dst_port(c->srv) != pv_rdma_get_src_port(c->cli))
		return -7;
	qp_attr_init(&qa);
	if (pv_rdma_create_qp(c->srv, NULL, &qa) != 0)
		return -8;
	memset(&p, 0, sizeof(p));
	p.private_data = rep_pd;
	p.private_data_len = rep_len;
	p.responder_resources = 4;
	p.initiator_depth = 4;
	p.rnr_retry_count = 7;
	if (pv_rdma_accept(c->srv, &p) != 0)
		return -9;
	if (ev_wait(ch_a, &ev, EV_MS) != PV_RDMA_CM_EVENT_ESTABLISHED)
		return -10;
	if (ev->param.conn.private_data_len != 196 ||
	    (rep_len && memcmp(ev->param.conn.private_data, rep_pd, rep_len) != 0) ||
	    ev->param.conn.qp_num != c->srv->qp->qp_num) {
		pv_rdma_ack_cm_event(ev);
		return -11;
	}
	pv_rdma_ack_cm_event(ev);
	if (ev_expect(ch_b, PV_RDMA_CM_EVENT_ESTABLISHED, NULL) != 0)
		return -12;
	return 0;
}

static int
conn_down(struct conn *c)
{
	int ret = 0;

	if (pv_rdma_disconnect(c->cli) != 0)
		ret = -1;
	if (ev_expect(ch_b, PV_RDMA_CM_EVENT_DISCONNECTED, NULL) != 0)
		ret = -2;
	if (pv_rdma_disconnect(c->srv) != 0)
		ret = -3;
	if (ev_expect(ch_a, PV_RDMA_CM_EVENT_DISCONNECTED, NULL) != 0)
		ret = -4;
	pv_rdma_destroy_qp(c->cli);
	pv_rdma_destroy_qp(c->srv);
	if (pv_rdma_destroy_id(c->cli) != 0 || pv_rdma_destroy_id(c->srv) != 0 ||
	    pv_rdma_destroy_id(c->listen) != 0)
		ret = -5;
	return ret;
}

/* a completion on @p cq through its channel (the CM made both) */
static int
comp_wait(struct pv_rdma_cm_id *id, int recv, struct pv_wc *wc)
{
	struct pv_cq *cq = recv ? id->recv_cq : id->send_cq;
	uint64_t end = ut_now_ms() + EV_MS;

	while (ut_now_ms() < end) {
		int n = pv_poll_cq(cq, 1, wc);

		if (n == 1)
			return wc->status == PV_WC_SUCCESS ? 0 : -(int)wc->status;
		if (n < 0)
			return -1000;
	}
	return -1001;
}

static void
test_rc_connect_data(void)
{
	static const char req_pd[] = "hello from the active side";
	static const char rep_pd[] = "and this is the passive side's REP";
	struct pv_sge sge;
	struct pv_send_wr swr, *sbad;
	struct pv_recv_wr rwr, *rbad;
	struct pv_wc wc;
	struct conn c;
	int i;

	CU_ASSERT_EQUAL_FATAL(conn_up(&c, PORT, req_pd, sizeof(req_pd), rep_pd, sizeof(rep_pd)), 0);
	c.buf_c = calloc(1, MSG);
	c.buf_s = calloc(1, MSG);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c.buf_c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c.buf_s);
	for (i = 0; i < MSG; i++)
		c.buf_c[i] = (uint8_t)(i * 7 + 3);
	c.mr_c = pv_reg_mr(c.cli->pd, c.buf_c, MSG, PV_ACCESS_LOCAL_WRITE);
	c.mr_s = pv_reg_mr(c.srv->pd, c.buf_s, MSG, PV_ACCESS_LOCAL_WRITE |
			   PV_ACCESS_REMOTE_WRITE | PV_ACCESS_REMOTE_READ);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c.mr_c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c.mr_s);
	/* SEND: client -> server */
	sge = (struct pv_sge){ (uintptr_t)c.buf_s, MSG, c.mr_s->lkey };
	rwr = (struct pv_recv_wr){ .wr_id = 1, .sg_list = &sge, .num_sge = 1 };
	CU_ASSERT_EQUAL(pv_post_recv(c.srv->qp, &rwr, &rbad), 0);
	sge = (struct pv_sge){ (uintptr_t)c.buf_c, MSG, c.mr_c->lkey };
	memset(&swr, 0, sizeof(swr));
	swr.wr_id = 2;
	swr.sg_list = &sge;
	swr.num_sge = 1;
	swr.opcode = PV_WR_SEND;
	swr.send_flags = PV_SEND_SIGNALED;
	CU_ASSERT_EQUAL(pv_post_send(c.cli->qp, &swr, &sbad), 0);
	CU_ASSERT_EQUAL(comp_wait(c.cli, 0, &wc), 0);
	CU_ASSERT_EQUAL(comp_wait(c.srv, 1, &wc), 0);
	CU_ASSERT_EQUAL(wc.byte_len, MSG);
	CU_ASSERT_EQUAL(memcmp(c.buf_c, c.buf_s, MSG), 0);
	/* RDMA WRITE and READ on the rights the CM gave (responder resources 4) */
	memset(c.buf_s, 0, MSG);
	swr.opcode = PV_WR_RDMA_WRITE;
	swr.wr.rdma.remote_addr = (uintptr_t)c.buf_s;
	swr.wr.rdma.rkey = c.mr_s->rkey;
	CU_ASSERT_EQUAL(pv_post_send(c.cli->qp, &swr, &sbad), 0);
	CU_ASSERT_EQUAL(comp_wait(c.cli, 0, &wc), 0);
	CU_ASSERT_EQUAL(memcmp(c.buf_c, c.buf_s, MSG), 0);
	for (i = 0; i < MSG; i++)
		c.buf_s[i] = (uint8_t)(i * 13 + 1);
	swr.opcode = PV_WR_RDMA_READ;
	CU_ASSERT_EQUAL(pv_post_send(c.cli->qp, &swr, &sbad), 0);
	CU_ASSERT_EQUAL(comp_wait(c.cli, 0, &wc), 0);
	CU_ASSERT_EQUAL(memcmp(c.buf_c, c.buf_s, MSG), 0);
	/* SEND: server -> client, on the PSN the REQ gave the passive side */
	for (i = 0; i < MSG; i++)
		c.buf_s[i] = (uint8_t)(i * 5 + 9);
	sge = (struct pv_sge){ (uintptr_t)c.buf_c, MSG, c.mr_c->lkey };
	CU_ASSERT_EQUAL(pv_post_recv(c.cli->qp, &rwr, &rbad), 0);
	sge = (struct pv_sge){ (uintptr_t)c.buf_s, MSG, c.mr_s->lkey };
	swr.opcode = PV_WR_SEND;
	CU_ASSERT_EQUAL(pv_post_send(c.srv->qp, &swr, &sbad), 0);
	CU_ASSERT_EQUAL(comp_wait(c.srv, 0, &wc), 0);
	CU_ASSERT_EQUAL(comp_wait(c.cli, 1, &wc), 0);
	CU_ASSERT_EQUAL(wc.byte_len, MSG);
	CU_ASSERT_EQUAL(memcmp(c.buf_c, c.buf_s, MSG), 0);
	pv_dereg_mr(c.mr_c);
	pv_dereg_mr(c.mr_s);
	free(c.buf_c);
	free(c.buf_s);
	CU_ASSERT_EQUAL(conn_down(&c), 0);
}

/* move @p qp through @p states with what pv_rdma_init_qp_attr gives; 0 or -1 */
static int
user_qp_move(struct pv_rdma_cm_id *id, struct pv_qp *qp, const enum pv_qp_state *states, int n)
{
	struct pv_qp_attr a;
	int i, mask;

	for (i = 0; i < n; i++) {
		memset(&a, 0, sizeof(a));
		a.qp_state = states[i];
		if (pv_rdma_init_qp_attr(id, &a, &mask) != 0 || pv_modify_qp(qp, &a, mask) != 0)
			return -1;
	}
	return 0;
}

/* a QP the application owns, on its own CQ, in INIT for @p id */
static struct pv_qp *
user_qp_make(struct pv_rdma_cm_id *id, struct pv_pd *pd, struct pv_cq *cq)
{
	static const enum pv_qp_state init[] = { PV_QPS_INIT };
	struct pv_qp_init_attr qa;
	struct pv_qp *qp;

	qp_attr_init(&qa);
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qp = pv_create_qp(pd, &qa);
	if (qp != NULL && user_qp_move(id, qp, init, 1) != 0) {
		pv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

/* one SEND of @p len bytes from @p sq to @p rq, checked byte for byte */
static int
user_qp_send(struct pv_qp *sq, struct pv_cq *scq, struct pv_mr *smr,
	     struct pv_qp *rq, struct pv_cq *rcq, struct pv_mr *rmr, uint8_t seed)
{
	struct pv_sge ss = { (uintptr_t)smr->addr, MSG, smr->lkey };
	struct pv_sge rs = { (uintptr_t)rmr->addr, MSG, rmr->lkey };
	struct pv_recv_wr rwr = { .wr_id = 1, .sg_list = &rs, .num_sge = 1 }, *rbad;
	struct pv_send_wr swr, *sbad;
	uint64_t end = ut_now_ms() + EV_MS;
	int i, got_s = 0, got_r = 0;
	struct pv_wc wc;

	for (i = 0; i < MSG; i++)
		((uint8_t *)smr->addr)[i] = (uint8_t)(i * 11 + seed);
	memset(rmr->addr, 0, MSG);
	memset(&swr, 0, sizeof(swr));
	swr.wr_id = 2;
	swr.sg_list = &ss;
	swr.num_sge = 1;
	swr.opcode = PV_WR_SEND;
	swr.send_flags = PV_SEND_SIGNALED;
	if (pv_post_recv(rq, &rwr, &rbad) != 0 || pv_post_send(sq, &swr, &sbad) != 0)
		return -1;
	while ((!got_s || !got_r) && ut_now_ms() < end) {
		if (pv_poll_cq(scq, 1, &wc) == 1) {
			if (wc.status != PV_WC_SUCCESS)
				return -2;
			got_s += wc.wr_id == 2;
			got_r += wc.wr_id == 1;
		}
		if (rcq != scq && pv_poll_cq(rcq, 1, &wc) == 1) {
			if (wc.status != PV_WC_SUCCESS)
				return -3;
			got_r += wc.wr_id == 1;
		}
	}
	if (!got_s || !got_r)
		return -4;
	return memcmp(smr->addr, rmr->addr, MSG) == 0 ? 0 : -5;
}

/* applications that own their QPs (rping's and the kernel ULPs' way):
 * pv_rdma_init_qp_attr gives both sides the PSNs the REQ and REP carry
 * before accept and after CONNECT_RESPONSE; SENDs both ways prove them */
static void
test_user_qp(void)
{
	static const enum pv_qp_state rtr_rts[] = { PV_QPS_RTR, PV_QPS_RTS };
	struct pv_rdma_cm_id *listen, *srv = NULL, *cli;
	struct pv_qp *qp_c, *qp_s = NULL;
	struct pv_rdma_conn_param p;
	struct pv_rdma_cm_event *ev;
	struct pv_cq *cq_c, *cq_s = NULL;
	struct pv_pd *pd_c, *pd_s = NULL;
	struct pv_mr *mr_c, *mr_s = NULL;
	struct sockaddr_in a, b;
	uint8_t *buf_c, *buf_s;

	buf_c = calloc(1, MSG);
	buf_s = calloc(1, MSG);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf_c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf_s);
	CU_ASSERT_EQUAL_FATAL(srv_listen(&listen, PORT + 3, PV_RDMA_PS_TCP, 4), 0);
	sin_set(&b, ADDR_B, PORT + 3);
	sin_set(&a, ADDR_A, 0);
	CU_ASSERT_EQUAL_FATAL(pv_rdma_create_id(ch_a, &cli, NULL, PV_RDMA_PS_TCP), 0);
	CU_ASSERT_EQUAL_FATAL(pv_rdma_resolve_addr(cli, (struct sockaddr *)&a,
						   (struct sockaddr *)&b, 2000), 0);
	CU_ASSERT_EQUAL_FATAL(ev_expect(ch_a, PV_RDMA_CM_EVENT_ADDR_RESOLVED, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(pv_rdma_resolve_route(cli, 2000), 0);
	CU_ASSERT_EQUAL_FATAL(ev_expect(ch_a, PV_RDMA_CM_EVENT_ROUTE_RESOLVED, NULL), 0);
	pd_c = pv_alloc_pd(cli->verbs);
	cq_c = pv_create_cq(cli->verbs, 32, NULL, NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pd_c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq_c);
	qp_c = user_qp_make(cli, pd_c, cq_c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp_c);
	mr_c = pv_reg_mr(pd_c, buf_c, MSG, PV_ACCESS_LOCAL_WRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr_c);
	memset(&p, 0, sizeof(p));
	p.qp_num = qp_c->qp_num;
	p.responder_resources = 1;
	p.initiator_depth = 1;
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	CU_ASSERT_EQUAL_FATAL(pv_rdma_connect(cli, &p), 0);
	/* passive: own QP to RTS before accept, as the kernel's ULPs do */
	CU_ASSERT_EQUAL_FATAL(ev_wait(ch_b, &ev, EV_MS), PV_RDMA_CM_EVENT_CONNECT_REQUEST);
	srv = ev->id;
	CU_ASSERT_EQUAL(ev->param.conn.qp_num, qp_c->qp_num);
	pv_rdma_ack_cm_event(ev);
	pd_s = pv_alloc_pd(srv->verbs);
	cq_s = pv_create_cq(srv->verbs, 32, NULL, NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pd_s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq_s);
	qp_s = user_qp_make(srv, pd_s, cq_s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp_s);
	CU_ASSERT_EQUAL_FATAL(user_qp_move(srv, qp_s, rtr_rts, 2), 0);
	mr_s = pv_reg_mr(pd_s, buf_s, MSG, PV_ACCESS_LOCAL_WRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr_s);
	memset(&p, 0, sizeof(p));
	p.qp_num = qp_s->qp_num;
	p.responder_resources = 1;
	p.initiator_depth = 1;
	p.rnr_retry_count = 7;
	CU_ASSERT_EQUAL_FATAL(pv_rdma_accept(srv, &p), 0);
	/* active: CONNECT_RESPONSE, own QP to RTS, then RTU */
	CU_ASSERT_EQUAL_FATAL(ev_wait(ch_a, &ev, EV_MS), PV_RDMA_CM_EVENT_CONNECT_RESPONSE);
	CU_ASSERT_EQUAL(ev->param.conn.qp_num, qp_s->qp_num);
	pv_rdma_ack_cm_event(ev);
	CU_ASSERT_EQUAL_FATAL(user_qp_move(cli, qp_c, rtr_rts, 2), 0);
	CU_ASSERT_EQUAL_FATAL(pv_rdma_establish(cli), 0);
	CU_ASSERT_EQUAL_FATAL(ev_expect(ch_b, PV_RDMA_CM_EVENT_ESTABLISHED, NULL), 0);
	/* the PSNs agree both ways: a mismatch drops every packet */
	CU_ASSERT_EQUAL(user_qp_send(qp_c, cq_c, mr_c, qp_s, cq_s, mr_s, 1), 0);
	CU_ASSERT_EQUAL(user_qp_send(qp_s, cq_s, mr_s, qp_c, cq_c, mr_c, 2), 0);
	CU_ASSERT_EQUAL(pv_rdma_disconnect(cli), 0);
	CU_ASSERT_EQUAL(ev_expect(ch_b, PV_RDMA_CM_EVENT_DISCONNECTED, NULL), 0);
	CU_ASSERT_EQUAL(pv_rdma_disconnect(srv), 0);
	CU_ASSERT_EQUAL(ev_expect(ch_a, PV_RDMA_CM_EVENT_DISCONNECTED, NULL), 0);
	CU_ASSERT_EQUAL(pv_destroy_qp(qp_c), 0);
	CU_ASSERT_EQUAL(pv_destroy_qp(qp_s), 0);
	CU_ASSERT_EQUAL(pv_dereg_mr(mr_c), 0);
	CU_ASSERT_EQUAL(pv_dereg_mr(mr_s), 0);
	CU_ASSERT_EQUAL(pv_destroy_cq(cq_c), 0);
	CU_ASSERT_EQUAL(pv_destroy_cq(cq_s), 0);
	CU_ASSERT_EQUAL(pv_dealloc_pd(pd_c), 0);
	CU_ASSERT_EQUAL(pv_dealloc_pd(pd_s), 0);
	CU_ASSERT_EQUAL(pv_rdma_destroy_id(cli), 0);
	CU_ASSERT_EQUAL(pv_rdma_destroy_id(srv), 0);
	CU_ASSERT_EQUAL(pv_rdma_destroy_id(listen), 0);
	free(buf_c);
	free(buf_s);
}

static void
test_reject_private_data(void)
{
	static const char rej_pd[] = "go away";
	struct pv_rdma_cm_id *listen, *cli, *srv;
	struct pv_rdma_cm_event *ev;

	CU_ASSERT_EQUAL_FATAL(srv_listen(&listen, PORT + 1, PV_RDMA_PS_TCP, 0), 0);
	CU_ASSERT_EQUAL_FATAL(cli_open(&cli, ADDR_B, PORT + 1, PV_RDMA_PS_TCP, PV_QPT_RC), 0);
	CU_ASSERT_EQUAL(pv_rdma_connect(cli, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(ev_wait(ch_b, &ev, EV_MS), PV_RDMA_CM_EVENT_CONNECT_REQUEST);
	srv = ev->id;
	/* a NULL conn_param asks for the device's maximum (librdmacm) */
	CU_ASSERT(ev->param.conn.responder_resources > 0);
	pv_rdma_ack_cm_event(ev);
	CU_ASSERT_EQUAL(pv_rdma_reject(srv, rej_pd, sizeof(rej_pd)), 0);
	CU_ASSERT_EQUAL_FATAL(ev_wait(ch_a, &ev, EV_MS), PV_RDMA_CM_EVENT_REJECTED);
	CU_ASSERT_EQUAL(ev->status, 28);	/* consumer defined */
	CU_ASSERT_EQUAL(ev->param.conn.private_data_len, 148);
	CU_ASSERT_EQUAL(memcmp(ev->param.conn.private_data, rej_pd, sizeof(rej_pd)), 0);
	pv_rdma_ack_cm_event(ev);
	pv_rdma_destroy_qp(cli);
	CU_ASSERT_EQUAL(pv_rdma_destroy_id(cli), 0);
	CU_ASSERT_EQUAL(pv_rdma_destroy_id(srv), 0);
	CU_ASSERT_EQUAL(pv_rdma_destroy_id(listen), 0);
}

static void
test_no_listener(void)
{
	struct pv_rdma_cm_id *cli;

	CU_ASSERT_EQUAL_FATAL(cli_open(&cli, ADDR_B, 7999, PV_RDMA_PS_TCP, PV_QPT_RC), 0);
	CU_ASSERT_EQUAL(pv_rdma_connect(cli, NULL), 0);
	/* the peer's CM answers itself: REJ reason 8, invalid service ID */
	CU_ASSERT_EQUAL(ev_expect(ch_a, PV_RDMA_CM_EVENT_REJECTED, NULL), 8);
	pv_rdma_destroy_qp(cli);
	CU_ASSERT_EQUAL(pv_rdma_destroy_id(cli), 0);
}

static void
test_ud_sidr(void)
{
	static const char msg[] = "a UD datagram after SIDR";
	struct pv_rdma_cm_id *listen, *cli, *srv;
	struct pv_rdma_cm_event *ev;
	struct pv_qp_init_attr qa;
	struct pv_ah *ah;
	struct pv_sge sge;
	struct pv_send_wr swr, *sbad;
	struct pv_recv_wr rwr, *rbad;
	struct pv_wc wc;
	uint8_t *sbuf, *rbuf;
	struct pv_mr *smr, *rmr;
	uint32_t rqpn, rqkey;

	CU_ASSERT_EQUAL_FATAL(srv_listen(&listen, PORT + 2, PV_RDMA_PS_UDP, 0), 0);
	CU_ASSERT_EQUAL_FATAL(cli_open(&cli, ADDR_B, PORT + 2, PV_RDMA_PS_UDP, PV_QPT_UD), 0);
	CU_ASSERT_EQUAL(pv_rdma_connect(cli, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(ev_wait(ch_b, &ev, EV_MS), PV_RDMA_CM_EVENT_CONNECT_REQUEST);
	srv = ev->id;
	pv_rdma_ack_cm_event(ev);
	qp_attr_init(&qa);
	qa.qp_type = PV_QPT_UD;
	CU_ASSERT_EQUAL_FATAL(pv_rdma_create_qp(srv, NULL, &qa), 0);
	rbuf = calloc(1, 40 + sizeof(msg));
	sbuf = calloc(1, sizeof(msg));
	memcpy(sbuf, msg, sizeof(msg));
	rmr = pv_reg_mr(srv->pd, rbuf, 40 + sizeof(msg), PV_ACCESS_LOCAL_WRITE);
	smr = pv_reg_mr(cli->pd, sbuf, sizeof(msg), PV_ACCESS_LOCAL_WRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rmr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(smr);
	sge = (struct pv_sge){ (uintptr_t)rbuf, 40 + sizeof(msg), rmr->lkey };
	rwr = (struct pv_recv_wr){ .wr_id = 1, .sg_list = &sge, .num_sge = 1 };
	CU_ASSERT_EQUAL(pv_post_recv(srv->qp, &rwr, &rbad), 0);
	CU_ASSERT_EQUAL(pv_rdma_accept(srv, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(ev_wait(ch_a, &ev, EV_MS), PV_RDMA_CM_EVENT_ESTABLISHED);
	CU_ASSERT_EQUAL(ev->param.ud.qp_num, srv->qp->qp_num);
	CU_ASSERT_EQUAL(ev->param.ud.qkey, PV_RDMA_UDP_QKEY);
	rqpn = ev->param.ud.qp_num;
	rqkey = ev->param.ud.qkey;
	ah = pv_create_ah(cli->pd, &ev->param.ud.ah_attr);
	pv_rdma_ack_cm_event(ev);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ah);
	sge = (struct pv_sge){ (uintptr_t)sbuf, sizeof(msg), smr->lkey };
	memset(&swr, 0, sizeof(swr));
	swr.wr_id = 2;
	swr.sg_list = &sge;
	swr.num_sge = 1;
	swr.opcode = PV_WR_SEND;
	swr.send_flags = PV_SEND_SIGNALED;
	swr.wr.ud.ah = ah;
	swr.wr.ud.remote_qpn = rqpn;
	swr.wr.ud.remote_qkey = rqkey;
	CU_ASSERT_EQUAL(pv_post_send(cli->qp, &swr, &sbad), 0);
	CU_ASSERT_EQUAL(comp_wait(cli, 0, &wc), 0);
	CU_ASSERT_EQUAL(comp_wait(srv, 1, &wc), 0);
	CU_ASSERT_EQUAL(wc.byte_len, 40 + sizeof(msg));
	CU_ASSERT_EQUAL(memcmp(rbuf + 40, msg, sizeof(msg)), 0);
	pv_destroy_ah(ah);
	pv_rdma_destroy_qp(cli);
	pv_rdma_destroy_qp(srv);
	pv_dereg_mr(rmr);
	pv_dereg_mr(smr);
	free(rbuf);
	free(sbuf);
	CU_ASSERT_EQUAL(pv_rdma_destroy_id(cli), 0);
	CU_ASSERT_EQUAL(pv_rdma_destroy_id(srv), 0);
	CU_ASSERT_EQUAL(pv_rdma_destroy_id(listen), 0);
}

static void
test_unreachable(void)
{
	struct pv_rdma_cm_id *cli;
	uint64_t t0, dt;
	int status;

	/* nobody has 10.0.8.9: the REQ waits for ARP and is retried
	 * PV_CM_MAX_RETRIES times (set in main) */
	CU_ASSERT_EQUAL_FATAL(cli_open(&cli, "10.0.8.9", PORT, PV_RDMA_PS_TCP, PV_QPT_RC), 0);
	t0 = ut_now_ms();
	CU_ASSERT_EQUAL(pv_rdma_connect(cli, NULL), 0);
	status = ev_expect(ch_a, PV_RDMA_CM_EVENT_UNREACHABLE, NULL);
	dt = ut_now_ms() - t0;
	CU_ASSERT_EQUAL(status, -ETIMEDOUT);
	printf("\nunreachable after %lu ms\n", (unsigned long)dt);
	pv_rdma_destroy_qp(cli);
	CU_ASSERT_EQUAL(pv_rdma_destroy_id(cli), 0);
}

/* what a connection holds: objects on the PD and context the CM uses, and
 * mbufs out of both devices' pools (taken after the queues drained) */
struct leak_count {
	uint32_t pd_use, ctx_use;
	unsigned int mbufs;
};

static void
leak_count(struct pv_rdma_cm_id *id, struct leak_count *lc)
{
	struct rte_mempool *m0 = rte_mempool_lookup("sroce0_mp");
	struct rte_mempool *m1 = rte_mempool_lookup("sroce1_mp");

	ut_spin(100);
	lc->pd_use = id->pd->usecnt;
	lc->ctx_use = id->verbs->usecnt;
	lc->mbufs = (m0 != NULL ? rte_mempool_in_use_count(m0) : 0) +
		    (m1 != NULL ? rte_mempool_in_use_count(m1) : 0);
}

static void
test_cycles(void)
{
	int n = getenv("PV_CM_CYCLES") != NULL ? atoi(getenv("PV_CM_CYCLES")) : 1000, i;
	struct leak_count before, after;
	uint64_t t0, dt;
	struct conn c;

	/* one connection first: QP1s, CM PDs and pools are warm */
	CU_ASSERT_EQUAL_FATAL(conn_up(&c, 19999, NULL, 0, NULL, 0), 0);
	leak_count(c.cli, &before);
	CU_ASSERT_EQUAL_FATAL(conn_down(&c), 0);
	t0 = ut_now_ms();
	for (i = 0; i < n; i++) {
		int r = conn_up(&c, (uint16_t)(20000 + i % 1000), NULL, 0, NULL, 0);

		CU_ASSERT_EQUAL(r, 0);
		if (r != 0) {
			fprintf(stderr, "cycle %d: conn_up %d\n", i, r);
			break;
		}
		if (i == n - 1)
			leak_count(c.cli, &after);
		CU_ASSERT_EQUAL_FATAL(conn_down(&c), 0);
	}
	dt = ut_now_ms() - t0;
	printf("\n%d connect/disconnect cycles in %lu ms: %.0f connections/s\n", i,
	       (unsigned long)dt, dt ? i * 1000.0 / (double)dt : 0.0);
	printf("held with one connection up: PD objects %u -> %u, context objects %u -> %u, "
	       "mbufs %u -> %u\n", before.pd_use, after.pd_use, before.ctx_use, after.ctx_use,
	       before.mbufs, after.mbufs);
	CU_ASSERT_EQUAL(after.pd_use, before.pd_use);
	CU_ASSERT_EQUAL(after.ctx_use, before.ctx_use);
	CU_ASSERT(after.mbufs <= before.mbufs + 64);	/* frames in flight at that instant */
}

static void
test_nonblocking_channel(void)
{
	struct pv_rdma_cm_event *ev;
	int fl = fcntl(ch_a->fd, F_GETFL);

	CU_ASSERT_EQUAL(fcntl(ch_a->fd, F_SETFL, fl | O_NONBLOCK), 0);
	errno = 0;
	CU_ASSERT_EQUAL(pv_rdma_get_cm_event(ch_a, &ev), -1);
	CU_ASSERT_EQUAL(errno, EAGAIN);
	CU_ASSERT_EQUAL(fcntl(ch_a->fd, F_SETFL, fl), 0);
}

static const struct ut_case cm_cases[] = {
	{ "nonblocking_channel", test_nonblocking_channel, NULL },
	{ "rc_connect_data", test_rc_connect_data, NULL },
	{ "user_qp", test_user_qp, NULL },
	{ "reject_private_data", test_reject_private_data, NULL },
	{ "no_listener", test_no_listener, NULL },
	{ "ud_sidr", test_ud_sidr, NULL },
	{ "unreachable", test_unreachable, NULL },
	{ "cycles", test_cycles, NULL },
	{ NULL, NULL, NULL },
};

static const struct ut_suite cm_suite = {
	.name = "cm",
	.cases = cm_cases,
};

int
main(void)
{
	int ret, fails;

	/* short CM timeouts: 4.096 us * 2^14 = 67 ms, 3 retries */
	setenv("PV_CM_RESPONSE_TIMEOUT", "14", 0);
	setenv("PV_CM_MAX_RETRIES", "3", 0);
	setenv("PV_CM_TIMEWAIT_MS", "50", 0);
	ret = ut_ring_pair_init("test_cm", 256, "cm", 4096, "ip=" ADDR_A, "ip=" ADDR_B);
	if (ret != 0)
		return ret;
	ch_a = pv_rdma_create_event_channel();
	ch_b = pv_rdma_create_event_channel();
	if (ch_a == NULL || ch_b == NULL) {
		fprintf(stderr, "event channel: %s\n", strerror(errno));
		return 1;
	}
	fails = ut_cunit_run_one(&cm_suite);
	pv_rdma_destroy_event_channel(ch_a);
	pv_rdma_destroy_event_channel(ch_b);
	pv_cleanup();
	return fails != 0;
}
