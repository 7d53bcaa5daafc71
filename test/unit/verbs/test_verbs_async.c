/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/* Suite verbs_async: lib/verbs/verbs_async.c (asynchronous events) */

#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "ut_verbs.h"

#define UT_ASYNC_RING 1024	/* PV_VERBS_ASYNC_RING_SIZE */

static struct pv_context *ut_ctx;

static int
ut_async_init(void)
{
	ut_ctx = ut_fake_open("ut_fake1");
	return ut_ctx != NULL ? 0 : -1;
}

static int
ut_async_fini(void)
{
	return pv_close_device(ut_ctx);
}

static void
ut_expect_empty(struct pv_context *ctx)
{
	struct pv_async_event ev;

	errno = 0;
	CU_ASSERT_EQUAL(pv_get_async_event(ctx, &ev), -1);
	CU_ASSERT_EQUAL(errno, EAGAIN);
}

static void
test_async_nonblocking(void)
{
	struct pv_async_event ev, got;
	struct pv_cq *cq = pv_create_cq(ut_ctx, 4, NULL, NULL, 0);
	struct pv_pd *pd = pv_alloc_pd(ut_ctx);
	struct pv_srq_init_attr si = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct pv_qp_init_attr ia;
	struct pv_srq *srq;
	struct pv_qp *qp;
	int fd = ut_ctx->async_fd;

	CU_ASSERT_PTR_NOT_NULL_FATAL(cq);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pd);
	srq = pv_create_srq(pd, &si);
	CU_ASSERT_PTR_NOT_NULL_FATAL(srq);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = PV_QPT_RC;
	qp = pv_create_qp(pd, &ia);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp);

	CU_ASSERT_EQUAL(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK), 0);
	ut_expect_empty(ut_ctx);
	errno = 0;
	CU_ASSERT_EQUAL(pv_get_async_event(NULL, &got), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_EQUAL(pv_get_async_event(ut_ctx, NULL), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(pv_async_event_post(NULL, &ev), -EINVAL);
	CU_ASSERT_EQUAL(pv_async_event_post(ut_ctx, NULL), -EINVAL);

	/* FIFO order, element preserved; ack counts on the object */
	memset(&ev, 0, sizeof(ev));
	ev.event_type = PV_EVENT_COMM_EST;
	ev.element.qp = qp;
	CU_ASSERT_EQUAL(pv_async_event_post(ut_ctx, &ev), 0);
	ev.event_type = PV_EVENT_CQ_ERR;
	ev.element.cq = cq;
	CU_ASSERT_EQUAL(pv_async_event_post(ut_ctx, &ev), 0);
	ev.event_type = PV_EVENT_SRQ_LIMIT_REACHED;
	ev.element.srq = srq;
	CU_ASSERT_EQUAL(pv_async_event_post(ut_ctx, &ev), 0);
	ev.event_type = PV_EVENT_PORT_ACTIVE;
	ev.element.port_num = 1;
	CU_ASSERT_EQUAL(pv_async_event_post(ut_ctx, &ev), 0);

	CU_ASSERT_EQUAL(pv_get_async_event(ut_ctx, &got), 0);
	CU_ASSERT_EQUAL(got.event_type, PV_EVENT_COMM_EST);
	CU_ASSERT_PTR_EQUAL(got.element.qp, qp);
	pv_ack_async_event(&got);
	CU_ASSERT_EQUAL(qp->events_completed, 1);

	CU_ASSERT_EQUAL(pv_get_async_event(ut_ctx, &got), 0);
	CU_ASSERT_EQUAL(got.event_type, PV_EVENT_CQ_ERR);
	CU_ASSERT_PTR_EQUAL(got.element.cq, cq);
	pv_ack_async_event(&got);
	CU_ASSERT_EQUAL(cq->async_events_completed, 1);
	CU_ASSERT_EQUAL(cq->comp_events_completed, 0);

	CU_ASSERT_EQUAL(pv_get_async_event(ut_ctx, &got), 0);
	CU_ASSERT_EQUAL(got.event_type, PV_EVENT_SRQ_LIMIT_REACHED);
	CU_ASSERT_PTR_EQUAL(got.element.srq, srq);
	pv_ack_async_event(&got);
	CU_ASSERT_EQUAL(srq->events_completed, 1);

	CU_ASSERT_EQUAL(pv_get_async_event(ut_ctx, &got), 0);
	CU_ASSERT_EQUAL(got.event_type, PV_EVENT_PORT_ACTIVE);
	CU_ASSERT_EQUAL(got.element.port_num, 1);
	pv_ack_async_event(&got);	/* names no object: nothing to count */
	pv_ack_async_event(NULL);
	ut_expect_empty(ut_ctx);

	CU_ASSERT_EQUAL(pv_destroy_qp(qp), 0);
	CU_ASSERT_EQUAL(pv_destroy_srq(srq), 0);
	CU_ASSERT_EQUAL(pv_destroy_cq(cq), 0);
	CU_ASSERT_EQUAL(pv_dealloc_pd(pd), 0);
	CU_ASSERT_EQUAL(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK), 0);
}

