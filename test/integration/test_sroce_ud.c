/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * softroce UD queue pairs and address handles, in one process: two devices
 * on crossed net_ring ports driven from one thread. Device A (10.0.3.1)
 * sends, device B (10.0.3.2) receives.
 *
 * SEND at 1 B, 64 B and the path MTU and SEND_WITH_IMM compared byte for
 * byte, with the 40-byte GRH area (20 zero bytes, the IPv4 header) and the
 * completion fields checked; a wrong Q_Key dropped and counted (the QP's
 * own Q_Key used when the WR's has its high bit set); a message above the
 * MTU completing without a packet; WR opcodes other than SEND refused; a
 * reply through pv_create_ah_from_wc(); a UD QP on an SRQ; a receive buffer too small
 * (LOC_LEN_ERR) and the flush of the rest in ERR.
 */

#include <arpa/inet.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/Basic.h>
#include <rte_common.h>
#include <rte_ip.h>

#include "pv_rtc.h"
#include "pv_sroce.h"
#include "pv_verbs.h"
#include "pv_app.h"
#include "ut_sroce.h"

#define DEPTH	32
#define SLOT	8192u		/* one receive buffer: GRH + up to 4096 B + room */
#define NSLOT	16
#define BUFSZ	(SLOT * NSLOT)
#define QKEY	0x11223344u
#define IP_A	"10.0.3.1"
#define IP_B	"10.0.3.2"

static struct pv_context *ctx[2];
static struct pv_pd *pd[2];
static struct pv_cq *cq[2];
static uint8_t *sbuf, *rbuf;
static struct pv_mr *smr, *rmr, *smr_b, *rmr_a;
static struct ut_buf *sb, *rb;
static struct pv_qp *qa, *qb;
static struct pv_ah *ah_ab;	/* on A, to B */
static uint32_t mtu;

/* ---------------------------------------------------------------------- */
/* Helpers                                                                */
/* ---------------------------------------------------------------------- */

struct ah_job {
	struct pv_pd *pd;
	struct pv_ah_attr *attr;	/* pv_create_ah() ... */
	struct pv_wc *wc;		/* ... or pv_create_ah_from_wc() */
	struct pv_grh *grh;
	struct pv_ah *ah;
	int err;
	int done;
};

static void *
ah_thread(void *arg)
{
	struct ah_job *j = arg;

	if (j->attr != NULL)
		j->ah = pv_create_ah(j->pd, j->attr);
	else
		j->ah = pv_create_ah_from_wc(j->pd, j->wc, j->grh, 1);
	j->err = j->ah == NULL ? errno : 0;
	__atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* create_ah resolves the peer's MAC (ARP): the peer must be progressed meanwhile */
static struct pv_ah *
ah_create_progress(struct ah_job *j, struct pv_context *other)
{
	pthread_t t;

	if (pthread_create(&t, NULL, ah_thread, j) != 0)
		return NULL;
	while (!__atomic_load_n(&j->done, __ATOMIC_ACQUIRE))
		pv_progress(other);
	pthread_join(t, NULL);
	errno = j->err;
	return j->ah;
}

static struct pv_qp *
ud_qp_create(struct pv_pd *p, struct pv_cq *c)
{
	struct pv_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = c;
	ia.recv_cq = c;
	ia.qp_type = PV_QPT_UD;
	ia.cap.max_send_wr = DEPTH;
	ia.cap.max_recv_wr = DEPTH;
	ia.cap.max_send_sge = 2;
	ia.cap.max_recv_sge = 2;
	ia.cap.max_inline_data = 64;
	return pv_create_qp(p, &ia);
}

static int
ud_qp_up(struct pv_qp *qp, uint32_t qkey, uint32_t psn)
{
	struct pv_app_qp_opts o;

	pv_app_qp_opts_init(&o);
	o.name = "test_sroce_ud";
	o.qkey = qkey;
	o.sq_psn = psn;
	return -pv_app_qp_connect(qp, &o, NULL);
}

static int
post_recv(struct pv_qp *qp, struct pv_mr *mr, uint8_t *buf, uint32_t len, uint64_t id)
{
	struct pv_sge sge = { .addr = (uintptr_t)buf, .length = len, .lkey = mr->lkey };
	struct pv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct pv_recv_wr *bad = NULL;

	return pv_post_recv(qp, &wr, &bad);
}

static int
post_ud(struct pv_qp *qp, struct pv_mr *mr, uint8_t *buf, uint32_t len, struct pv_ah *ah,
	uint32_t rqpn, uint32_t qkey, enum pv_wr_opcode op, uint32_t imm, uint64_t id)
{
	struct pv_sge sge = { .addr = (uintptr_t)buf, .length = len, .lkey = mr->lkey };
	struct pv_send_wr wr;
	struct pv_send_wr *bad = NULL;
	int ret;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = PV_SEND_SIGNALED;
	wr.imm_data = htonl(imm);
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = rqpn;
	wr.wr.ud.remote_qkey = qkey;
	ret = pv_post_send(qp, &wr, &bad);
	if (ret != 0) {
		CU_ASSERT_PTR_EQUAL(bad, &wr);
	}
	return ret;
}

static void
fill(uint8_t *p, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

/* the 40-byte GRH area of a receive from @p src to @p dst (dotted IPv4) */
static void
check_grh(const uint8_t *g, const char *src, const char *dst, uint32_t payload)
{
	static const uint8_t zero[20];
	const struct rte_ipv4_hdr *ip = (const void *)(g + 20);

	CU_ASSERT_EQUAL(memcmp(g, zero, sizeof(zero)), 0);
	CU_ASSERT_EQUAL(ip->version_ihl, 0x45);
	CU_ASSERT_EQUAL(ip->next_proto_id, 17);
	CU_ASSERT_EQUAL(ip->time_to_live, 64);
	CU_ASSERT_EQUAL(ip->type_of_service, 0);
	CU_ASSERT_EQUAL(ip->src_addr, inet_addr(src));
	CU_ASSERT_EQUAL(ip->dst_addr, inet_addr(dst));
	/* IPv4 + UDP + BTH + DETH + payload + pad + ICRC (no ImmDt here) */
	if (payload != UINT32_MAX) {
		CU_ASSERT_EQUAL(ntohs(ip->total_length),
				20 + 8 + 12 + 8 + RTE_ALIGN_CEIL(payload, 4) + 4);
	}
	CU_ASSERT_EQUAL(rte_ipv4_cksum(ip), 0);
}

/* ---------------------------------------------------------------------- */
/* Tests                                                                  */
/* ---------------------------------------------------------------------- */

static void
test_ud_sizes(void)
{
	const uint32_t sizes[] = { 1, 64, mtu };
	union pv_gid ga, gb;
	struct pv_ah_attr aa;
	unsigned int k;

	CU_ASSERT_EQUAL(pv_query_gid(ctx[0], 1, 1, &ga), 0);
	CU_ASSERT_EQUAL(pv_query_gid(ctx[1], 1, 1, &gb), 0);
	for (k = 0; k < RTE_DIM(sizes); k++) {
		uint32_t n = sizes[k];
		uint8_t *r = rbuf + k * SLOT;
		struct pv_wc wc;

		fill(sbuf, n, k + 1);
		memset(r, 0xee, SLOT);
		CU_ASSERT_EQUAL(post_recv(qb, rmr, r, SLOT, 100 + k), 0);
		CU_ASSERT_EQUAL(post_ud(qa, smr, sbuf, n, ah_ab, qb->qp_num, QKEY, PV_WR_SEND, 0,
					k), 0);
		CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[0], &wc, 2000), 1);
		CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc.opcode, PV_WC_SEND);
		CU_ASSERT_EQUAL(wc.wr_id, k);
		CU_ASSERT_EQUAL(wc.byte_len, n);
		CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[1], &wc, 2000), 1);
		CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc.opcode, PV_WC_RECV);
		CU_ASSERT_EQUAL(wc.wr_id, 100 + k);
		CU_ASSERT_EQUAL(wc.byte_len, n + 40);
		CU_ASSERT_EQUAL(wc.qp_num, qb->qp_num);
		CU_ASSERT_EQUAL(wc.src_qp, qa->qp_num);
		CU_ASSERT_EQUAL(wc.wc_flags, PV_WC_GRH);
		CU_ASSERT_EQUAL(wc.slid, 0);
		CU_ASSERT_EQUAL(wc.sl, 0);
		CU_ASSERT_EQUAL(memcmp(r + 40, sbuf, n), 0);
		CU_ASSERT_EQUAL(r[40 + n], 0xee);	/* nothing written past the message */
		check_grh(r, IP_A, IP_B, n);
		/* the reply path, as lib/verbs reads the GRH */
		CU_ASSERT_EQUAL(pv_init_ah_from_wc(ctx[1], 1, &wc, (struct pv_grh *)r, &aa), 0);
		CU_ASSERT_EQUAL(aa.is_global, 1);
		CU_ASSERT_EQUAL(memcmp(&aa.grh.dgid, &ga, sizeof(ga)), 0);
		CU_ASSERT_EQUAL(aa.grh.sgid_index, 1);
		CU_ASSERT_EQUAL(aa.grh.hop_limit, 64);
		CU_ASSERT_EQUAL(aa.port_num, 1);
	}
	/* dgid and sgid as IPv4-mapped GIDs: ::ffff:10.0.3.x */
	CU_ASSERT_EQUAL(ga.raw[10], 0xff);
	CU_ASSERT_EQUAL(ga.raw[11], 0xff);
	CU_ASSERT_EQUAL(memcmp(&ga.raw[12], &(uint32_t){ inet_addr(IP_A) }, 4), 0);
	CU_ASSERT_EQUAL(memcmp(&gb.raw[12], &(uint32_t){ inet_addr(IP_B) }, 4), 0);
}

