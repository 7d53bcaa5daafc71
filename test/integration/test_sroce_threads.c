/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Threads and progress (issue 9), in one process: two softroce devices on
 * crossed net_ring ports in the default mode (PV_PROGRESS_THREAD_SAFE), and
 * the test never calls pv_progress(): what the application does not drive,
 * the progress thread does.
 *
 *   any_order          QPs of two devices connected from one thread, one
 *                      fully (RTR, RTS) before the other: RTR returns at once,
 *                      ARP happens behind it.
 *   one_qp_two_threads one thread posts on a QP, another polls its CQ (as
 *                      rping); a third polls the receiver; every WR completes
 *                      once, every payload compared byte for byte.
 *   one_cq_two_threads two threads poll one CQ: every completion seen once.
 *   event_thread       a thread blocked in pv_get_cq_event() receives
 *                      everything another thread sends.
 *   arp_dead           an RC QP towards an address nobody answers: RTR
 *                      returns at once, the SEND ends in RETRY_EXC_ERR.
 *   app_mode_event     PV_PROGRESS_APP chosen before objects exist; a
 *                      blocking pv_get_cq_event() progresses the device.
 *
 * Also built with -fsanitize=thread (suite 'threads', make test's TSan pass).
 */

#include <poll.h>
#include <unistd.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "pv_rtc.h"
#include "pv_sroce.h"
#include "pv_verbs.h"
#include "ut_common.h"
#include "ut_sroce.h"

#define N_MSG		3000
#define MSG		64
#define DEPTH		256
#define WAIT_MS		20000	/* the whole exchange, on a loaded 2-core machine */

static struct pv_context *ctx[2];
static struct pv_pd *pd[2];

/* a QP pair with one CQ per QP side, and buffers */
struct tpair {
	struct pv_cq *scq[2], *rcq[2];
	struct pv_comp_channel *ch;	/* of rcq[1], when asked for */
	struct pv_qp *qp[2];
	uint8_t *buf[2];
	struct pv_mr *mr[2];
};

static uint8_t
pattern(uint64_t id, uint32_t i)
{
	return (uint8_t)(id * 131u + i * 7u + 1u);
}

/* @p channel: rcq[1] gets a completion channel; @p b_first: B is connected first */
static int
tpair_up(struct tpair *t, int channel, int b_first)
{
	struct pv_qp_init_attr ia;
	struct ut_peer peer[2];
	uint64_t t0;
	int i, k;

	memset(t, 0, sizeof(*t));
	if (channel) {
		t->ch = pv_create_comp_channel(ctx[1]);
		if (t->ch == NULL)
			return -1;
	}
	for (i = 0; i < 2; i++) {
		t->scq[i] = pv_create_cq(ctx[i], DEPTH * 2, NULL, NULL, 0);
		t->rcq[i] = pv_create_cq(ctx[i], N_MSG + 16, NULL, i == 1 ? t->ch : NULL, 0);
		t->buf[i] = calloc(N_MSG, MSG);
		if (t->scq[i] == NULL || t->rcq[i] == NULL || t->buf[i] == NULL)
			return -1;
		t->mr[i] = pv_reg_mr(pd[i], t->buf[i], (size_t)N_MSG * MSG,
				     PV_ACCESS_LOCAL_WRITE);
		memset(&ia, 0, sizeof(ia));
		ia.send_cq = t->scq[i];
		ia.recv_cq = t->rcq[i];
		ia.qp_type = PV_QPT_RC;
		ia.cap.max_send_wr = DEPTH;
		ia.cap.max_recv_wr = N_MSG;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		t->qp[i] = pv_create_qp(pd[i], &ia);
		if (t->mr[i] == NULL || t->qp[i] == NULL)
			return -1;
		peer[i].qpn = t->qp[i]->qp_num;
		peer[i].psn = 0x1000 * (i + 1);
		pv_query_gid(ctx[i], 1, 1, &peer[i].gid);
	}
	/* one side completely, then the other: no step waits for the peer */
	for (k = 0; k < 2; k++) {
		i = b_first ? 1 - k : k;
		t0 = ut_now_ms();
		if (ut_qp_init(t->qp[i], &ut_qp_defaults) != 0 ||
		    ut_qp_rtr(t->qp[i], &ut_qp_defaults, &peer[1 - i], PV_MTU_1024) != 0 ||
		    ut_qp_rts(t->qp[i], &ut_qp_defaults, peer[i].psn) != 0)
			return -1;
		/* ARP took 3 s of polling here before issue 9 */
		CU_ASSERT(ut_now_ms() - t0 < 500);
	}
	return 0;
}

static void
tpair_down(struct tpair *t)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (t->qp[i] != NULL)
			pv_destroy_qp(t->qp[i]);
		if (t->mr[i] != NULL)
			pv_dereg_mr(t->mr[i]);
		if (t->scq[i] != NULL)
			pv_destroy_cq(t->scq[i]);
		if (t->rcq[i] != NULL)
			pv_destroy_cq(t->rcq[i]);
		free(t->buf[i]);
	}
	if (t->ch != NULL)
		pv_destroy_comp_channel(t->ch);
}

