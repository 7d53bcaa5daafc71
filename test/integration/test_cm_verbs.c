/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * pv_rdma_verbs.h, librdmacm's verbs helpers, on connections the CM made
 * between two softroce devices over crossed net_ring ports (10.0.9.1 and
 * 10.0.9.2): registration helpers and their access rights, every post
 * helper with one buffer and with SGE lists (data compared byte for byte),
 * the blocking completion waits (a completion already there, and one that
 * arrives while the caller sleeps on the channel), UD sends after SIDR, and
 * each documented error: seterrno, a bad post, a NULL MR, EAGAIN on a
 * non-blocking channel.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <CUnit/CUnit.h>

#include "pv_rdma_cma.h"
#include "pv_rdma_verbs.h"
#include "pv_rtc.h"
#include "ut_sroce.h"

#define ADDR_A "10.0.9.1"
#define ADDR_B "10.0.9.2"
#define PORT 7480
#define LEN 3000	/* spans packets at path MTU 1024 */
#define EV_MS 10000
#define GRH 40

static struct pv_rdma_event_channel *ch_a, *ch_b;

/* the ids of one connection: client on A, server on B */
struct link {
	struct pv_rdma_cm_id *listen, *cli, *srv;
};

static void
sin_set(struct sockaddr_in *s, const char *ip, uint16_t port)
{
	memset(s, 0, sizeof(*s));
	s->sin_family = AF_INET;
	s->sin_port = htons(port);
	inet_pton(AF_INET, ip, &s->sin_addr);
}

/* The next event on @p ch other than TIMEWAIT_EXIT must be @p want. */
static struct pv_rdma_cm_event *
ev_get(struct pv_rdma_event_channel *ch, enum pv_rdma_cm_event_type want)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct pv_rdma_cm_event *ev;

	for (;;) {
		if (poll(&pfd, 1, EV_MS) != 1 || pv_rdma_get_cm_event(ch, &ev) != 0)
			return NULL;
		if (ev->event == want)
			return ev;
		if (ev->event != PV_RDMA_CM_EVENT_TIMEWAIT_EXIT) {
			fprintf(stderr, "expected %s, got %s\n", pv_rdma_event_str(want),
				pv_rdma_event_str(ev->event));
			pv_rdma_ack_cm_event(ev);
			return NULL;
		}
		pv_rdma_ack_cm_event(ev);
	}
}

static int
ev_ack(struct pv_rdma_event_channel *ch, enum pv_rdma_cm_event_type want)
{
	struct pv_rdma_cm_event *ev = ev_get(ch, want);

	if (ev == NULL)
		return -1;
	pv_rdma_ack_cm_event(ev);
	return 0;
}

/*
 * Listen on B, resolve from A and create both QPs of @p qp_type with the
 * CM's own CQs and channels (the helpers' get_*_comp wait on those), two
 * SGEs each way. Stops after the server's QP exists: the caller posts its
 * receives, then link_connect().
 */
