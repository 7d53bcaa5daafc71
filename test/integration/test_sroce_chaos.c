/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * softroce under injected faults, in one process: two devices on crossed
 * net_ring ports driven from one thread (A 10.0.9.1, B 10.0.9.2; B is probed
 * with max_qp=1024,max_mr=70000).
 *
 * - limits: max_qp/max_mr reported (defaults and devargs), 1024 QPs and
 *   70,000 MRs created on B, one more refused.
 * - one test per fault type of pv_sroce_fault (drop, corrupt, duplicate,
 *   reorder, delay; TX and RX; seeded runs repeat), on UD messages, each
 *   checked against the device counters.
 * - chaos: RC WRITE/READ/SEND/atomics of mixed sizes, multi-SGE and inline,
 *   under 10 % loss, 10 % reorder, 5 % duplication and 1 % corruption in
 *   both directions (A's TX for A->B, A's RX for B->A): every byte checked,
 *   every completion in order, each SEND received exactly once and in order,
 *   every atomic executed once. UC (WRITE_WITH_IMM and SEND) and UD (SEND)
 *   under the same faults: what is delivered is byte-exact.
 *
 * PV_CHAOS_SECONDS=N (usertools/pv-bench-chaos.sh) runs each chaos test for
 * N seconds instead of a fixed count and prints messages survived per
 * minute.
 */

#include <arpa/inet.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <rte_common.h>

#include "pv_rtc.h"
#include "pv_sroce.h"
#include "pv_verbs.h"

#include "pv_app.h"
#include "ut_sroce.h"

#define IP_A		"10.0.9.1"
#define IP_B		"10.0.9.2"
#define B_MAX_QP	1024
#define B_MAX_MR	70000
#define DEPTH		64
#define WINDOW		16		/* RC WRs outstanding */
#define SLOTS		64		/* > 2 * WINDOW: a slot is idle when reused */
#define SLOT_SZ		8192u
#define BUFSZ		(SLOTS * SLOT_SZ)
#define QKEY		0x2468aceu
#define RC_OPS		1500		/* per chaos run (count mode) */
#define UC_ROUNDS	60
#define UD_MSGS		1500
#define STALL_MS	3000		/* RC: no completion for this long fails */

static struct pv_context *ctx[2];
static struct pv_pd *pd[2];
static struct pv_cq *cq[2];
static uint8_t *abuf, *bbuf, *rbuf;	/* A: sources/READ sinks; B: targets; B: receives */
static uint64_t *atom_b;		/* B: [0] FETCH_ADD counter, [1] CMP_SWP word */
static uint64_t *atom_a;		/* A: an 8-byte result per slot */
static struct pv_mr *amr, *bmr, *rmr, *atom_bmr, *atom_amr;
static struct pv_ah *ah_ab;
static uint32_t mtu;
static uint32_t bench_s;		/* PV_CHAOS_SECONDS */

/* ---------------------------------------------------------------------- */
/* Helpers                                                                */
/* ---------------------------------------------------------------------- */

static inline uint8_t
pat(uint32_t seq, uint32_t i)
{
	uint32_t x = seq * 2654435761u + i * 40503u;

	return (uint8_t)(x ^ x >> 13 ^ i >> 8);
}

/* @p len bytes of message @p seq: its sequence number first (when it fits) */
static void
pat_fill(uint8_t *p, uint32_t len, uint32_t seq)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = pat(seq, i);
	if (len >= 4)
		memcpy(p, &seq, 4);
}

static int
pat_check(const uint8_t *p, uint32_t len, uint32_t seq)
{
	uint32_t i;

	if (len >= 4 && memcmp(p, &seq, 4) != 0)
		return -1;
	for (i = len >= 4 ? 4 : 0; i < len; i++)
		if (p[i] != pat(seq, i))
			return -1;
	return 0;
}