/* B's receive buffers, all posted up front (one per message) */
static int
post_all_recvs(struct tpair *t)
{
	uint32_t i;

	for (i = 0; i < N_MSG; i++)
		if (ut_post_recv1(t->qp[1], i, t->buf[1] + (size_t)i * MSG, MSG,
				  t->mr[1]->lkey) != 0)
			return -1;
	return 0;
}

/* state shared by the threads of one case (all atomics) */
struct shared {
	struct tpair *t;
	uint32_t sent_done;		/* send completions seen */
	uint32_t recvd;			/* receive completions seen */
	uint32_t errors;		/* bad status, duplicate, wrong payload */
	uint8_t seen[N_MSG];		/* per wr_id: completions (exchange) */
	int stop;
};

/* check receive completion @p wc of message number @p n; @return 0 or 1 error */
static uint32_t
recv_check(struct shared *s, const struct pv_wc *wc)
{
	const uint8_t *p;
	uint32_t i;

	if (wc->status != PV_WC_SUCCESS || wc->wr_id >= N_MSG || wc->byte_len != MSG)
		return 1;
	if (__atomic_exchange_n(&s->seen[wc->wr_id], 1, __ATOMIC_RELAXED) != 0)
		return 1;
	/* RC delivers in order: receive WQE i holds message i */
	p = s->t->buf[1] + wc->wr_id * MSG;
	for (i = 0; i < MSG; i++)
		if (p[i] != pattern(wc->wr_id, i))
			return 1;
	return 0;
}

/* post the N_MSG SENDs of A, at most DEPTH outstanding (sent_done from the poller) */
static void *
sender(void *arg)
{
	struct shared *s = arg;
	uint8_t *src = malloc(MSG * DEPTH);
	struct pv_mr *mr = src != NULL ? pv_reg_mr(pd[0], src, MSG * DEPTH, 0) : NULL;
	uint64_t end = ut_now_ms() + WAIT_MS;
	uint32_t i, k;

	if (mr == NULL) {
		__atomic_fetch_add(&s->errors, 1, __ATOMIC_RELAXED);
		free(src);
		return NULL;
	}
	for (i = 0; i < N_MSG && ut_now_ms() < end;) {
		if (i - __atomic_load_n(&s->sent_done, __ATOMIC_ACQUIRE) >= DEPTH)
			continue;
		/* the slot's previous SEND completed: its bytes may be rewritten */
		for (k = 0; k < MSG; k++)
			src[(i % DEPTH) * MSG + k] = pattern(i, k);
		if (ut_post_send1(s->t->qp[0], PV_WR_SEND, i, src + (i % DEPTH) * MSG, MSG,
				  mr->lkey, 0, 0, 0) != 0) {
			__atomic_fetch_add(&s->errors, 1, __ATOMIC_RELAXED);
			break;
		}
		i++;
	}
	/* the MR stays until the sends completed */
	while (__atomic_load_n(&s->sent_done, __ATOMIC_ACQUIRE) < i && ut_now_ms() < end)
		;
	pv_dereg_mr(mr);
	free(src);
	return NULL;
}

