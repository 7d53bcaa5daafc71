/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Completion queues: a power-of-two ring of pv_wc written by the engine and
 * read by poll_cq, both on the owner thread (app mode) or under the lock of
 * the CQ's engine (thread-safe mode: the _mt variants). poll_cq first runs
 * that engine's progress so a polling loop drives the whole protocol.
 */

#include <errno.h>
#include <stdlib.h>

#include <rte_malloc.h>

#include "sroce_fp.h"
#include "sroce_priv.h"

static int
sroce_cq_poll(struct pv_cq *ibcq, int num_entries, struct pv_wc *wc)
{
	struct sroce_cq *cq = sroce_cq(ibcq);
	uint32_t n, i;

	sroce_owner_check(cq->eng);
	pv_sroce_eng_progress(cq->eng);
	n = cq->prod - cq->cons;
	if (n > (uint32_t)num_entries)
		n = num_entries > 0 ? (uint32_t)num_entries : 0;
	for (i = 0; i < n; i++)
		wc[i] = cq->ring[(cq->cons + i) & cq->mask];
	cq->cons += n;
	return (int)n;
}

static int
sroce_cq_req_notify(struct pv_cq *ibcq, int solicited_only)
{
	struct sroce_cq *cq = sroce_cq(ibcq);

	if (ibcq->channel == NULL)
		return EINVAL;
	cq->solicited_only = solicited_only != 0;
	__atomic_store_n(&ibcq->armed, 1, __ATOMIC_RELEASE);
	return 0;
}

static int
sroce_cq_poll_mt(struct pv_cq *ibcq, int num_entries, struct pv_wc *wc)
{
	struct sroce_eng *eng = sroce_cq(ibcq)->eng;
	int n;

	pv_rtc_spin_lock(&eng->lock);
	sroce_app_progressed(eng);
	n = sroce_cq_poll(ibcq, num_entries, wc);
	pv_rtc_spin_unlock(&eng->lock);
	return n;
}

static int
sroce_cq_req_notify_mt(struct pv_cq *ibcq, int solicited_only)
{
	struct sroce_eng *eng = sroce_cq(ibcq)->eng;
	int ret;

	pv_rtc_spin_lock(&eng->lock);
	ret = sroce_cq_req_notify(ibcq, solicited_only);
	pv_rtc_spin_unlock(&eng->lock);
	return ret;
}

void
pv_sroce_cq_event(struct sroce_cq *cq, int solicited)
{
	if (!__atomic_load_n(&cq->ibcq.armed, __ATOMIC_RELAXED))
		return;
	if (cq->solicited_only && !solicited)
		return;
	pv_cq_event_raise(&cq->ibcq);
}

struct pv_cq *
pv_sroce_cq_create(struct pv_context *context, int cqe,
		   struct pv_comp_channel *channel __rte_unused, int comp_vector)
{
	struct sroce_dev *dev = sroce_dev_of(context);
	struct sroce_cq *cq;
	uint32_t n;

	if (cqe < 1 || cqe > SROCE_MAX_CQE) {
		errno = EINVAL;
		return NULL;
	}
	if (dev->nb_cq >= SROCE_MAX_CQ) {
		errno = ENOMEM;
		return NULL;
	}
	n = rte_align32pow2((uint32_t)cqe);
	cq = calloc(1, sizeof(*cq));
	if (cq == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	cq->ring = rte_zmalloc("sroce_cq", sizeof(*cq->ring) * n, RTE_CACHE_LINE_SIZE);
	if (cq->ring == NULL) {
		free(cq);
		errno = ENOMEM;
		return NULL;
	}
	cq->dev = dev;
	/* as mlx5 maps completion vectors to EQs: vector i, engine i */
	cq->eng = &dev->eng[(uint32_t)RTE_MAX(comp_vector, 0) % dev->nb_eng];
	cq->mask = n - 1;
	cq->ibcq.cqe = (int)n;
	cq->ibcq.fp_poll_cq = dev->mt ? sroce_cq_poll_mt : sroce_cq_poll;
	cq->ibcq.fp_req_notify_cq = dev->mt ? sroce_cq_req_notify_mt : sroce_cq_req_notify;
	dev->nb_cq++;
	return &cq->ibcq;
}

int
pv_sroce_cq_resize(struct pv_cq *ibcq, int cqe)
{
	struct sroce_cq *cq = sroce_cq(ibcq);
	uint32_t n, held = cq->prod - cq->cons, i;
	struct pv_wc *ring;

	if (cqe < 1 || cqe > SROCE_MAX_CQE || (uint32_t)cqe < held)
		return EINVAL;
	n = rte_align32pow2((uint32_t)cqe);
	ring = rte_zmalloc("sroce_cq", sizeof(*ring) * n, RTE_CACHE_LINE_SIZE);
	if (ring == NULL)
		return ENOMEM;
	for (i = 0; i < held; i++)
		ring[i] = cq->ring[(cq->cons + i) & cq->mask];
	rte_free(cq->ring);
	cq->ring = ring;
	cq->cons = 0;
	cq->prod = held;
	cq->mask = n - 1;
	ibcq->cqe = (int)n;
	return 0;
}

int
pv_sroce_cq_destroy(struct pv_cq *ibcq)
{
	struct sroce_cq *cq = sroce_cq(ibcq);

	cq->dev->nb_cq--;
	rte_free(cq->ring);
	free(cq);
	return 0;
}
