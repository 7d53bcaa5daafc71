/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * softroce asynchronous events, read with pv_get_async_event() on a
 * non-blocking async_fd and acknowledged with pv_ack_async_event():
 *   - PORT_ACTIVE when a net_memif peer connects and PORT_ERR when it goes
 *     (two child processes, forked before any EAL), query_port agreeing;
 *   - PORT_ERR / PORT_ACTIVE on every open context when a net_ring port's
 *     link is set down and up (rte_eth_dev_set_link_down/up);
 *   - COMM_EST once, when a QP in RTR receives its first request;
 *   - QP_ACCESS_ERR on the responder of a WRITE with a bad rkey;
 *   - QP_REQ_ERR on the responder of a misaligned atomic.
 * QP events are checked against events_completed after the ack.
 */

#include <arpa/inet.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CUnit/Basic.h>
#include <rte_common.h>
#include <rte_ethdev.h>

#include "pv_rtc.h"
#include "pv_verbs.h"
#include "ut_sroce.h"

#define DEPTH 64
#define BUF 65536
#define EVENT_WAIT_MS 3000	/* the link is polled every 100 ms */

static struct pv_context *ctx[2];
static struct pv_pd *pd[2];
static struct pv_cq *cq[2];
static uint8_t *lbuf, *rbuf;
static struct pv_mr *lmr, *rmr;
static struct ut_buf *lb, *rb;
static int memif_result = -1;	/* exit status of the memif server child */

/* ---------------------------------------------------------------------- */
/* events                                                                 */

/* wait for the next event of @p c, progressing the test's contexts; 0 or -1 */
static int
event_wait(struct pv_context *c, struct pv_async_event *ev, uint32_t ms)
{
	uint64_t end = ut_now_ms() + ms;

	for (;;) {
		if (pv_get_async_event(c, ev) == 0)
			return 0;
		if (errno != EAGAIN || ut_now_ms() > end)
			return -1;
		ut_progress();
		usleep(200);
	}
}

/* no event queued on @p c */
static int
event_none(struct pv_context *c)
{
	struct pv_async_event ev;

	if (pv_get_async_event(c, &ev) == 0) {
		fprintf(stderr, "unexpected event %s\n", pv_event_type_str(ev.event_type));
		pv_ack_async_event(&ev);
		return 0;
	}
	return errno == EAGAIN;
}

static enum pv_port_state
port_state(struct pv_context *c)
{
	struct pv_port_attr pa;

	if (pv_query_port(c, 1, &pa) != 0)
		return PV_PORT_NOP;
	return pa.state;
}

/* ---------------------------------------------------------------------- */
/* memif: two children                                                    */

static int
memif_init(const char *role, const char *sockpath, int ipb)
{
	char prefix[64], vdev[256], pvdev[128];
	int ret;

	snprintf(prefix, sizeof(prefix), "ut_sroce_ev_%s%d", role, (int)getppid());
	snprintf(vdev, sizeof(vdev), "--vdev=net_memif0,role=%s,socket=%s,socket-abstract=no",
		 role, sockpath);
	snprintf(pvdev, sizeof(pvdev), "--pv-dev=softroce:port=net_memif0,ip=10.97.0.%d", ipb);
	if (ut_pv_init("test_sroce_events", 256, prefix, "0", vdev, pvdev, NULL) < 0)
		return 77;
	ret = ut_dev_open_first(&ctx[0]);
	if (ret != 0)
		return ret == 77 ? 77 : 1;
	ut_progress_ctx[0] = ctx[0];
	return 0;
}

static void
memif_fini(void)
{
	pv_close_device(ctx[0]);
	pv_cleanup();
}

/*
 * The observer: alone, its port is down; it tells the parent, which starts
 * the client; PORT_ACTIVE must follow, then PORT_ERR once the client left.
 * Exit codes name the step that failed.
 */