static void
test_ud_imm_inline(void)
{
	struct pv_sge sge = { .addr = (uintptr_t)sbuf, .length = 13, .lkey = 0 };
	struct pv_send_wr wr, *bad = NULL;
	struct pv_wc wc;

	fill(sbuf, 100, 9);
	CU_ASSERT_EQUAL(post_recv(qb, rmr, rbuf, SLOT, 7), 0);
	CU_ASSERT_EQUAL(post_ud(qa, smr, sbuf, 100, ah_ab, qb->qp_num, QKEY,
				PV_WR_SEND_WITH_IMM, 0xcafe0001, 1), 0);
	CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[0], &wc, 2000), 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[1], &wc, 2000), 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.opcode, PV_WC_RECV);
	CU_ASSERT_EQUAL(wc.byte_len, 140);
	CU_ASSERT_EQUAL(wc.wc_flags, PV_WC_GRH | PV_WC_WITH_IMM);
	CU_ASSERT_EQUAL(ntohl(wc.imm_data), 0xcafe0001);
	CU_ASSERT_EQUAL(wc.src_qp, qa->qp_num);
	CU_ASSERT_EQUAL(memcmp(rbuf + 40, sbuf, 100), 0);
	check_grh(rbuf, IP_A, IP_B, UINT32_MAX);

	/* inline: the bytes are copied at post, the buffer may change after */
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 2;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PV_WR_SEND;
	wr.send_flags = PV_SEND_SIGNALED | PV_SEND_INLINE;
	wr.wr.ud.ah = ah_ab;
	wr.wr.ud.remote_qpn = qb->qp_num;
	wr.wr.ud.remote_qkey = QKEY;
	memcpy(sbuf + SLOT, sbuf, 13);
	CU_ASSERT_EQUAL(post_recv(qb, rmr, rbuf, SLOT, 8), 0);
	CU_ASSERT_EQUAL(pv_post_send(qa, &wr, &bad), 0);
	memset(sbuf, 0, 13);
	CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[0], &wc, 2000), 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[1], &wc, 2000), 1);
	CU_ASSERT_EQUAL(wc.byte_len, 53);
	CU_ASSERT_EQUAL(memcmp(rbuf + 40, sbuf + SLOT, 13), 0);
}

