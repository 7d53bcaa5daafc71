/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Asynchronous events: a per-context multi-producer ring of events plus an
 * eventfd (context->async_fd, semaphore mode) counting them, so that
 * pv_get_async_event() can block in read() or fail with EAGAIN when the
 * application made the fd non-blocking, exactly like ibv_get_async_event().
 *
 * Events about an object (QP, CQ, SRQ) are posted while the object exists,
 * so its context is open. Port and device events come from the control
 * thread, which runs beside open and close: those go through the list of
 * open contexts below, so they never reach a half-opened or closing one.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/queue.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_pause.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "verbs_priv.h"

static uint32_t verbs_async_seq;

/* contexts whose async queue works, from the end of open to the start of close */
static pthread_mutex_t verbs_open_lock = PTHREAD_MUTEX_INITIALIZER;
static TAILQ_HEAD(, pv_context_priv) verbs_open_list = TAILQ_HEAD_INITIALIZER(verbs_open_list);

void
pv_verbs_async_open(struct pv_context *ctx)
{
	ctx->priv->ctx = ctx;
	pthread_mutex_lock(&verbs_open_lock);
	TAILQ_INSERT_TAIL(&verbs_open_list, ctx->priv, open_next);
	pthread_mutex_unlock(&verbs_open_lock);
}

void
pv_verbs_async_close(struct pv_context *ctx)
{
	pthread_mutex_lock(&verbs_open_lock);
	TAILQ_REMOVE(&verbs_open_list, ctx->priv, open_next);
	pthread_mutex_unlock(&verbs_open_lock);
}

int
pv_device_async_event_post(struct pv_device *device, const struct pv_async_event *event)
{
	struct pv_context_priv *priv;
	int n = 0;

	if (device == NULL || event == NULL)
		return -EINVAL;
	pthread_mutex_lock(&verbs_open_lock);
	TAILQ_FOREACH(priv, &verbs_open_list, open_next)
		if (priv->ctx->device == device && pv_async_event_post(priv->ctx, event) == 0)
			n++;
	pthread_mutex_unlock(&verbs_open_lock);
	return n;
}

int
pv_context_async_event_post(struct pv_context *context, const struct pv_async_event *event)
{
	struct pv_context_priv *priv;
	int ret = -ENODEV;

	if (context == NULL || event == NULL)
		return -EINVAL;
	pthread_mutex_lock(&verbs_open_lock);
	/* compare pointers only: @p context may be half-opened or closing */
	TAILQ_FOREACH(priv, &verbs_open_list, open_next)
		if (priv->ctx == context) {
			ret = pv_async_event_post(context, event);
			break;
		}
	pthread_mutex_unlock(&verbs_open_lock);
	return ret;
}

int
pv_verbs_async_init(struct pv_context *ctx)
{
	struct pv_context_priv *priv = ctx->priv;
	char name[RTE_RING_NAMESIZE];
	int fd;

	snprintf(name, sizeof(name), "pv_aev%u",
		 __atomic_fetch_add(&verbs_async_seq, 1, __ATOMIC_RELAXED));
	priv->async_ring = rte_ring_create_elem(name, sizeof(struct pv_async_event),
						PV_VERBS_ASYNC_RING_SIZE, SOCKET_ID_ANY,
						RING_F_EXACT_SZ);
	if (priv->async_ring == NULL) {
		VERBS_LOG(ERR, "device %s: async ring: %s", ctx->device->name,
			  rte_strerror(rte_errno));
		return -(rte_errno != 0 ? rte_errno : ENOMEM);
	}
	fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (fd < 0) {
		int err = errno;

		VERBS_LOG(ERR, "device %s: async eventfd: %s", ctx->device->name,
			  rte_strerror(err));
		rte_ring_free(priv->async_ring);
		priv->async_ring = NULL;
		return -err;
	}
	ctx->async_fd = fd;
	return 0;
}

void
pv_verbs_async_fini(struct pv_context *ctx)
{
	struct pv_context_priv *priv = ctx->priv;

	rte_ring_free(priv->async_ring);
	priv->async_ring = NULL;
	if (ctx->async_fd >= 0)
		close(ctx->async_fd);
	ctx->async_fd = -1;
}