static int
memif_server(const char *sockpath, int fd)
{
	struct pv_async_event ev;
	int ret;

	ret = memif_init("server", sockpath, 1);
	if (ret != 0)
		return ret;
	if (ut_async_nonblock(ctx[0]) != 0)
		return 2;
	ut_spin(300);	/* a poll or two of the link monitor */
	if (port_state(ctx[0]) != PV_PORT_DOWN)
		return 3;
	if (!event_none(ctx[0]))
		return 4;
	if (write(fd, "R", 1) != 1)
		return 5;
	if (event_wait(ctx[0], &ev, 10000) != 0)
		return 6;
	if (ev.event_type != PV_EVENT_PORT_ACTIVE || ev.element.port_num != 1)
		return 7;
	if (port_state(ctx[0]) != PV_PORT_ACTIVE)
		return 8;
	pv_ack_async_event(&ev);
	if (write(fd, "A", 1) != 1)
		return 9;
	if (event_wait(ctx[0], &ev, 10000) != 0)
		return 10;
	if (ev.event_type != PV_EVENT_PORT_ERR || ev.element.port_num != 1)
		return 11;
	if (port_state(ctx[0]) != PV_PORT_DOWN)
		return 12;
	pv_ack_async_event(&ev);
	if (!event_none(ctx[0]))
		return 13;
	memif_fini();
	return 0;
}

/* The peer: connects, waits to be told, leaves. */
static int
memif_client(const char *sockpath, int fd)
{
	char c;
	int ret;

	ret = memif_init("client", sockpath, 2);
	if (ret != 0)
		return ret;
	if (read(fd, &c, 1) != 1)
		return 2;
	memif_fini();
	return 0;
}

static int
child_status(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return 1;
	return WEXITSTATUS(st);
}

/* @return the server's exit status (77: skip) */
static int
memif_run(void)
{
	char sockpath[108], c;
	int ss[2], cs[2], rc, crc;
	pid_t srv, cli = -1;

	snprintf(sockpath, sizeof(sockpath), "/tmp/pv-sroce-ev-%d.sock", (int)getpid());
	unlink(sockpath);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, ss) != 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, cs) != 0)
		return 1;
	srv = fork();
	if (srv == 0) {
		alarm(60);	/* never outlive a hung peer */
		_exit(memif_server(sockpath, ss[1]));
	}
	if (srv < 0)
		return 1;
	if (read(ss[0], &c, 1) == 1 && c == 'R') {
		cli = fork();
		if (cli == 0) {
			alarm(60);
			_exit(memif_client(sockpath, cs[1]));
		}
		/* the client leaves once the server saw it arrive */
		if (read(ss[0], &c, 1) != 1)
			c = 0;
		(void)write(cs[0], "X", 1);
	}
	close(ss[0]);
	close(cs[0]);
	rc = child_status(srv);
	if (cli > 0) {
		crc = child_status(cli);
		if (rc == 0 && crc != 0)
			rc = 100 + crc;
	}
	close(ss[1]);
	close(cs[1]);
	unlink(sockpath);
	return rc;
}

static void
test_memif_peer_port_events(void)
{
	if (memif_result == 77) {
		fprintf(stderr, "net_memif not available: skipped\n");
		return;
	}
	if (memif_result != 0)
		fprintf(stderr, "memif server failed at step %d\n", memif_result);
	else
		fprintf(stderr, "memif: PORT_ACTIVE on connect, PORT_ERR on leave\n");
	CU_ASSERT_EQUAL(memif_result, 0);
}

/* ---------------------------------------------------------------------- */
/* net_ring, one process                                                  */

/* qa (ctx 0) and qb (ctx 1) to RTR; RTS only when @p rts */
static int
pair_connect(struct ut_pair *p, int rts)
{
	int ret;

	ret = ut_pair_rtr(p, pd, cq, DEPTH, &ut_qp_defaults, &ut_qp_defaults, 0x100, 0x200,
			  PV_MTU_1024);
	if (ret == 0 && rts)
		ret = ut_pair_rts(p, &ut_qp_defaults, &ut_qp_defaults);
	return ret;
}

