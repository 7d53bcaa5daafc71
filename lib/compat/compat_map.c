/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * pollverbs object -> compat object, for the objects librdmacm hands to the
 * program that lib/cm made itself (an id's context, default PD, CQs and
 * their channels) or that the program made and lib/cm reports back
 * (id->pd, id->srq). Control path only: a hash of pointers under a mutex.
 * And the wrappers that make a compat object around such a pollverbs one.
 */

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "compat_priv.h"

#define PVC_MAP_BUCKETS 256

struct pvc_map_entry {
	struct pvc_map_entry *next;
	const void *pv;
	void *obj;
};

static pthread_mutex_t pvc_map_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pvc_map_entry *pvc_map[PVC_MAP_BUCKETS];

static unsigned int
pvc_map_bucket(const void *pv)
{
	uintptr_t p = (uintptr_t)pv;

	return (unsigned int)((p >> 4) ^ (p >> 12)) % PVC_MAP_BUCKETS;
}

/* 0, or -ENOMEM */
int
pv_compat_map_put(const void *pv, void *obj)
{
	struct pvc_map_entry *e = malloc(sizeof(*e));
	unsigned int b = pvc_map_bucket(pv);

	if (e == NULL)
		return -ENOMEM;
	e->pv = pv;
	e->obj = obj;
	pthread_mutex_lock(&pvc_map_lock);
	e->next = pvc_map[b];
	pvc_map[b] = e;
	pthread_mutex_unlock(&pvc_map_lock);
	return 0;
}

void *
pv_compat_map_get(const void *pv)
{
	struct pvc_map_entry *e;
	void *obj = NULL;

	if (pv == NULL)
		return NULL;
	pthread_mutex_lock(&pvc_map_lock);
	for (e = pvc_map[pvc_map_bucket(pv)]; e != NULL; e = e->next)
		if (e->pv == pv) {
			obj = e->obj;
			break;
		}
	pthread_mutex_unlock(&pvc_map_lock);
	return obj;
}

void
pv_compat_map_del(const void *pv)
{
	struct pvc_map_entry **pp;
	struct pvc_map_entry *e;

	pthread_mutex_lock(&pvc_map_lock);
	for (pp = &pvc_map[pvc_map_bucket(pv)]; *pp != NULL; pp = &(*pp)->next)
		if ((*pp)->pv == pv) {
			e = *pp;
			*pp = e->next;
			free(e);
			break;
		}
	pthread_mutex_unlock(&pvc_map_lock);
}

/* ---- compat objects around pollverbs objects made by lib/cm ---- */

PVC_EXPORT struct ibv_context *
pv_compat_context_of(struct pv_context *pv)
{
	struct pvc_context *ctx;

	if (pv == NULL)
		return NULL;
	ctx = pv_compat_map_get(pv);
	if (ctx == NULL) {
		ctx = pv_compat_ctx_new(pv);
		if (ctx == NULL)
			return NULL;
	}
	return &ctx->vctx.context;
}

PVC_EXPORT struct ibv_pd *
pv_compat_pd_of(struct pv_pd *pv)
{
	struct pvc_pd *pd;

	if (pv == NULL)
		return NULL;
	pd = pv_compat_map_get(pv);
	if (pd != NULL)
		return &pd->ibv;
	pd = calloc(1, sizeof(*pd));
	if (pd == NULL)
		return NULL;
	pd->pv = pv;
	pd->ibv.context = pv_compat_context_of(pv->context);
	pd->ibv.handle = pv->handle;
	pv_compat_map_put(pv, pd);
	return &pd->ibv;
}

PVC_EXPORT struct ibv_comp_channel *
pv_compat_channel_of(struct pv_comp_channel *pv)
{
	struct pvc_channel *ch;

	if (pv == NULL)
		return NULL;
	ch = pv_compat_map_get(pv);
	if (ch != NULL)
		return &ch->ibv;
	ch = calloc(1, sizeof(*ch));
	if (ch == NULL)
		return NULL;
	ch->pv = pv;
	ch->ibv.context = pv_compat_context_of(pv->context);
	ch->ibv.fd = pv->fd;
	pv_compat_map_put(pv, ch);
	return &ch->ibv;
}

/* @p cq_context: what the program sees as the CQ's context */
PVC_EXPORT struct ibv_cq *
pv_compat_cq_of(struct pv_cq *pv, void *cq_context)
{
	struct pvc_cq *cq;

	if (pv == NULL)
		return NULL;
	cq = pv_compat_map_get(pv);
	if (cq != NULL)
		return (struct ibv_cq *)&cq->ibv;
	cq = pv_compat_cq_new(pv_compat_context_of(pv->context), cq_context,
			      pv_compat_channel_of(pv->channel));
	if (cq == NULL)
		return NULL;
	pv_compat_cq_fill(cq, pv);
	pv->cq_context = cq;	/* ibv_get_cq_event() maps back through it */
	return (struct ibv_cq *)&cq->ibv;
}

PVC_EXPORT struct ibv_srq *
pv_compat_srq_of(struct pv_srq *pv)
{
	struct pvc_srq *srq;

	if (pv == NULL)
		return NULL;
	srq = pv_compat_map_get(pv);
	return srq == NULL ? NULL : &srq->ibv;
}

/* the compat objects of pollverbs ones lib/cm has destroyed or closed */

PVC_EXPORT void
pv_compat_cq_release(struct ibv_cq *cq)
{
	struct pvc_cq *c = pvc_cq(cq);

	pv_compat_map_del(c->pv);
	pthread_cond_destroy(&c->ibv.cond);
	pthread_mutex_destroy(&c->ibv.mutex);
	free(c);
}

PVC_EXPORT void
pv_compat_channel_release(struct ibv_comp_channel *channel)
{
	struct pvc_channel *ch = PVC_CONTAINER(channel, struct pvc_channel, ibv);

	pv_compat_map_del(ch->pv);
	free(ch);
}

PVC_EXPORT void
pv_compat_context_release(struct ibv_context *context)
{
	struct pvc_context *ctx = pvc_ctx(context);

	pv_compat_map_del(ctx->pv);
	pthread_mutex_destroy(&context->mutex);
	free(ctx);
}
