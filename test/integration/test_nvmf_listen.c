/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * An NVMe-oF target with several listeners (pv_nvmf_rdma), in one process:
 * two softroce devices over crossed net_ring ports (10.0.8.1 and 10.0.8.2),
 * the target listening on 10.0.8.1:4420 and 10.0.8.1:4421 (one device, two
 * ports) and 10.0.8.2:4420 (the other device), with two poll groups on
 * lcore 1. lib/nvmf's host, on the main lcore, connects a controller through
 * each listener, each with two I/O queues (so that every listener has
 * queue pairs on both poll groups), writes through each (in-capsule data,
 * and a keyed SGL the target RDMA-READs), reads everything back (RDMA
 * WRITE) through its own listener and through another one, compared byte
 * for byte; then the discovery controller, reached through the second
 * listener, lists the subsystem at all three. The target's addresses are
 * this process's own: the host's connections take softroce's loopback
 * path on the listener's device, so a target data buffer used with another
 * device's lkey would fail the transfer.
 * The same again with an SRQ per poll group and device.
 * Also: bad listener options (none, too many, twice the same, 0.0.0.0,
 * an address no device has) and the single-listener fields of the options.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/CUnit.h>
#include <rte_malloc.h>

#include "pv_nvmf.h"
#include "pv_nvmf_host.h"
#include "pv_nvmf_rdma.h"
#include "pv_rtc.h"
#include "ut_sroce.h"

#define ADDR_A "10.0.8.1"
#define ADDR_B "10.0.8.2"
#define NQN "nqn.2026-11.org.pollverbs:listen"
#define NLISTEN 3
#define GROUP_LCORE 1
#define BS 512
#define BIG (128 * 1024)	/* keyed SGLs both ways (MDTS) */
#define SMALL 4096		/* in-capsule on the way in */
#define IO_MS 5000

static const struct pv_nvmf_rdma_listen ut_listen[NLISTEN] = {
	{ ADDR_A, 4420 },
	{ ADDR_A, 4421 },
	{ ADDR_B, 4420 },
};

static struct pv_nvmf_tgt *ut_tgt;

struct ut_io {
	int done;
	uint16_t status;
};

static void
ut_io_cb(void *arg, const struct pv_nvme_cpl *cpl)
{
	struct ut_io *io = arg;

	io->status = rte_le_to_cpu_16(cpl->status) >> 1;
	io->done = 1;
}

/* @p opc of @p len bytes at block @p slba of namespace 1, to completion: its status, or -1 */
static int
ut_io_sync(struct pv_nvmf_host_qpair *qp, uint8_t opc, uint64_t slba, void *buf, uint32_t len,
	   struct pv_mr *mr)
{
	struct ut_io io = { 0 };
	uint64_t deadline = ut_now_ms() + IO_MS;

	if (pv_nvmf_host_submit(qp, opc, 1, slba, len / BS, BS, buf, mr, ut_io_cb, &io) != 0)
		return -1;
	while (!io.done && ut_now_ms() < deadline)
		if (pv_nvmf_host_poll(qp) < 0)
			return -1;
	return io.done ? io.status : -1;
}

static struct pv_nvmf_rdma_opts
ut_opts(unsigned int num_listen)
{
	struct pv_nvmf_rdma_opts o = {
		.num_groups = 2,
		.lcores = { GROUP_LCORE, GROUP_LCORE },
		.buffers_per_group = 32,
		.num_listen = num_listen,
	};
	unsigned int i;

	for (i = 0; i < num_listen && i < NLISTEN; i++)
		o.listen[i] = ut_listen[i];
	return o;
}

