/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Completion channels, CQ create/resize/destroy and completion events.
 *
 * A channel is an eventfd in semaphore mode (one token per event, so
 * pv_get_cq_event() blocks in read() or gets EAGAIN on a non-blocking fd)
 * plus a mutex-protected FIFO of the CQs that have events pending. A CQ is
 * in the FIFO at most once; cq->events_pending counts its events, so the
 * FIFO never needs more slots than CQs attached to the channel.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include <rte_common.h>
#include <rte_lcore.h>

#include "verbs_priv.h"

struct verbs_comp_channel {
	struct pv_comp_channel pub;	/* first: the public object */
	pthread_mutex_t lock;		/* guards all fields below and pub.refcnt */
	struct pv_cq **fifo;		/* CQs with events_pending > 0 */
	uint32_t cap;			/* slots in fifo, >= pub.refcnt */
	uint32_t head;
	uint32_t count;
	/* tokens in the eventfd whose events were purged by pv_destroy_cq(); a
	 * reader that gets one of them reads again */
	uint32_t stale;
};

static inline struct verbs_comp_channel *
verbs_channel(struct pv_comp_channel *ch)
{
	return container_of(ch, struct verbs_comp_channel, pub);
}

struct pv_comp_channel *
pv_create_comp_channel(struct pv_context *context)
{
	struct verbs_comp_channel *ch;
	int err;

	if (context == NULL)
		return verbs_err_ptr(EINVAL);
	ch = calloc(1, sizeof(*ch));
	if (ch == NULL)
		return verbs_err_ptr(ENOMEM);
	ch->pub.fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (ch->pub.fd < 0) {
		err = errno;
		VERBS_LOG(ERR, "device %s: channel eventfd: %s", context->device->name,
			  rte_strerror(err));
		free(ch);
		return verbs_err_ptr(err);
	}
	ch->pub.context = context;
	ch->pub.refcnt = 0;
	pthread_mutex_init(&ch->lock, NULL);
	verbs_ref_get(&context->usecnt);
	return &ch->pub;
}

int
pv_destroy_comp_channel(struct pv_comp_channel *channel)
{
	struct verbs_comp_channel *ch;
	struct pv_context *ctx;

	if (channel == NULL)
		return EINVAL;
	ch = verbs_channel(channel);
	pthread_mutex_lock(&ch->lock);
	if (channel->refcnt != 0) {
		pthread_mutex_unlock(&ch->lock);
		VERBS_LOG(ERR, "channel fd %d: %d CQs still use it", channel->fd, channel->refcnt);
		return EBUSY;
	}
	pthread_mutex_unlock(&ch->lock);
	ctx = channel->context;
	close(channel->fd);
	pthread_mutex_destroy(&ch->lock);
	free(ch->fifo);
	free(ch);
	verbs_ref_put(&ctx->usecnt);
	return 0;
}

int
pv_verbs_channel_attach(struct pv_comp_channel *channel)
{
	struct verbs_comp_channel *ch = verbs_channel(channel);
	struct pv_cq **fifo;
	uint32_t cap, i;

	pthread_mutex_lock(&ch->lock);
	if ((uint32_t)channel->refcnt + 1 > ch->cap) {
		cap = ch->cap != 0 ? ch->cap * 2 : 16;
		fifo = calloc(cap, sizeof(*fifo));
		if (fifo == NULL) {
			pthread_mutex_unlock(&ch->lock);
			return ENOMEM;
		}
		for (i = 0; i < ch->count; i++)
			fifo[i] = ch->fifo[(ch->head + i) % ch->cap];
		free(ch->fifo);
		ch->fifo = fifo;
		ch->cap = cap;
		ch->head = 0;
	}
	channel->refcnt++;
	pthread_mutex_unlock(&ch->lock);
	return 0;
}