static void
test_ud_qkey(void)
{
	struct pv_sroce_stats s0, s1;
	struct pv_port_attr p0, p1;
	struct pv_wc wc;

	pv_sroce_stats_get(ctx[1], &s0);
	CU_ASSERT_EQUAL(pv_query_port(ctx[1], 1, &p0), 0);
	fill(sbuf, 64, 3);
	CU_ASSERT_EQUAL(post_recv(qb, rmr, rbuf, SLOT, 11), 0);
	CU_ASSERT_EQUAL(post_ud(qa, smr, sbuf, 64, ah_ab, qb->qp_num, QKEY + 1, PV_WR_SEND, 0,
				1), 0);
	CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[0], &wc, 2000), 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);	/* no ACK: done once sent */
	CU_ASSERT_EQUAL(ut_wait_wc(cq[1], &wc, 100), 0);	/* dropped */
	pv_sroce_stats_get(ctx[1], &s1);
	CU_ASSERT_EQUAL(s1.ud_qkey_drops, s0.ud_qkey_drops + 1);
	CU_ASSERT_EQUAL(pv_query_port(ctx[1], 1, &p1), 0);
	CU_ASSERT_EQUAL(p1.qkey_viol_cntr, p0.qkey_viol_cntr + 1);

	/* high bit set: the sender's own Q_Key (QKEY too) goes on the wire;
	 * received into the WQE the dropped packet left */
	fill(sbuf, 64, 4);
	CU_ASSERT_EQUAL(post_ud(qa, smr, sbuf, 64, ah_ab, qb->qp_num, 0x80000000u, PV_WR_SEND,
				0, 2), 0);
	CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[0], &wc, 2000), 1);
	CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[1], &wc, 2000), 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.wr_id, 11);
	CU_ASSERT_EQUAL(memcmp(rbuf + 40, sbuf, 64), 0);
	pv_sroce_stats_get(ctx[1], &s1);
	CU_ASSERT_EQUAL(s1.ud_qkey_drops, s0.ud_qkey_drops + 1);

	/* no receive WQE: dropped and counted, no RNR */
	CU_ASSERT_EQUAL(post_ud(qa, smr, sbuf, 64, ah_ab, qb->qp_num, QKEY, PV_WR_SEND, 0, 3),
			0);
	CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[0], &wc, 2000), 1);
	CU_ASSERT_EQUAL(ut_wait_wc(cq[1], &wc, 100), 0);
	pv_sroce_stats_get(ctx[1], &s1);
	CU_ASSERT_EQUAL(s1.ud_drops, s0.ud_drops + 1);
}