static void
pair_destroy(struct ut_pair *p)
{
	ut_cq_drain(cq, 2, 5);
	if (p->qa != NULL)
		CU_ASSERT_EQUAL(pv_destroy_qp(p->qa), 0);
	if (p->qb != NULL)
		CU_ASSERT_EQUAL(pv_destroy_qp(p->qb), 0);
}

static void
test_ring_link_down_up(void)
{
	struct pv_context *again;
	struct pv_async_event ev;
	uint16_t port_id;

	CU_ASSERT_EQUAL_FATAL(rte_eth_dev_get_port_by_name("net_ring_sroce_ev_a", &port_id), 0);
	/* a second context on the same device gets the same events */
	again = pv_open_device(ctx[0]->device);
	CU_ASSERT_PTR_NOT_NULL_FATAL(again);
	CU_ASSERT_EQUAL_FATAL(ut_async_nonblock(again), 0);
	CU_ASSERT_EQUAL(port_state(ctx[0]), PV_PORT_ACTIVE);
	CU_ASSERT_TRUE(event_none(ctx[0]));

	CU_ASSERT_EQUAL_FATAL(rte_eth_dev_set_link_down(port_id), 0);
	CU_ASSERT_EQUAL_FATAL(event_wait(ctx[0], &ev, EVENT_WAIT_MS), 0);
	CU_ASSERT_EQUAL(ev.event_type, PV_EVENT_PORT_ERR);
	CU_ASSERT_EQUAL(ev.element.port_num, 1);
	/* query_port agrees with the event */
	CU_ASSERT_EQUAL(port_state(ctx[0]), PV_PORT_DOWN);
	pv_ack_async_event(&ev);
	CU_ASSERT_EQUAL_FATAL(event_wait(again, &ev, EVENT_WAIT_MS), 0);
	CU_ASSERT_EQUAL(ev.event_type, PV_EVENT_PORT_ERR);
	pv_ack_async_event(&ev);
	/* the other device's link did not move */
	CU_ASSERT_TRUE(event_none(ctx[1]));
	CU_ASSERT_EQUAL(port_state(ctx[1]), PV_PORT_ACTIVE);

	CU_ASSERT_EQUAL_FATAL(rte_eth_dev_set_link_up(port_id), 0);
	CU_ASSERT_EQUAL_FATAL(event_wait(ctx[0], &ev, EVENT_WAIT_MS), 0);
	CU_ASSERT_EQUAL(ev.event_type, PV_EVENT_PORT_ACTIVE);
	CU_ASSERT_EQUAL(ev.element.port_num, 1);
	CU_ASSERT_EQUAL(port_state(ctx[0]), PV_PORT_ACTIVE);
	pv_ack_async_event(&ev);
	CU_ASSERT_EQUAL_FATAL(event_wait(again, &ev, EVENT_WAIT_MS), 0);
	CU_ASSERT_EQUAL(ev.event_type, PV_EVENT_PORT_ACTIVE);
	pv_ack_async_event(&ev);
	CU_ASSERT_TRUE(event_none(ctx[0]));
	CU_ASSERT_TRUE(event_none(again));
	CU_ASSERT_EQUAL(pv_close_device(again), 0);
}