static int
link_prepare(struct link *l, enum pv_rdma_port_space ps, enum pv_qp_type qp_type,
	     uint16_t port)
{
	const struct pv_qp_init_attr qa0 = {
		.qp_type = qp_type,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 2,
			 .max_recv_sge = 2 },
	};
	/* pv_rdma_create_qp() writes the CQs it made into the attributes */
	struct pv_qp_init_attr qa = qa0;
	struct pv_rdma_conn_param p = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
	struct pv_rdma_cm_event *ev;
	struct sockaddr_in a, b;

	memset(l, 0, sizeof(*l));
	sin_set(&b, ADDR_B, port);
	sin_set(&a, ADDR_A, 0);
	if (pv_rdma_create_id(ch_b, &l->listen, NULL, ps) != 0 ||
	    pv_rdma_bind_addr(l->listen, (struct sockaddr *)&b) != 0 ||
	    pv_rdma_listen(l->listen, 1) != 0 ||
	    pv_rdma_create_id(ch_a, &l->cli, NULL, ps) != 0 ||
	    pv_rdma_resolve_addr(l->cli, (struct sockaddr *)&a, (struct sockaddr *)&b,
				 2000) != 0 ||
	    ev_ack(ch_a, PV_RDMA_CM_EVENT_ADDR_RESOLVED) != 0 ||
	    pv_rdma_resolve_route(l->cli, 2000) != 0 ||
	    ev_ack(ch_a, PV_RDMA_CM_EVENT_ROUTE_RESOLVED) != 0 ||
	    pv_rdma_create_qp(l->cli, NULL, &qa) != 0 ||
	    pv_rdma_connect(l->cli, qp_type == PV_QPT_RC ? &p : NULL) != 0)
		return -1;
	ev = ev_get(ch_b, PV_RDMA_CM_EVENT_CONNECT_REQUEST);
	if (ev == NULL)
		return -1;
	l->srv = ev->id;
	pv_rdma_ack_cm_event(ev);
	qa = qa0;
	return pv_rdma_create_qp(l->srv, NULL, &qa);
}

/* Accept; RC: both sides ESTABLISHED. UD: the client's event is left to the caller. */
static int
link_connect(struct link *l, enum pv_qp_type qp_type)
{
	struct pv_rdma_conn_param p = { .responder_resources = 1, .initiator_depth = 1,
					.rnr_retry_count = 7 };

	if (pv_rdma_accept(l->srv, qp_type == PV_QPT_RC ? &p : NULL) != 0)
		return -1;
	if (qp_type != PV_QPT_RC)
		return 0;
	return ev_ack(ch_a, PV_RDMA_CM_EVENT_ESTABLISHED) == 0 &&
	       ev_ack(ch_b, PV_RDMA_CM_EVENT_ESTABLISHED) == 0 ? 0 : -1;
}

static void
link_down(struct link *l, enum pv_qp_type qp_type)
{
	if (qp_type == PV_QPT_RC) {
		CU_ASSERT_EQUAL(pv_rdma_disconnect(l->cli), 0);
		CU_ASSERT_EQUAL(ev_ack(ch_b, PV_RDMA_CM_EVENT_DISCONNECTED), 0);
		CU_ASSERT_EQUAL(pv_rdma_disconnect(l->srv), 0);
		CU_ASSERT_EQUAL(ev_ack(ch_a, PV_RDMA_CM_EVENT_DISCONNECTED), 0);
	}
	pv_rdma_destroy_qp(l->cli);
	pv_rdma_destroy_qp(l->srv);
	CU_ASSERT_EQUAL(pv_rdma_destroy_id(l->cli), 0);
	CU_ASSERT_EQUAL(pv_rdma_destroy_id(l->srv), 0);
	CU_ASSERT_EQUAL(pv_rdma_destroy_id(l->listen), 0);
}

static void
fill(uint8_t *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 31 + seed);
}

/* one successful completion of @p ctx, waited for on the send or receive CQ */
static int
comp(struct pv_rdma_cm_id *id, int recv, void *ctx, struct pv_wc *wc)
{
	int n = recv ? pv_rdma_get_recv_comp(id, wc) : pv_rdma_get_send_comp(id, wc);

	if (n != 1 || wc->status != PV_WC_SUCCESS || wc->wr_id != (uintptr_t)ctx) {
		fprintf(stderr, "completion: %d, status %d, wr_id %llu\n", n, wc->status,
			(unsigned long long)wc->wr_id);
		return -1;
	}
	return 0;
}