static uint32_t
rnd(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

struct ah_job {
	struct pv_pd *pd;
	struct pv_ah_attr *attr;
	struct pv_ah *ah;
	int done;
};

static void *
ah_thread(void *arg)
{
	struct ah_job *j = arg;

	j->ah = pv_create_ah(j->pd, j->attr);
	__atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* create_ah resolves B's MAC by ARP: B is progressed meanwhile */
static struct pv_ah *
ah_create_ab(void)
{
	struct pv_ah_attr aa;
	struct ah_job j = { .pd = pd[0], .attr = &aa };
	pthread_t t;

	memset(&aa, 0, sizeof(aa));
	aa.is_global = 1;
	aa.port_num = 1;
	aa.grh.sgid_index = 1;
	aa.grh.hop_limit = 64;
	if (pv_query_gid(ctx[1], 1, 1, &aa.grh.dgid) != 0 ||
	    pthread_create(&t, NULL, ah_thread, &j) != 0)
		return NULL;
	while (!__atomic_load_n(&j.done, __ATOMIC_ACQUIRE))
		pv_progress(ctx[1]);
	pthread_join(t, NULL);
	return j.ah;
}

static struct pv_qp *
qp_new(int i, enum pv_qp_type type)
{
	struct pv_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq[i];
	ia.recv_cq = cq[i];
	ia.qp_type = type;
	ia.cap.max_send_wr = DEPTH;
	ia.cap.max_recv_wr = DEPTH;
	ia.cap.max_send_sge = 3;
	ia.cap.max_recv_sge = 1;
	ia.cap.max_inline_data = 64;
	return pv_create_qp(pd[i], &ia);
}

static int
ud_up(struct pv_qp *qp, uint32_t psn)
{
	struct pv_app_qp_peer none = { 0 };
	struct pv_app_qp_opts o;

	pv_app_qp_opts_init(&o);
	o.name = "test_sroce_chaos";
	o.qkey = QKEY;
	o.sq_psn = psn;
	return -pv_app_qp_connect(qp, &o, &none);
}

/* 1: pair_up() connects over IPv6 (GID 0, link-local, NDP) */
static uint8_t chaos_ipv6;

/* a connected RC or UC pair: qp[0] on A, qp[1] on B */
static int
pair_up(struct pv_qp *qp[2], enum pv_qp_type type)
{
	struct ut_qp_opts o = ut_qp_defaults;
	struct ut_peer peer[2];
	struct pv_port_attr pa;
	int i, ret = 0;

	o.timeout = 10;		/* 4 ms: a lost tail costs little */
	o.ipv6 = chaos_ipv6;
	if (type == PV_QPT_UC)
		o.access = PV_ACCESS_REMOTE_WRITE;
	if (pv_query_port(ctx[0], 1, &pa) != 0)
		return -1;
	for (i = 0; i < 2; i++) {
		qp[i] = qp_new(i, type);
		if (qp[i] == NULL)
			return -1;
		memset(&peer[i], 0, sizeof(peer[i]));
		peer[i].qpn = qp[i]->qp_num;
		peer[i].psn = 0xfff000 + i * 0x100;	/* the 24-bit PSN wraps early */
		pv_query_gid(ctx[i], 1, chaos_ipv6 ? 0 : 1, &peer[i].gid);
		ret = ret ? ret : ut_qp_init(qp[i], &o);
	}
	/* the helper leaves out what UC has not (READ/atomic, RNR, ACK timeout) */
	ret = ret ? ret : ut_qp_rtr_progress(qp[0], &o, &peer[1], pa.active_mtu, ctx[1]);
	ret = ret ? ret : ut_qp_rtr_progress(qp[1], &o, &peer[0], pa.active_mtu, ctx[0]);
	ret = ret ? ret : ut_qp_rts(qp[0], &o, peer[0].psn);
	return ret ? ret : ut_qp_rts(qp[1], &o, peer[1].psn);
}

static void
pair_down(struct pv_qp *qp[2])
{
	struct pv_sroce_fault none;

	memset(&none, 0, sizeof(none));
	pv_sroce_fault_set(ctx[0], &none);
	pv_sroce_fault_set(ctx[1], &none);
	ut_cq_drain(cq, 2, 20);		/* held frames are released and die */
	if (qp[0] != NULL)
		pv_destroy_qp(qp[0]);
	if (qp[1] != NULL)
		pv_destroy_qp(qp[1]);
}

static int
post_recv_slot(struct pv_qp *qp, uint32_t slot, uint32_t len)
{
	struct pv_sge sge = { (uintptr_t)(rbuf + (size_t)slot * SLOT_SZ), len, rmr->lkey };
	struct pv_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1 };
	struct pv_recv_wr *bad;

	return pv_post_recv(qp, &wr, &bad);
}

/* the faults of the chaos runs: A's TX and A's RX, both directions of the link */
static void
chaos_faults(struct pv_sroce_fault *f, uint32_t seed)
{
	struct pv_sroce_fault_dir d = {
		.drop_ppm = 100000, .reorder_ppm = 100000, .reorder_us = 100,
		.dup_ppm = 50000, .corrupt_ppm = 10000,
	};

	memset(f, 0, sizeof(*f));
	f->seed = seed;
	f->tx = d;
	f->rx = d;
}

static uint64_t
run_end_ms(void)
{
	return ut_now_ms() + bench_s * 1000u;
}

static void
bench_report(const char *what, uint64_t msgs, uint64_t t0)
{
	uint64_t ms = ut_now_ms() - t0;

	printf("chaos %s: %" PRIu64 " messages survived in %" PRIu64 " ms: %.0f per minute\n",
	       what, msgs, ms, ms ? msgs * 60000.0 / ms : 0.0);
}

/* ---------------------------------------------------------------------- */
/* Limits                                                                 */
/* ---------------------------------------------------------------------- */

static void
test_limits(void)
{
	static struct pv_qp *qps[B_MAX_QP + 1];
	static struct pv_mr *mrs[B_MAX_MR + 1];
	struct pv_device_attr da, db;
	uint32_t i, nq = 0, nm = 0;
	uint8_t byte;

	CU_ASSERT_EQUAL_FATAL(pv_query_device(ctx[0], &da), 0);
	CU_ASSERT_EQUAL_FATAL(pv_query_device(ctx[1], &db), 0);
	CU_ASSERT(da.max_qp >= 65536);
	CU_ASSERT(da.max_mr >= 1000000);
	CU_ASSERT_EQUAL(db.max_qp, B_MAX_QP);
	CU_ASSERT_EQUAL(db.max_mr, B_MAX_MR);
	/* this suite holds 3 MRs and 2 QPs on B */
	for (i = 0; i < B_MAX_QP + 1; i++) {
		struct pv_qp_init_attr ia = {
			.send_cq = cq[1], .recv_cq = cq[1], .qp_type = PV_QPT_RC,
			.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1,
				 .max_recv_sge = 1 },
		};

		qps[i] = pv_create_qp(pd[1], &ia);
		if (qps[i] == NULL)
			break;
		nq++;
	}
	CU_ASSERT_EQUAL(nq, B_MAX_QP);
	CU_ASSERT_EQUAL(errno, ENOMEM);
	/* every QPN of the device given once (cyclic allocation: in any order) */
	{
		uint32_t lo = UINT32_MAX, hi = 0, dup = 0, j;

		for (i = 0; i < nq; i++) {
			lo = RTE_MIN(lo, qps[i]->qp_num);
			hi = RTE_MAX(hi, qps[i]->qp_num);
			for (j = 0; j < (uint32_t)i; j++)
				dup += qps[j]->qp_num == qps[i]->qp_num;
		}
		CU_ASSERT_EQUAL(dup, 0);
		CU_ASSERT_EQUAL(lo, 0x11);
		CU_ASSERT_EQUAL(hi, 0x11 + B_MAX_QP - 1);
	}
	for (i = 0; i < nq; i++)
		pv_destroy_qp(qps[i]);
	for (i = 0; i < B_MAX_MR + 1; i++) {
		mrs[i] = pv_reg_mr(pd[1], &byte, 1, PV_ACCESS_LOCAL_WRITE);
		if (mrs[i] == NULL)
			break;
		nm++;
	}
	CU_ASSERT_EQUAL(nm, B_MAX_MR - 3);	/* rmr, bmr, atom_bmr */
	for (i = 0; i < nm; i++)
		pv_dereg_mr(mrs[i]);
}