static void
test_ud_errnos(void)
{
	struct pv_sroce_stats s0, s1;
	struct pv_wc wc;

	/* above the MTU: completes successfully, nothing sent (C10-93.1.1, as rxe) */
	pv_sroce_stats_get(ctx[0], &s0);
	CU_ASSERT_EQUAL(post_recv(qb, rmr, rbuf, SLOT, 21), 0);
	CU_ASSERT_EQUAL(post_ud(qa, smr, sbuf, mtu + 1, ah_ab, qb->qp_num, QKEY, PV_WR_SEND, 0,
				1), 0);
	CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[0], &wc, 2000), 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.byte_len, mtu + 1);
	CU_ASSERT_EQUAL(ut_wait_wc(cq[1], &wc, 100), 0);
	pv_sroce_stats_get(ctx[0], &s1);
	CU_ASSERT_EQUAL(s1.ud_oversize, s0.ud_oversize + 1);
	CU_ASSERT_EQUAL(s1.tx_pkts, s0.tx_pkts);

	/* only SEND and SEND_WITH_IMM; an AH is required */
	CU_ASSERT_EQUAL(post_ud(qa, smr, sbuf, 8, ah_ab, qb->qp_num, QKEY, PV_WR_RDMA_WRITE, 0,
				2), EINVAL);
	CU_ASSERT_EQUAL(post_ud(qa, smr, sbuf, 8, ah_ab, qb->qp_num, QKEY, PV_WR_RDMA_READ, 0,
				2), EINVAL);
	CU_ASSERT_EQUAL(post_ud(qa, smr, sbuf, 8, ah_ab, qb->qp_num, QKEY,
				PV_WR_ATOMIC_FETCH_AND_ADD, 0, 2), EINVAL);
	CU_ASSERT_EQUAL(post_ud(qa, smr, sbuf, 8, NULL, qb->qp_num, QKEY, PV_WR_SEND, 0, 2),
			EINVAL);
	/* inline: 16 + 0xfffffff0 wraps to 0 in 32 bits, still above max_inline_data;
	 * too many SGEs are refused before any is read */
	{
		struct pv_sge s[4] = {
			{ (uintptr_t)sbuf, 16, smr->lkey },
			{ (uintptr_t)sbuf, 0xfffffff0u, smr->lkey },
			{ (uintptr_t)sbuf, 8, smr->lkey },
			{ (uintptr_t)sbuf, 8, smr->lkey },
		};
		struct pv_send_wr wr, *bad = NULL;

		memset(&wr, 0, sizeof(wr));
		wr.sg_list = s;
		wr.num_sge = 2;
		wr.opcode = PV_WR_SEND;
		wr.send_flags = PV_SEND_SIGNALED | PV_SEND_INLINE;
		wr.wr.ud.ah = ah_ab;
		wr.wr.ud.remote_qpn = qb->qp_num;
		wr.wr.ud.remote_qkey = QKEY;
		CU_ASSERT_EQUAL(pv_post_send(qa, &wr, &bad), EINVAL);
		CU_ASSERT_PTR_EQUAL(bad, &wr);
		wr.num_sge = (int)qa->cap.max_send_sge + 1;
		CU_ASSERT_EQUAL(pv_post_send(qa, &wr, &bad), EINVAL);
	}
	CU_ASSERT_EQUAL(ut_wait_wc(cq[0], &wc, 20), 0);

	/* the WQE posted above is still there: a message fills it */
	fill(sbuf, 32, 5);
	CU_ASSERT_EQUAL(post_ud(qa, smr, sbuf, 32, ah_ab, qb->qp_num, QKEY, PV_WR_SEND, 0, 3),
			0);
	CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[0], &wc, 2000), 1);
	CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[1], &wc, 2000), 1);
	CU_ASSERT_EQUAL(wc.wr_id, 21);
	CU_ASSERT_EQUAL(wc.byte_len, 72);
	CU_ASSERT_EQUAL(memcmp(rbuf + 40, sbuf, 32), 0);

	/* AH: RoCE needs a GRH; an IPv6 dgid from the IPv4 GID (index 1) is EINVAL */
	{
		struct pv_ah_attr a;

		memset(&a, 0, sizeof(a));
		a.port_num = 1;
		errno = 0;
		CU_ASSERT_PTR_NULL(pv_create_ah(pd[0], &a));
		CU_ASSERT_EQUAL(errno, EINVAL);
		a.is_global = 1;
		a.grh.sgid_index = 1;
		a.grh.dgid.raw[0] = 0xfe;
		a.grh.dgid.raw[1] = 0x80;
		errno = 0;
		CU_ASSERT_PTR_NULL(pv_create_ah(pd[0], &a));
		CU_ASSERT_EQUAL(errno, EINVAL);
	}
}

