/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Inter-lcore messages: one multi-producer / single-consumer rte_ring per
 * EAL lcore holding {fn, arg} by value, drained by the owner's loop.
 */

#include <errno.h>
#include <stdio.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "pv_rtc.h"
#include "rtc_priv.h"

#define RTC_MSG_BURST 32

int
pv_rtc_msg_init(void)
{
	char name[RTE_RING_NAMESIZE];
	unsigned int id;

	RTE_LCORE_FOREACH(id) {
		struct rte_ring *r;

		snprintf(name, sizeof(name), "pv_rtc_msg_%u", id);
		r = rte_ring_create_elem(name, sizeof(struct pv_rtc_msg), PV_RTC_MSG_RING_ENTRIES,
					 rte_lcore_to_socket_id(id),
					 RING_F_SC_DEQ | RING_F_EXACT_SZ);
		if (r == NULL) {
			int ret = -rte_errno;

			RTC_LOG(ERR, "lcore %u: cannot create message ring: %s", id,
				rte_strerror(rte_errno));
			pv_rtc_msg_fini();
			return ret;
		}
		pv_rtc_lcores[id].msg_ring = r;
	}
	return 0;
}

void
pv_rtc_msg_fini(void)
{
	unsigned int id;

	for (id = 0; id < RTE_MAX_LCORE; id++) {
		rte_ring_free(pv_rtc_lcores[id].msg_ring);
		pv_rtc_lcores[id].msg_ring = NULL;
	}
}

int
pv_rtc_msg_send(unsigned int lcore_id, pv_rtc_msg_fn fn, void *arg)
{
	struct pv_rtc_msg m = { .fn = fn, .arg = arg };
	struct rte_ring *r;

	if (fn == NULL || lcore_id >= RTE_MAX_LCORE)
		return -EINVAL;
	r = pv_rtc_lcores[lcore_id].msg_ring;
	if (r == NULL)
		return -EINVAL;
	if (rte_ring_mp_enqueue_elem(r, &m, sizeof(m)) != 0)
		return -ENOBUFS;
	return 0;
}

int
pv_rtc_msg_drain(struct pv_rtc_lcore *lc)
{
	struct pv_rtc_msg m[RTC_MSG_BURST];
	unsigned int n, i;
	int done = 0;

	if (unlikely(lc->msg_ring == NULL))
		return 0;
	do {
		n = rte_ring_sc_dequeue_burst_elem(lc->msg_ring, m, sizeof(m[0]),
						   RTC_MSG_BURST, NULL);
		for (i = 0; i < n; i++)
			m[i].fn(m[i].arg);
		done += n;
	} while (n == RTC_MSG_BURST && done < PV_RTC_MSG_DRAIN_MAX);
	return done;
}