/* ---------------------------------------------------------------------- */
/* One fault at a time, on UD messages A -> B                             */
/* ---------------------------------------------------------------------- */

struct ud_run {
	uint32_t sent, got, dup, reordered, bad, last;
	uint8_t seen[UD_MSGS];
};

static void
stats2(struct pv_sroce_stats s[2])
{
	pv_sroce_stats_get(ctx[0], &s[0]);
	pv_sroce_stats_get(ctx[1], &s[1]);
}

/* poll B's receives of a UD run of @p n messages, check and repost them */
static void
ud_collect(struct pv_qp *qb, uint32_t n, struct ud_run *r)
{
	struct pv_wc wc;

	while (pv_poll_cq(cq[1], 1, &wc) == 1) {
		const uint8_t *p = rbuf + wc.wr_id * SLOT_SZ + 40;
		uint32_t seq;

		CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
		memcpy(&seq, p, 4);
		if (seq >= n || pat_check(p, wc.byte_len - 40, seq) != 0) {
			r->bad++;
		} else {
			r->dup += r->seen[seq];
			r->seen[seq] = 1;
			r->reordered += seq < r->last;
			r->last = seq;
			r->got++;
		}
		post_recv_slot(qb, (uint32_t)wc.wr_id, SLOT_SZ);
	}
}

/*
 * Send @p n UD messages of 64..mtu bytes from A to B under @p fa (A) and
 * @p fb (B), then collect what arrives within 70 ms of progress (faults
 * on for the first 20); @p s0 and @p s1 get both devices' counters before
 * and after.
 */
static void
ud_run(uint32_t n, const struct pv_sroce_fault *fa, const struct pv_sroce_fault *fb,
       struct ud_run *r, struct pv_sroce_stats s0[2], struct pv_sroce_stats s1[2])
{
	struct pv_qp *qa = qp_new(0, PV_QPT_UD), *qb = qp_new(1, PV_QPT_UD);
	struct pv_sroce_fault none;
	uint32_t i, posted = 0, rng = 7;
	struct pv_wc wc;

	memset(r, 0, sizeof(*r));
	memset(&none, 0, sizeof(none));
	CU_ASSERT_FATAL(n <= RTE_DIM(r->seen) && qa != NULL && qb != NULL);
	CU_ASSERT_EQUAL_FATAL(ud_up(qa, 1) | ud_up(qb, 2), 0);
	for (i = 0; i < DEPTH; i++)
		CU_ASSERT_EQUAL(post_recv_slot(qb, i, SLOT_SZ), 0);
	stats2(s0);
	pv_sroce_fault_set(ctx[0], fa);
	pv_sroce_fault_set(ctx[1], fb);
	while (posted < n || r->sent < n) {
		if (posted < n && posted - r->sent < DEPTH / 2) {
			struct pv_sge sge;
			struct pv_send_wr wr, *bad;
			uint32_t slot = posted % SLOTS, len = 64 + rnd(&rng) % (mtu - 63);

			pat_fill(abuf + (size_t)slot * SLOT_SZ, len, posted);
			sge = (struct pv_sge){ (uintptr_t)(abuf + (size_t)slot * SLOT_SZ), len,
					       amr->lkey };
			memset(&wr, 0, sizeof(wr));
			wr.wr_id = posted;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.opcode = PV_WR_SEND;
			wr.send_flags = PV_SEND_SIGNALED;
			wr.wr.ud.ah = ah_ab;
			wr.wr.ud.remote_qpn = qb->qp_num;
			wr.wr.ud.remote_qkey = QKEY;
			CU_ASSERT_EQUAL_FATAL(pv_post_send(qa, &wr, &bad), 0);
			posted++;
		}
		ut_progress();
		while (pv_poll_cq(cq[0], 1, &wc) == 1) {
			CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
			r->sent++;
		}
		ud_collect(qb, n, r);
	}
	/* what is held or in flight arrives under the faults, then without */
	for (i = 0; i < 70; i++) {
		if (i == 20) {
			stats2(s1);
			pv_sroce_fault_set(ctx[0], &none);
			pv_sroce_fault_set(ctx[1], &none);
		}
		ut_spin(1);
		ud_collect(qb, n, r);
	}
	pv_destroy_qp(qa);
	pv_destroy_qp(qb);
	ut_cq_drain(cq, 2, 1);
}