int
pv_async_event_post(struct pv_context *context, const struct pv_async_event *event)
{
	struct pv_context_priv *priv;
	uint64_t one = 1;

	if (context == NULL || event == NULL || context->priv == NULL)
		return -EINVAL;
	priv = context->priv;
	if (rte_ring_mp_enqueue_elem(priv->async_ring, (void *)(uintptr_t)event,
				     sizeof(*event)) != 0) {
		__atomic_fetch_add(&priv->async_dropped, 1, __ATOMIC_RELAXED);
		VERBS_LOG(WARNING, "device %s: async queue full, %s dropped",
			  context->device->name, pv_event_type_str(event->event_type));
		return -ENOSPC;
	}
	/* the event is in the ring before its token is counted: a reader that
	 * got a token always finds an event */
	if (write(context->async_fd, &one, sizeof(one)) != sizeof(one))
		VERBS_LOG(ERR, "device %s: async eventfd write: %s", context->device->name,
			  rte_strerror(errno));
	return 0;
}

/* idle app-mode progress between two looks at the event fd */
#define VERBS_EVENT_IDLE_US 20

void
pv_verbs_event_wait(struct pv_context *ctx, int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int fl;

	if (verbs_ops(ctx)->get_progress_mode(ctx) != PV_PROGRESS_APP)
		return;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || (fl & O_NONBLOCK))
		return;
	while (poll(&pfd, 1, 0) == 0)
		if (verbs_ops(ctx)->progress(ctx) <= 0)
			rte_delay_us_sleep(VERBS_EVENT_IDLE_US);
}

int
pv_get_async_event(struct pv_context *context, struct pv_async_event *event)
{
	uint64_t token;
	ssize_t n;

	if (context == NULL || event == NULL || context->priv == NULL) {
		errno = EINVAL;
		return -1;
	}
	/* blocks, or EAGAIN when the application set O_NONBLOCK on async_fd */
	pv_verbs_event_wait(context, context->async_fd);
	n = read(context->async_fd, &token, sizeof(token));
	if (n != sizeof(token)) {
		if (n >= 0)
			errno = EIO;
		return -1;
	}
	/* multi-producer tails move in order, so the event is (about to be)
	 * visible: wait out a producer still publishing */
	while (rte_ring_mc_dequeue_elem(context->priv->async_ring, event, sizeof(*event)) != 0)
		rte_pause();
	return 0;
}

void
pv_ack_async_event(struct pv_async_event *event)
{
	pthread_mutex_t *mutex;
	pthread_cond_t *cond;
	uint32_t *counter;

	if (event == NULL)
		return;
	switch (event->event_type) {
	case PV_EVENT_CQ_ERR:
		if (event->element.cq == NULL)
			return;
		mutex = &event->element.cq->mutex;
		cond = &event->element.cq->cond;
		counter = &event->element.cq->async_events_completed;
		break;
	case PV_EVENT_QP_FATAL:
	case PV_EVENT_QP_REQ_ERR:
	case PV_EVENT_QP_ACCESS_ERR:
	case PV_EVENT_COMM_EST:
	case PV_EVENT_SQ_DRAINED:
	case PV_EVENT_PATH_MIG:
	case PV_EVENT_PATH_MIG_ERR:
	case PV_EVENT_QP_LAST_WQE_REACHED:
		if (event->element.qp == NULL)
			return;
		mutex = &event->element.qp->mutex;
		cond = &event->element.qp->cond;
		counter = &event->element.qp->events_completed;
		break;
	case PV_EVENT_SRQ_ERR:
	case PV_EVENT_SRQ_LIMIT_REACHED:
		if (event->element.srq == NULL)
			return;
		mutex = &event->element.srq->mutex;
		cond = &event->element.srq->cond;
		counter = &event->element.srq->events_completed;
		break;
	default:
		/* port and device events name no object */
		return;
	}
	pthread_mutex_lock(mutex);
	++*counter;
	pthread_cond_signal(cond);
	pthread_mutex_unlock(mutex);
}