static void
test_comm_est_first_receive_in_rtr(void)
{
	struct pv_async_event ev;
	struct ut_pair p;
	struct pv_wc wc;

	/* qb stays in RTR: it only receives */
	CU_ASSERT_EQUAL_FATAL(pair_connect(&p, 0), 0);
	CU_ASSERT_EQUAL_FATAL(ut_qp_rts(p.qa, &ut_qp_defaults, p.pa.psn), 0);
	CU_ASSERT_TRUE(event_none(ctx[1]));
	ut_fill(lbuf, 3000, 7);
	memset(rbuf, 0, 3000);
	CU_ASSERT_EQUAL(ut_post_recv1(p.qb, 21, rbuf, 3000, rmr->lkey), 0);
	CU_ASSERT_EQUAL(ut_post_recv1(p.qb, 22, rbuf + 4096, 3000, rmr->lkey), 0);
	CU_ASSERT_EQUAL(ut_post_send1(p.qa, PV_WR_SEND, 11, lbuf, 3000, lmr->lkey, 0, 0, 0), 0);
	CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[1], &wc, 2000), 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.wr_id, 21);
	CU_ASSERT_EQUAL(wc.byte_len, 3000);
	CU_ASSERT_EQUAL(memcmp(rbuf, lbuf, 3000), 0);
	CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[0], &wc, 2000), 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);

	CU_ASSERT_EQUAL_FATAL(event_wait(ctx[1], &ev, 100), 0);
	CU_ASSERT_EQUAL(ev.event_type, PV_EVENT_COMM_EST);
	CU_ASSERT_PTR_EQUAL(ev.element.qp, p.qb);
	CU_ASSERT_EQUAL(p.qb->events_completed, 0);
	pv_ack_async_event(&ev);
	CU_ASSERT_EQUAL(p.qb->events_completed, 1);
	/* once per connection: a second message raises nothing */
	CU_ASSERT_EQUAL(ut_post_send1(p.qa, PV_WR_SEND, 12, lbuf + 100, 2000, lmr->lkey, 0, 0,
				      0), 0);
	CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[1], &wc, 2000), 1);
	CU_ASSERT_EQUAL(wc.wr_id, 22);
	CU_ASSERT_EQUAL(memcmp(rbuf + 4096, lbuf + 100, 2000), 0);
	CU_ASSERT_TRUE(event_none(ctx[1]));
	/* the requester's QP was in RTS: no event there either */
	CU_ASSERT_TRUE(event_none(ctx[0]));
	pair_destroy(&p);
}

static void
test_no_comm_est_in_rts(void)
{
	struct ut_pair p;
	struct pv_wc wc;

	CU_ASSERT_EQUAL_FATAL(pair_connect(&p, 1), 0);
	CU_ASSERT_EQUAL(ut_post_recv1(p.qb, 1, rbuf, 100, rmr->lkey), 0);
	CU_ASSERT_EQUAL(ut_post_send1(p.qa, PV_WR_SEND, 2, lbuf, 100, lmr->lkey, 0, 0, 0), 0);
	CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[1], &wc, 2000), 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_TRUE(event_none(ctx[1]));
	pair_destroy(&p);
}

static void
test_access_err_on_responder(void)
{
	struct pv_async_event ev;
	struct ut_pair p;
	struct pv_wc wc;

	CU_ASSERT_EQUAL_FATAL(pair_connect(&p, 1), 0);
	memset(rbuf, 0x5a, 256);
	ut_fill(lbuf, 256, 3);
	/* a key that is not rmr's */
	CU_ASSERT_EQUAL(ut_post_send1(p.qa, PV_WR_RDMA_WRITE, 31, lbuf, 256, lmr->lkey,
				      (uintptr_t)rbuf, rmr->rkey ^ 0x100, 0), 0);
	CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[0], &wc, 2000), 1);
	CU_ASSERT_EQUAL(wc.wr_id, 31);
	CU_ASSERT_EQUAL(wc.status, PV_WC_REM_ACCESS_ERR);
	/* not a byte written */
	memset(lbuf, 0x5a, 256);
	CU_ASSERT_EQUAL(memcmp(rbuf, lbuf, 256), 0);

	CU_ASSERT_EQUAL_FATAL(event_wait(ctx[1], &ev, 100), 0);
	CU_ASSERT_EQUAL(ev.event_type, PV_EVENT_QP_ACCESS_ERR);
	CU_ASSERT_PTR_EQUAL(ev.element.qp, p.qb);
	pv_ack_async_event(&ev);
	CU_ASSERT_EQUAL(p.qb->events_completed, 1);
	CU_ASSERT_EQUAL(p.qb->state, PV_QPS_ERR);
	/* the requester learns it from its completion, not from an event */
	CU_ASSERT_TRUE(event_none(ctx[0]));
	CU_ASSERT_TRUE(event_none(ctx[1]));
	pair_destroy(&p);
}