static void
test_fault_drop(void)
{
	struct pv_sroce_fault f, none;
	struct pv_sroce_stats s0[2], s1[2];
	struct ud_run r;

	memset(&none, 0, sizeof(none));
	memset(&f, 0, sizeof(f));
	f.seed = 1;
	f.tx.drop_ppm = 500000;
	ud_run(200, &f, &none, &r, s0, s1);
	CU_ASSERT_EQUAL(r.bad, 0);
	CU_ASSERT_EQUAL(r.dup, 0);
	CU_ASSERT_EQUAL(r.got + (s1[0].tx_drop_fault - s0[0].tx_drop_fault), 200);
	CU_ASSERT(r.got > 50 && r.got < 150);
	/* RX side, on B */
	memset(&f, 0, sizeof(f));
	f.rx.drop_ppm = 250000;
	ud_run(200, &none, &f, &r, s0, s1);
	CU_ASSERT_EQUAL(r.got + (s1[1].rx_drop_fault - s0[1].rx_drop_fault), 200);
	CU_ASSERT(r.got > 100 && r.got < 190);
}

/* the same seed drops the same messages; another seed others */
static void
test_fault_seeded(void)
{
	struct pv_sroce_stats s0[2], s1[2];
	struct pv_sroce_fault f, none;
	uint8_t first[UD_MSGS];
	struct ud_run r;

	memset(&none, 0, sizeof(none));
	memset(&f, 0, sizeof(f));
	f.seed = 42;
	f.tx.drop_ppm = 300000;
	ud_run(200, &f, &none, &r, s0, s1);
	memcpy(first, r.seen, sizeof(first));
	ud_run(200, &f, &none, &r, s0, s1);
	CU_ASSERT_EQUAL(memcmp(first, r.seen, sizeof(first)), 0);
	f.seed = 43;
	ud_run(200, &f, &none, &r, s0, s1);
	CU_ASSERT_NOT_EQUAL(memcmp(first, r.seen, sizeof(first)), 0);
}

/* a corrupted frame fails the ICRC check, is counted, and never delivered */
static void
test_fault_corrupt(void)
{
	struct pv_sroce_fault f, none;
	struct pv_sroce_stats s0[2], s1[2];
	struct ud_run r;

	memset(&none, 0, sizeof(none));
	memset(&f, 0, sizeof(f));
	f.seed = 3;
	f.tx.corrupt_ppm = 1000000;
	ud_run(100, &f, &none, &r, s0, s1);
	CU_ASSERT_EQUAL(r.got, 0);
	CU_ASSERT_EQUAL(r.bad, 0);
	CU_ASSERT_EQUAL(s1[0].tx_fault_corrupt - s0[0].tx_fault_corrupt, 100);
	/* the parser refuses a bad BTH (opcode, TVer, pad) before the ICRC check */
	CU_ASSERT_EQUAL(s1[1].rx_drop_icrc - s0[1].rx_drop_icrc +
			s1[1].rx_drop_hdr - s0[1].rx_drop_hdr, 100);
	CU_ASSERT(s1[1].rx_drop_icrc - s0[1].rx_drop_icrc >= 50);
	/* RX: half of them, flipped on B before its check */
	memset(&f, 0, sizeof(f));
	f.seed = 4;
	f.rx.corrupt_ppm = 500000;
	ud_run(200, &none, &f, &r, s0, s1);
	CU_ASSERT_EQUAL(r.bad, 0);
	CU_ASSERT_EQUAL(s1[1].rx_fault_corrupt - s0[1].rx_fault_corrupt,
			s1[1].rx_drop_icrc - s0[1].rx_drop_icrc +
			s1[1].rx_drop_hdr - s0[1].rx_drop_hdr);
	CU_ASSERT_EQUAL(r.got + (s1[1].rx_fault_corrupt - s0[1].rx_fault_corrupt), 200);
	CU_ASSERT(r.got > 50 && r.got < 150);
}

static void
test_fault_dup(void)
{
	struct pv_sroce_fault f, none;
	struct pv_sroce_stats s0[2], s1[2];
	struct ud_run r;

	memset(&none, 0, sizeof(none));
	memset(&f, 0, sizeof(f));
	f.tx.dup_ppm = 1000000;
	ud_run(40, &f, &none, &r, s0, s1);
	CU_ASSERT_EQUAL(r.bad, 0);
	CU_ASSERT_EQUAL(s1[0].tx_fault_dup - s0[0].tx_fault_dup, 40);
	CU_ASSERT_EQUAL(r.got, 80);
	CU_ASSERT_EQUAL(r.dup, 40);
	memset(&f, 0, sizeof(f));
	f.rx.dup_ppm = 1000000;
	ud_run(40, &none, &f, &r, s0, s1);
	CU_ASSERT_EQUAL(s1[1].rx_fault_dup - s0[1].rx_fault_dup, 40);
	CU_ASSERT_EQUAL(r.got, 80);
	CU_ASSERT_EQUAL(r.dup, 40);
}

/* held frames are overtaken, and all arrive */
static void
test_fault_reorder(void)
{
	struct pv_sroce_fault f, none;
	struct pv_sroce_stats s0[2], s1[2];
	struct ud_run r;
	int dir;

	memset(&none, 0, sizeof(none));
	for (dir = 0; dir < 2; dir++) {
		memset(&f, 0, sizeof(f));
		f.seed = 5;
		if (dir == 0) {
			f.tx.reorder_ppm = 200000;
			f.tx.reorder_us = 300;
		} else {
			f.rx.reorder_ppm = 200000;
			f.rx.reorder_us = 300;
		}
		ud_run(200, dir == 0 ? &f : &none, dir == 0 ? &none : &f, &r, s0, s1);
		CU_ASSERT_EQUAL(r.got, 200);
		CU_ASSERT_EQUAL(r.bad, 0);
		CU_ASSERT_EQUAL(r.dup, 0);
		CU_ASSERT(r.reordered > 0);
		CU_ASSERT(dir == 0 ? s1[0].tx_fault_held > s0[0].tx_fault_held :
				     s1[1].rx_fault_held > s0[1].rx_fault_held);
	}
}