static void
test_async_full(void)
{
	struct pv_async_event ev, got;
	int fd = ut_ctx->async_fd;
	int i, ok = 0;

	memset(&ev, 0, sizeof(ev));
	ev.event_type = PV_EVENT_PORT_ERR;
	for (i = 0; i < UT_ASYNC_RING; i++) {
		ev.element.port_num = i;
		ok += pv_async_event_post(ut_ctx, &ev) == 0;
	}
	CU_ASSERT_EQUAL(ok, UT_ASYNC_RING);
	CU_ASSERT_EQUAL(pv_async_event_post(ut_ctx, &ev), -ENOSPC);
	CU_ASSERT_EQUAL(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK), 0);
	for (i = 0; i < UT_ASYNC_RING; i++) {
		if (pv_get_async_event(ut_ctx, &got) != 0 || got.element.port_num != i)
			break;
		pv_ack_async_event(&got);
	}
	CU_ASSERT_EQUAL(i, UT_ASYNC_RING);
	ut_expect_empty(ut_ctx);
	CU_ASSERT_EQUAL(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK), 0);
}

struct ut_async_waiter {
	struct pv_async_event ev;
	int ret;
};

static void *
ut_async_wait(void *arg)
{
	struct ut_async_waiter *w = arg;

	w->ret = pv_get_async_event(ut_ctx, &w->ev);
	return NULL;
}

/* A blocked reader wakes up when another thread posts. */
static void
test_async_blocking(void)
{
	struct ut_async_waiter w = { .ret = -2 };
	struct pv_async_event ev;
	pthread_t th;

	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, ut_async_wait, &w), 0);
	usleep(20000);
	CU_ASSERT_EQUAL(__atomic_load_n(&w.ret, __ATOMIC_ACQUIRE), -2);
	memset(&ev, 0, sizeof(ev));
	ev.event_type = PV_EVENT_DEVICE_FATAL;
	CU_ASSERT_EQUAL(pv_async_event_post(ut_ctx, &ev), 0);
	CU_ASSERT_EQUAL(pthread_join(th, NULL), 0);
	CU_ASSERT_EQUAL(w.ret, 0);
	CU_ASSERT_EQUAL(w.ev.event_type, PV_EVENT_DEVICE_FATAL);
	pv_ack_async_event(&w.ev);
}

/* wait up to a second for one event on @p ctx (non-blocking fd) */
static int
ut_async_get(struct pv_context *ctx, struct pv_async_event *ev)
{
	int i;

	for (i = 0; i < 1000; i++) {
		if (pv_get_async_event(ctx, ev) == 0)
			return 0;
		usleep(1000);
	}
	return -1;
}

static void
ut_nonblock(struct pv_context *ctx)
{
	int fd = ctx->async_fd;

	CU_ASSERT_EQUAL(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK), 0);
}

