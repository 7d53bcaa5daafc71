/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Protection domains and memory regions. A key is (table index << 8 | 8-bit
 * generation): lkey == rkey; a stale key of a deregistered MR whose slot was
 * reused fails the generation compare. Remote accesses are checked here
 * against key, PD, access right and bounds before a byte moves
 * (ARCHITECTURE.md decision 6).
 */

#include <errno.h>
#include <stdlib.h>

#include <rte_malloc.h>

#include "sroce_priv.h"

struct pv_pd *
pv_sroce_pd_alloc(struct pv_context *context)
{
	struct sroce_dev *dev = sroce_dev_of(context);
	struct sroce_pd *pd;

	pd = calloc(1, sizeof(*pd));
	if (pd == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	pd->dev = dev;
	pd->ibpd.handle = dev->next_pd++;
	return &pd->ibpd;
}

int
pv_sroce_pd_dealloc(struct pv_pd *pd)
{
	free(sroce_pd(pd));
	return 0;
}

struct pv_mr *
pv_sroce_mr_reg(struct pv_pd *ibpd, void *addr, size_t length, int access)
{
	struct sroce_pd *pd = sroce_pd(ibpd);
	struct sroce_dev *dev = pd->dev;
	struct sroce_mr *mr;
	uint32_t i, idx = 0;

	if (access & PV_ACCESS_ON_DEMAND) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (length > UINT32_MAX) {
		SROCE_LOG(ERR, "mr of %zu bytes: max_mr_size is 4 GiB - 1", length);
		errno = EINVAL;
		return NULL;
	}
	for (i = 0; i < SROCE_MAX_MR - 1; i++) {
		uint32_t j = dev->mr_next + i;

		j = j % (SROCE_MAX_MR - 1) + 1;
		if (dev->mr_tbl[j] == NULL) {
			idx = j;
			break;
		}
	}
	if (idx == 0) {
		SROCE_LOG(ERR, "%s: %d MRs registered, no key left", dev->ibdev.name,
			  SROCE_MAX_MR - 1);
		errno = ENOMEM;
		return NULL;
	}
	mr = calloc(1, sizeof(*mr));
	if (mr == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	mr->pd = pd;
	mr->start = (uintptr_t)addr;
	mr->length = length;
	mr->access = access;
	dev->mr_gen = (dev->mr_gen + 1) & 0xff;
	mr->key = idx << 8 | dev->mr_gen;
	mr->ibmr.addr = addr;
	mr->ibmr.length = length;
	mr->ibmr.lkey = mr->key;
	mr->ibmr.rkey = mr->key;
	mr->ibmr.access = access;
	mr->ibmr.handle = idx;
	dev->mr_tbl[idx] = mr;
	dev->mr_next = idx;
	dev->nb_mr++;
	return &mr->ibmr;
}

int
pv_sroce_mr_dereg(struct pv_mr *ibmr)
{
	struct sroce_mr *mr = sroce_mr(ibmr);
	struct sroce_dev *dev = mr->pd->dev;

	dev->mr_tbl[mr->key >> 8] = NULL;
	dev->nb_mr--;
	free(mr);
	return 0;
}

static inline const struct sroce_mr *
sroce_mr_lookup(const struct sroce_dev *dev, uint32_t key)
{
	uint32_t idx = key >> 8;
	const struct sroce_mr *mr;

	if (unlikely(idx >= SROCE_MAX_MR))
		return NULL;
	mr = dev->mr_tbl[idx];
	if (unlikely(mr == NULL || mr->key != key))
		return NULL;
	return mr;
}

/* [va, va + len) inside [start, start + length), overflow-safe */
static inline int
sroce_mr_covers(const struct sroce_mr *mr, uint64_t va, uint64_t len)
{
	return va >= mr->start && len <= mr->length && va - mr->start <= mr->length - len;
}

uint8_t *
pv_sroce_mr_remote(const struct sroce_dev *dev, const struct sroce_pd *pd, uint32_t rkey,
		   uint64_t va, uint32_t len, unsigned int access)
{
	const struct sroce_mr *mr = sroce_mr_lookup(dev, rkey);

	if (mr == NULL || mr->pd != pd || (mr->access & access) != access ||
	    !sroce_mr_covers(mr, va, len))
		return NULL;
	return (uint8_t *)(uintptr_t)va;
}

int
pv_sroce_mr_local(const struct sroce_dev *dev, const struct sroce_pd *pd,
		  const struct pv_sge *sge, int need_write, struct sroce_sge *out)
{
	const struct sroce_mr *mr;

	out->addr = (uint8_t *)(uintptr_t)sge->addr;
	out->length = sge->length;
	out->rsvd = 0;
	if (sge->length == 0)
		return 0;
	mr = sroce_mr_lookup(dev, sge->lkey);
	if (unlikely(mr == NULL || mr->pd != pd ||
		     (need_write && !(mr->access & PV_ACCESS_LOCAL_WRITE)) ||
		     !sroce_mr_covers(mr, sge->addr, sge->length)))
		return -EINVAL;
	return 0;
}