/* every frame held the same time: all arrive, in order (fewer than B's receives) */
static void
test_fault_delay(void)
{
	struct pv_sroce_fault f, none;
	struct pv_sroce_stats s0[2], s1[2];
	struct ud_run r;

	memset(&none, 0, sizeof(none));
	memset(&f, 0, sizeof(f));
	f.tx.delay_us = 500;
	f.rx.delay_us = 200;
	ud_run(DEPTH - 4, &f, &f, &r, s0, s1);
	CU_ASSERT_EQUAL(r.got, DEPTH - 4);
	CU_ASSERT_EQUAL(r.reordered, 0);
	CU_ASSERT_EQUAL(s1[0].tx_fault_held - s0[0].tx_fault_held, DEPTH - 4);
	CU_ASSERT_EQUAL(s1[1].rx_fault_held - s0[1].rx_fault_held, DEPTH - 4);
}

/* ---------------------------------------------------------------------- */
/* Chaos                                                                  */
/* ---------------------------------------------------------------------- */

enum { OP_WRITE, OP_READ, OP_SEND, OP_FADD, OP_CSWP };

struct rc_op {
	uint32_t seq, len, slot;
	uint8_t op;
	uint64_t expect;	/* atomics: the value returned */
};

static const uint32_t chaos_sizes[] = { 1, 4, 7, 64, 100, 1024, 1025, 3000, 5000, 8192 };

static void
rc_post(struct pv_qp *qa, struct rc_op *o, uint64_t *fadd, uint64_t *cswp, uint32_t *rng)
{
	uint8_t *src = abuf + (size_t)o->slot * SLOT_SZ;
	uint8_t *dst = bbuf + (size_t)o->slot * SLOT_SZ;
	struct pv_send_wr wr, *bad;
	struct pv_sge sge[3];
	uint32_t r = rnd(rng), n = 1;

	o->op = r % 10 < 4 ? OP_WRITE : r % 10 < 6 ? OP_READ : r % 10 < 8 ? OP_SEND :
		r % 10 < 9 ? OP_FADD : OP_CSWP;
	o->len = chaos_sizes[(r >> 4) % RTE_DIM(chaos_sizes)];
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = o->seq;
	wr.sg_list = sge;
	wr.send_flags = PV_SEND_SIGNALED;
	if (o->op == OP_FADD || o->op == OP_CSWP) {
		o->len = 8;
		sge[0] = (struct pv_sge){ (uintptr_t)&atom_a[o->slot], 8, atom_amr->lkey };
		atom_a[o->slot] = 0xdeadbeef;
		wr.wr.atomic.rkey = atom_bmr->rkey;
		if (o->op == OP_FADD) {
			wr.opcode = PV_WR_ATOMIC_FETCH_AND_ADD;
			wr.wr.atomic.remote_addr = (uintptr_t)&atom_b[0];
			wr.wr.atomic.compare_add = 1;
			o->expect = (*fadd)++;
		} else {
			wr.opcode = PV_WR_ATOMIC_CMP_AND_SWP;
			wr.wr.atomic.remote_addr = (uintptr_t)&atom_b[1];
			wr.wr.atomic.compare_add = *cswp;
			wr.wr.atomic.swap = (uint64_t)o->seq << 32 | o->seq;
			o->expect = *cswp;
			*cswp = wr.wr.atomic.swap;
		}
	} else {
		if (o->op == OP_SEND && o->len < 4)
			o->len = 4;
		if (o->op == OP_READ) {
			pat_fill(dst, o->len, o->seq);	/* B's application wrote it */
			memset(src, 0, o->len);
		} else {
			pat_fill(src, o->len, o->seq);
			memset(dst, 0, o->len);
		}
		if (o->len >= 3 && (r >> 8) % 2 == 0) {
			/* three SGEs */
			uint32_t a = o->len / 3, b = o->len / 3;

			sge[0] = (struct pv_sge){ (uintptr_t)src, a, amr->lkey };
			sge[1] = (struct pv_sge){ (uintptr_t)src + a, b, amr->lkey };
			sge[2] = (struct pv_sge){ (uintptr_t)src + a + b, o->len - a - b,
						  amr->lkey };
			n = 3;
		} else {
			sge[0] = (struct pv_sge){ (uintptr_t)src, o->len, amr->lkey };
		}
		if (o->op != OP_READ && o->len <= 64 && (r >> 9) % 2 == 0)
			wr.send_flags |= PV_SEND_INLINE;
		wr.opcode = o->op == OP_WRITE ? PV_WR_RDMA_WRITE :
			    o->op == OP_READ ? PV_WR_RDMA_READ : PV_WR_SEND;
		wr.wr.rdma.remote_addr = (uintptr_t)dst;
		wr.wr.rdma.rkey = bmr->rkey;
	}
	wr.num_sge = n;
	CU_ASSERT_EQUAL_FATAL(pv_post_send(qa, &wr, &bad), 0);
}

/* @return 0 when the completed op's data is right */
static int
rc_verify(const struct rc_op *o)
{
	const uint8_t *src = abuf + (size_t)o->slot * SLOT_SZ;
	const uint8_t *dst = bbuf + (size_t)o->slot * SLOT_SZ;

	switch (o->op) {
	case OP_WRITE:
		return pat_check(dst, o->len, o->seq);
	case OP_READ:
		return pat_check(src, o->len, o->seq);
	case OP_FADD:
	case OP_CSWP:
		return atom_a[o->slot] == o->expect ? 0 : -1;
	default:
		return 0;	/* SEND: checked at B */
	}
}