/* Port events reach every open context of the device, and only those. */
static void
test_async_device_post(void)
{
	struct pv_context *c2 = ut_fake_open("ut_fake1");
	struct pv_context *other = ut_fake_open("ut_fake0");
	struct pv_async_event ev, got;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(other);
	ut_nonblock(ut_ctx);
	ut_nonblock(c2);
	ut_nonblock(other);
	memset(&ev, 0, sizeof(ev));
	ev.event_type = PV_EVENT_PORT_ACTIVE;
	ev.element.port_num = 1;
	CU_ASSERT_EQUAL(pv_device_async_event_post(ut_ctx->device, &ev), 2);
	CU_ASSERT_EQUAL(pv_get_async_event(ut_ctx, &got), 0);
	CU_ASSERT_EQUAL(got.event_type, PV_EVENT_PORT_ACTIVE);
	CU_ASSERT_EQUAL(got.element.port_num, 1);
	pv_ack_async_event(&got);
	CU_ASSERT_EQUAL(pv_get_async_event(c2, &got), 0);
	CU_ASSERT_EQUAL(got.event_type, PV_EVENT_PORT_ACTIVE);
	pv_ack_async_event(&got);
	ut_expect_empty(ut_ctx);
	ut_expect_empty(c2);
	ut_expect_empty(other);
	/* a closed context is no longer on the list */
	CU_ASSERT_EQUAL(pv_close_device(c2), 0);
	ev.event_type = PV_EVENT_PORT_ERR;
	CU_ASSERT_EQUAL(pv_device_async_event_post(ut_ctx->device, &ev), 1);
	CU_ASSERT_EQUAL(pv_get_async_event(ut_ctx, &got), 0);
	CU_ASSERT_EQUAL(got.event_type, PV_EVENT_PORT_ERR);
	pv_ack_async_event(&got);
	ut_expect_empty(other);
	CU_ASSERT_EQUAL(pv_device_async_event_post(NULL, &ev), -EINVAL);
	CU_ASSERT_EQUAL(pv_device_async_event_post(ut_ctx->device, NULL), -EINVAL);
	CU_ASSERT_EQUAL(pv_close_device(other), 0);
	CU_ASSERT_EQUAL(fcntl(ut_ctx->async_fd, F_SETFL,
			      fcntl(ut_ctx->async_fd, F_GETFL) & ~O_NONBLOCK), 0);
}

/* Posting to a context that is not (or no longer) open drops the event. */
static void
test_async_context_post(void)
{
	struct pv_context *c2 = ut_fake_open("ut_fake1");
	struct pv_async_event ev, got;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c2);
	ut_nonblock(c2);
	memset(&ev, 0, sizeof(ev));
	ev.event_type = PV_EVENT_DEVICE_FATAL;
	CU_ASSERT_EQUAL(pv_context_async_event_post(c2, &ev), 0);
	CU_ASSERT_EQUAL(ut_async_get(c2, &got), 0);
	CU_ASSERT_EQUAL(got.event_type, PV_EVENT_DEVICE_FATAL);
	pv_ack_async_event(&got);
	ut_expect_empty(c2);
	CU_ASSERT_EQUAL(pv_context_async_event_post(NULL, &ev), -EINVAL);
	CU_ASSERT_EQUAL(pv_context_async_event_post(c2, NULL), -EINVAL);
	CU_ASSERT_EQUAL(pv_close_device(c2), 0);
	/* only compared, never dereferenced: fine after the free (ASan) */
	CU_ASSERT_EQUAL(pv_context_async_event_post(c2, &ev), -ENODEV);
	CU_ASSERT_EQUAL(pv_context_async_event_post((struct pv_context *)&ev, &ev), -ENODEV);
}

static const struct ut_case ut_verbs_async_cases[] = {
	{ "post/get/ack, non-blocking", test_async_nonblocking },
	{ "queue full", test_async_full },
	{ "blocking get", test_async_blocking },
	{ "device post", test_async_device_post },
	{ "context post", test_async_context_post },
	{ NULL, NULL },
};

const struct ut_suite ut_suite_verbs_async = {
	.name = "verbs_async",
	.init = ut_async_init,
	.fini = ut_async_fini,
	.cases = ut_verbs_async_cases,
};