static void
test_ud_reply_from_wc(void)
{
	struct ah_job j;
	struct pv_ah *ah_ba;
	struct pv_wc wc, rwc;

	fill(sbuf, 200, 6);
	CU_ASSERT_EQUAL(post_recv(qb, rmr, rbuf, SLOT, 31), 0);
	CU_ASSERT_EQUAL(post_ud(qa, smr, sbuf, 200, ah_ab, qb->qp_num, QKEY, PV_WR_SEND, 0, 1),
			0);
	CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[0], &wc, 2000), 1);
	CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[1], &rwc, 2000), 1);
	CU_ASSERT_EQUAL_FATAL(rwc.status, PV_WC_SUCCESS);

	memset(&j, 0, sizeof(j));
	j.pd = pd[1];
	j.wc = &rwc;
	j.grh = (struct pv_grh *)rbuf;
	ah_ba = ah_create_progress(&j, ctx[0]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ah_ba);
	CU_ASSERT_EQUAL(ah_ba->attr.is_global, 1);
	CU_ASSERT_EQUAL(ah_ba->attr.grh.sgid_index, 1);

	/* B answers A's QP through that AH: A's buffer is B's rbuf slot 1 */
	fill(rbuf + 2 * SLOT, 300, 7);
	memset(sbuf + SLOT, 0xee, SLOT);
	CU_ASSERT_EQUAL(post_recv(qa, rmr_a, sbuf + SLOT, SLOT, 41), 0);
	CU_ASSERT_EQUAL(post_ud(qb, smr_b, rbuf + 2 * SLOT, 300, ah_ba, rwc.src_qp, QKEY,
				PV_WR_SEND, 0, 42), 0);
	CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[1], &wc, 2000), 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.wr_id, 42);
	CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[0], &wc, 2000), 1);
	CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.wr_id, 41);
	CU_ASSERT_EQUAL(wc.byte_len, 340);
	CU_ASSERT_EQUAL(wc.src_qp, qb->qp_num);
	CU_ASSERT_EQUAL(memcmp(sbuf + SLOT + 40, rbuf + 2 * SLOT, 300), 0);
	check_grh(sbuf + SLOT, IP_B, IP_A, 300);
	CU_ASSERT_EQUAL(pv_destroy_ah(ah_ba), 0);
}