void
pv_verbs_channel_detach(struct pv_comp_channel *channel)
{
	struct verbs_comp_channel *ch = verbs_channel(channel);

	pthread_mutex_lock(&ch->lock);
	channel->refcnt--;
	pthread_mutex_unlock(&ch->lock);
}

/* Called with ch->lock held. */
static void
verbs_fifo_push(struct verbs_comp_channel *ch, struct pv_cq *cq)
{
	RTE_ASSERT(ch->count < ch->cap);
	ch->fifo[(ch->head + ch->count) % ch->cap] = cq;
	ch->count++;
}

/* Called with ch->lock held. */
static struct pv_cq *
verbs_fifo_pop(struct verbs_comp_channel *ch)
{
	struct pv_cq *cq;

	RTE_ASSERT(ch->count > 0);
	cq = ch->fifo[ch->head];
	ch->head = (ch->head + 1) % ch->cap;
	ch->count--;
	return cq;
}

void
pv_verbs_cq_events_purge(struct pv_cq *cq)
{
	struct verbs_comp_channel *ch;
	uint32_t i, n;

	if (cq->channel == NULL)
		return;
	ch = verbs_channel(cq->channel);
	pthread_mutex_lock(&ch->lock);
	if (cq->events_pending != 0) {
		n = ch->count;
		for (i = 0; i < n; i++) {
			struct pv_cq *c = verbs_fifo_pop(ch);

			if (c != cq)
				verbs_fifo_push(ch, c);
		}
		ch->stale += cq->events_pending;
		cq->events_pending = 0;
	}
	pthread_mutex_unlock(&ch->lock);
}

void
pv_cq_event_raise(struct pv_cq *cq)
{
	struct verbs_comp_channel *ch;
	uint64_t one = 1;

	if (cq == NULL || cq->channel == NULL)
		return;
	/* one event per arming, however many completions race to raise it */
	if (__atomic_exchange_n(&cq->armed, 0, __ATOMIC_ACQ_REL) == 0)
		return;
	ch = verbs_channel(cq->channel);
	pthread_mutex_lock(&ch->lock);
	if (cq->events_pending++ == 0)
		verbs_fifo_push(ch, cq);
	pthread_mutex_unlock(&ch->lock);
	/* queued before counted: a reader holding a token finds a CQ */
	if (write(cq->channel->fd, &one, sizeof(one)) != sizeof(one))
		VERBS_LOG(ERR, "cq %u: channel eventfd write: %s", cq->handle,
			  rte_strerror(errno));
}

int
pv_get_cq_event(struct pv_comp_channel *channel, struct pv_cq **cq_p, void **cq_context_p)
{
	struct verbs_comp_channel *ch;
	struct pv_cq *cq;
	uint64_t token;
	ssize_t n;

	if (channel == NULL || cq_p == NULL || cq_context_p == NULL) {
		errno = EINVAL;
		return -1;
	}
	ch = verbs_channel(channel);
	for (;;) {
		/* blocks, or EAGAIN when the application set O_NONBLOCK on fd;
		 * in app mode this thread progresses the device meanwhile */
		pv_verbs_event_wait(channel->context, channel->fd);
		n = read(channel->fd, &token, sizeof(token));
		if (n != sizeof(token)) {
			if (n >= 0)
				errno = EIO;
			return -1;
		}
		pthread_mutex_lock(&ch->lock);
		if (ch->stale != 0) {
			/* the token of a purged event: skip it */
			ch->stale--;
			pthread_mutex_unlock(&ch->lock);
			continue;
		}
		cq = verbs_fifo_pop(ch);
		/* round-robin between CQs that have several events pending */
		if (--cq->events_pending != 0)
			verbs_fifo_push(ch, cq);
		pthread_mutex_unlock(&ch->lock);
		*cq_p = cq;
		*cq_context_p = cq->cq_context;
		return 0;
	}
}