/* poll A's send CQ until every SEND completed */
static void *
send_poller(void *arg)
{
	struct shared *s = arg;
	uint64_t end = ut_now_ms() + WAIT_MS;
	struct pv_wc wc[16];
	uint64_t next = 0;
	int n, i;

	while (__atomic_load_n(&s->sent_done, __ATOMIC_RELAXED) < N_MSG && ut_now_ms() < end) {
		n = pv_poll_cq(s->t->scq[0], 16, wc);
		for (i = 0; i < n; i++) {
			/* one QP: completions in posting order */
			if (wc[i].status != PV_WC_SUCCESS || wc[i].wr_id != next)
				__atomic_fetch_add(&s->errors, 1, __ATOMIC_RELAXED);
			next++;
		}
		if (n > 0)
			__atomic_fetch_add(&s->sent_done, (uint32_t)n, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* poll B's receive CQ (several pollers may share it) */
static void *
recv_poller(void *arg)
{
	struct shared *s = arg;
	uint64_t end = ut_now_ms() + WAIT_MS;
	struct pv_wc wc[8];
	uint32_t err;
	int n, i;

	while (__atomic_load_n(&s->recvd, __ATOMIC_RELAXED) < N_MSG && ut_now_ms() < end) {
		n = pv_poll_cq(s->t->rcq[1], 8, wc);
		for (i = 0, err = 0; i < n; i++)
			err += recv_check(s, &wc[i]);
		if (n > 0) {
			__atomic_fetch_add(&s->recvd, (uint32_t)n, __ATOMIC_RELAXED);
			__atomic_fetch_add(&s->errors, err, __ATOMIC_RELAXED);
		}
	}
	return NULL;
}

static void
run_threads(void *(*fns[])(void *), int n, struct shared *s)
{
	pthread_t th[4];
	int i;

	for (i = 0; i < n; i++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, fns[i], s), 0);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
}

static void
check_all_received(struct shared *s)
{
	uint32_t i, missing = 0;

	CU_ASSERT_EQUAL(s->sent_done, N_MSG);
	CU_ASSERT_EQUAL(s->recvd, N_MSG);
	CU_ASSERT_EQUAL(s->errors, 0);
	for (i = 0; i < N_MSG; i++)
		missing += s->seen[i] != 1;
	CU_ASSERT_EQUAL(missing, 0);
}

/*
 * Connect a pair (B first when @p b_first; a channel on B's receive CQ when
 * @p channel), post every receive, run @p n threads of @p fns, check.
 */
static void
run_case(int channel, int b_first, void *(*fns[])(void *), int n)
{
	struct tpair t;
	struct shared *s = calloc(1, sizeof(*s));

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	s->t = &t;
	if (tpair_up(&t, channel, b_first) != 0 || post_all_recvs(&t) != 0) {
		CU_FAIL("pair set-up");
		goto out;
	}
	run_threads(fns, n, s);
	check_all_received(s);
out:
	tpair_down(&t);
	free(s);
}

/* B connected before A; the first frames may wait for ARP */
static void
test_any_order(void)
{
	void *(*fns[])(void *) = { sender, send_poller, recv_poller };

	run_case(0, 1, fns, 3);
}

/* one QP, the posting and the polling of its send queue in two threads */
static void
test_one_qp_two_threads(void)
{
	void *(*fns[])(void *) = { sender, send_poller, recv_poller };

	run_case(0, 0, fns, 3);
}

/* one CQ, two threads polling it */
static void
test_one_cq_two_threads(void)
{
	void *(*fns[])(void *) = { sender, send_poller, recv_poller, recv_poller };

	run_case(0, 0, fns, 4);
}

/* the receiver only blocks in pv_get_cq_event(): the examples' -e loop */
static void *
event_receiver(void *arg)
{
	struct shared *s = arg;
	uint64_t end = ut_now_ms() + WAIT_MS;
	struct pv_cq *ev_cq;
	struct pv_wc wc[8];
	void *ev_ctx;
	uint32_t err;
	int n, i;

	if (pv_req_notify_cq(s->t->rcq[1], 0) != 0)
		goto fail;
	while (__atomic_load_n(&s->recvd, __ATOMIC_RELAXED) < N_MSG) {
		struct pollfd pfd = { .fd = s->t->ch->fd, .events = POLLIN };

		/* a watchdog only: the fd is blocking, pv_get_cq_event() waits */
		if (ut_now_ms() > end || poll(&pfd, 1, (int)(end - ut_now_ms())) != 1)
			goto fail;
		if (pv_get_cq_event(s->t->ch, &ev_cq, &ev_ctx) != 0 || ev_cq != s->t->rcq[1])
			goto fail;
		pv_ack_cq_events(ev_cq, 1);
		if (pv_req_notify_cq(ev_cq, 0) != 0)
			goto fail;
		do {
			n = pv_poll_cq(ev_cq, 8, wc);
			for (i = 0, err = 0; i < n; i++)
				err += recv_check(s, &wc[i]);
			if (n > 0) {
				__atomic_fetch_add(&s->recvd, (uint32_t)n, __ATOMIC_RELAXED);
				__atomic_fetch_add(&s->errors, err, __ATOMIC_RELAXED);
			}
		} while (n > 0);
	}
	return NULL;
fail:
	__atomic_fetch_add(&s->errors, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void
test_event_thread(void)
{
	void *(*fns[])(void *) = { event_receiver, sender, send_poller };

	run_case(1, 0, fns, 3);
}

/* RTR towards an address that never answers ARP: no wait, then RETRY_EXC_ERR */
static void
test_arp_dead(void)
{
	struct ut_qp_opts o = ut_qp_defaults;
	struct pv_sroce_stats st;
	struct ut_peer peer;
	struct pv_cq *cq;
	struct pv_qp *qp;
	struct pv_mr *mr;
	struct pv_wc wc;
	uint8_t buf[64];
	uint64_t t0;

	o.timeout = 8;		/* 1 ms */
	o.retry_cnt = 2;
	memset(&peer, 0, sizeof(peer));
	peer.qpn = 0x11;
	CU_ASSERT_EQUAL_FATAL(ut_gid_ipv4("10.0.9.77", &peer.gid), 0);
	cq = pv_create_cq(ctx[0], 16, NULL, NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq);
	qp = ut_qp_create(pd[0], cq, 16);
	mr = pv_reg_mr(pd[0], buf, sizeof(buf), PV_ACCESS_LOCAL_WRITE);
	CU_ASSERT_FATAL(qp != NULL && mr != NULL);
	t0 = ut_now_ms();
	CU_ASSERT_EQUAL_FATAL(ut_qp_init(qp, &o), 0);
	CU_ASSERT_EQUAL_FATAL(ut_qp_rtr(qp, &o, &peer, PV_MTU_1024), 0);
	CU_ASSERT_EQUAL_FATAL(ut_qp_rts(qp, &o, 0), 0);
	CU_ASSERT(ut_now_ms() - t0 < 500);
	CU_ASSERT_EQUAL(ut_post_send1(qp, PV_WR_SEND, 7, buf, sizeof(buf), mr->lkey, 0, 0, 0), 0);
	CU_ASSERT_FATAL(ut_wait_wc(cq, &wc, 10000));
	CU_ASSERT_EQUAL(wc.wr_id, 7);
	CU_ASSERT_EQUAL(wc.status, PV_WC_RETRY_EXC_ERR);
	CU_ASSERT_EQUAL(pv_sroce_stats_get(ctx[0], &st), 0);
	CU_ASSERT(st.neigh_queued >= 1);	/* the frames waited for the neighbour */
	/* the resolution fails after arp_timeout_ms (500 ms here), frames dropped */
	t0 = ut_now_ms();
	while (st.neigh_pending != 0 && ut_now_ms() - t0 < 5000) {
		usleep(10000);
		pv_sroce_stats_get(ctx[0], &st);
	}
	CU_ASSERT_EQUAL(st.neigh_pending, 0);
	CU_ASSERT(st.neigh_failed >= 1);
	pv_destroy_qp(qp);
	pv_dereg_mr(mr);
	pv_destroy_cq(cq);
}

/* the next completion of @p cq, waited for in pv_get_cq_event() only */
static int
loop_event_wc(struct pv_comp_channel *ch, struct pv_cq *cq, struct pv_wc *wc)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct pv_cq *ev_cq;
	void *ev_ctx;

	for (;;) {
		if (pv_poll_cq(cq, 1, wc) == 1)
			return 0;
		/* a watchdog: pv_get_cq_event() blocks by itself */
		if (poll(&pfd, 1, 10000) != 1 || pv_get_cq_event(ch, &ev_cq, &ev_ctx) != 0)
			return -1;
		pv_ack_cq_events(ev_cq, 1);
		if (pv_req_notify_cq(cq, 0) != 0)
			return -1;
	}
}

/*
 * Loopback in thread-safe mode: two RC QPs of device A connected to each
 * other (A's own GID) while the only application thread sleeps in
 * pv_get_cq_event(): the progress thread carries the frames through the
 * loopback ring, the ACKs and the completions. SEND and a 64 KiB WRITE,
 * bytes compared.
 */
static void
test_loopback_sleep(void)
{
	struct ut_qp_opts o = ut_qp_defaults;
	struct pv_comp_channel *ch;
	struct ut_peer peer[2];
	uint8_t *src, *dst;
	struct pv_mr *ms, *md;
	struct pv_qp *qp[2];
	struct pv_cq *cq;
	struct pv_wc wc;
	int i, got;

	CU_ASSERT_EQUAL(pv_get_progress_mode(ctx[0]), PV_PROGRESS_THREAD_SAFE);
	ch = pv_create_comp_channel(ctx[0]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	cq = pv_create_cq(ctx[0], 64, NULL, ch, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq);
	src = calloc(1, 65536);
	dst = calloc(1, 65536);
	CU_ASSERT_FATAL(src != NULL && dst != NULL);
	ms = pv_reg_mr(pd[0], src, 65536, PV_ACCESS_LOCAL_WRITE);
	md = pv_reg_mr(pd[0], dst, 65536, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE);
	CU_ASSERT_FATAL(ms != NULL && md != NULL);
	for (i = 0; i < 2; i++) {
		qp[i] = ut_qp_create(pd[0], cq, 16);
		CU_ASSERT_PTR_NOT_NULL_FATAL(qp[i]);
		memset(&peer[i], 0, sizeof(peer[i]));
		peer[i].qpn = qp[i]->qp_num;
		peer[i].psn = 0x100 * (uint32_t)i;
		CU_ASSERT_EQUAL(pv_query_gid(ctx[0], 1, 1, &peer[i].gid), 0);
		CU_ASSERT_EQUAL_FATAL(ut_qp_init(qp[i], &o), 0);
	}
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL_FATAL(ut_qp_rtr(qp[i], &o, &peer[1 - i], PV_MTU_1024), 0);
		CU_ASSERT_EQUAL_FATAL(ut_qp_rts(qp[i], &o, peer[i].psn), 0);
	}
	CU_ASSERT_EQUAL(pv_req_notify_cq(cq, 0), 0);
	for (i = 0; i < 65536; i++)
		src[i] = (uint8_t)(i * 11 + 1);
	CU_ASSERT_EQUAL(ut_post_recv1(qp[1], 20, dst, 4096, md->lkey), 0);
	CU_ASSERT_EQUAL(ut_post_send1(qp[0], PV_WR_SEND, 10, src, 3000, ms->lkey, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(ut_post_send1(qp[0], PV_WR_RDMA_WRITE, 11, src, 65536, ms->lkey,
				      (uintptr_t)dst, md->rkey, 0), 0);
	for (got = 0; got < 3; got++) {
		CU_ASSERT_EQUAL_FATAL(loop_event_wc(ch, cq, &wc), 0);
		CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
		if (wc.wr_id == 20) {
			CU_ASSERT_EQUAL(wc.byte_len, 3000);
			CU_ASSERT_EQUAL(wc.qp_num, qp[1]->qp_num);
		}
	}
	/* the WRITE followed the SEND on the same QP: it overwrote the SEND's bytes */
	CU_ASSERT_EQUAL(memcmp(dst, src, 65536), 0);
	for (i = 0; i < 2; i++)
		CU_ASSERT_EQUAL(pv_destroy_qp(qp[i]), 0);
	CU_ASSERT_EQUAL(pv_dereg_mr(ms), 0);
	CU_ASSERT_EQUAL(pv_dereg_mr(md), 0);
	CU_ASSERT_EQUAL(pv_destroy_cq(cq), 0);
	CU_ASSERT_EQUAL(pv_destroy_comp_channel(ch), 0);
	free(src);
	free(dst);
}

/*
 * PV_PROGRESS_APP: the mode is chosen before objects exist (EBUSY after),
 * and a blocking pv_get_cq_event() progresses the device itself: nobody
 * else does in this mode.
 */
static void
test_app_mode_event(void)
{
	struct pv_comp_channel *ch;
	struct pv_cq *cqs[2], *ev_cq;
	struct ut_pair p;
	struct pv_mr *mr[2];
	struct pv_wc wc;
	uint8_t src[MSG], dst[MSG];
	void *ev_ctx;
	int i;

	cqs[0] = pv_create_cq(ctx[0], 16, NULL, NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cqs[0]);
	CU_ASSERT_EQUAL(pv_set_progress_mode(ctx[0], PV_PROGRESS_APP), EBUSY);
	CU_ASSERT_EQUAL(pv_destroy_cq(cqs[0]), 0);
	CU_ASSERT_EQUAL(pv_set_progress_mode(ctx[0], (enum pv_progress_mode)7), EINVAL);
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL_FATAL(pv_set_progress_mode(ctx[i], PV_PROGRESS_APP), 0);
		CU_ASSERT_EQUAL(pv_get_progress_mode(ctx[i]), PV_PROGRESS_APP);
	}
	ch = pv_create_comp_channel(ctx[1]);
	cqs[0] = pv_create_cq(ctx[0], 16, NULL, NULL, 0);
	cqs[1] = pv_create_cq(ctx[1], 16, NULL, ch, 0);
	CU_ASSERT_FATAL(ch != NULL && cqs[0] != NULL && cqs[1] != NULL);
	CU_ASSERT_EQUAL_FATAL(ut_pair_rtr(&p, pd, cqs, 16, &ut_qp_defaults, &ut_qp_defaults,
					  0x100, 0x200, PV_MTU_1024), 0);
	CU_ASSERT_EQUAL_FATAL(ut_pair_rts(&p, &ut_qp_defaults, &ut_qp_defaults), 0);
	mr[0] = pv_reg_mr(pd[0], src, sizeof(src), PV_ACCESS_LOCAL_WRITE);
	mr[1] = pv_reg_mr(pd[1], dst, sizeof(dst), PV_ACCESS_LOCAL_WRITE);
	CU_ASSERT_FATAL(mr[0] != NULL && mr[1] != NULL);
	for (i = 0; i < MSG; i++)
		src[i] = pattern(99, (uint32_t)i);
	memset(dst, 0, sizeof(dst));
	CU_ASSERT_EQUAL(ut_post_recv1(p.qb, 1, dst, sizeof(dst), mr[1]->lkey), 0);
	CU_ASSERT_EQUAL(pv_req_notify_cq(cqs[1], 0), 0);
	CU_ASSERT_EQUAL(ut_post_send1(p.qa, PV_WR_SEND, 2, src, sizeof(src), mr[0]->lkey, 0, 0,
				      0), 0);
	/* blocks in this thread, which is the only one progressing B */
	alarm(30);
	CU_ASSERT_EQUAL(pv_get_cq_event(ch, &ev_cq, &ev_ctx), 0);
	alarm(0);
	CU_ASSERT_PTR_EQUAL(ev_cq, cqs[1]);
	pv_ack_cq_events(cqs[1], 1);
	CU_ASSERT_EQUAL(pv_poll_cq(cqs[1], 1, &wc), 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(src, dst, MSG), 0);
	CU_ASSERT(ut_wait_wc(cqs[0], &wc, 5000));	/* A's own progress: its poll */
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	pv_destroy_qp(p.qa);
	pv_destroy_qp(p.qb);
	pv_dereg_mr(mr[0]);
	pv_dereg_mr(mr[1]);
	pv_destroy_cq(cqs[0]);
	pv_destroy_cq(cqs[1]);
	pv_destroy_comp_channel(ch);
	for (i = 0; i < 2; i++)
		CU_ASSERT_EQUAL(pv_set_progress_mode(ctx[i], PV_PROGRESS_THREAD_SAFE), 0);
}

static const struct ut_case threads_cases[] = {
	{ "any_order", test_any_order, NULL },
	{ "one_qp_two_threads", test_one_qp_two_threads, NULL },
	{ "one_cq_two_threads", test_one_cq_two_threads, NULL },
	{ "event_thread", test_event_thread, NULL },
	{ "arp_dead", test_arp_dead, NULL },
	{ "loopback_sleep", test_loopback_sleep, NULL },
	{ "app_mode_event", test_app_mode_event, NULL },
	{ NULL, NULL, NULL },
};

static const struct ut_suite threads_suite = { "sroce_threads", NULL, NULL, threads_cases };

int
main(void)
{
	int ret, fails;

	/* A gives up on a silent neighbour after 500 ms (arp_dead) */
	ret = ut_ring_pair_init("test_sroce_threads", 256, "thr", 4096,
				"ip=10.0.9.1,arp_timeout_ms=500", "ip=10.0.9.2");
	if (ret != 0)
		return ret;
	if (ut_devs_open_mt(ctx, pd) != 0)
		return 1;
	fails = ut_cunit_run_one(&threads_suite);
	ut_devs_close_mt(ctx, pd);
	return fails != 0;
}