/* a UD QP on an SRQ takes its receive WQEs from the SRQ */
static void
test_ud_srq(void)
{
	struct pv_srq_init_attr sa;
	struct pv_qp_init_attr ia;
	struct pv_recv_wr rwr, *bad = NULL;
	struct pv_sge sge;
	struct pv_srq *srq;
	struct pv_qp *qc;
	struct pv_wc wc;
	int k;

	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = 8;
	sa.attr.max_sge = 1;
	srq = pv_create_srq(pd[1], &sa);
	CU_ASSERT_PTR_NOT_NULL_FATAL(srq);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq[1];
	ia.recv_cq = cq[1];
	ia.srq = srq;
	ia.qp_type = PV_QPT_UD;
	ia.cap.max_send_wr = 4;
	ia.cap.max_send_sge = 1;
	qc = pv_create_qp(pd[1], &ia);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qc);
	CU_ASSERT_EQUAL(ud_qp_up(qc, QKEY, 300), 0);
	for (k = 0; k < 2; k++) {
		sge.addr = (uintptr_t)(rbuf + (4 + k) * SLOT);
		sge.length = SLOT;
		sge.lkey = rmr->lkey;
		rwr.wr_id = 70 + k;
		rwr.next = NULL;
		rwr.sg_list = &sge;
		rwr.num_sge = 1;
		CU_ASSERT_EQUAL(pv_post_srq_recv(srq, &rwr, &bad), 0);
	}
	for (k = 0; k < 2; k++) {
		fill(sbuf, 500 + k, 20 + k);
		CU_ASSERT_EQUAL(post_ud(qa, smr, sbuf, 500 + k, ah_ab, qc->qp_num, QKEY,
					PV_WR_SEND, 0, k), 0);
		CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[0], &wc, 2000), 1);
		CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[1], &wc, 2000), 1);
		CU_ASSERT_EQUAL(wc.status, PV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc.wr_id, 70u + k);
		CU_ASSERT_EQUAL(wc.qp_num, qc->qp_num);
		CU_ASSERT_EQUAL(wc.src_qp, qa->qp_num);
		CU_ASSERT_EQUAL(wc.byte_len, 540u + k);
		CU_ASSERT_EQUAL(memcmp(rbuf + (4 + k) * SLOT + 40, sbuf, 500 + k), 0);
		check_grh(rbuf + (4 + k) * SLOT, IP_A, IP_B, 500 + k);
	}
	CU_ASSERT_EQUAL(pv_destroy_qp(qc), 0);
	CU_ASSERT_EQUAL(pv_destroy_srq(srq), 0);
}

static void
test_ud_len_err_flush(void)
{
	struct pv_qp_init_attr ia;
	struct pv_qp_attr a;
	struct pv_wc wc;
	int i;

	/* 40 + 64 bytes do not fit in 100: LOC_LEN_ERR, the QP goes to ERR */
	CU_ASSERT_EQUAL(post_recv(qb, rmr, rbuf, 100, 51), 0);
	CU_ASSERT_EQUAL(post_recv(qb, rmr, rbuf + SLOT, SLOT, 52), 0);
	CU_ASSERT_EQUAL(post_recv(qb, rmr, rbuf + 2 * SLOT, SLOT, 53), 0);
	CU_ASSERT_EQUAL(post_ud(qa, smr, sbuf, 64, ah_ab, qb->qp_num, QKEY, PV_WR_SEND, 0, 1),
			0);
	CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[0], &wc, 2000), 1);
	CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[1], &wc, 2000), 1);
	CU_ASSERT_EQUAL(wc.wr_id, 51);
	CU_ASSERT_EQUAL(wc.status, PV_WC_LOC_LEN_ERR);
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[1], &wc, 2000), 1);
		CU_ASSERT_EQUAL(wc.wr_id, 52u + i);
		CU_ASSERT_EQUAL(wc.status, PV_WC_WR_FLUSH_ERR);
		CU_ASSERT_EQUAL(wc.opcode, PV_WC_RECV);
	}
	CU_ASSERT_EQUAL(pv_query_qp(qb, &a, PV_QP_STATE, &ia), 0);
	CU_ASSERT_EQUAL(a.qp_state, PV_QPS_ERR);

	/* ERR set by the application: posted sends and receives are flushed */
	memset(&a, 0, sizeof(a));
	a.qp_state = PV_QPS_ERR;
	CU_ASSERT_EQUAL(pv_modify_qp(qa, &a, PV_QP_STATE), 0);
	CU_ASSERT_EQUAL(post_recv(qa, rmr_a, sbuf + SLOT, SLOT, 61), 0);
	CU_ASSERT_EQUAL(post_ud(qa, smr, sbuf, 8, ah_ab, qb->qp_num, QKEY, PV_WR_SEND, 0, 62),
			0);
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL_FATAL(ut_wait_wc(cq[0], &wc, 2000), 1);
		CU_ASSERT_EQUAL(wc.status, PV_WC_WR_FLUSH_ERR);
		CU_ASSERT_EQUAL(wc.opcode, wc.wr_id == 61 ? PV_WC_RECV : PV_WC_SEND);
	}
}

