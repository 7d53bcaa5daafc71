/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/* Suite verbs_cq: lib/verbs/verbs_cq.c (channels, CQs, completion events) */

#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include <rte_lcore.h>

#include "ut_verbs.h"

static struct pv_context *ut_ctx;
static struct pv_context *ut_ctx1;

static int
ut_cq_init(void)
{
	ut_ctx = ut_fake_open("ut_fake0");
	ut_ctx1 = ut_fake_open("ut_fake1");
	return ut_ctx != NULL && ut_ctx1 != NULL ? 0 : -1;
}

static int
ut_cq_fini(void)
{
	return pv_close_device(ut_ctx) | pv_close_device(ut_ctx1);
}

static void
ut_fd_nonblock(int fd)
{
	CU_ASSERT_EQUAL(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK), 0);
}

static void
ut_expect_no_event(struct pv_comp_channel *ch)
{
	struct pv_cq *cq = NULL;
	void *c = NULL;

	errno = 0;
	CU_ASSERT_EQUAL(pv_get_cq_event(ch, &cq, &c), -1);
	CU_ASSERT_EQUAL(errno, EAGAIN);
}

static void
test_channel(void)
{
	struct pv_comp_channel *ch;
	uint32_t before = ut_ctx->usecnt;

	UT_ASSERT_NULL_ERRNO(pv_create_comp_channel(NULL), EINVAL);
	CU_ASSERT_EQUAL(pv_destroy_comp_channel(NULL), EINVAL);
	ch = pv_create_comp_channel(ut_ctx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	CU_ASSERT_PTR_EQUAL(ch->context, ut_ctx);
	CU_ASSERT(ch->fd >= 0);
	CU_ASSERT(fcntl(ch->fd, F_GETFD) >= 0);
	CU_ASSERT_EQUAL(ch->refcnt, 0);
	CU_ASSERT_EQUAL(ut_ctx->usecnt, before + 1);
	CU_ASSERT_EQUAL(pv_destroy_comp_channel(ch), 0);
	CU_ASSERT_EQUAL(ut_ctx->usecnt, before);
}

static void
test_create_cq_args(void)
{
	struct pv_comp_channel *ch1 = pv_create_comp_channel(ut_ctx1);
	struct pv_cq *cq;
	int tag;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ch1);
	UT_ASSERT_NULL_ERRNO(pv_create_cq(NULL, 1, NULL, NULL, 0), EINVAL);
	UT_ASSERT_NULL_ERRNO(pv_create_cq(ut_ctx, 0, NULL, NULL, 0), EINVAL);
	UT_ASSERT_NULL_ERRNO(pv_create_cq(ut_ctx, -1, NULL, NULL, 0), EINVAL);
	UT_ASSERT_NULL_ERRNO(pv_create_cq(ut_ctx, UT_MAX_CQE + 1, NULL, NULL, 0), EINVAL);
	UT_ASSERT_NULL_ERRNO(pv_create_cq(ut_ctx, 1, NULL, NULL, -1), EINVAL);
	UT_ASSERT_NULL_ERRNO(pv_create_cq(ut_ctx, 1, NULL, NULL, UT_COMP_VECTORS), EINVAL);
	/* a channel of another context */
	UT_ASSERT_NULL_ERRNO(pv_create_cq(ut_ctx, 1, NULL, ch1, 0), EINVAL);
	CU_ASSERT_EQUAL(ch1->refcnt, 0);

	cq = pv_create_cq(ut_ctx, UT_MAX_CQE, &tag, NULL, UT_COMP_VECTORS - 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq);
	CU_ASSERT_PTR_EQUAL(cq->context, ut_ctx);
	CU_ASSERT_PTR_EQUAL(cq->cq_context, &tag);
	CU_ASSERT_PTR_NULL(cq->channel);
	CU_ASSERT_EQUAL(cq->cqe, UT_MAX_CQE);
	CU_ASSERT_EQUAL(cq->lcore_id, rte_lcore_id());
	CU_ASSERT_EQUAL(cq->usecnt, 0);
	/* resize: range checked here, then the (unset) driver op */
	CU_ASSERT_EQUAL(pv_resize_cq(NULL, 1), EINVAL);
	CU_ASSERT_EQUAL(pv_resize_cq(cq, 0), EINVAL);
	CU_ASSERT_EQUAL(pv_resize_cq(cq, UT_MAX_CQE + 1), EINVAL);
	CU_ASSERT_EQUAL(pv_resize_cq(cq, 8), EOPNOTSUPP);
	/* no channel: req_notify fails in the driver, raise is a no-op */
	CU_ASSERT_EQUAL(pv_req_notify_cq(cq, 0), EINVAL);
	pv_cq_event_raise(cq);
	pv_cq_event_raise(NULL);
	CU_ASSERT_EQUAL(pv_destroy_cq(NULL), EINVAL);
	CU_ASSERT_EQUAL(pv_destroy_cq(cq), 0);
	CU_ASSERT_EQUAL(pv_destroy_comp_channel(ch1), 0);
}

