/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Set-up shared by the softroce integration tests (declared in ut_sroce.h):
 * net_ring port pairs, QP transitions that need the peer's progress.
 */

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#include <rte_ring.h>

#include "ut_sroce.h"

struct pv_context *ut_progress_ctx[UT_MAX_CTX];

ut_from_rings_fn
ut_from_rings(void)
{
	void *h;

	/* the ring PMD was loaded by EAL as a plugin: find it by soname; the
	 * ports it creates are named "net_ring_<name>" */
	h = dlopen("librte_net_ring.so.23", RTLD_NOW | RTLD_NOLOAD);
	if (h == NULL)
		h = dlopen("librte_net_ring.so.23", RTLD_NOW);
	if (h == NULL)
		return NULL;
	return (ut_from_rings_fn)(uintptr_t)dlsym(h, "rte_eth_from_rings");
}

int
ut_ring_ports_crossed(const char *name, unsigned int slots)
{
	char ab_name[RTE_RING_NAMESIZE], ba_name[RTE_RING_NAMESIZE];
	char a_name[RTE_RING_NAMESIZE], b_name[RTE_RING_NAMESIZE];
	struct rte_ring *ab, *ba;
	ut_from_rings_fn from_rings;

	from_rings = ut_from_rings();
	if (from_rings == NULL)
		return -ENOENT;
	snprintf(ab_name, sizeof(ab_name), "%s_ab", name);
	snprintf(ba_name, sizeof(ba_name), "%s_ba", name);
	snprintf(a_name, sizeof(a_name), "%s_a", name);
	snprintf(b_name, sizeof(b_name), "%s_b", name);
	ab = rte_ring_create(ab_name, slots, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	ba = rte_ring_create(ba_name, slots, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (ab == NULL || ba == NULL)
		return -ENOMEM;
	if (from_rings(a_name, &ba, 1, &ab, 1, 0) < 0 ||
	    from_rings(b_name, &ab, 1, &ba, 1, 0) < 0)
		return -EIO;
	return 0;
}

struct ut_modify_job {
	struct pv_qp *qp;
	struct pv_qp_attr *a;
	int mask;
	int done;
	int ret;
};

static void *
ut_modify_thread(void *arg)
{
	struct ut_modify_job *j = arg;

	j->ret = pv_modify_qp(j->qp, j->a, j->mask);
	__atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

int
ut_modify_qp_progress(struct pv_qp *qp, struct pv_qp_attr *a, int mask, struct pv_context *other)
{
	struct ut_modify_job j = { .qp = qp, .a = a, .mask = mask };
	pthread_t t;

	if (pthread_create(&t, NULL, ut_modify_thread, &j) != 0)
		return errno;
	while (!__atomic_load_n(&j.done, __ATOMIC_ACQUIRE))
		pv_progress(other);
	pthread_join(t, NULL);
	return j.ret;
}

int
ut_qp_rtr_progress(struct pv_qp *qp, const struct ut_qp_opts *o, const struct ut_peer *peer,
		   enum pv_mtu mtu, struct pv_context *other)
{
	struct pv_qp_attr a;
	int mask = ut_qp_rtr_attr(&a, o, peer, mtu);

	return ut_modify_qp_progress(qp, &a, mask, other);
}