static void
test_chaos_rc(void)
{
	static struct rc_op ops[SLOTS];
	struct pv_sroce_stats s0[2], s1[2];
	struct pv_sroce_fault f, none;
	struct pv_qp *qp[2] = { NULL, NULL };
	uint64_t fadd = 0, cswp = 0, t0, end;
	uint32_t posted = 0, done = 0, rng = 99, bad = 0, order = 0, i;
	uint32_t sends_posted = 0, sends_got = 0, recv_bad = 0, nfadd, last_done = 0;
	uint64_t last_ms;
	uint32_t send_seq[SLOTS];
	struct pv_wc wc;

	memset(&none, 0, sizeof(none));
	CU_ASSERT_EQUAL_FATAL(pair_up(qp, PV_QPT_RC), 0);
	for (i = 0; i < DEPTH; i++)
		CU_ASSERT_EQUAL(post_recv_slot(qp[1], i, SLOT_SZ), 0);
	atom_b[0] = 0;
	atom_b[1] = 0;
	chaos_faults(&f, 11);
	pv_sroce_fault_set(ctx[0], &f);
	stats2(s0);
	t0 = ut_now_ms();
	last_ms = t0;
	end = run_end_ms();
	while (bench_s != 0 ? ut_now_ms() < end || done != posted : done < RC_OPS) {
		if (posted - done < WINDOW && (bench_s != 0 ? ut_now_ms() < end : posted < RC_OPS)) {
			struct rc_op *o = &ops[posted % SLOTS];

			o->seq = posted;
			o->slot = posted % SLOTS;
			rc_post(qp[0], o, &fadd, &cswp, &rng);
			if (o->op == OP_SEND)
				send_seq[sends_posted++ % SLOTS] = o->seq;
			posted++;
		}
		ut_progress();
		while (pv_poll_cq(cq[0], 1, &wc) == 1) {
			struct rc_op *o = &ops[done % SLOTS];

			if (wc.wr_id != done || wc.status != PV_WC_SUCCESS) {
				if (order++ < 5)
					printf("rc: completion %" PRIu64 " status %d, expected %u\n",
					       wc.wr_id, wc.status, done);
			} else if (rc_verify(o) != 0) {
				if (bad++ < 5)
					printf("rc: op %u (%d, %u B) data wrong\n", o->seq, o->op,
					       o->len);
			}
			done++;
		}
		while (pv_poll_cq(cq[1], 1, &wc) == 1) {
			const uint8_t *p = rbuf + wc.wr_id * SLOT_SZ;
			uint32_t want = send_seq[sends_got % SLOTS];

			if (wc.status != PV_WC_SUCCESS || sends_got >= sends_posted ||
			    pat_check(p, wc.byte_len, want) != 0) {
				if (recv_bad++ < 5)
					printf("rc: receive %u status %d len %u wrong (seq %u)\n",
					       sends_got, wc.status, wc.byte_len, want);
			}
			sends_got++;
			post_recv_slot(qp[1], (uint32_t)wc.wr_id, SLOT_SZ);
		}
		if (done != last_done) {
			last_done = done;
			last_ms = ut_now_ms();
		}
		if (ut_now_ms() > last_ms + STALL_MS) {
			struct pv_qp_attr qa_attr, qb_attr;
			struct pv_qp_init_attr ia;

			pv_query_qp(qp[0], &qa_attr, PV_QP_STATE, &ia);
			pv_query_qp(qp[1], &qb_attr, PV_QP_STATE, &ia);
			printf("rc: stuck at %u of %u completions (QP states %d %d)\n", done,
			       posted, qa_attr.qp_state, qb_attr.qp_state);
			break;
		}
	}
	stats2(s1);
	pv_sroce_fault_set(ctx[0], &none);
	ut_spin(5);
	while (pv_poll_cq(cq[1], 1, &wc) == 1)
		recv_bad++;	/* a SEND received twice */
	nfadd = (uint32_t)fadd;
	printf("rc: %u ops, %u SENDs; A: %" PRIu64 " TX dropped, %" PRIu64 " RX dropped, %"
	       PRIu64 "+%" PRIu64 " held, %" PRIu64 "+%" PRIu64 " duplicated, %" PRIu64
	       "+%" PRIu64 " corrupted; B: %" PRIu64 " ICRC drops, %" PRIu64
	       " duplicate requests; A: %" PRIu64 " ICRC drops, %" PRIu64 " retransmits\n",
	       done, sends_got, s1[0].tx_drop_fault - s0[0].tx_drop_fault,
	       s1[0].rx_drop_fault - s0[0].rx_drop_fault,
	       s1[0].tx_fault_held - s0[0].tx_fault_held,
	       s1[0].rx_fault_held - s0[0].rx_fault_held,
	       s1[0].tx_fault_dup - s0[0].tx_fault_dup, s1[0].rx_fault_dup - s0[0].rx_fault_dup,
	       s1[0].tx_fault_corrupt - s0[0].tx_fault_corrupt,
	       s1[0].rx_fault_corrupt - s0[0].rx_fault_corrupt,
	       s1[1].rx_drop_icrc - s0[1].rx_drop_icrc, s1[1].dup_reqs - s0[1].dup_reqs,
	       s1[0].rx_drop_icrc - s0[0].rx_drop_icrc, s1[0].retransmits - s0[0].retransmits);
	if (bench_s != 0)
		bench_report("rc", done, t0);
	CU_ASSERT_EQUAL(done, posted);
	CU_ASSERT(bench_s != 0 || done == RC_OPS);
	CU_ASSERT_EQUAL(order, 0);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(recv_bad, 0);
	CU_ASSERT_EQUAL(sends_got, sends_posted);
	CU_ASSERT_EQUAL(atom_b[0], nfadd);
	CU_ASSERT_EQUAL(atom_b[1], cswp);
	/* the faults did happen, in both directions */
	CU_ASSERT(s1[0].tx_drop_fault > s0[0].tx_drop_fault);
	CU_ASSERT(s1[0].rx_drop_fault > s0[0].rx_drop_fault);
	CU_ASSERT(s1[0].tx_fault_held > s0[0].tx_fault_held);
	CU_ASSERT(s1[1].rx_drop_icrc > s0[1].rx_drop_icrc);
	pair_down(qp);
}