static void
test_cq_events_nonblocking(void)
{
	struct pv_comp_channel *ch = pv_create_comp_channel(ut_ctx);
	struct pv_cq *a, *b, *got;
	int tag_a, tag_b;
	void *c;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	ut_fd_nonblock(ch->fd);
	a = pv_create_cq(ut_ctx, 8, &tag_a, ch, 0);
	b = pv_create_cq(ut_ctx, 8, &tag_b, ch, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(ch->refcnt, 2);
	CU_ASSERT_EQUAL(pv_destroy_comp_channel(ch), EBUSY);

	errno = 0;
	CU_ASSERT_EQUAL(pv_get_cq_event(NULL, &got, &c), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	ut_expect_no_event(ch);

	/* not armed: no event */
	pv_cq_event_raise(a);
	ut_expect_no_event(ch);

	/* armed once, raised twice: one event */
	CU_ASSERT_EQUAL(pv_req_notify_cq(a, 0), 0);
	pv_cq_event_raise(a);
	pv_cq_event_raise(a);
	CU_ASSERT_EQUAL(pv_req_notify_cq(b, 1), 0);
	pv_cq_event_raise(b);
	got = NULL;
	c = NULL;
	CU_ASSERT_EQUAL(pv_get_cq_event(ch, &got, &c), 0);
	CU_ASSERT_PTR_EQUAL(got, a);
	CU_ASSERT_PTR_EQUAL(c, &tag_a);
	CU_ASSERT_EQUAL(pv_get_cq_event(ch, &got, &c), 0);
	CU_ASSERT_PTR_EQUAL(got, b);
	CU_ASSERT_PTR_EQUAL(c, &tag_b);
	ut_expect_no_event(ch);

	/* two events of one CQ read back as two events */
	CU_ASSERT_EQUAL(pv_req_notify_cq(a, 0), 0);
	pv_cq_event_raise(a);
	CU_ASSERT_EQUAL(pv_req_notify_cq(a, 0), 0);
	pv_cq_event_raise(a);
	CU_ASSERT_EQUAL(a->events_pending, 2);
	CU_ASSERT_EQUAL(pv_get_cq_event(ch, &got, &c), 0);
	CU_ASSERT_PTR_EQUAL(got, a);
	CU_ASSERT_EQUAL(pv_get_cq_event(ch, &got, &c), 0);
	CU_ASSERT_PTR_EQUAL(got, a);
	ut_expect_no_event(ch);

	pv_ack_cq_events(a, 3);
	pv_ack_cq_events(b, 1);
	pv_ack_cq_events(NULL, 1);
	CU_ASSERT_EQUAL(a->comp_events_completed, 3);
	CU_ASSERT_EQUAL(b->comp_events_completed, 1);

	/* destroying a CQ drops its unread events, not the others' */
	CU_ASSERT_EQUAL(pv_req_notify_cq(a, 0), 0);
	pv_cq_event_raise(a);
	CU_ASSERT_EQUAL(pv_req_notify_cq(b, 0), 0);
	pv_cq_event_raise(b);
	CU_ASSERT_EQUAL(pv_destroy_cq(a), 0);
	CU_ASSERT_EQUAL(ch->refcnt, 1);
	CU_ASSERT_EQUAL(pv_get_cq_event(ch, &got, &c), 0);
	CU_ASSERT_PTR_EQUAL(got, b);
	ut_expect_no_event(ch);

	CU_ASSERT_EQUAL(pv_destroy_cq(b), 0);
	CU_ASSERT_EQUAL(pv_destroy_comp_channel(ch), 0);
}

struct ut_waiter {
	struct pv_comp_channel *ch;
	struct pv_cq *got;
	void *ctx;
	int ret;
};

static void *
ut_cq_waiter(void *arg)
{
	struct ut_waiter *w = arg;

	w->ret = pv_get_cq_event(w->ch, &w->got, &w->ctx);
	return NULL;
}

static void
test_cq_event_blocking(void)
{
	struct pv_comp_channel *ch = pv_create_comp_channel(ut_ctx);
	struct ut_waiter w = { .ret = -2 };
	struct pv_cq *cq;
	pthread_t th;
	int tag;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	cq = pv_create_cq(ut_ctx, 8, &tag, ch, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq);
	w.ch = ch;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, ut_cq_waiter, &w), 0);
	usleep(20000);
	/* still blocked in read() */
	CU_ASSERT_EQUAL(__atomic_load_n(&w.ret, __ATOMIC_ACQUIRE), -2);
	CU_ASSERT_EQUAL(pv_req_notify_cq(cq, 0), 0);
	pv_cq_event_raise(cq);
	CU_ASSERT_EQUAL(pthread_join(th, NULL), 0);
	CU_ASSERT_EQUAL(w.ret, 0);
	CU_ASSERT_PTR_EQUAL(w.got, cq);
	CU_ASSERT_PTR_EQUAL(w.ctx, &tag);
	pv_ack_cq_events(cq, 1);
	CU_ASSERT_EQUAL(pv_destroy_cq(cq), 0);
	CU_ASSERT_EQUAL(pv_destroy_comp_channel(ch), 0);
}