static void
test_listen_opts(void)
{
	struct pv_nvmf_rdma_opts o;
	struct pv_nvmf_rdma *rt;
	unsigned int i;

	/* none: neither listen[] nor traddr */
	o = ut_opts(0);
	errno = 0;
	CU_ASSERT_PTR_NULL(pv_nvmf_rdma_create(ut_tgt, &o));
	CU_ASSERT_EQUAL(errno, EINVAL);
	/* more than PV_NVMF_RDMA_MAX_LISTEN */
	o = ut_opts(PV_NVMF_RDMA_MAX_LISTEN + 1);
	for (i = 0; i < o.num_listen && i < PV_NVMF_RDMA_MAX_LISTEN; i++)
		o.listen[i] = (struct pv_nvmf_rdma_listen){ ADDR_A, (uint16_t)(5000 + i) };
	errno = 0;
	CU_ASSERT_PTR_NULL(pv_nvmf_rdma_create(ut_tgt, &o));
	CU_ASSERT_EQUAL(errno, EINVAL);
	/* one address and port twice (port 0 is 4420) */
	o = ut_opts(3);
	o.listen[2] = (struct pv_nvmf_rdma_listen){ ADDR_A, 0 };
	errno = 0;
	CU_ASSERT_PTR_NULL(pv_nvmf_rdma_create(ut_tgt, &o));
	CU_ASSERT_EQUAL(errno, EINVAL);
	o = ut_opts(2);
	o.listen[1].traddr = "0.0.0.0";
	errno = 0;
	CU_ASSERT_PTR_NULL(pv_nvmf_rdma_create(ut_tgt, &o));
	CU_ASSERT_EQUAL(errno, EINVAL);
	/* the second listener's address is no device's: the first one's id goes too */
	o = ut_opts(2);
	o.listen[1].traddr = "10.0.8.9";
	errno = 0;
	CU_ASSERT_PTR_NULL(pv_nvmf_rdma_create(ut_tgt, &o));
	CU_ASSERT_EQUAL(errno, EADDRNOTAVAIL);
	/* the single listener of traddr / port, as before listen[] */
	o = ut_opts(0);
	o.traddr = ADDR_B;
	o.port = 4430;
	rt = pv_nvmf_rdma_create(ut_tgt, &o);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rt);
	CU_ASSERT_EQUAL(pv_nvmf_rdma_num_groups(rt), 2);
	pv_nvmf_rdma_destroy(rt);
	/* and the same port again once that one is gone */
	rt = pv_nvmf_rdma_create(ut_tgt, &o);
	CU_ASSERT_PTR_NOT_NULL(rt);
	pv_nvmf_rdma_destroy(rt);
}

/* what the host sees through one listener */
struct ut_host {
	struct pv_nvmf_host_ctrlr *c;
	struct pv_nvmf_host_qpair *qp[2];
	uint8_t *buf;			/* BIG: written, then BIG: read back */
	struct pv_mr *mr;
};

static int
ut_host_open(struct ut_host *h, const struct pv_nvmf_rdma_listen *l)
{
	struct pv_nvmf_host_opts ho = { .traddr = l->traddr, .port = l->port, .subnqn = NQN };
	const struct pv_nvmf_host_ns *ns;
	unsigned int n;
	int ret;

	memset(h, 0, sizeof(*h));
	ret = pv_nvmf_host_connect(&ho, &h->c);
	if (ret != 0) {
		fprintf(stderr, "connect to %s:%u: %s\n", l->traddr, l->port, strerror(-ret));
		return -1;
	}
	ns = pv_nvmf_host_namespaces(h->c, &n);
	if (n != 1 || ns[0].block_size != BS)
		return -1;
	if (pv_nvmf_host_qpair_create(h->c, 1, 16, &h->qp[0]) != 0 ||
	    pv_nvmf_host_qpair_create(h->c, 2, 16, &h->qp[1]) != 0)
		return -1;
	h->buf = rte_zmalloc("ut_nvmf_listen", 2 * BIG, 4096);
	if (h->buf == NULL)
		return -1;
	h->mr = pv_nvmf_host_reg_mr(h->c, h->buf, 2 * BIG);
	return h->mr == NULL ? -1 : 0;
}

static void
ut_host_close(struct ut_host *h)
{
	if (h->mr != NULL)
		pv_dereg_mr(h->mr);
	rte_free(h->buf);
	pv_nvmf_host_qpair_destroy(h->qp[1]);
	pv_nvmf_host_qpair_destroy(h->qp[0]);
	pv_nvmf_host_disconnect(h->c);
}

/* listener @p i's region of the namespace: BIG + SMALL bytes from here */
static uint64_t
ut_slba(unsigned int i)
{
	return (uint64_t)i * (BIG + SMALL) / BS;
}

static void
ut_pattern(uint8_t *p, size_t len, unsigned int seed)
{
	size_t k;

	for (k = 0; k < len; k++)
		p[k] = (uint8_t)(k * 7 + seed * 31 + (k >> 9));
}

/* listener @p i's pattern written through @p h: BIG through queue @p q (the
 * target RDMA-READs it), SMALL through the other (in the capsule) */
static int
ut_region_write(struct ut_host *h, unsigned int q, unsigned int i)
{
	ut_pattern(h->buf, BIG + SMALL, i + 1);
	if (ut_io_sync(h->qp[q], PV_NVME_OPC_WRITE, ut_slba(i), h->buf, BIG, h->mr) != 0)
		return -1;
	return ut_io_sync(h->qp[q ^ 1], PV_NVME_OPC_WRITE, ut_slba(i) + BIG / BS, h->buf + BIG,
			  SMALL, h->mr) == 0 ? 0 : -1;
}