/*
 * UC: rounds of WINDOW messages (WRITE_WITH_IMM, imm = sequence number, or
 * SEND), each to its own slot of the half of B's buffer this round uses;
 * between rounds the link goes idle, so no frame of a round meets the next
 * round that writes the same slots.
 */
/* B's slot of UC message @p seq: rounds alternate between two halves */
static uint32_t
uc_slot(uint32_t seq)
{
	return (seq / WINDOW) % 2 * WINDOW + seq % WINDOW;
}

static void
test_chaos_uc(void)
{
	struct pv_sroce_fault f;
	struct pv_qp *qp[2] = { NULL, NULL };
	uint32_t round, seq = 0, got = 0, bad = 0, dups = 0, rng = 5, i;
	uint64_t t0, end;
	static uint8_t seen[1 << 20];
	struct pv_wc wc;

	CU_ASSERT_EQUAL_FATAL(pair_up(qp, PV_QPT_UC), 0);
	for (i = 0; i < DEPTH; i++)
		CU_ASSERT_EQUAL(post_recv_slot(qp[1], i, SLOT_SZ), 0);
	chaos_faults(&f, 12);
	pv_sroce_fault_set(ctx[0], &f);
	memset(seen, 0, sizeof(seen));
	t0 = ut_now_ms();
	end = run_end_ms();
	for (round = 0; bench_s != 0 ? ut_now_ms() < end : round < UC_ROUNDS; round++) {
		uint32_t sent = 0, k;

		for (k = 0; k < WINDOW; k++, seq++) {
			uint32_t slot = uc_slot(seq), r = rnd(&rng);
			uint32_t len = chaos_sizes[r % RTE_DIM(chaos_sizes)];
			uint8_t *src = abuf + (size_t)slot * SLOT_SZ;
			struct pv_sge sge = { (uintptr_t)src, RTE_MAX(len, 4u), amr->lkey };
			struct pv_send_wr wr, *bad_wr;

			pat_fill(src, sge.length, seq);
			memset(bbuf + (size_t)slot * SLOT_SZ, 0, SLOT_SZ);
			memset(&wr, 0, sizeof(wr));
			wr.wr_id = seq;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.send_flags = PV_SEND_SIGNALED;
			wr.opcode = (r >> 8) % 2 ? PV_WR_SEND : PV_WR_RDMA_WRITE_WITH_IMM;
			wr.imm_data = htonl(seq);
			wr.wr.rdma.remote_addr = (uintptr_t)(bbuf + (size_t)slot * SLOT_SZ);
			wr.wr.rdma.rkey = bmr->rkey;
			CU_ASSERT_EQUAL_FATAL(pv_post_send(qp[0], &wr, &bad_wr), 0);
		}
		/* UC completes at transmission; then the link drains */
		while (sent < WINDOW) {
			ut_progress();
			while (pv_poll_cq(cq[0], 1, &wc) == 1) {
				CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
				sent++;
			}
		}
		for (k = 0; k < 3; k++) {
			ut_spin(1);
			while (pv_poll_cq(cq[1], 1, &wc) == 1) {
				uint32_t s;
				const uint8_t *p;

				if (wc.status != PV_WC_SUCCESS) {
					bad++;
					continue;
				}
				if (wc.opcode == PV_WC_RECV_RDMA_WITH_IMM) {
					s = ntohl(wc.imm_data);
					p = bbuf + (size_t)uc_slot(s) * SLOT_SZ;
				} else {
					p = rbuf + wc.wr_id * SLOT_SZ;
					memcpy(&s, p, 4);
				}
				/* this round's, whole and byte-exact */
				bad += s >= seq || s + WINDOW < seq ||
				       pat_check(p, wc.byte_len, s) != 0;
				post_recv_slot(qp[1], (uint32_t)wc.wr_id, SLOT_SZ);
				if (s < sizeof(seen)) {
					dups += seen[s];
					seen[s] = 1;
				}
				got++;
			}
		}
	}
	printf("uc: %u messages sent, %u delivered byte-exact, %u duplicates, %u wrong\n",
	       seq, got - bad, dups, bad);
	if (bench_s != 0)
		bench_report("uc", got - bad - dups, t0);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(got > 0);
	pair_down(qp);
}