/* More CQs than the channel's first queue allocation. */
static void
test_channel_many_cqs(void)
{
	struct pv_comp_channel *ch = pv_create_comp_channel(ut_ctx);
	struct pv_cq *cqs[40], *got;
	void *c;
	int i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	ut_fd_nonblock(ch->fd);
	for (i = 0; i < 40; i++) {
		cqs[i] = pv_create_cq(ut_ctx, 4, NULL, ch, 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(cqs[i]);
		if (i < 20) {
			CU_ASSERT_EQUAL(pv_req_notify_cq(cqs[i], 0), 0);
			pv_cq_event_raise(cqs[i]);
		}
	}
	for (i = 20; i < 40; i++) {
		CU_ASSERT_EQUAL(pv_req_notify_cq(cqs[i], 0), 0);
		pv_cq_event_raise(cqs[i]);
	}
	for (i = 0; i < 40; i++) {
		CU_ASSERT_EQUAL(pv_get_cq_event(ch, &got, &c), 0);
		CU_ASSERT_PTR_EQUAL(got, cqs[i]);
	}
	ut_expect_no_event(ch);
	for (i = 0; i < 40; i++)
		CU_ASSERT_EQUAL(pv_destroy_cq(cqs[i]), 0);
	CU_ASSERT_EQUAL(pv_destroy_comp_channel(ch), 0);
}

static const struct ut_case ut_verbs_cq_cases[] = {
	{ "comp channel", test_channel },
	{ "create/resize/destroy cq", test_create_cq_args },
	{ "cq events, non-blocking", test_cq_events_nonblocking },
	{ "cq event, blocking", test_cq_event_blocking },
	{ "channel with 40 cqs", test_channel_many_cqs },
	{ NULL, NULL },
};

const struct ut_suite ut_suite_verbs_cq = {
	.name = "verbs_cq",
	.init = ut_cq_init,
	.fini = ut_cq_fini,
	.cases = ut_verbs_cq_cases,
};