/* listener @p i's region read into @p h's cleared buffer (RDMA WRITEs), each
 * half through another queue than ut_region_write()'s */
static int
ut_region_read(struct ut_host *h, unsigned int q, unsigned int i)
{
	memset(h->buf, 0, 2 * BIG);
	if (ut_io_sync(h->qp[q ^ 1], PV_NVME_OPC_READ, ut_slba(i), h->buf, BIG, h->mr) != 0)
		return -1;
	return ut_io_sync(h->qp[q], PV_NVME_OPC_READ, ut_slba(i) + BIG / BS, h->buf + BIG,
			  SMALL, h->mr) == 0 ? 0 : -1;
}

/* @p h's buffer holds listener @p i's BIG + SMALL bytes */
static int
ut_host_check(const struct ut_host *h, unsigned int i)
{
	uint8_t *want = malloc(BIG + SMALL);
	int same;

	if (want == NULL)
		return 0;
	ut_pattern(want, BIG + SMALL, i + 1);
	same = memcmp(h->buf, want, BIG) == 0 && memcmp(h->buf + BIG, want + BIG, SMALL) == 0;
	free(want);
	return same;
}

static void
ut_io_and_discovery(bool use_srq)
{
	struct pv_nvmf_rdma_opts o = ut_opts(NLISTEN);
	struct pv_nvmf_host_opts ho = {
		.traddr = ut_listen[1].traddr,
		.port = ut_listen[1].port,
		.subnqn = PV_NVMF_DISCOVERY_NQN,
	};
	const struct pv_nvmf_disc_log_entry *e;
	const struct pv_nvmf_disc_log_hdr *hdr;
	struct pv_nvmf_rdma_group_stats st[2];
	struct ut_host h[NLISTEN];
	struct pv_nvmf_host_ctrlr *dc;
	struct pv_nvme_cmd cmd;
	struct pv_nvme_cpl cpl;
	struct pv_nvmf_rdma *rt;
	struct pv_mr *dmr;
	char svc[8];
	uint8_t *page;
	unsigned int i;

	/* fewer SRQ buffers than one controller's queue entries */
	o.use_srq = use_srq;
	o.srq_depth = 24;
	rt = pv_nvmf_rdma_create(ut_tgt, &o);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rt);
	for (i = 0; i < NLISTEN; i++)
		if (ut_host_open(&h[i], &ut_listen[i]) != 0) {
			CU_FAIL("host through a listener");
			ut_host_close(&h[i]);
			goto out_hosts;
		}
	/* 3 queue pairs per controller, round-robin: each listener's on both groups */
	CU_ASSERT_EQUAL(pv_nvmf_rdma_group_stats(rt, 0, &st[0]), 0);
	CU_ASSERT_EQUAL(pv_nvmf_rdma_group_stats(rt, 1, &st[1]), 0);
	CU_ASSERT_EQUAL(st[0].qpairs + st[1].qpairs, 3 * NLISTEN);
	CU_ASSERT(st[0].qpairs > 0 && st[1].qpairs > 0);
	for (i = 0; i < NLISTEN; i++) {
		CU_ASSERT_EQUAL(ut_region_write(&h[i], i & 1, i), 0);
		CU_ASSERT_EQUAL(ut_region_read(&h[i], i & 1, i), 0);
		CU_ASSERT(ut_host_check(&h[i], i));
	}
	/* one namespace behind every listener: each one's data through the next */
	for (i = 0; i < NLISTEN; i++) {
		CU_ASSERT_EQUAL(ut_region_read(&h[(i + 1) % NLISTEN], 0, i), 0);
		CU_ASSERT(ut_host_check(&h[(i + 1) % NLISTEN], i));
	}

	/* the discovery log page: the subsystem at each listener, in order */
	CU_ASSERT_EQUAL_FATAL(pv_nvmf_host_connect(&ho, &dc), 0);
	page = rte_zmalloc("ut_nvmf_disc", 4096, 4096);
	dmr = page != NULL ? pv_nvmf_host_reg_mr(dc, page, 4096) : NULL;
	CU_ASSERT_PTR_NOT_NULL(dmr);
	if (dmr != NULL) {
		memset(&cmd, 0, sizeof(cmd));
		cmd.opc = PV_NVME_OPC_GET_LOG_PAGE;
		cmd.cdw10 = rte_cpu_to_le_32(PV_NVME_LOG_DISCOVERY | (4096 / 4 - 1) << 16);
		CU_ASSERT_EQUAL(pv_nvmf_host_admin(dc, &cmd, page, 4096, dmr, &cpl), 0);
		CU_ASSERT_EQUAL(rte_le_to_cpu_16(cpl.status) >> 1, 0);
		hdr = (const void *)page;
		CU_ASSERT_EQUAL(rte_le_to_cpu_64(hdr->numrec), NLISTEN);
		for (i = 0; i < NLISTEN; i++) {
			e = (const void *)(page + 1024 * (i + 1));
			snprintf(svc, sizeof(svc), "%u", ut_listen[i].port);
			CU_ASSERT_EQUAL(e->trtype, PV_NVMF_TRTYPE_RDMA);
			CU_ASSERT_EQUAL(rte_le_to_cpu_16(e->portid), i + 1);
			CU_ASSERT_STRING_EQUAL(e->traddr, ut_listen[i].traddr);
			CU_ASSERT_STRING_EQUAL(e->trsvcid, svc);
			CU_ASSERT_STRING_EQUAL(e->subnqn, NQN);
		}
		pv_dereg_mr(dmr);
	}
	rte_free(page);
	pv_nvmf_host_disconnect(dc);