/* UD: A's TX and B's RX faulty (both hit A -> B); what arrives is byte-exact */
static void
test_chaos_ud(void)
{
	struct pv_sroce_fault f, none;
	struct pv_sroce_stats s0[2], s1[2];
	uint64_t t0 = ut_now_ms(), end = run_end_ms(), total = 0;
	uint32_t runs = 0;
	struct ud_run r;

	memset(&none, 0, sizeof(none));
	do {
		chaos_faults(&f, 13 + runs);
		ud_run(UD_MSGS, &f, &f, &r, s0, s1);
		if (bench_s == 0)
			printf("ud: %u sent, %u delivered byte-exact (%u duplicates, %u out of order), "
			       "%u wrong; B: %" PRIu64 " ICRC drops\n", r.sent, r.got, r.dup,
			       r.reordered, r.bad, s1[1].rx_drop_icrc - s0[1].rx_drop_icrc);
		CU_ASSERT_EQUAL(r.sent, UD_MSGS);
		CU_ASSERT_EQUAL(r.bad, 0);
		CU_ASSERT(r.got > UD_MSGS / 2);
		CU_ASSERT(r.got <= r.sent + r.dup);
		total += r.got - r.dup;
		runs++;
	} while (bench_s != 0 && ut_now_ms() < end);
	if (bench_s != 0)
		bench_report("ud", total, t0);
}

/* ---------------------------------------------------------------------- */

static int
suite_init(void)
{
	struct pv_port_attr pa;

	if (ut_devs_open(ctx, pd, cq, 4 * DEPTH, 1) != 0)
		return -1;
	abuf = aligned_alloc(64, BUFSZ);
	bbuf = aligned_alloc(64, BUFSZ);
	rbuf = aligned_alloc(64, (size_t)DEPTH * SLOT_SZ);
	atom_a = aligned_alloc(64, SLOTS * sizeof(*atom_a));
	atom_b = aligned_alloc(64, 64);
	if (abuf == NULL || bbuf == NULL || rbuf == NULL || atom_a == NULL || atom_b == NULL)
		return -1;
	amr = pv_reg_mr(pd[0], abuf, BUFSZ, PV_ACCESS_LOCAL_WRITE);
	atom_amr = pv_reg_mr(pd[0], atom_a, SLOTS * sizeof(*atom_a), PV_ACCESS_LOCAL_WRITE);
	bmr = pv_reg_mr(pd[1], bbuf, BUFSZ, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE |
			PV_ACCESS_REMOTE_READ);
	rmr = pv_reg_mr(pd[1], rbuf, (size_t)DEPTH * SLOT_SZ, PV_ACCESS_LOCAL_WRITE);
	atom_bmr = pv_reg_mr(pd[1], atom_b, 64, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_ATOMIC);
	if (amr == NULL || atom_amr == NULL || bmr == NULL || rmr == NULL || atom_bmr == NULL ||
	    pv_query_port(ctx[0], 1, &pa) != 0)
		return -1;
	mtu = (uint32_t)pv_mtu_to_bytes(pa.active_mtu);
	ah_ab = ah_create_ab();
	return ah_ab != NULL ? 0 : -1;
}

static void
suite_clean(void)
{
	pv_destroy_ah(ah_ab);
	pv_dereg_mr(amr);
	pv_dereg_mr(atom_amr);
	pv_dereg_mr(bmr);
	pv_dereg_mr(rmr);
	pv_dereg_mr(atom_bmr);
	ut_devs_close(ctx, pd, cq);
	free(abuf);
	free(bbuf);
	free(rbuf);
	free(atom_a);
	free(atom_b);
}

/*
 * No argument: limits, faults, UD and UC chaos. "rc": the RC chaos run
 * alone (meson suite 'chaos': issue 11's requester bug, an ACK landing
 * during a go-back-N rewind, leaves req.idx < sq_ci and the QP stalled; it
 * joins the integration suite with the fix). PV_CHAOS_SECONDS=N: the three
 * chaos runs for N seconds each.
 */
/* a ut_case.when: the limit and fault checks, left out of a bench run */
static int
ut_not_bench(void)
{
	return bench_s == 0;
}

/* the same over IPv6 RoCEv2: the faults recognise IPv6 frames too */
static void
test_chaos_rc_ipv6(void)
{
	chaos_ipv6 = 1;
	test_chaos_rc();
	chaos_ipv6 = 0;
}

static const struct ut_case sroce_chaos_cases[] = {
	{ "limits", test_limits, ut_not_bench },
	{ "fault_drop", test_fault_drop, ut_not_bench },
	{ "fault_seeded", test_fault_seeded, ut_not_bench },
	{ "fault_corrupt", test_fault_corrupt, ut_not_bench },
	{ "fault_dup", test_fault_dup, ut_not_bench },
	{ "fault_reorder", test_fault_reorder, ut_not_bench },
	{ "fault_delay", test_fault_delay, ut_not_bench },
	{ "chaos_ud", test_chaos_ud },
	{ "chaos_uc", test_chaos_uc },
	{ "chaos_rc", test_chaos_rc },
	{ "chaos_rc_ipv6", test_chaos_rc_ipv6 },
	{ NULL, NULL },
};

static const struct ut_suite sroce_chaos_suite = { "sroce_chaos", NULL, NULL, sroce_chaos_cases };

/* PV_CHAOS_SECONDS=N: each chaos run lasts N s and prints its figures (make bench-chaos) */
int
main(void)
{
	const char *env = getenv("PV_CHAOS_SECONDS");
	int ret, fails;

	bench_s = env != NULL ? (uint32_t)atoi(env) : 0;
	ret = ut_ring_pair_init("test_sroce_chaos", 256, "chaos", 4096, "ip=" IP_A,
				"ip=" IP_B ",max_qp=1024,max_mr=70000");
	if (ret != 0)
		return ret;
	if (suite_init() != 0) {
		fprintf(stderr, "set-up failed\n");
		return 1;
	}
	fails = ut_cunit_run_one(&sroce_chaos_suite);
	suite_clean();
	pv_cleanup();
	return fails != 0;
}