static void
test_seterrno(void)
{
	errno = 0;
	CU_ASSERT_EQUAL(pv_rdma_seterrno(0), 0);
	CU_ASSERT_EQUAL(errno, 0);
	CU_ASSERT_EQUAL(pv_rdma_seterrno(ENOMEM), -1);
	CU_ASSERT_EQUAL(errno, ENOMEM);
	errno = 0;
	CU_ASSERT_EQUAL(pv_rdma_dereg_mr(NULL), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
}

/* every post helper over RC, both completion waits, the MRs' rights */
static void
test_rc_helpers(void)
{
	uint8_t *cbuf = calloc(1, 2 * LEN), *sbuf = calloc(1, 2 * LEN);
	struct pv_mr *cmr, *smsg, *sread, *swrite;
	struct pv_sge sgl[2];
	struct pv_wc wc;
	struct link l;

	CU_ASSERT_PTR_NOT_NULL_FATAL(cbuf);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sbuf);
	CU_ASSERT_EQUAL_FATAL(link_prepare(&l, PV_RDMA_PS_TCP, PV_QPT_RC, PORT), 0);
	cmr = pv_rdma_reg_msgs(l.cli, cbuf, 2 * LEN);
	/* the server's buffer: [0, LEN) messages and READ source, [LEN, 2 LEN) WRITE target */
	smsg = pv_rdma_reg_msgs(l.srv, sbuf, LEN);
	sread = pv_rdma_reg_read(l.srv, sbuf, LEN);
	swrite = pv_rdma_reg_write(l.srv, sbuf + LEN, LEN);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cmr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(smsg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sread);
	CU_ASSERT_PTR_NOT_NULL_FATAL(swrite);
	CU_ASSERT_EQUAL(cmr->pd, l.cli->pd);
	CU_ASSERT_EQUAL(smsg->access, PV_ACCESS_LOCAL_WRITE);
	CU_ASSERT_EQUAL(sread->access, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_READ);
	CU_ASSERT_EQUAL(swrite->access, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE);

	/* receives before the connection: one buffer, then a two-SGE list */
	CU_ASSERT_EQUAL(pv_rdma_post_recv(l.srv, (void *)1, sbuf, LEN, smsg), 0);
	sgl[0] = (struct pv_sge){ (uintptr_t)sbuf, 100, smsg->lkey };
	sgl[1] = (struct pv_sge){ (uintptr_t)sbuf + 100, LEN - 100, smsg->lkey };
	CU_ASSERT_EQUAL(pv_rdma_post_recvv(l.srv, (void *)2, sgl, 2), 0);
	CU_ASSERT_EQUAL_FATAL(link_connect(&l, PV_QPT_RC), 0);

	/* SEND of one buffer */
	fill(cbuf, LEN, 1);
	CU_ASSERT_EQUAL(pv_rdma_post_send(l.cli, (void *)3, cbuf, LEN, cmr, PV_SEND_SIGNALED), 0);
	CU_ASSERT_EQUAL(comp(l.cli, 0, (void *)3, &wc), 0);
	CU_ASSERT_EQUAL(comp(l.srv, 1, (void *)1, &wc), 0);
	CU_ASSERT_EQUAL(wc.byte_len, LEN);
	CU_ASSERT_EQUAL(memcmp(sbuf, cbuf, LEN), 0);

	/* SEND of two SGEs into the two-SGE receive */
	fill(cbuf, 2 * LEN, 2);
	sgl[0] = (struct pv_sge){ (uintptr_t)cbuf, 1000, cmr->lkey };
	sgl[1] = (struct pv_sge){ (uintptr_t)cbuf + LEN, LEN - 1000, cmr->lkey };
	CU_ASSERT_EQUAL(pv_rdma_post_sendv(l.cli, (void *)4, sgl, 2, PV_SEND_SIGNALED), 0);
	CU_ASSERT_EQUAL(comp(l.cli, 0, (void *)4, &wc), 0);
	CU_ASSERT_EQUAL(comp(l.srv, 1, (void *)2, &wc), 0);
	CU_ASSERT_EQUAL(wc.byte_len, LEN);
	CU_ASSERT_EQUAL(memcmp(sbuf, cbuf, 1000), 0);
	CU_ASSERT_EQUAL(memcmp(sbuf + 1000, cbuf + LEN, LEN - 1000), 0);

	/* RDMA WRITE, one buffer then two SGEs, into the reg_write region */
	fill(cbuf, LEN, 3);
	CU_ASSERT_EQUAL(pv_rdma_post_write(l.cli, (void *)5, cbuf, LEN, cmr, PV_SEND_SIGNALED,
					   (uintptr_t)sbuf + LEN, swrite->rkey), 0);
	CU_ASSERT_EQUAL(comp(l.cli, 0, (void *)5, &wc), 0);
	CU_ASSERT_EQUAL(memcmp(sbuf + LEN, cbuf, LEN), 0);
	fill(cbuf, 2 * LEN, 4);
	sgl[0] = (struct pv_sge){ (uintptr_t)cbuf + LEN, 7, cmr->lkey };
	sgl[1] = (struct pv_sge){ (uintptr_t)cbuf, LEN - 7, cmr->lkey };
	CU_ASSERT_EQUAL(pv_rdma_post_writev(l.cli, (void *)6, sgl, 2, PV_SEND_SIGNALED,
					    (uintptr_t)sbuf + LEN, swrite->rkey), 0);
	CU_ASSERT_EQUAL(comp(l.cli, 0, (void *)6, &wc), 0);
	CU_ASSERT_EQUAL(memcmp(sbuf + LEN, cbuf + LEN, 7), 0);
	CU_ASSERT_EQUAL(memcmp(sbuf + LEN + 7, cbuf, LEN - 7), 0);

	/* RDMA READ of the reg_read region, one buffer then two SGEs */
	fill(sbuf, LEN, 5);
	memset(cbuf, 0, 2 * LEN);
	CU_ASSERT_EQUAL(pv_rdma_post_read(l.cli, (void *)7, cbuf, LEN, cmr, PV_SEND_SIGNALED,
					  (uintptr_t)sbuf, sread->rkey), 0);
	CU_ASSERT_EQUAL(comp(l.cli, 0, (void *)7, &wc), 0);
	CU_ASSERT_EQUAL(memcmp(cbuf, sbuf, LEN), 0);
	memset(cbuf, 0, 2 * LEN);
	sgl[0] = (struct pv_sge){ (uintptr_t)cbuf + LEN, 2000, cmr->lkey };
	sgl[1] = (struct pv_sge){ (uintptr_t)cbuf, LEN - 2000, cmr->lkey };
	CU_ASSERT_EQUAL(pv_rdma_post_readv(l.cli, (void *)8, sgl, 2, PV_SEND_SIGNALED,
					   (uintptr_t)sbuf, sread->rkey), 0);
	CU_ASSERT_EQUAL(comp(l.cli, 0, (void *)8, &wc), 0);
	CU_ASSERT_EQUAL(memcmp(cbuf + LEN, sbuf, 2000), 0);
	CU_ASSERT_EQUAL(memcmp(cbuf, sbuf + 2000, LEN - 2000), 0);

	/* the reg_read region refuses a WRITE: the write fails remotely */
	CU_ASSERT_EQUAL(pv_rdma_post_write(l.cli, (void *)9, cbuf, 8, cmr, PV_SEND_SIGNALED,
					   (uintptr_t)sbuf, sread->rkey), 0);
	CU_ASSERT_EQUAL(pv_rdma_get_send_comp(l.cli, &wc), 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_REM_ACCESS_ERR);

	CU_ASSERT_EQUAL(pv_rdma_dereg_mr(cmr), 0);
	CU_ASSERT_EQUAL(pv_rdma_dereg_mr(smsg), 0);
	CU_ASSERT_EQUAL(pv_rdma_dereg_mr(sread), 0);
	CU_ASSERT_EQUAL(pv_rdma_dereg_mr(swrite), 0);
	link_down(&l, PV_QPT_RC);
	free(cbuf);
	free(sbuf);
}

