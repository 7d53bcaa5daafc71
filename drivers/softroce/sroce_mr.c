/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Protection domains and memory regions. The key table has a power-of-two
 * number of slots (max_mr + 1 rounded up, fixed at device creation), in
 * chunks of 4096 allocated when first used (a directory of 256 pointers at
 * the default size: a device pays for the MRs it has had); a key is
 * (random << index bits | table index): the low bits find the slot in O(1),
 * every other bit is drawn from getrandom() at each registration, and the
 * lookup compares the whole key. lkey == rkey (as rxe). With the default
 * 1,048,575 MRs a key has 12 random bits, with max_mr=4095 20 bits: one key
 * says nothing of the next, and a stale key of a deregistered MR whose slot
 * was reused fails the compare (the new key always differs from the old).
 * Remote accesses are checked here against key, PD, access right and bounds
 * before a byte moves (ARCHITECTURE.md decision 6).
 */

#include <errno.h>
#include <stdlib.h>
#include <sys/random.h>

#include <rte_malloc.h>
#include <rte_random.h>
#include <rte_ring.h>

#include "sroce_priv.h"

#define SROCE_MR_CHUNK_MASK ((1u << SROCE_MR_CHUNK_SHIFT) - 1)

int
pv_sroce_tables_init(struct sroce_dev *dev, uint32_t max_qp, uint32_t max_mr)
{
	uint32_t slots, ndir;
	uint16_t e;

	if (max_qp == 0 || max_qp > SROCE_MAX_QP || max_mr == 0 || max_mr > SROCE_MAX_MR)
		return -EINVAL;
	if (dev->nb_eng == 0)
		dev->nb_eng = 1;
	if (dev->nb_eng > SROCE_MAX_QUEUES)
		return -EINVAL;
	slots = rte_align32pow2(max_mr + 1);
	ndir = RTE_MAX(slots >> SROCE_MR_CHUNK_SHIFT, 1u);
	if (posix_memalign((void **)&dev->eng, RTE_CACHE_LINE_SIZE,
			   dev->nb_eng * sizeof(*dev->eng)) != 0) {
		dev->eng = NULL;
		return -ENOMEM;
	}
	memset(dev->eng, 0, dev->nb_eng * sizeof(*dev->eng));
	for (e = 0; e < dev->nb_eng; e++) {
		struct sroce_eng *eng = &dev->eng[e];

		eng->dev = dev;
		eng->queue_id = e;
		rte_spinlock_init(&eng->lock);
		rte_spinlock_init(&eng->steer_lock);
		/* every QP of the table and the GSI QP may be on one engine */
		eng->qps = calloc(max_qp + 1, sizeof(*eng->qps));
		if (eng->qps == NULL)
			goto nomem;
	}
	rte_spinlock_init(&dev->neigh_lock);
	rte_spinlock_init(&dev->mw_lock);
	dev->qp_tbl = calloc(max_qp, sizeof(*dev->qp_tbl));
	dev->mr_dir = calloc(ndir, sizeof(*dev->mr_dir));
	if (dev->qp_tbl == NULL || dev->mr_dir == NULL)
		goto nomem;
	dev->max_qp = max_qp;
	dev->max_mr = max_mr;
	/* the neighbour table and the AH list start empty */
	dev->neigh_next_tsc = UINT64_MAX;
	TAILQ_INIT(&dev->ahs);
	dev->mr_mask = slots - 1;
	dev->mr_next = 1;
	dev->key_rnd_left = 0;
	/*
	 * The first QPN at random: every process has its own device, and a
	 * peer's CM keeps the last connection of (our GID, QPN) in timewait
	 * for a while: a process started right after another with the same
	 * first QPN would have its REQ rejected as a stale connection (REJ
	 * reason 10, IBTA 12.9.8.3; seen with perftest -R against rxe).
	 */
	dev->qp_next = (uint32_t)(rte_rand() % max_qp);
	SROCE_LOG(INFO, "%s: %u QPs, %u MRs (%u random key bits): tables of %zu KiB, "
		  "and %zu KiB per 4096 MRs registered", dev->ibdev.name, max_qp, max_mr,
		  32 - __builtin_popcount(dev->mr_mask),
		  ((1 + dev->nb_eng) * (size_t)max_qp * sizeof(*dev->qp_tbl) +
		   ndir * sizeof(*dev->mr_dir)) / 1024,
		  sizeof(struct sroce_mr_chunk) / 1024);
	return 0;
nomem:
	pv_sroce_tables_fini(dev);
	return -ENOMEM;
}