void
pv_ack_cq_events(struct pv_cq *cq, unsigned int nevents)
{
	if (cq == NULL)
		return;
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_cond_signal(&cq->cond);
	pthread_mutex_unlock(&cq->mutex);
}

struct pv_cq *
pv_create_cq(struct pv_context *context, int cqe, void *cq_context,
	     struct pv_comp_channel *channel, int comp_vector)
{
	struct pv_cq *cq;
	int err;

	if (context == NULL)
		return verbs_err_ptr(EINVAL);
	if (cqe < 1 || cqe > verbs_dev_attr(context)->max_cqe) {
		VERBS_LOG(ERR, "device %s: cqe %d not in 1..%d", context->device->name, cqe,
			  verbs_dev_attr(context)->max_cqe);
		return verbs_err_ptr(EINVAL);
	}
	if (comp_vector < 0 || comp_vector >= context->num_comp_vectors) {
		VERBS_LOG(ERR, "device %s: comp_vector %d not in 0..%d", context->device->name,
			  comp_vector, context->num_comp_vectors - 1);
		return verbs_err_ptr(EINVAL);
	}
	if (channel != NULL) {
		if (channel->context != context)
			return verbs_err_ptr(EINVAL);
		err = pv_verbs_channel_attach(channel);
		if (err != 0)
			return verbs_err_ptr(err);
	}
	cq = verbs_ops(context)->create_cq(context, cqe, channel, comp_vector);
	if (cq == NULL) {
		err = errno;
		if (channel != NULL)
			pv_verbs_channel_detach(channel);
		return verbs_err_ptr(err);
	}
	cq->context = context;
	cq->channel = channel;
	cq->cq_context = cq_context;
	cq->handle = verbs_handle_next(context);
	cq->usecnt = 0;
	cq->lcore_id = rte_lcore_id();
	pthread_mutex_init(&cq->mutex, NULL);
	pthread_cond_init(&cq->cond, NULL);
	cq->comp_events_completed = 0;
	cq->async_events_completed = 0;
	cq->armed = 0;
	cq->events_pending = 0;
	container_of(cq, struct pv_cq_ex, cq_base)->poll = NULL;
	verbs_ref_get(&context->usecnt);
	return cq;
}

int
pv_resize_cq(struct pv_cq *cq, int cqe)
{
	if (cq == NULL)
		return EINVAL;
	if (cqe < 1 || cqe > verbs_dev_attr(cq->context)->max_cqe) {
		VERBS_LOG(ERR, "cq %u: cqe %d not in 1..%d", cq->handle, cqe,
			  verbs_dev_attr(cq->context)->max_cqe);
		return EINVAL;
	}
	return verbs_ops(cq->context)->resize_cq(cq, cqe);
}

int
pv_destroy_cq(struct pv_cq *cq)
{
	struct pv_verbs_cq_poll *poll;
	struct pv_comp_channel *channel;
	struct pv_context *ctx;
	int ret;

	if (cq == NULL)
		return EINVAL;
	if (verbs_ref_read(&cq->usecnt) != 0) {
		VERBS_LOG(ERR, "cq %u: %u QPs still use it", cq->handle, verbs_ref_read(&cq->usecnt));
		return EBUSY;
	}
	ctx = cq->context;
	channel = cq->channel;
	poll = container_of(cq, struct pv_cq_ex, cq_base)->poll;
	/* events not yet read die with the CQ (the kernel does the same) */
	pv_verbs_cq_events_purge(cq);
	pthread_cond_destroy(&cq->cond);
	pthread_mutex_destroy(&cq->mutex);
	ret = verbs_ops(ctx)->destroy_cq(cq);
	if (ret != 0) {
		pthread_mutex_init(&cq->mutex, NULL);
		pthread_cond_init(&cq->cond, NULL);
		return ret;
	}
	if (channel != NULL)
		pv_verbs_channel_detach(channel);
	free(poll);
	verbs_ref_put(&ctx->usecnt);
	return 0;
}