struct late_send {
	struct pv_rdma_cm_id *id;
	void *buf;
	struct pv_mr *mr;
	int ret;
};

static void *
late_send_run(void *arg)
{
	struct late_send *ls = arg;

	usleep(200 * 1000);
	ls->ret = pv_rdma_post_send(ls->id, (void *)11, ls->buf, 64, ls->mr, PV_SEND_SIGNALED);
	return NULL;
}

/* a receive wait that finds nothing arms the CQ and sleeps on its channel */
static void
test_comp_blocks(void)
{
	uint8_t cbuf[64], sbuf[64];
	struct late_send ls;
	struct pv_mr *cmr, *smr;
	struct pv_wc wc;
	struct link l;
	pthread_t t;
	uint64_t t0;

	CU_ASSERT_EQUAL_FATAL(link_prepare(&l, PV_RDMA_PS_TCP, PV_QPT_RC, PORT + 1), 0);
	cmr = pv_rdma_reg_msgs(l.cli, cbuf, sizeof(cbuf));
	smr = pv_rdma_reg_msgs(l.srv, sbuf, sizeof(sbuf));
	CU_ASSERT_PTR_NOT_NULL_FATAL(cmr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(smr);
	CU_ASSERT_EQUAL(pv_rdma_post_recv(l.srv, (void *)10, sbuf, sizeof(sbuf), smr), 0);
	CU_ASSERT_EQUAL_FATAL(link_connect(&l, PV_QPT_RC), 0);
	fill(cbuf, sizeof(cbuf), 9);
	memset(sbuf, 0, sizeof(sbuf));
	ls = (struct late_send){ .id = l.cli, .buf = cbuf, .mr = cmr, .ret = -1 };
	t0 = ut_now_ms();
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, late_send_run, &ls), 0);
	CU_ASSERT_EQUAL(comp(l.srv, 1, (void *)10, &wc), 0);
	CU_ASSERT(ut_now_ms() - t0 >= 150);	/* it did wait for the sender */
	pthread_join(t, NULL);
	CU_ASSERT_EQUAL(ls.ret, 0);
	CU_ASSERT_EQUAL(memcmp(sbuf, cbuf, sizeof(sbuf)), 0);
	CU_ASSERT_EQUAL(comp(l.cli, 0, (void *)11, &wc), 0);
	pv_rdma_dereg_mr(cmr);
	pv_rdma_dereg_mr(smr);
	link_down(&l, PV_QPT_RC);
}