/* ---------------------------------------------------------------------- */

static int
suite_init(void)
{
	struct pv_port_attr pa;
	struct pv_ah_attr aa;
	struct ah_job j;

	if (ut_devs_open(ctx, pd, cq, 4 * DEPTH, 1) != 0)
		return -1;
	sb = ut_buf_alloc(pd[0], BUFSZ, PV_ACCESS_LOCAL_WRITE, UT_CANARY);
	if (sb == NULL)
		return -1;
	sbuf = sb->addr;
	smr = sb->mr;
	rb = ut_buf_alloc(pd[1], BUFSZ, PV_ACCESS_LOCAL_WRITE, UT_CANARY);
	if (rb == NULL)
		return -1;
	rbuf = rb->addr;
	rmr = rb->mr;
	/* the reply path: B sends from rbuf, A receives into sbuf */
	smr_b = rmr;
	rmr_a = smr;
	if (smr == NULL || rmr == NULL || pv_query_port(ctx[0], 1, &pa) != 0)
		return -1;
	mtu = (uint32_t)pv_mtu_to_bytes(pa.active_mtu);
	qa = ud_qp_create(pd[0], cq[0]);
	qb = ud_qp_create(pd[1], cq[1]);
	if (qa == NULL || qb == NULL || ud_qp_up(qa, QKEY, 100) != 0 ||
	    ud_qp_up(qb, QKEY, 200) != 0)
		return -1;
	memset(&aa, 0, sizeof(aa));
	aa.is_global = 1;
	aa.port_num = 1;
	aa.grh.sgid_index = 1;
	aa.grh.hop_limit = 64;
	if (pv_query_gid(ctx[1], 1, 1, &aa.grh.dgid) != 0)
		return -1;
	memset(&j, 0, sizeof(j));
	j.pd = pd[0];
	j.attr = &aa;
	ah_ab = ah_create_progress(&j, ctx[1]);
	return ah_ab != NULL ? 0 : -1;
}

static int
suite_clean(void)
{
	size_t bad;

	pv_destroy_ah(ah_ab);
	pv_destroy_qp(qa);
	pv_destroy_qp(qb);
	/* nonzero: a canary changed, the suite fails */
	bad = ut_buf_free(sb) + ut_buf_free(rb);
	ut_devs_close(ctx, pd, cq);
	return bad != 0 ? -1 : 0;
}

static const struct ut_case sroce_ud_cases[] = {
	{ "sizes_grh", test_ud_sizes },
	{ "imm_inline", test_ud_imm_inline },
	{ "qkey", test_ud_qkey },
	{ "errnos", test_ud_errnos },
	{ "reply_from_wc", test_ud_reply_from_wc },
	{ "srq", test_ud_srq },
	{ "len_err_flush", test_ud_len_err_flush },
	{ NULL, NULL },
};

static const struct ut_suite sroce_ud_suite = {
	.name = "sroce_ud",
	.cases = sroce_ud_cases,
};

int
main(void)
{
	int ret, fails;

	ret = ut_ring_pair_init("test_sroce_ud", 256, "ud", 4096, "ip=" IP_A, "ip=" IP_B);
	if (ret != 0)
		return ret;
	if (suite_init() != 0) {
		fprintf(stderr, "set-up failed\n");
		return 1;
	}
	fails = ut_cunit_run_one(&sroce_ud_suite);
	if (suite_clean() != 0)
		fails = 1;	/* a canary changed */
	pv_cleanup();
	return fails != 0;
}