void
pv_sroce_tables_fini(struct sroce_dev *dev)
{
	uint32_t i;

	for (i = 0; dev->mr_dir != NULL && i <= dev->mr_mask >> SROCE_MR_CHUNK_SHIFT; i++)
		free(dev->mr_dir[i]);
	for (i = 0; dev->eng != NULL && i < dev->nb_eng; i++) {
		free(dev->eng[i].qps);
		rte_ring_free(dev->eng[i].steer);
	}
	free(dev->eng);
	dev->eng = NULL;
	free(dev->qp_tbl);
	free(dev->mr_dir);
	dev->qp_tbl = NULL;
	dev->mr_dir = NULL;
	dev->max_qp = 0;
	dev->max_mr = 0;
}

/* 32 random bits for a key, from getrandom() in batches (rte_rand if it fails) */
static uint32_t
sroce_key_random(struct sroce_dev *dev)
{
	if (dev->key_rnd_left == 0) {
		ssize_t n = getrandom(dev->key_rnd, sizeof(dev->key_rnd), GRND_NONBLOCK);

		if (n != (ssize_t)sizeof(dev->key_rnd)) {
			uint32_t i;

			for (i = 0; i < RTE_DIM(dev->key_rnd); i++)
				dev->key_rnd[i] = (uint32_t)rte_rand();
		}
		dev->key_rnd_left = RTE_DIM(dev->key_rnd);
	}
	return dev->key_rnd[--dev->key_rnd_left];
}

/* a fresh key for slot @p idx, never @p old (the slot's previous key) */
static uint32_t
sroce_key_new(struct sroce_dev *dev, uint32_t idx, uint32_t old)
{
	uint32_t key;

	do {
		key = (sroce_key_random(dev) & ~dev->mr_mask & ~SROCE_MW_KEY_BIT) | idx;
	} while (key == old);
	return key;
}

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
	return pv_sroce_mr_reg_iova(ibpd, addr, length, (uintptr_t)addr, access);
}