/* errors: too many SGEs, EAGAIN from a non-blocking channel */
static void
test_errors(void)
{
	uint8_t buf[64];
	struct pv_sge sgl[3];
	struct pv_mr *mr;
	struct pv_wc wc;
	struct link l;
	int fl, i;

	CU_ASSERT_EQUAL_FATAL(link_prepare(&l, PV_RDMA_PS_TCP, PV_QPT_RC, PORT + 2), 0);
	CU_ASSERT_EQUAL_FATAL(link_connect(&l, PV_QPT_RC), 0);
	mr = pv_rdma_reg_msgs(l.cli, buf, sizeof(buf));
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	for (i = 0; i < 3; i++)
		sgl[i] = (struct pv_sge){ (uintptr_t)buf, 8, mr->lkey };
	errno = 0;
	CU_ASSERT_EQUAL(pv_rdma_post_sendv(l.cli, NULL, sgl, 3, PV_SEND_SIGNALED), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_EQUAL(pv_rdma_post_recvv(l.cli, NULL, sgl, 3), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	fl = fcntl(l.cli->send_cq_channel->fd, F_GETFL);
	CU_ASSERT_EQUAL(fcntl(l.cli->send_cq_channel->fd, F_SETFL, fl | O_NONBLOCK), 0);
	errno = 0;
	CU_ASSERT_EQUAL(pv_rdma_get_send_comp(l.cli, &wc), -1);
	CU_ASSERT_EQUAL(errno, EAGAIN);
	CU_ASSERT_EQUAL(fcntl(l.cli->send_cq_channel->fd, F_SETFL, fl), 0);
	pv_rdma_dereg_mr(mr);
	link_down(&l, PV_QPT_RC);
}

/* UD after SIDR: pv_rdma_post_ud_send() with the Q_Key of RDMA_PS_UDP */
static void
test_ud_send(void)
{
	static const char msg[] = "a datagram through pv_rdma_post_ud_send()";
	uint8_t rbuf[GRH + sizeof(msg)];
	char sbuf[sizeof(msg)];
	struct pv_rdma_cm_event *ev;
	struct pv_mr *rmr, *smr;
	struct pv_ah *ah;
	struct pv_wc wc;
	struct link l;
	uint32_t qpn;

	CU_ASSERT_EQUAL_FATAL(link_prepare(&l, PV_RDMA_PS_UDP, PV_QPT_UD, PORT + 3), 0);
	memcpy(sbuf, msg, sizeof(msg));
	memset(rbuf, 0, sizeof(rbuf));
	rmr = pv_rdma_reg_msgs(l.srv, rbuf, sizeof(rbuf));
	smr = pv_rdma_reg_msgs(l.cli, sbuf, sizeof(sbuf));
	CU_ASSERT_PTR_NOT_NULL_FATAL(rmr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(smr);
	CU_ASSERT_EQUAL(pv_rdma_post_recv(l.srv, (void *)20, rbuf, sizeof(rbuf), rmr), 0);
	CU_ASSERT_EQUAL_FATAL(link_connect(&l, PV_QPT_UD), 0);
	ev = ev_get(ch_a, PV_RDMA_CM_EVENT_ESTABLISHED);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
	CU_ASSERT_EQUAL(ev->param.ud.qkey, PV_RDMA_UDP_QKEY);
	qpn = ev->param.ud.qp_num;
	ah = pv_create_ah(l.cli->pd, &ev->param.ud.ah_attr);
	pv_rdma_ack_cm_event(ev);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ah);
	CU_ASSERT_EQUAL(pv_rdma_post_ud_send(l.cli, (void *)21, sbuf, sizeof(sbuf), smr,
					     PV_SEND_SIGNALED, ah, qpn), 0);
	CU_ASSERT_EQUAL(comp(l.cli, 0, (void *)21, &wc), 0);
	CU_ASSERT_EQUAL(comp(l.srv, 1, (void *)20, &wc), 0);
	CU_ASSERT_EQUAL(wc.byte_len, sizeof(rbuf));
	CU_ASSERT_EQUAL(memcmp(rbuf + GRH, msg, sizeof(msg)), 0);
	pv_destroy_ah(ah);
	pv_rdma_dereg_mr(rmr);
	pv_rdma_dereg_mr(smr);
	link_down(&l, PV_QPT_UD);
}

static const struct ut_case cm_verbs_cases[] = {
	{ "seterrno", test_seterrno, NULL },
	{ "rc_helpers", test_rc_helpers, NULL },
	{ "comp_blocks", test_comp_blocks, NULL },
	{ "errors", test_errors, NULL },
	{ "ud_send", test_ud_send, NULL },
	{ NULL, NULL, NULL },
};

static const struct ut_suite cm_verbs_suite = {
	.name = "cm_verbs",
	.cases = cm_verbs_cases,
};

int
main(void)
{
	int ret, fails;

	setenv("PV_CM_TIMEWAIT_MS", "50", 0);
	ret = ut_ring_pair_init("test_cm_verbs", 256, "cmv", 4096, "ip=" ADDR_A, "ip=" ADDR_B);
	if (ret != 0)
		return ret;
	ch_a = pv_rdma_create_event_channel();
	ch_b = pv_rdma_create_event_channel();
	if (ch_a == NULL || ch_b == NULL) {
		fprintf(stderr, "event channel: %s\n", strerror(errno));
		return 1;
	}
	fails = ut_cunit_run_one(&cm_verbs_suite);
	pv_rdma_destroy_event_channel(ch_a);
	pv_rdma_destroy_event_channel(ch_b);
	pv_cleanup();
	return fails != 0;
}