out_hosts:
	while (i-- > 0)
		ut_host_close(&h[i]);
	pv_nvmf_rdma_destroy(rt);
}

static void
test_io_and_discovery(void)
{
	ut_io_and_discovery(false);
}

/* the same with an SRQ per poll group and device */
static void
test_io_and_discovery_srq(void)
{
	ut_io_and_discovery(true);
}

static int
ut_group_lcore(void *arg)
{
	(void)arg;
	return pv_rtc_loop_run();
}

static int
ut_suite_init(void)
{
	struct pv_nvmf_tgt_opts to = {
		.max_io_size = BIG,
		.in_capsule_data_size = SMALL,
		.max_queue_depth = 32,
		.max_qpairs_per_ctrlr = 4,
		.kas_ms = 1000,
	};
	struct pv_nvmf_subsys *s;
	struct pv_nvmf_ns *ns;
	unsigned int i;
	char svc[8];

	ut_tgt = pv_nvmf_tgt_create(&to);
	if (ut_tgt == NULL)
		return -1;
	s = pv_nvmf_subsys_create(ut_tgt, NQN, "PVLISTEN", "pollverbs listen", true);
	ns = pv_nvmf_ns_ram_create(4 * 1024 * 1024 / BS, BS);
	if (s == NULL || ns == NULL || pv_nvmf_subsys_add_ns(s, ns) != 0)
		return -1;
	for (i = 0; i < NLISTEN; i++) {
		snprintf(svc, sizeof(svc), "%u", ut_listen[i].port);
		if (pv_nvmf_tgt_add_listener(ut_tgt, ut_listen[i].traddr, svc) != 0)
			return -1;
	}
	return pv_rtc_lcore_launch(GROUP_LCORE, ut_group_lcore, NULL);
}

static int
ut_suite_fini(void)
{
	pv_rtc_loop_stop(GROUP_LCORE);
	pv_rtc_lcore_wait(GROUP_LCORE);
	pv_nvmf_tgt_destroy(ut_tgt);
	return 0;
}

static const struct ut_case listen_cases[] = {
	{ "listen_opts", test_listen_opts, NULL },
	{ "io_and_discovery", test_io_and_discovery, NULL },
	{ "io_and_discovery_srq", test_io_and_discovery_srq, NULL },
	{ NULL, NULL, NULL },
};

static const struct ut_suite listen_suite = {
	.name = "nvmf_listen",
	.init = ut_suite_init,
	.fini = ut_suite_fini,
	.cases = listen_cases,
};

int
main(void)
{
	char prefix[64];
	int ret, fails;

	/* short CM timeouts: 4.096 us * 2^14 = 67 ms, 3 retries */
	setenv("PV_CM_RESPONSE_TIMEOUT", "14", 0);
	setenv("PV_CM_MAX_RETRIES", "3", 0);
	setenv("PV_CM_TIMEWAIT_MS", "50", 0);
	snprintf(prefix, sizeof(prefix), "ut_nvl_%d", (int)getpid());
	ret = ut_pv_init("test_nvmf_listen", 512, prefix, "0-1",
			 "--pv-dev=softroce:port=net_ring_nvl_a,ip=" ADDR_A,
			 "--pv-dev=softroce:port=net_ring_nvl_b,ip=" ADDR_B, NULL);
	if (ret < 0) {
		fprintf(stderr, "pv_init: %s\n", strerror(-ret));
		return UT_EXIT_SKIP;
	}
	if (ut_ring_ports_crossed("nvl", 4096) != 0) {
		fprintf(stderr, "net_ring PMD not available\n");
		return UT_EXIT_SKIP;
	}
	fails = ut_cunit_run_one(&listen_suite);
	pv_cleanup();
	return fails != 0;
}