static void
test_req_err_on_responder(void)
{
	struct pv_async_event ev;
	struct pv_send_wr wr, *bad = NULL;
	struct pv_sge sge;
	struct ut_pair p;
	struct pv_wc wc;
	uint64_t *target = (uint64_t *)(rbuf + 512);

	CU_ASSERT_EQUAL_FATAL(pair_connect(&p, 1), 0);
	*target = 77;
	sge.addr = (uintptr_t)lbuf;
	sge.length = 8;
	sge.lkey = lmr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 41;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PV_WR_ATOMIC_FETCH_AND_ADD;
	wr.send_flags = PV_SEND_SIGNALED;
	/* misaligned: an invalid request (IBTA 9.4.5), not an access error */
	wr.wr.atomic.remote_addr = (uintptr_t)target + 4;
	wr.wr.atomic.rkey = rmr->rkey;
	wr.wr.atomic.compare_add = 1;
	CU_ASSERT_EQUAL(pv_post_send(p.qa, &wr, &bad), 0);
	CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[0], &wc, 2000), 1);
	CU_ASSERT_EQUAL(wc.wr_id, 41);
	CU_ASSERT_EQUAL(wc.status, PV_WC_REM_INV_REQ_ERR);
	CU_ASSERT_EQUAL(*target, 77);

	CU_ASSERT_EQUAL_FATAL(event_wait(ctx[1], &ev, 100), 0);
	CU_ASSERT_EQUAL(ev.event_type, PV_EVENT_QP_REQ_ERR);
	CU_ASSERT_PTR_EQUAL(ev.element.qp, p.qb);
	pv_ack_async_event(&ev);
	CU_ASSERT_EQUAL(p.qb->events_completed, 1);
	CU_ASSERT_TRUE(event_none(ctx[0]));
	CU_ASSERT_TRUE(event_none(ctx[1]));
	pair_destroy(&p);
}

static int
suite_init(void)
{
	if (ut_devs_open(ctx, pd, cq, 2 * DEPTH, 1) != 0)
		return -1;
	if (ut_buf_pair_alloc(pd, BUF, &lb, &rb) != 0)
		return -1;
	lbuf = lb->addr;
	lmr = lb->mr;
	rbuf = rb->addr;
	rmr = rb->mr;
	return 0;
}

static int
suite_clean(void)
{
	size_t bad;

	/* nonzero: a canary changed, the suite fails */
	bad = ut_buf_free(lb) + ut_buf_free(rb);
	ut_devs_close(ctx, pd, cq);
	return bad != 0 ? -1 : 0;
}

static const struct ut_case sroce_events_cases[] = {
	{ "memif_peer_port_events", test_memif_peer_port_events },
	{ "ring_link_down_up", test_ring_link_down_up },
	{ "comm_est_first_receive_in_rtr", test_comm_est_first_receive_in_rtr },
	{ "no_comm_est_in_rts", test_no_comm_est_in_rts },
	{ "access_err_on_responder", test_access_err_on_responder },
	{ "req_err_on_responder", test_req_err_on_responder },
	{ NULL, NULL },
};

static const struct ut_suite sroce_events_suite = {
	.name = "sroce_events",
	.init = suite_init,
	.fini = suite_clean,
	.cases = sroce_events_cases,
};

int
main(void)
{
	int ret, fails;

	/* children first: nothing of DPDK may exist in a process that forks */
	memif_result = memif_run();
	ret = ut_ring_pair_init("test_sroce_events", 256, "sroce_ev", 1024, "ip=10.0.1.1",
				"ip=10.0.1.2");
	if (ret != 0)
		return ret;
	fails = ut_cunit_run_one(&sroce_events_suite);
	pv_cleanup();
	return fails != 0;
}