struct pv_mr *
pv_sroce_mr_reg_iova(struct pv_pd *ibpd, void *addr, size_t length, uint64_t iova, int access)
{
	struct sroce_pd *pd = sroce_pd(ibpd);
	struct sroce_dev *dev = pd->dev;
	struct sroce_mr_chunk *c = NULL;
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
	/* round robin over slots 1 .. max_mr: a freed slot is reused last */
	for (i = 0; i < dev->max_mr && dev->nb_mr < dev->max_mr; i++) {
		uint32_t j = (dev->mr_next - 1 + i) % dev->max_mr + 1;

		c = dev->mr_dir[j >> SROCE_MR_CHUNK_SHIFT];
		if (c == NULL) {
			c = calloc(1, sizeof(*c));
			if (c == NULL)
				break;
			dev->mr_dir[j >> SROCE_MR_CHUNK_SHIFT] = c;
		}
		if (c->mr[j & SROCE_MR_CHUNK_MASK] == NULL) {
			idx = j;
			break;
		}
	}
	if (idx == 0) {
		SROCE_LOG(ERR, "%s: %u MRs registered (max_mr), no key left", dev->ibdev.name,
			  dev->max_mr);
		errno = ENOMEM;
		return NULL;
	}
	mr = calloc(1, sizeof(*mr));
	if (mr == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	mr->pd = pd;
	mr->start = iova;
	mr->vaddr = (uintptr_t)addr;
	mr->length = length;
	mr->access = access;
	mr->key = sroce_key_new(dev, idx, c->last_key[idx & SROCE_MR_CHUNK_MASK]);
	mr->ibmr.addr = addr;
	mr->ibmr.length = length;
	mr->ibmr.lkey = mr->key;
	mr->ibmr.rkey = mr->key;
	mr->ibmr.access = access;
	mr->ibmr.handle = idx;
	c->mr[idx & SROCE_MR_CHUNK_MASK] = mr;
	dev->mr_next = idx % dev->max_mr + 1;
	dev->nb_mr++;
	return &mr->ibmr;
}

int
pv_sroce_mr_rereg(struct pv_mr *ibmr, int flags, struct pv_pd *ibpd, void *addr, size_t length,
		  int access)
{
	struct sroce_mr *mr = sroce_mr(ibmr);

	/* IBTA 10.6.7.2.6: not while windows are bound to it */
	if (mr->nb_mw != 0)
		return EBUSY;
	if ((flags & PV_REREG_MR_CHANGE_TRANSLATION) && length > UINT32_MAX)
		return EINVAL;
	if (flags & PV_REREG_MR_CHANGE_PD)
		mr->pd = sroce_pd(ibpd);
	if (flags & PV_REREG_MR_CHANGE_TRANSLATION) {
		/* the new buffer, addressed from its own address (as reg_mr) */
		mr->vaddr = (uintptr_t)addr;
		mr->start = (uintptr_t)addr;
		mr->length = length;
	}
	if (flags & PV_REREG_MR_CHANGE_ACCESS)
		mr->access = (unsigned int)access;
	return 0;
}

int
pv_sroce_mr_dereg(struct pv_mr *ibmr)
{
	struct sroce_mr *mr = sroce_mr(ibmr);
	struct sroce_dev *dev = mr->pd->dev;
	uint32_t idx = mr->key & dev->mr_mask;
	struct sroce_mr_chunk *c = dev->mr_dir[idx >> SROCE_MR_CHUNK_SHIFT];

	if (mr->nb_mw != 0) {
		SROCE_LOG(ERR, "mr 0x%x: %u memory windows bound to it", mr->key, mr->nb_mw);
		return EBUSY;
	}
	c->mr[idx & SROCE_MR_CHUNK_MASK] = NULL;
	c->last_key[idx & SROCE_MR_CHUNK_MASK] = mr->key;
	dev->nb_mr--;
	free(mr);
	return 0;
}

static inline struct sroce_mr *
sroce_mr_lookup(const struct sroce_dev *dev, uint32_t key)
{
	uint32_t idx = key & dev->mr_mask;
	const struct sroce_mr_chunk *c = dev->mr_dir[idx >> SROCE_MR_CHUNK_SHIFT];
	struct sroce_mr *mr;

	if (unlikely(c == NULL))
		return NULL;
	mr = c->mr[idx & SROCE_MR_CHUNK_MASK];
	if (unlikely(mr == NULL || mr->key != key))
		return NULL;
	return mr;
}

/* where IOVA @p va of @p mr is in this process (va checked by the caller) */
static inline uint8_t *
sroce_mr_host(const struct sroce_mr *mr, uint64_t va)
{
	return (uint8_t *)(mr->vaddr + (va - mr->start));
}

/* [va, va + len) inside [start, start + length), overflow-safe */
static inline int
sroce_mr_covers(const struct sroce_mr *mr, uint64_t va, uint64_t len)
{
	return va >= mr->start && len <= mr->length && va - mr->start <= mr->length - len;
}

/* the window of @p rkey, or NULL */
static inline struct sroce_mw *
sroce_mw_lookup(const struct sroce_dev *dev, uint32_t rkey)
{
	struct sroce_mw *mw;

	if (!(rkey & SROCE_MW_KEY_BIT))
		return NULL;
	mw = dev->mw_tbl[(rkey >> 8) & SROCE_MAX_MW];
	return mw != NULL && mw->rkey == rkey ? mw : NULL;
}

/* a remote access through a memory window (IBTA 10.6.7.3, o10-37.2.x) */
static __rte_noinline uint8_t *
sroce_mw_remote(const struct sroce_dev *dev, const struct sroce_pd *pd, uint32_t qpn,
		uint32_t rkey, uint64_t va, uint32_t len, unsigned int access)
{
	const struct sroce_mw *mw = sroce_mw_lookup(dev, rkey);
	uint64_t mr_va;

	if (mw == NULL || mw->state != SROCE_MW_VALID || mw->pd != pd ||
	    (mw->type == PV_MW_TYPE_2 && mw->qpn != qpn) || (mw->access & access) != access)
		return NULL;
	/* inside the window: a zero-based window is addressed from 0 */
	if (mw->access & PV_ACCESS_ZERO_BASED) {
		if (len > mw->length || va > mw->length - len)
			return NULL;
		mr_va = mw->addr + va;
	} else {
		if (va < mw->addr || len > mw->length || va - mw->addr > mw->length - len)
			return NULL;
		mr_va = va;
	}
	/* the bind checked the window lies in the MR; the MR stays while bound */
	if (!sroce_mr_covers(mw->mr, mr_va, len))
		return NULL;
	return sroce_mr_host(mw->mr, mr_va);
}

uint8_t *
pv_sroce_mr_remote(const struct sroce_dev *dev, const struct sroce_pd *pd, uint32_t qpn,
		   uint32_t rkey, uint64_t va, uint32_t len, unsigned int access)
{
	const struct sroce_mr *mr;

	if (unlikely(rkey & SROCE_MW_KEY_BIT)) {
		uint8_t *p;

		sroce_mw_lock(dev);
		p = sroce_mw_remote(dev, pd, qpn, rkey, va, len, access);
		sroce_mw_unlock(dev);
		return p;
	}
	mr = sroce_mr_lookup(dev, rkey);
	if (mr == NULL || mr->pd != pd || (mr->access & access) != access ||
	    !sroce_mr_covers(mr, va, len))
		return NULL;
	return sroce_mr_host(mr, va);
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
	out->addr = sroce_mr_host(mr, sge->addr);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Memory windows                                                          */
/* ---------------------------------------------------------------------- */

struct pv_mw *
pv_sroce_mw_alloc(struct pv_pd *ibpd, enum pv_mw_type type)
{
	struct sroce_pd *pd = sroce_pd(ibpd);
	struct sroce_dev *dev = pd->dev;
	struct sroce_mw *mw;
	uint32_t i, idx = 0;

	for (i = 0; i < SROCE_MAX_MW; i++) {
		uint32_t j = (dev->mw_next - 1 + i) % SROCE_MAX_MW + 1;

		if (dev->mw_tbl[j] == NULL) {
			idx = j;
			break;
		}
	}
	if (idx == 0) {
		SROCE_LOG(ERR, "%s: %u memory windows allocated (max_mw)", dev->ibdev.name,
			  SROCE_MAX_MW);
		errno = ENOMEM;
		return NULL;
	}
	mw = calloc(1, sizeof(*mw));
	if (mw == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	mw->pd = pd;
	mw->type = (uint8_t)type;
	mw->state = SROCE_MW_FREE;
	mw->serial = ++dev->mw_serial;
	/* random bits above the index, a random initial consumer key */
	mw->rkey = SROCE_MW_KEY_BIT | (sroce_key_random(dev) & 0x7ff00000u) | idx << 8 |
		   (sroce_key_random(dev) & 0xffu);
	mw->ibmw.rkey = mw->rkey;
	dev->mw_tbl[idx] = mw;
	dev->mw_next = idx % SROCE_MAX_MW + 1;
	dev->nb_mw++;
	return &mw->ibmw;
}

/* unbind: the MR may be deregistered again once no window points at it */
static void
sroce_mw_unbind(struct sroce_mw *mw)
{
	if (mw->mr != NULL)
		mw->mr->nb_mw--;
	mw->mr = NULL;
	mw->state = SROCE_MW_FREE;
	mw->qpn = 0;
	mw->addr = 0;
	mw->length = 0;
}

int
pv_sroce_mw_dealloc(struct pv_mw *ibmw)
{
	struct sroce_mw *mw = container_of(ibmw, struct sroce_mw, ibmw);
	struct sroce_dev *dev = mw->pd->dev;

	sroce_mw_unbind(mw);
	dev->mw_tbl[(mw->rkey >> 8) & SROCE_MAX_MW] = NULL;
	dev->nb_mw--;
	free(mw);
	return 0;
}

uint32_t
pv_sroce_mw_ref(const struct pv_mw *ibmw, uint32_t *serial)
{
	const struct sroce_mw *mw = container_of(ibmw, const struct sroce_mw, ibmw);

	*serial = mw->serial;
	return (mw->rkey >> 8) & SROCE_MAX_MW;
}

static enum pv_wc_status
sroce_mw_bind(struct sroce_dev *dev, const struct sroce_pd *qp_pd, uint32_t qpn,
	      uint32_t mw_idx, uint32_t mw_serial, uint32_t rkey, uint32_t mr_key,
	      uint64_t addr, uint64_t length, unsigned int access)
{
	struct sroce_mw *mw = dev->mw_tbl[mw_idx & SROCE_MAX_MW];
	struct sroce_mr *mr = NULL;

	/* the window was freed (or its slot reused) after the post */
	if (mw == NULL || mw->serial != mw_serial || mw->pd != qp_pd)
		return PV_WC_MW_BIND_ERR;
	if (mr_key != 0) {
		mr = sroce_mr_lookup(dev, mr_key);
		if (mr == NULL || mr->pd != mw->pd)
			return PV_WC_MW_BIND_ERR;
	}
	if (mw->type == PV_MW_TYPE_2) {
		/* 2B: bound to this QP, from FREE only, never to nothing; the
		 * new rkey keeps the window's index (o10-37.2.x) */
		if (mw->state != SROCE_MW_FREE || mr == NULL || length == 0 ||
		    (rkey & ~0xffu) != (mw->rkey & ~0xffu))
			return PV_WC_MW_BIND_ERR;
	} else if (access & PV_ACCESS_ZERO_BASED) {
		return PV_WC_MW_BIND_ERR;	/* zero based: type 2 only */
	}
	if (mr != NULL) {
		if (!(mr->access & PV_ACCESS_MW_BIND) ||
		    ((access & (PV_ACCESS_REMOTE_WRITE | PV_ACCESS_REMOTE_ATOMIC)) &&
		     !(mr->access & PV_ACCESS_LOCAL_WRITE)) ||
		    !sroce_mr_covers(mr, addr, length))
			return PV_WC_MW_BIND_ERR;
	}
	sroce_mw_unbind(mw);
	mw->rkey = (mw->rkey & ~0xffu) | (rkey & 0xffu);
	mw->ibmw.rkey = mw->rkey;
	if (mr == NULL)
		return PV_WC_SUCCESS;		/* type 1 unbind */
	mw->mr = mr;
	mr->nb_mw++;
	mw->addr = addr;
	mw->length = length;
	mw->access = access;
	mw->qpn = mw->type == PV_MW_TYPE_2 ? qpn : 0;
	mw->state = SROCE_MW_VALID;
	return PV_WC_SUCCESS;
}

enum pv_wc_status
pv_sroce_mw_bind(struct sroce_dev *dev, const struct sroce_pd *qp_pd, uint32_t qpn,
		 uint32_t mw_idx, uint32_t mw_serial, uint32_t rkey, uint32_t mr_key,
		 uint64_t addr, uint64_t length, unsigned int access)
{
	enum pv_wc_status st;

	sroce_mw_lock(dev);
	st = sroce_mw_bind(dev, qp_pd, qpn, mw_idx, mw_serial, rkey, mr_key, addr, length,
			   access);
	sroce_mw_unlock(dev);
	return st;
}

int
pv_sroce_key_invalidate(struct sroce_dev *dev, const struct sroce_pd *pd, uint32_t qpn,
			uint32_t rkey)
{
	struct sroce_mw *mw;
	int ret = -EINVAL;

	sroce_mw_lock(dev);
	mw = sroce_mw_lookup(dev, rkey);
	/* only a bound type 2 window of this QP and PD; MRs of reg_mr are
	 * not invalidatable (as rxe: user MRs are not fast-register MRs) */
	if (mw != NULL && mw->type == PV_MW_TYPE_2 && mw->state == SROCE_MW_VALID &&
	    mw->pd == pd && mw->qpn == qpn) {
		sroce_mw_unbind(mw);
		ret = 0;
	}
	sroce_mw_unlock(dev);
	return ret;
}

void
pv_sroce_mw_qp_gone(struct sroce_dev *dev, uint32_t qpn)
{
	uint32_t i;

	for (i = 1; i <= SROCE_MAX_MW; i++) {
		struct sroce_mw *mw = dev->mw_tbl[i];

		if (mw != NULL && mw->type == PV_MW_TYPE_2 && mw->state == SROCE_MW_VALID &&
		    mw->qpn == qpn)
			sroce_mw_unbind(mw);
	}
}
