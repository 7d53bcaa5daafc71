/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Unit tests of lib/nvmf's controller core: capsules built as a Linux host
 * builds them go in through a fake transport whose "host memory" is a buffer
 * with a key; CQEs come out and are checked field by field, and data is
 * compared byte for byte with the namespace's memory or a model of it.
 * Covers the Fabrics, admin and I/O commands and the robustness cases of
 * issue 15 item 7 (unknown opcodes, I/O before Connect, a second Connect,
 * wrong QID, lengths over MDTS, LBAs out of range, SGL errors, keep-alive
 * expiry, 10,000 random I/Os against a model).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/statfs.h>

#include <rte_common.h>
#include <rte_random.h>

#include <CUnit/Basic.h>

#include "pv_nvmf.h"
#include "pv_rtc.h"
#include "ut_common.h"

#define UT_SUBNQN	"nqn.2026-11.org.pollverbs:ut"
#define UT_HOSTNQN	"nqn.2014-08.org.nvmexpress:uuid:ut-host"
#define UT_KEY		0x1234abcdu
#define UT_HOST_LEN	(1u << 20)
#define UT_NS_BLOCKS	4096u		/* 2 MiB of 512-byte blocks */
#define UT_BS		512u
#define UT_MAX_CPL	64

/* ------------------------------------------------------------------ */
/* fake transport                                                       */
/* ------------------------------------------------------------------ */

struct ut_qp {
	struct pv_nvmf_qpair qp;
	unsigned int ncpl;
	struct pv_nvme_cpl cpl[UT_MAX_CPL];
	unsigned int disconnects;
	/* the transport's data buffer, page-aligned as a pool buffer is */
	uint8_t buf[256 * 1024] __rte_aligned(4096);
};

static uint8_t *ut_host;		/* host memory behind UT_KEY at address ut_host */
static struct pv_nvmf_tgt *ut_tgt;
static struct pv_nvmf_ns *ut_ns;

static bool
ut_seg_ok(const struct pv_nvmf_sgl_seg *s)
{
	uintptr_t a = (uintptr_t)s->addr, b = (uintptr_t)ut_host;

	return s->key == UT_KEY && a >= b && s->len <= UT_HOST_LEN && a - b <= UT_HOST_LEN - s->len;
}

/* true: data_prep answers 1 (the data comes later, as an RDMA READ's) and
 * the test calls pv_nvmf_req_exec() itself */
static bool ut_delay;
/* bytes into the transport's buffer that req->data starts at (misaligned I/O) */
static uint32_t ut_buf_off;

static int
ut_data_prep(struct pv_nvmf_req *req)
{
	struct ut_qp *u = container_of(req->qp, struct ut_qp, qp);
	uint32_t done = 0, i, n;

	req->data = u->buf + ut_buf_off;
	for (i = 0; i < req->nseg; i++)
		if (!ut_seg_ok(&req->sgl[i]))
			return -EFAULT;	/* an RDMA READ would fail: remote access */
	if (req->xfer != PV_NVMF_XFER_H2C)
		return 0;
	for (i = 0; i < req->nseg && done < req->length; i++) {
		n = RTE_MIN(req->sgl[i].len, req->length - done);
		memcpy(req->data + done, (void *)(uintptr_t)req->sgl[i].addr, n);
		done += n;
	}
	return ut_delay ? 1 : 0;
}

static void
ut_done(struct pv_nvmf_req *req)
{
	struct ut_qp *u = container_of(req->qp, struct ut_qp, qp);
	uint32_t done = 0, i, n;

	if (req->xfer == PV_NVMF_XFER_C2H && req->cpl.status == 0) {
		for (i = 0; i < req->nseg && done < req->length; i++) {
			n = RTE_MIN(req->sgl[i].len, req->length - done);
			memcpy((void *)(uintptr_t)req->sgl[i].addr, req->data + done, n);
			done += n;
		}
	}
	if (u->ncpl < UT_MAX_CPL)
		u->cpl[u->ncpl++] = req->cpl;
}

static void
ut_disconnect(struct pv_nvmf_qpair *qp)
{
	container_of(qp, struct ut_qp, qp)->disconnects++;
}

static const struct pv_nvmf_qpair_ops ut_ops = {
	.data_prep = ut_data_prep,
	.done = ut_done,
	.disconnect = ut_disconnect,
};

static struct ut_qp *
ut_qp_new(uint16_t qid)
{
	void *m = NULL;
	struct ut_qp *u;

	CU_ASSERT_EQUAL_FATAL(posix_memalign(&m, 4096, sizeof(*u)), 0);
	u = m;
	memset(u, 0, sizeof(*u));
	pv_nvmf_qpair_init(&u->qp, ut_tgt, qid, &ut_ops);
	return u;
}

static void
ut_qp_free(struct ut_qp *u)
{
	pv_nvmf_qpair_fini(&u->qp);
	free(u);
}

/* ------------------------------------------------------------------ */
/* capsules                                                             */
/* ------------------------------------------------------------------ */

static uint16_t ut_cid;

static void
ut_cmd_init(struct pv_nvme_cmd *c, uint8_t opc)
{
	memset(c, 0, sizeof(*c));
	c->opc = opc;
	c->flags = 0x40;		/* PSDT 01b: SGLs, as Linux sends */
	c->cid = rte_cpu_to_le_16(++ut_cid);
}

/* keyed SGL at host offset @p off for @p len bytes */
static void
ut_cmd_keyed(struct pv_nvme_cmd *c, uint32_t off, uint32_t len)
{
	pv_nvme_sgl_keyed_set(&c->sgl1, (uintptr_t)(ut_host + off), len, UT_KEY,
			      PV_NVME_SGL_SUBTYPE_ADDRESS);
}

/* submit @p c (in-capsule data @p icd, @p icd_len) and return the CQE */
static struct pv_nvme_cpl
ut_submit_icd(struct ut_qp *u, const struct pv_nvme_cmd *c, uint8_t *icd, uint32_t icd_len)
{
	struct pv_nvmf_req req;
	unsigned int before = u->ncpl;
	struct pv_nvme_cpl none;

	memset(&req, 0, sizeof(req));
	req.cmd = *c;
	req.qp = &u->qp;
	req.icd = icd;
	req.icd_len = icd_len;
	pv_nvmf_req_submit(&req);
	CU_ASSERT_EQUAL(u->ncpl, before + 1);
	if (u->ncpl != before + 1) {
		memset(&none, 0xff, sizeof(none));
		return none;
	}
	CU_ASSERT_EQUAL(u->cpl[before].cid, c->cid);
	CU_ASSERT_EQUAL(rte_le_to_cpu_16(u->cpl[before].sqid), u->qp.qid);
	return u->cpl[before];
}

static struct pv_nvme_cpl
ut_submit(struct ut_qp *u, const struct pv_nvme_cmd *c)
{
	return ut_submit_icd(u, c, NULL, 0);
}

#define UT_ST(sct, sc) (PV_NVME_STATUS(sct, sc) | ((sct) || (sc) ? PV_NVME_STATUS_DNR : 0))
#define UT_ASSERT_ST(cpl, sct, sc) \
	CU_ASSERT_EQUAL(rte_le_to_cpu_16((cpl).status), UT_ST(sct, sc))

static struct pv_nvme_cpl
ut_connect_full(struct ut_qp *u, uint16_t qid, uint16_t sqsize, uint16_t cntlid,
		const char *subnqn, const char *hostnqn, uint32_t kato, bool in_capsule)
{
	struct pv_nvmf_connect_cmd cc;
	struct pv_nvmf_connect_data d;

	memset(&cc, 0, sizeof(cc));
	ut_cmd_init((struct pv_nvme_cmd *)&cc, PV_NVME_OPC_FABRICS);
	cc.fctype = PV_NVMF_FCTYPE_CONNECT;
	cc.qid = rte_cpu_to_le_16(qid);
	cc.sqsize = rte_cpu_to_le_16(sqsize);
	cc.kato = rte_cpu_to_le_32(kato);
	memset(&d, 0, sizeof(d));
	d.hostid[0] = 0x42;
	d.cntlid = rte_cpu_to_le_16(cntlid);
	snprintf(d.subnqn, sizeof(d.subnqn), "%s", subnqn);
	snprintf(d.hostnqn, sizeof(d.hostnqn), "%s", hostnqn);
	if (in_capsule) {
		cc.sgl1.unkeyed.length = rte_cpu_to_le_32(sizeof(d));
		cc.sgl1.unkeyed.type = PV_NVME_SGL_TYPE_DATA_BLOCK << 4 | PV_NVME_SGL_SUBTYPE_OFFSET;
		return ut_submit_icd(u, (struct pv_nvme_cmd *)&cc, (uint8_t *)&d, sizeof(d));
	}
	memcpy(ut_host, &d, sizeof(d));
	ut_cmd_keyed((struct pv_nvme_cmd *)&cc, 0, sizeof(d));
	return ut_submit(u, (struct pv_nvme_cmd *)&cc);
}

static struct pv_nvme_cpl
ut_connect(struct ut_qp *u, uint16_t qid, uint16_t cntlid)
{
	return ut_connect_full(u, qid, 31, cntlid, UT_SUBNQN, UT_HOSTNQN, 0, qid != 0);
}

static struct pv_nvme_cpl
ut_prop(struct ut_qp *u, uint8_t fctype, uint32_t ofst, bool size8, uint64_t value)
{
	struct pv_nvmf_prop_cmd pc;

	memset(&pc, 0, sizeof(pc));
	ut_cmd_init((struct pv_nvme_cmd *)&pc, PV_NVME_OPC_FABRICS);
	pc.fctype = fctype;
	pc.attrib = size8 ? PV_NVMF_PROP_SIZE_8 : 0;
	pc.ofst = rte_cpu_to_le_32(ofst);
	pc.value = rte_cpu_to_le_64(value);
	return ut_submit(u, (struct pv_nvme_cmd *)&pc);
}

/* an admin queue connected and enabled, as Linux brings it up */
static struct ut_qp *
ut_admin_up(uint16_t *cntlid_p)
{
	struct ut_qp *a = ut_qp_new(0);
	struct pv_nvme_cpl cpl;

	cpl = ut_connect(a, 0, 0xffff);
	UT_ASSERT_ST(cpl, 0, 0);
	*cntlid_p = (uint16_t)rte_le_to_cpu_32(cpl.cdw0);
	cpl = ut_prop(a, PV_NVMF_FCTYPE_PROPERTY_SET, PV_NVMF_PROP_CC, false,
		      PV_NVME_CC_EN | 6u << 16 | 4u << 20);
	UT_ASSERT_ST(cpl, 0, 0);
	return a;
}

static struct pv_nvme_cpl
ut_rw(struct ut_qp *u, uint8_t opc, uint32_t nsid, uint64_t slba, uint32_t nlb,
      uint32_t host_off, uint32_t sgl_len)
{
	struct pv_nvme_cmd c;

	ut_cmd_init(&c, opc);
	c.nsid = rte_cpu_to_le_32(nsid);
	c.cdw10 = rte_cpu_to_le_32((uint32_t)slba);
	c.cdw11 = rte_cpu_to_le_32((uint32_t)(slba >> 32));
	c.cdw12 = rte_cpu_to_le_32((nlb - 1) & 0xffff);
	if (opc != PV_NVME_OPC_WRITE_ZEROES && opc != PV_NVME_OPC_FLUSH)
		ut_cmd_keyed(&c, host_off, sgl_len);
	return ut_submit(u, &c);
}

/* ------------------------------------------------------------------ */
/* suite set-up                                                         */
/* ------------------------------------------------------------------ */

static int
ut_setup(void)
{
	struct pv_nvmf_tgt_opts o = {
		.max_io_size = 128 * 1024,
		.in_capsule_data_size = 4096,
		.max_queue_depth = 128,
		.max_qpairs_per_ctrlr = 4,
		.kas_ms = 100,
	};
	struct pv_nvmf_subsys *s, *s2;

	ut_tgt = pv_nvmf_tgt_create(&o);
	if (ut_tgt == NULL)
		return -1;
	s = pv_nvmf_subsys_create(ut_tgt, UT_SUBNQN, "PV0001", "pollverbs ut", true);
	s2 = pv_nvmf_subsys_create(ut_tgt, UT_SUBNQN ".closed", "PV0002", "closed", false);
	if (pv_nvmf_subsys_create(ut_tgt, UT_SUBNQN ".file", "PV0003", "file", true) == NULL)
		return -1;
	ut_ns = pv_nvmf_ns_ram_create(UT_NS_BLOCKS, UT_BS);
	if (s == NULL || s2 == NULL || ut_ns == NULL || pv_nvmf_subsys_add_ns(s, ut_ns) != 0 ||
	    pv_nvmf_subsys_add_host(s2, "nqn.2026-11.org.pollverbs:other") != 0 ||
	    pv_nvmf_tgt_add_listener(ut_tgt, "10.77.0.1", "4420") != 0)
		return -1;
	ut_host = aligned_alloc(4096, UT_HOST_LEN);
	return ut_host == NULL ? -1 : 0;
}

static int
ut_teardown(void)
{
	pv_nvmf_tgt_destroy(ut_tgt);
	free(ut_host);
	return 0;
}

/* ------------------------------------------------------------------ */
/* tests: bring-up, properties, identify                                */
/* ------------------------------------------------------------------ */

static void
test_connect_admin_and_props(void)
{
	struct ut_qp *a = ut_qp_new(0);
	struct pv_nvme_cpl cpl;
	uint64_t cap;

	/* Connect data through a keyed SGL, as Linux sends it on the admin queue */
	cpl = ut_connect_full(a, 0, 31, 0xffff, UT_SUBNQN, UT_HOSTNQN, 5000, false);
	UT_ASSERT_ST(cpl, 0, 0);
	CU_ASSERT(rte_le_to_cpu_32(cpl.cdw0) >= 1 && rte_le_to_cpu_32(cpl.cdw0) <= 0xffef);
	CU_ASSERT_EQUAL(a->qp.sq_size, 32);
	cpl = ut_prop(a, PV_NVMF_FCTYPE_PROPERTY_GET, PV_NVMF_PROP_CAP, true, 0);
	UT_ASSERT_ST(cpl, 0, 0);
	cap = rte_le_to_cpu_32(cpl.cdw0) | (uint64_t)rte_le_to_cpu_32(cpl.cdw1) << 32;
	CU_ASSERT_EQUAL(cap & 0xffff, 127);		/* MQES */
	CU_ASSERT((cap & (1ull << 37)) != 0);		/* NVM command set */
	cpl = ut_prop(a, PV_NVMF_FCTYPE_PROPERTY_GET, PV_NVMF_PROP_VS, false, 0);
	CU_ASSERT_EQUAL(rte_le_to_cpu_32(cpl.cdw0), 0x00010300);
	/* wrong sizes and unknown offsets: Invalid Field */
	cpl = ut_prop(a, PV_NVMF_FCTYPE_PROPERTY_GET, PV_NVMF_PROP_CAP, false, 0);
	UT_ASSERT_ST(cpl, 0, PV_NVME_SC_INVALID_FIELD);
	cpl = ut_prop(a, PV_NVMF_FCTYPE_PROPERTY_GET, PV_NVMF_PROP_CSTS, true, 0);
	UT_ASSERT_ST(cpl, 0, PV_NVME_SC_INVALID_FIELD);
	cpl = ut_prop(a, PV_NVMF_FCTYPE_PROPERTY_GET, 0x44, false, 0);
	UT_ASSERT_ST(cpl, 0, PV_NVME_SC_INVALID_FIELD);
	cpl = ut_prop(a, PV_NVMF_FCTYPE_PROPERTY_SET, PV_NVMF_PROP_CAP, true, 0);
	UT_ASSERT_ST(cpl, 0, PV_NVME_SC_INVALID_FIELD);
	/* enable: CSTS.RDY; shutdown: SHST complete */
	cpl = ut_prop(a, PV_NVMF_FCTYPE_PROPERTY_GET, PV_NVMF_PROP_CSTS, false, 0);
	CU_ASSERT_EQUAL(rte_le_to_cpu_32(cpl.cdw0), 0);
	cpl = ut_prop(a, PV_NVMF_FCTYPE_PROPERTY_SET, PV_NVMF_PROP_CC, false, PV_NVME_CC_EN);
	UT_ASSERT_ST(cpl, 0, 0);
	cpl = ut_prop(a, PV_NVMF_FCTYPE_PROPERTY_GET, PV_NVMF_PROP_CSTS, false, 0);
	CU_ASSERT_EQUAL(rte_le_to_cpu_32(cpl.cdw0), PV_NVME_CSTS_RDY);
	cpl = ut_prop(a, PV_NVMF_FCTYPE_PROPERTY_SET, PV_NVMF_PROP_CC, false,
		      PV_NVME_CC_EN | 1u << PV_NVME_CC_SHN_SHIFT);
	cpl = ut_prop(a, PV_NVMF_FCTYPE_PROPERTY_GET, PV_NVMF_PROP_CSTS, false, 0);
	CU_ASSERT_EQUAL(rte_le_to_cpu_32(cpl.cdw0), PV_NVME_CSTS_RDY | 2u << 2);
	ut_qp_free(a);
}

static void
test_identify(void)
{
	const struct pv_nvme_id_ctrl *id = (const void *)ut_host;
	const struct pv_nvme_id_ns *ns = (const void *)ut_host;
	const rte_le32_t *list = (const void *)ut_host;
	struct pv_nvme_cmd c;
	struct pv_nvme_cpl cpl;
	uint16_t cntlid;
	struct ut_qp *a = ut_admin_up(&cntlid);

	ut_cmd_init(&c, PV_NVME_OPC_IDENTIFY);
	c.cdw10 = rte_cpu_to_le_32(PV_NVME_CNS_CTRLR);
	ut_cmd_keyed(&c, 0, 4096);
	memset(ut_host, 0xee, 4096);
	cpl = ut_submit(a, &c);
	UT_ASSERT_ST(cpl, 0, 0);
	CU_ASSERT_EQUAL(memcmp(id->sn, "PV0001              ", 20), 0);
	CU_ASSERT_EQUAL(memcmp(id->mn, "pollverbs ut", 12), 0);
	CU_ASSERT_EQUAL(id->mn[12], ' ');
	CU_ASSERT_EQUAL(rte_le_to_cpu_16(id->cntlid), cntlid);
	CU_ASSERT_EQUAL(id->mdts, 5);			/* 128 KiB / 4 KiB = 2^5 */
	CU_ASSERT_STRING_EQUAL(id->subnqn, UT_SUBNQN);
	CU_ASSERT_EQUAL(rte_le_to_cpu_32(id->ioccsz), (64 + 4096) / 16);
	CU_ASSERT_EQUAL(rte_le_to_cpu_32(id->iorcsz), 1);
	CU_ASSERT_EQUAL(id->sqes, 0x66);
	CU_ASSERT_EQUAL(id->cntrltype, 1);
	CU_ASSERT_EQUAL(rte_le_to_cpu_16(id->kas), 1);
	CU_ASSERT_EQUAL(ut_host[4095], 0);		/* zeroed to the end */

	ut_cmd_init(&c, PV_NVME_OPC_IDENTIFY);
	c.nsid = rte_cpu_to_le_32(1);
	c.cdw10 = rte_cpu_to_le_32(PV_NVME_CNS_NS);
	ut_cmd_keyed(&c, 0, 4096);
	cpl = ut_submit(a, &c);
	UT_ASSERT_ST(cpl, 0, 0);
	CU_ASSERT_EQUAL(rte_le_to_cpu_64(ns->nsze), UT_NS_BLOCKS);
	CU_ASSERT_EQUAL(ns->lbaf[0].lbads, 9);
	/* an inactive NSID in range reads as zeroes; 0 and past nn are invalid */
	c.nsid = rte_cpu_to_le_32(7);
	cpl = ut_submit(a, &c);
	UT_ASSERT_ST(cpl, 0, 0);
	CU_ASSERT_EQUAL(rte_le_to_cpu_64(ns->nsze), 0);
	c.nsid = 0;
	cpl = ut_submit(a, &c);
	UT_ASSERT_ST(cpl, 0, PV_NVME_SC_INVALID_NS);
	c.nsid = rte_cpu_to_le_32(0xffffffff);
	cpl = ut_submit(a, &c);
	UT_ASSERT_ST(cpl, 0, PV_NVME_SC_INVALID_NS);

	c.nsid = 0;
	c.cdw10 = rte_cpu_to_le_32(PV_NVME_CNS_ACTIVE_NS_LIST);
	cpl = ut_submit(a, &c);
	UT_ASSERT_ST(cpl, 0, 0);
	CU_ASSERT_EQUAL(rte_le_to_cpu_32(list[0]), 1);
	CU_ASSERT_EQUAL(list[1], 0);

	c.nsid = rte_cpu_to_le_32(1);
	c.cdw10 = rte_cpu_to_le_32(PV_NVME_CNS_NS_DESC_LIST);
	cpl = ut_submit(a, &c);
	UT_ASSERT_ST(cpl, 0, 0);
	CU_ASSERT_EQUAL(ut_host[0], PV_NVME_NIDT_NGUID);
	CU_ASSERT_EQUAL(ut_host[1], 16);
	CU_ASSERT_EQUAL(ut_host[20], PV_NVME_NIDT_UUID);
	CU_ASSERT_EQUAL(ut_host[40], 0);		/* list end */

	c.nsid = 0;
	c.cdw10 = rte_cpu_to_le_32(PV_NVME_CNS_CS_CTRLR);
	UT_ASSERT_ST(ut_submit(a, &c), 0, 0);
	c.cdw11 = rte_cpu_to_le_32(2u << 24);		/* CSI 2: zoned, not here */
	UT_ASSERT_ST(ut_submit(a, &c), 0, PV_NVME_SC_INVALID_FIELD);
	c.cdw11 = 0;
	c.cdw10 = rte_cpu_to_le_32(0x55);		/* unknown CNS */
	cpl = ut_submit(a, &c);
	UT_ASSERT_ST(cpl, 0, PV_NVME_SC_INVALID_FIELD);
	ut_qp_free(a);
}

static void
test_features_logs_ka(void)
{
	struct pv_nvme_cmd c;
	struct pv_nvme_cpl cpl;
	uint16_t cntlid;
	struct ut_qp *a = ut_admin_up(&cntlid);
	const struct pv_nvme_smart_log *sl = (const void *)ut_host;

	ut_cmd_init(&c, PV_NVME_OPC_SET_FEATURES);
	c.cdw10 = rte_cpu_to_le_32(PV_NVME_FEAT_NUM_QUEUES);
	c.cdw11 = rte_cpu_to_le_32(7 | 7u << 16);
	cpl = ut_submit(a, &c);
	UT_ASSERT_ST(cpl, 0, 0);
	CU_ASSERT_EQUAL(rte_le_to_cpu_32(cpl.cdw0), 2 | 2u << 16);	/* 4 queues: 3 I/O */
	c.cdw10 = rte_cpu_to_le_32(PV_NVME_FEAT_KEEP_ALIVE_TIMER);
	c.cdw11 = rte_cpu_to_le_32(150);
	cpl = ut_submit(a, &c);
	UT_ASSERT_ST(cpl, 0, 0);
	CU_ASSERT_EQUAL(rte_le_to_cpu_32(cpl.cdw0), 200);	/* rounded up to KAS */
	c.cdw10 = rte_cpu_to_le_32(PV_NVME_FEAT_KEEP_ALIVE_TIMER | 1u << 31);
	cpl = ut_submit(a, &c);
	UT_ASSERT_ST(cpl, PV_NVME_SCT_CMD_SPECIFIC, PV_NVME_SC_FEAT_NOT_SAVEABLE);
	c.cdw10 = rte_cpu_to_le_32(0x77);
	cpl = ut_submit(a, &c);
	UT_ASSERT_ST(cpl, 0, PV_NVME_SC_INVALID_FIELD);
	ut_cmd_init(&c, PV_NVME_OPC_GET_FEATURES);
	c.cdw10 = rte_cpu_to_le_32(PV_NVME_FEAT_KEEP_ALIVE_TIMER);
	cpl = ut_submit(a, &c);
	CU_ASSERT_EQUAL(rte_le_to_cpu_32(cpl.cdw0), 200);

	/* SMART log; an unknown log page; the discovery log on an NVM controller */
	ut_cmd_init(&c, PV_NVME_OPC_GET_LOG_PAGE);
	c.cdw10 = rte_cpu_to_le_32(PV_NVME_LOG_SMART | (512 / 4 - 1) << 16);
	ut_cmd_keyed(&c, 0, 512);
	cpl = ut_submit(a, &c);
	UT_ASSERT_ST(cpl, 0, 0);
	CU_ASSERT_EQUAL(sl->temperature[0] | sl->temperature[1] << 8, 298);
	CU_ASSERT_EQUAL(sl->avail_spare, 100);
	c.cdw10 = rte_cpu_to_le_32(0x33 | (512 / 4 - 1) << 16);
	cpl = ut_submit(a, &c);
	UT_ASSERT_ST(cpl, PV_NVME_SCT_CMD_SPECIFIC, PV_NVME_SC_INVALID_LOG_PAGE);
	c.cdw10 = rte_cpu_to_le_32(PV_NVME_LOG_DISCOVERY | (512 / 4 - 1) << 16);
	cpl = ut_submit(a, &c);
	UT_ASSERT_ST(cpl, PV_NVME_SCT_CMD_SPECIFIC, PV_NVME_SC_INVALID_LOG_PAGE);
	/* NUMD past the SGL */
	c.cdw10 = rte_cpu_to_le_32(PV_NVME_LOG_SMART | (1024 / 4 - 1) << 16);
	cpl = ut_submit(a, &c);
	UT_ASSERT_ST(cpl, 0, PV_NVME_SC_DATA_SGL_LEN_INVALID);

	/* keep-alive: 200 ms; a Keep Alive restarts it; past it the controller fails */
	ut_cmd_init(&c, PV_NVME_OPC_KEEP_ALIVE);
	cpl = ut_submit(a, &c);
	UT_ASSERT_ST(cpl, 0, 0);
	CU_ASSERT_EQUAL(pv_nvmf_qpair_keep_alive_check(&a->qp, pv_nvmf_now_ms() + 100), 0);
	CU_ASSERT_EQUAL(a->disconnects, 0);
	CU_ASSERT_EQUAL(pv_nvmf_qpair_keep_alive_check(&a->qp, pv_nvmf_now_ms() + 1000),
			-ETIMEDOUT);
	CU_ASSERT_EQUAL(a->disconnects, 1);
	CU_ASSERT_EQUAL(pv_nvmf_qpair_keep_alive_check(&a->qp, pv_nvmf_now_ms() + 1000),
			-ETIMEDOUT);
	cpl = ut_prop(a, PV_NVMF_FCTYPE_PROPERTY_GET, PV_NVMF_PROP_CSTS, false, 0);
	CU_ASSERT(rte_le_to_cpu_32(cpl.cdw0) & PV_NVME_CSTS_CFS);
	ut_qp_free(a);
}

static void
test_aer(void)
{
	struct pv_nvmf_req reqs[5];
	struct pv_nvme_cmd c;
	uint16_t cntlid;
	struct ut_qp *a = ut_admin_up(&cntlid);
	unsigned int i, base = a->ncpl;

	for (i = 0; i < 5; i++) {
		ut_cmd_init(&c, PV_NVME_OPC_ASYNC_EVENT_REQ);
		memset(&reqs[i], 0, sizeof(reqs[i]));
		reqs[i].cmd = c;
		reqs[i].qp = &a->qp;
		pv_nvmf_req_submit(&reqs[i]);
	}
	/* AERL 3: four held, the fifth fails at once */
	CU_ASSERT_EQUAL(a->ncpl, base + 1);
	UT_ASSERT_ST(a->cpl[base], PV_NVME_SCT_CMD_SPECIFIC, PV_NVME_SC_ASYNC_LIMIT);
	CU_ASSERT_EQUAL(a->cpl[base].cid, reqs[4].cmd.cid);
	/* the queue goes: the held ones end as Aborted - SQ Deletion */
	pv_nvmf_qpair_fini(&a->qp);
	CU_ASSERT_EQUAL(a->ncpl, base + 5);
	for (i = 1; i < 5; i++)
		UT_ASSERT_ST(a->cpl[base + i], 0, PV_NVME_SC_ABORTED_SQ_DELETION);
	CU_ASSERT_EQUAL(a->qp.outstanding, 0);
	ut_qp_free(a);
}

/* ------------------------------------------------------------------ */
/* tests: robustness of Connect and of the command path                 */
/* ------------------------------------------------------------------ */

static void
test_connect_errors(void)
{
	struct ut_qp *a = ut_qp_new(0), *q = ut_qp_new(1), *q9 = ut_qp_new(9);
	struct pv_nvme_cmd c;
	struct pv_nvme_cpl cpl;
	uint16_t cntlid;

	/* anything but Connect before Connect: Command Sequence Error */
	ut_cmd_init(&c, PV_NVME_OPC_IDENTIFY);
	cpl = ut_submit(a, &c);
	UT_ASSERT_ST(cpl, 0, PV_NVME_SC_CMD_SEQ_ERROR);
	cpl = ut_rw(q, PV_NVME_OPC_READ, 1, 0, 1, 0, 512);
	UT_ASSERT_ST(cpl, 0, PV_NVME_SC_CMD_SEQ_ERROR);
	cpl = ut_prop(a, PV_NVMF_FCTYPE_PROPERTY_GET, PV_NVMF_PROP_CAP, true, 0);
	UT_ASSERT_ST(cpl, 0, PV_NVME_SC_CMD_SEQ_ERROR);
	/* unknown subsystem: Invalid Parameters in the data at SUBNQN */
	cpl = ut_connect_full(a, 0, 31, 0xffff, "nqn.nope", UT_HOSTNQN, 0, true);
	UT_ASSERT_ST(cpl, PV_NVME_SCT_CMD_SPECIFIC, PV_NVMF_SC_CONNECT_INVALID_PARAM);
	CU_ASSERT_EQUAL(rte_le_to_cpu_32(cpl.cdw0), 1 | 256u << 16);
	/* host not on the list */
	cpl = ut_connect_full(a, 0, 31, 0xffff, UT_SUBNQN ".closed", UT_HOSTNQN, 0, true);
	UT_ASSERT_ST(cpl, PV_NVME_SCT_CMD_SPECIFIC, PV_NVMF_SC_CONNECT_INVALID_HOST);
	/* QID of the command other than the connection's: IPO 42 */
	cpl = ut_connect_full(a, 1, 31, 0xffff, UT_SUBNQN, UT_HOSTNQN, 0, true);
	UT_ASSERT_ST(cpl, PV_NVME_SCT_CMD_SPECIFIC, PV_NVMF_SC_CONNECT_INVALID_PARAM);
	CU_ASSERT_EQUAL(rte_le_to_cpu_32(cpl.cdw0), 42u << 16);
	/* SQ size 0 and past MQES: IPO 44 */
	cpl = ut_connect_full(a, 0, 0, 0xffff, UT_SUBNQN, UT_HOSTNQN, 0, true);
	CU_ASSERT_EQUAL(rte_le_to_cpu_32(cpl.cdw0), 44u << 16);
	cpl = ut_connect_full(a, 0, 128, 0xffff, UT_SUBNQN, UT_HOSTNQN, 0, true);
	CU_ASSERT_EQUAL(rte_le_to_cpu_32(cpl.cdw0), 44u << 16);
	/* static controller ID on the admin queue: IPO 16 in the data */
	cpl = ut_connect_full(a, 0, 31, 5, UT_SUBNQN, UT_HOSTNQN, 0, true);
	CU_ASSERT_EQUAL(rte_le_to_cpu_32(cpl.cdw0), 1 | 16u << 16);
	CU_ASSERT_FALSE(a->qp.connected);

	/* I/O queue before the controller is enabled: Command Sequence Error */
	cpl = ut_connect(a, 0, 0xffff);
	UT_ASSERT_ST(cpl, 0, 0);
	cntlid = (uint16_t)rte_le_to_cpu_32(cpl.cdw0);
	cpl = ut_connect(q, 1, cntlid);
	UT_ASSERT_ST(cpl, 0, PV_NVME_SC_CMD_SEQ_ERROR);
	/* a second Connect on a connected queue */
	cpl = ut_connect(a, 0, 0xffff);
	UT_ASSERT_ST(cpl, 0, PV_NVME_SC_CMD_SEQ_ERROR);
	cpl = ut_prop(a, PV_NVMF_FCTYPE_PROPERTY_SET, PV_NVMF_PROP_CC, false, PV_NVME_CC_EN);
	/* unknown controller ID, another host's NQN, QID past the controller's */
	cpl = ut_connect(q, 1, cntlid + 100);
	CU_ASSERT_EQUAL(rte_le_to_cpu_32(cpl.cdw0), 1 | 16u << 16);
	cpl = ut_connect_full(q, 1, 31, cntlid, UT_SUBNQN, "nqn.x", 0, true);
	CU_ASSERT_EQUAL(rte_le_to_cpu_32(cpl.cdw0), 1 | 512u << 16);
	cpl = ut_connect(q9, 9, cntlid);
	UT_ASSERT_ST(cpl, PV_NVME_SCT_CMD_SPECIFIC, PV_NVMF_SC_CONNECT_INVALID_PARAM);
	CU_ASSERT_EQUAL(rte_le_to_cpu_32(cpl.cdw0), 42u << 16);
	cpl = ut_connect(q, 1, cntlid);
	UT_ASSERT_ST(cpl, 0, 0);
	CU_ASSERT_EQUAL(rte_le_to_cpu_32(cpl.cdw0), cntlid);
	cpl = ut_connect(q, 1, cntlid);
	UT_ASSERT_ST(cpl, 0, PV_NVME_SC_CMD_SEQ_ERROR);
	/* a second queue 1 on another connection: the QID is taken */
	{
		struct ut_qp *q1b = ut_qp_new(1);

		cpl = ut_connect(q1b, 1, cntlid);
		CU_ASSERT_EQUAL(rte_le_to_cpu_32(cpl.cdw0), 42u << 16);
		ut_qp_free(q1b);
	}
	/* Disconnect on the I/O queue; the admin queue refuses it */
	ut_cmd_init(&c, PV_NVME_OPC_FABRICS);
	((struct pv_nvmf_cmd *)&c)->fctype = PV_NVMF_FCTYPE_DISCONNECT;
	cpl = ut_submit(a, &c);
	UT_ASSERT_ST(cpl, 0, PV_NVME_SC_INVALID_OPCODE);
	cpl = ut_submit(q, &c);
	UT_ASSERT_ST(cpl, 0, 0);
	CU_ASSERT_EQUAL(q->disconnects, 1);
	/* admin queue loss takes the I/O queues down */
	ut_qp_free(a);
	CU_ASSERT_EQUAL(q->disconnects, 2);
	ut_qp_free(q);
	ut_qp_free(q9);
}

/*
 * Two Connects on one admin queue, the second submitted while the first
 * one's data is still on its way (keyed SGL: an RDMA READ in flight, as
 * Linux sends admin Connect data): the second fails with Command Sequence
 * Error when it runs, instead of binding a second controller to the queue
 * and leaving the first behind (found by fuzz_nvmf_capsule).
 */
static void
test_connect_data_in_flight(void)
{
	struct ut_qp *a = ut_qp_new(0);
	struct pv_nvmf_connect_data d;
	struct pv_nvmf_connect_cmd cc;
	struct pv_nvmf_req r[2];
	unsigned int i;

	memset(&d, 0, sizeof(d));
	d.hostid[0] = 0x42;
	d.cntlid = rte_cpu_to_le_16(0xffff);
	snprintf(d.subnqn, sizeof(d.subnqn), "%s", UT_SUBNQN);
	snprintf(d.hostnqn, sizeof(d.hostnqn), "%s", UT_HOSTNQN);
	memcpy(ut_host, &d, sizeof(d));
	ut_delay = true;
	for (i = 0; i < RTE_DIM(r); i++) {
		memset(&cc, 0, sizeof(cc));
		ut_cmd_init((struct pv_nvme_cmd *)&cc, PV_NVME_OPC_FABRICS);
		cc.fctype = PV_NVMF_FCTYPE_CONNECT;
		cc.sqsize = rte_cpu_to_le_16(31);
		ut_cmd_keyed((struct pv_nvme_cmd *)&cc, 0, sizeof(d));
		memset(&r[i], 0, sizeof(r[i]));
		r[i].cmd = *(struct pv_nvme_cmd *)&cc;
		r[i].qp = &a->qp;
		pv_nvmf_req_submit(&r[i]);
	}
	ut_delay = false;
	CU_ASSERT_EQUAL(a->ncpl, 0);
	pv_nvmf_req_exec(&r[0]);
	pv_nvmf_req_exec(&r[1]);
	CU_ASSERT_EQUAL_FATAL(a->ncpl, 2);
	UT_ASSERT_ST(a->cpl[0], 0, 0);
	UT_ASSERT_ST(a->cpl[1], 0, PV_NVME_SC_CMD_SEQ_ERROR);
	CU_ASSERT_EQUAL(a->cpl[1].cid, r[1].cmd.cid);
	CU_ASSERT_TRUE(a->qp.connected);
	ut_qp_free(a);
}

static void
test_command_errors(void)
{
	uint8_t *ram = pv_nvmf_ns_ram_base(ut_ns);
	struct ut_qp *a, *q = ut_qp_new(1);
	uint8_t icd[4096], *snap;
	struct pv_nvme_cmd c;
	uint16_t cntlid;

	a = ut_admin_up(&cntlid);
	UT_ASSERT_ST(ut_connect(q, 1, cntlid), 0, 0);
	snap = malloc(UT_NS_BLOCKS * UT_BS);
	memcpy(snap, ram, UT_NS_BLOCKS * UT_BS);

	/* unknown opcodes, admin, I/O and Fabrics: Invalid Command Opcode */
	ut_cmd_init(&c, 0xc5);
	UT_ASSERT_ST(ut_submit(a, &c), 0, PV_NVME_SC_INVALID_OPCODE);
	ut_cmd_init(&c, PV_NVME_OPC_CREATE_IO_SQ);	/* not on fabrics */
	UT_ASSERT_ST(ut_submit(a, &c), 0, PV_NVME_SC_INVALID_OPCODE);
	ut_cmd_init(&c, 0x99);
	UT_ASSERT_ST(ut_submit(q, &c), 0, PV_NVME_SC_INVALID_OPCODE);
	ut_cmd_init(&c, PV_NVME_OPC_IDENTIFY);		/* admin opcode on an I/O queue */
	UT_ASSERT_ST(ut_submit(q, &c), 0, PV_NVME_SC_INVALID_OPCODE);
	ut_cmd_init(&c, PV_NVME_OPC_FABRICS);
	((struct pv_nvmf_cmd *)&c)->fctype = 0x3c;
	UT_ASSERT_ST(ut_submit(a, &c), 0, PV_NVME_SC_INVALID_OPCODE);
	UT_ASSERT_ST(ut_prop(q, PV_NVMF_FCTYPE_PROPERTY_GET, PV_NVMF_PROP_CAP, true, 0),
		     0, PV_NVME_SC_INVALID_OPCODE);
	/* fused, PRPs */
	ut_cmd_init(&c, PV_NVME_OPC_KEEP_ALIVE);
	c.flags |= 1;
	UT_ASSERT_ST(ut_submit(a, &c), 0, PV_NVME_SC_INVALID_FIELD);
	c.flags = 0;
	UT_ASSERT_ST(ut_submit(a, &c), 0, PV_NVME_SC_INVALID_FIELD);

	/* namespace, range, MDTS, SGL length */
	UT_ASSERT_ST(ut_rw(q, PV_NVME_OPC_READ, 2, 0, 1, 0, 512), 0, PV_NVME_SC_INVALID_NS);
	UT_ASSERT_ST(ut_rw(q, PV_NVME_OPC_READ, 0, 0, 1, 0, 512), 0, PV_NVME_SC_INVALID_NS);
	UT_ASSERT_ST(ut_rw(q, PV_NVME_OPC_WRITE, 1, UT_NS_BLOCKS - 1, 2, 0, 1024),
		     0, PV_NVME_SC_LBA_OUT_OF_RANGE);
	UT_ASSERT_ST(ut_rw(q, PV_NVME_OPC_WRITE, 1, UT_NS_BLOCKS, 1, 0, 512),
		     0, PV_NVME_SC_LBA_OUT_OF_RANGE);
	UT_ASSERT_ST(ut_rw(q, PV_NVME_OPC_WRITE, 1, UINT64_MAX, 2, 0, 1024),
		     0, PV_NVME_SC_LBA_OUT_OF_RANGE);
	UT_ASSERT_ST(ut_rw(q, PV_NVME_OPC_WRITE_ZEROES, 1, UT_NS_BLOCKS - 4, 5, 0, 0),
		     0, PV_NVME_SC_LBA_OUT_OF_RANGE);
	/* 256 blocks = 128 KiB is the MDTS; 257 is over it */
	UT_ASSERT_ST(ut_rw(q, PV_NVME_OPC_READ, 1, 0, 257, 0, 257 * 512),
		     0, PV_NVME_SC_DATA_SGL_LEN_INVALID);	/* SGL past max_io_size */
	UT_ASSERT_ST(ut_rw(q, PV_NVME_OPC_READ, 1, 0, 257, 0, 4096),
		     0, PV_NVME_SC_INVALID_FIELD);		/* NLB past MDTS */
	UT_ASSERT_ST(ut_rw(q, PV_NVME_OPC_WRITE, 1, 0, 8, 0, 4095),
		     0, PV_NVME_SC_DATA_SGL_LEN_INVALID);
	/* a keyed SGL outside the host's registered memory: Data Transfer Error */
	ut_cmd_init(&c, PV_NVME_OPC_WRITE);
	c.nsid = rte_cpu_to_le_32(1);
	pv_nvme_sgl_keyed_set(&c.sgl1, (uintptr_t)ut_host + UT_HOST_LEN - 256, 512, UT_KEY, 0);
	UT_ASSERT_ST(ut_submit(q, &c), 0, PV_NVME_SC_DATA_XFER_ERROR);
	pv_nvme_sgl_keyed_set(&c.sgl1, (uintptr_t)ut_host, 512, UT_KEY + 1, 0);
	UT_ASSERT_ST(ut_submit(q, &c), 0, PV_NVME_SC_DATA_XFER_ERROR);
	/* SGL descriptor types */
	c.sgl1.keyed.type = 0x5f;
	UT_ASSERT_ST(ut_submit(q, &c), 0, PV_NVME_SC_SGL_TYPE_INVALID);
	c.sgl1.keyed.type = PV_NVME_SGL_TYPE_KEYED_DATA << 4 | 0x7;
	UT_ASSERT_ST(ut_submit(q, &c), 0, PV_NVME_SC_SGL_TYPE_INVALID);
	c.sgl1.keyed.type = PV_NVME_SGL_TYPE_DATA_BLOCK << 4;	/* address: not for fabrics */
	UT_ASSERT_ST(ut_submit(q, &c), 0, PV_NVME_SC_SGL_TYPE_INVALID);
	/* in-capsule: offset past the data, length past the data */
	memset(&c.sgl1, 0, sizeof(c.sgl1));
	c.sgl1.unkeyed.type = PV_NVME_SGL_TYPE_DATA_BLOCK << 4 | PV_NVME_SGL_SUBTYPE_OFFSET;
	c.sgl1.unkeyed.length = rte_cpu_to_le_32(512);
	c.sgl1.addr = rte_cpu_to_le_64(4000);
	UT_ASSERT_ST(ut_submit_icd(q, &c, icd, 3999), 0, PV_NVME_SC_SGL_OFFSET_INVALID);
	UT_ASSERT_ST(ut_submit_icd(q, &c, icd, 4096), 0, PV_NVME_SC_DATA_SGL_LEN_INVALID);
	/* in-capsule data for a read (controller to host) */
	c.opc = PV_NVME_OPC_READ;
	c.sgl1.addr = 0;
	UT_ASSERT_ST(ut_submit_icd(q, &c, icd, 4096), 0, PV_NVME_SC_SGL_TYPE_INVALID);
	/* Last Segment: bad length, too many descriptors, past the capsule */
	c.opc = PV_NVME_OPC_WRITE;
	c.sgl1.unkeyed.type = PV_NVME_SGL_TYPE_LAST_SEGMENT << 4 | PV_NVME_SGL_SUBTYPE_OFFSET;
	c.sgl1.unkeyed.length = rte_cpu_to_le_32(24);
	UT_ASSERT_ST(ut_submit_icd(q, &c, icd, 4096), 0, PV_NVME_SC_INVALID_SGL_SEG);
	c.sgl1.unkeyed.length = rte_cpu_to_le_32(17 * 16);
	UT_ASSERT_ST(ut_submit_icd(q, &c, icd, 4096), 0, PV_NVME_SC_INVALID_NUM_SGL);
	c.sgl1.unkeyed.length = rte_cpu_to_le_32(32);
	UT_ASSERT_ST(ut_submit_icd(q, &c, icd, 16), 0, PV_NVME_SC_SGL_OFFSET_INVALID);
	/* DSM with fewer range bytes than NR says */
	ut_cmd_init(&c, PV_NVME_OPC_DATASET_MGMT);
	c.nsid = rte_cpu_to_le_32(1);
	c.cdw10 = rte_cpu_to_le_32(3);
	c.cdw11 = rte_cpu_to_le_32(PV_NVME_DSM_AD);
	ut_cmd_keyed(&c, 0, 32);
	UT_ASSERT_ST(ut_submit(q, &c), 0, PV_NVME_SC_DATA_SGL_LEN_INVALID);
	/* a DSM range out of the namespace */
	{
		struct pv_nvme_dsm_range r[2] = {
			{ .nlb = rte_cpu_to_le_32(8), .slba = rte_cpu_to_le_64(0) },
			{ .nlb = rte_cpu_to_le_32(8), .slba = rte_cpu_to_le_64(UT_NS_BLOCKS - 4) },
		};

		memcpy(ut_host, r, sizeof(r));
		c.cdw10 = rte_cpu_to_le_32(1);
		UT_ASSERT_ST(ut_submit(q, &c), 0, PV_NVME_SC_LBA_OUT_OF_RANGE);
	}
	/* nothing of the above changed the namespace */
	CU_ASSERT_EQUAL(memcmp(snap, ram, UT_NS_BLOCKS * UT_BS), 0);
	CU_ASSERT_EQUAL(q->qp.outstanding, 0);
	CU_ASSERT_EQUAL(a->qp.outstanding, 0);
	free(snap);
	ut_qp_free(q);
	ut_qp_free(a);
}

/* ------------------------------------------------------------------ */
/* tests: data                                                          */
/* ------------------------------------------------------------------ */

static void
test_io_data_paths(void)
{
	uint8_t *ram = pv_nvmf_ns_ram_base(ut_ns);
	struct ut_qp *a, *q = ut_qp_new(1);
	struct pv_nvme_sgl segs[3];
	struct pv_nvme_cmd c;
	uint8_t icd[4096];
	uint16_t cntlid;
	unsigned int i;

	a = ut_admin_up(&cntlid);
	UT_ASSERT_ST(ut_connect(q, 1, cntlid), 0, 0);
	/* keyed write, keyed read back */
	for (i = 0; i < 8192; i++)
		ut_host[i] = (uint8_t)(i * 7 + 3);
	UT_ASSERT_ST(ut_rw(q, PV_NVME_OPC_WRITE, 1, 100, 16, 0, 8192), 0, 0);
	CU_ASSERT_EQUAL(memcmp(ram + 100 * UT_BS, ut_host, 8192), 0);
	memset(ut_host + 65536, 0, 8192);
	UT_ASSERT_ST(ut_rw(q, PV_NVME_OPC_READ, 1, 100, 16, 65536, 8192), 0, 0);
	CU_ASSERT_EQUAL(memcmp(ut_host + 65536, ut_host, 8192), 0);
	/* in-capsule write at an offset of 16 */
	for (i = 0; i < sizeof(icd); i++)
		icd[i] = (uint8_t)(i ^ 0x5a);
	ut_cmd_init(&c, PV_NVME_OPC_WRITE);
	c.nsid = rte_cpu_to_le_32(1);
	c.cdw10 = rte_cpu_to_le_32(200);
	c.cdw12 = rte_cpu_to_le_32(6);
	c.sgl1.addr = rte_cpu_to_le_64(16);
	c.sgl1.unkeyed.length = rte_cpu_to_le_32(4080);	/* longer than 7 blocks: fine */
	c.sgl1.unkeyed.type = PV_NVME_SGL_TYPE_DATA_BLOCK << 4 | PV_NVME_SGL_SUBTYPE_OFFSET;
	UT_ASSERT_ST(ut_submit_icd(q, &c, icd, sizeof(icd)), 0, 0);
	CU_ASSERT_EQUAL(memcmp(ram + 200 * UT_BS, icd + 16, 4096 - 512), 0);
	/* several keyed descriptors through a Last Segment in the capsule */
	pv_nvme_sgl_keyed_set(&segs[0], (uintptr_t)ut_host + 4096, 1024, UT_KEY, 0);
	pv_nvme_sgl_keyed_set(&segs[1], (uintptr_t)ut_host + 100000, 512, UT_KEY, 0);
	pv_nvme_sgl_keyed_set(&segs[2], (uintptr_t)ut_host + 200000, 2560, UT_KEY, 0);
	memcpy(icd, segs, sizeof(segs));
	memset(ut_host + 4096, 0, 1024);
	memset(ut_host + 100000, 0, 512);
	memset(ut_host + 200000, 0, 2560);
	ut_cmd_init(&c, PV_NVME_OPC_READ);
	c.nsid = rte_cpu_to_le_32(1);
	c.cdw10 = rte_cpu_to_le_32(100);
	c.cdw12 = rte_cpu_to_le_32(7);
	c.sgl1.unkeyed.length = rte_cpu_to_le_32(sizeof(segs));
	c.sgl1.unkeyed.type = PV_NVME_SGL_TYPE_LAST_SEGMENT << 4 | PV_NVME_SGL_SUBTYPE_OFFSET;
	UT_ASSERT_ST(ut_submit_icd(q, &c, icd, sizeof(icd)), 0, 0);
	CU_ASSERT_EQUAL(memcmp(ut_host + 4096, ram + 100 * UT_BS, 1024), 0);
	CU_ASSERT_EQUAL(memcmp(ut_host + 100000, ram + 100 * UT_BS + 1024, 512), 0);
	CU_ASSERT_EQUAL(memcmp(ut_host + 200000, ram + 100 * UT_BS + 1536, 2560), 0);
	/* invalidate subtype is noted for the transport (SEND_WITH_INV) */
	{
		struct pv_nvmf_req req;

		memset(&req, 0, sizeof(req));
		pv_nvme_sgl_keyed_set(&req.cmd.sgl1, 0x1000, 4096, 0xfeedf00d,
				      PV_NVME_SGL_SUBTYPE_INVALIDATE);
		CU_ASSERT_EQUAL(pv_nvmf_req_parse_sgl(&req, 1 << 20), 0);
		CU_ASSERT(req.invalidate);
		CU_ASSERT_EQUAL(req.invalidate_rkey, 0xfeedf00d);
		CU_ASSERT_EQUAL(req.nseg, 1);
		CU_ASSERT_EQUAL(req.sgl[0].len, 4096);
		CU_ASSERT_EQUAL(req.sgl[0].addr, 0x1000);
	}
	/* flush of one and of all namespaces */
	UT_ASSERT_ST(ut_rw(q, PV_NVME_OPC_FLUSH, 1, 0, 1, 0, 0), 0, 0);
	UT_ASSERT_ST(ut_rw(q, PV_NVME_OPC_FLUSH, 0xffffffff, 0, 1, 0, 0), 0, 0);
	CU_ASSERT_EQUAL(q->qp.num_write_cmds, 2);
	CU_ASSERT_EQUAL(q->qp.num_read_cmds, 2);
	ut_qp_free(q);
	ut_qp_free(a);
}

/* 10,000 I/Os of random kind, size and offset, checked against a model */
static void
test_io_random_model(void)
{
	const size_t ns_len = (size_t)UT_NS_BLOCKS * UT_BS;
	uint8_t *ram = pv_nvmf_ns_ram_base(ut_ns);
	uint8_t *model = malloc(ns_len);
	struct ut_qp *a, *q = ut_qp_new(2);
	struct pv_nvme_cpl cpl;
	unsigned int i, bad = 0;
	uint16_t cntlid;

	a = ut_admin_up(&cntlid);
	UT_ASSERT_ST(ut_connect(q, 2, cntlid), 0, 0);
	memcpy(model, ram, ns_len);
	rte_srand(15);
	for (i = 0; i < 10000; i++) {
		uint32_t kind = (uint32_t)rte_rand_max(10);
		uint32_t nlb = 1 + (uint32_t)rte_rand_max(kind == 9 ? 300 : 256);
		/* now and then past the end: must fail and write nothing */
		uint64_t slba = rte_rand_max(UT_NS_BLOCKS + 64);
		bool in_range = slba + nlb <= UT_NS_BLOCKS;
		size_t len = (size_t)nlb * UT_BS, off = slba * UT_BS;
		uint16_t want;

		if (kind < 4) {			/* write */
			memcpy(ut_host, &i, sizeof(i));
			for (size_t k = sizeof(i); k < len; k += 8) {
				uint64_t r = rte_rand();

				memcpy(ut_host + k, &r, RTE_MIN((size_t)8, len - k));
			}
			cpl = ut_rw(q, PV_NVME_OPC_WRITE, 1, slba, nlb, 0, (uint32_t)len);
			if (in_range)
				memcpy(model + off, ut_host, len);
		} else if (kind < 8) {		/* read */
			memset(ut_host + 512 * 1024, 0xa5, len);
			cpl = ut_rw(q, PV_NVME_OPC_READ, 1, slba, nlb, 512 * 1024, (uint32_t)len);
			if (in_range && cpl.status == 0 &&
			    memcmp(ut_host + 512 * 1024, model + off, len) != 0)
				bad++;
		} else if (kind == 8) {		/* write zeroes */
			cpl = ut_rw(q, PV_NVME_OPC_WRITE_ZEROES, 1, slba, nlb, 0, 0);
			if (in_range)
				memset(model + off, 0, len);
		} else {			/* deallocate one range, up to 300 blocks */
			struct pv_nvme_dsm_range r = {
				.nlb = rte_cpu_to_le_32(nlb),
				.slba = rte_cpu_to_le_64(slba),
			};
			struct pv_nvme_cmd c;

			memcpy(ut_host, &r, sizeof(r));
			ut_cmd_init(&c, PV_NVME_OPC_DATASET_MGMT);
			c.nsid = rte_cpu_to_le_32(1);
			c.cdw11 = rte_cpu_to_le_32(PV_NVME_DSM_AD);
			ut_cmd_keyed(&c, 0, sizeof(r));
			cpl = ut_submit(q, &c);
			if (in_range)
				memset(model + off, 0, len);
		}
		want = in_range ? 0 : UT_ST(0, PV_NVME_SC_LBA_OUT_OF_RANGE);
		if (rte_le_to_cpu_16(cpl.status) != want)
			bad++;
		q->ncpl = 0;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(memcmp(model, ram, ns_len), 0);
	free(model);
	ut_qp_free(q);
	ut_qp_free(a);
}

static void
test_discovery(void)
{
	const struct pv_nvmf_disc_log_hdr *h = (const void *)ut_host;
	const struct pv_nvmf_disc_log_entry *e = (const void *)(ut_host + 1024);
	struct ut_qp *d = ut_qp_new(0), *dq = ut_qp_new(1);
	const struct pv_nvme_id_ctrl *id = (const void *)ut_host;
	struct pv_nvme_cmd c;
	struct pv_nvme_cpl cpl;
	uint16_t cntlid;

	cpl = ut_connect_full(d, 0, 31, 0xffff, PV_NVMF_DISCOVERY_NQN, UT_HOSTNQN, 0, true);
	UT_ASSERT_ST(cpl, 0, 0);
	cntlid = (uint16_t)rte_le_to_cpu_32(cpl.cdw0);
	ut_prop(d, PV_NVMF_FCTYPE_PROPERTY_SET, PV_NVMF_PROP_CC, false, PV_NVME_CC_EN);
	ut_cmd_init(&c, PV_NVME_OPC_IDENTIFY);
	c.cdw10 = rte_cpu_to_le_32(PV_NVME_CNS_CTRLR);
	ut_cmd_keyed(&c, 0, 4096);
	UT_ASSERT_ST(ut_submit(d, &c), 0, 0);
	CU_ASSERT_EQUAL(id->cntrltype, 2);
	CU_ASSERT_STRING_EQUAL(id->subnqn, PV_NVMF_DISCOVERY_NQN);
	c.cdw10 = rte_cpu_to_le_32(PV_NVME_CNS_NS);
	UT_ASSERT_ST(ut_submit(d, &c), 0, PV_NVME_SC_INVALID_FIELD);
	/* the header first (as Linux reads it), then the whole page */
	ut_cmd_init(&c, PV_NVME_OPC_GET_LOG_PAGE);
	c.cdw10 = rte_cpu_to_le_32(PV_NVME_LOG_DISCOVERY | (1024 / 4 - 1) << 16);
	ut_cmd_keyed(&c, 0, 1024);
	UT_ASSERT_ST(ut_submit(d, &c), 0, 0);
	/* ut and ut.file; the closed subsystem does not list for this host */
	CU_ASSERT_EQUAL(rte_le_to_cpu_64(h->numrec), 2);
	c.cdw10 = rte_cpu_to_le_32(PV_NVME_LOG_DISCOVERY | (2048 / 4 - 1) << 16);
	ut_cmd_keyed(&c, 0, 2048);
	UT_ASSERT_ST(ut_submit(d, &c), 0, 0);
	CU_ASSERT_EQUAL(e->trtype, PV_NVMF_TRTYPE_RDMA);
	CU_ASSERT_EQUAL(e->subtype, PV_NVMF_SUBTYPE_NVME);
	CU_ASSERT_STRING_EQUAL(e->subnqn, UT_SUBNQN);
	CU_ASSERT_EQUAL(memcmp(e->traddr, "10.77.0.1\0", 10), 0);
	CU_ASSERT_EQUAL(memcmp(e->trsvcid, "4420\0", 5), 0);
	CU_ASSERT_EQUAL(e->tsas.rdma.cms, PV_NVMF_RDMA_CMS_RDMA_CM);
	/* at an offset: the entry alone */
	memset(ut_host, 0, 2048);
	c.cdw10 = rte_cpu_to_le_32(PV_NVME_LOG_DISCOVERY | (1024 / 4 - 1) << 16);
	c.cdw12 = rte_cpu_to_le_32(1024);
	ut_cmd_keyed(&c, 0, 1024);
	UT_ASSERT_ST(ut_submit(d, &c), 0, 0);
	CU_ASSERT_STRING_EQUAL(((const struct pv_nvmf_disc_log_entry *)ut_host)->subnqn,
			       UT_SUBNQN);
	/* SMART is not a discovery log; I/O queues do not exist on it */
	c.cdw10 = rte_cpu_to_le_32(PV_NVME_LOG_SMART | (512 / 4 - 1) << 16);
	c.cdw12 = 0;
	UT_ASSERT_ST(ut_submit(d, &c), PV_NVME_SCT_CMD_SPECIFIC, PV_NVME_SC_INVALID_LOG_PAGE);
	cpl = ut_connect_full(dq, 1, 31, cntlid, PV_NVMF_DISCOVERY_NQN, UT_HOSTNQN, 0, true);
	UT_ASSERT_ST(cpl, PV_NVME_SCT_CMD_SPECIFIC, PV_NVMF_SC_CONNECT_INVALID_PARAM);
	ut_qp_free(dq);
	ut_qp_free(d);
}


/* ------------------------------------------------------------------ */
/* file namespace (io_uring)                                            */
/* ------------------------------------------------------------------ */

#define UT_FILE_NQN UT_SUBNQN ".file"

/* poll the asynchronous namespaces until @p u has @p ncpl CQEs (5 s at most) */
static void
ut_poll_until(struct ut_qp *u, unsigned int ncpl)
{
	uint64_t deadline = pv_nvmf_now_ms() + 5000;

	while (u->ncpl < ncpl && pv_nvmf_now_ms() < deadline)
		pv_nvmf_tgt_ns_poll(ut_tgt);
	CU_ASSERT_EQUAL_FATAL(u->ncpl, ncpl);
}

/* submit @p c (in-capsule data @p icd, @p icd_len) and poll until its CQE is there */
static struct pv_nvme_cpl
ut_submit_async_icd(struct ut_qp *u, const struct pv_nvme_cmd *c, uint8_t *icd,
		    uint32_t icd_len)
{
	struct pv_nvmf_req req;
	unsigned int before = u->ncpl;

	memset(&req, 0, sizeof(req));
	req.cmd = *c;
	req.qp = &u->qp;
	req.icd = icd;
	req.icd_len = icd_len;
	pv_nvmf_req_submit(&req);
	ut_poll_until(u, before + 1);
	CU_ASSERT_EQUAL(u->cpl[before].cid, c->cid);
	return u->cpl[before];
}

static struct pv_nvme_cpl
ut_submit_async(struct ut_qp *u, const struct pv_nvme_cmd *c)
{
	return ut_submit_async_icd(u, c, NULL, 0);
}

static void
ut_io_cmd(struct pv_nvme_cmd *c, uint8_t opc, uint32_t nsid, uint64_t slba, uint32_t nlb)
{
	ut_cmd_init(c, opc);
	c->nsid = rte_cpu_to_le_32(nsid);
	c->cdw10 = rte_cpu_to_le_32((uint32_t)slba);
	c->cdw11 = rte_cpu_to_le_32((uint32_t)(slba >> 32));
	c->cdw12 = rte_cpu_to_le_32((nlb - 1) & 0xffff);
}

/* a Write of @p nlb 4 KiB blocks whose data is in the capsule */
static void
ut_icd_write_cmd(struct pv_nvme_cmd *c, uint32_t nsid, uint64_t slba, uint32_t nlb)
{
	ut_io_cmd(c, PV_NVME_OPC_WRITE, nsid, slba, nlb);
	c->sgl1.unkeyed.length = rte_cpu_to_le_32(nlb * 4096);
	c->sgl1.unkeyed.type = PV_NVME_SGL_TYPE_DATA_BLOCK << 4 | PV_NVME_SGL_SUBTYPE_OFFSET;
}

static struct pv_nvme_cpl
ut_rw_async(struct ut_qp *u, uint32_t nsid, uint8_t opc, uint64_t slba, uint32_t nlb,
	    uint32_t host_off)
{
	struct pv_nvme_cmd c;

	ut_io_cmd(&c, opc, nsid, slba, nlb);
	if (opc == PV_NVME_OPC_READ || opc == PV_NVME_OPC_WRITE)
		ut_cmd_keyed(&c, host_off, nlb * 4096);
	return ut_submit_async(u, &c);
}

static bool
ut_zero(const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != 0)
			return false;
	return true;
}

/* an admin queue enabled and I/O queue 1 connected to the file subsystem */
static struct ut_qp *
ut_file_ctrlr_up(struct ut_qp **admin_p)
{
	struct pv_nvme_cpl cpl;
	struct ut_qp *a, *q;
	uint16_t cntlid;

	a = ut_qp_new(0);
	cpl = ut_connect_full(a, 0, 31, 0xffff, UT_FILE_NQN, UT_HOSTNQN, 0, true);
	UT_ASSERT_ST(cpl, 0, 0);
	cntlid = (uint16_t)rte_le_to_cpu_32(cpl.cdw0);
	ut_prop(a, PV_NVMF_FCTYPE_PROPERTY_SET, PV_NVMF_PROP_CC, false, PV_NVME_CC_EN);
	q = ut_qp_new(1);
	cpl = ut_connect_full(q, 1, 31, cntlid, UT_FILE_NQN, UT_HOSTNQN, 0, true);
	UT_ASSERT_ST(cpl, 0, 0);
	*admin_p = a;
	return q;
}

/*
 * Write, read back, write zeroes, deallocate and flush through namespace
 * @p nsid (4 KiB blocks) behind the file @p fd, the file's bytes compared;
 * then six commands submitted before one poll pass: none completes before
 * it, all after it, with a single io_uring_submit() (one more each time the
 * SQ of @p depth entries fills).
 */
static void
ut_file_ns_sequence(struct ut_qp *q, struct pv_nvmf_ns *ns, uint32_t nsid, int fd,
		    unsigned int depth)
{
	struct pv_nvmf_ns_file_stats st0, st1;
	struct pv_nvmf_req reqs[6];
	struct pv_nvme_cmd c;
	uint8_t back[8 * 4096];
	unsigned int i, before;

	/* write 8 blocks at LBA 10: the file holds them */
	for (i = 0; i < sizeof(back); i++)
		ut_host[i] = (uint8_t)(i * 13 + nsid);
	UT_ASSERT_ST(ut_rw_async(q, nsid, PV_NVME_OPC_WRITE, 10, 8, 0), 0, 0);
	CU_ASSERT_EQUAL(pread(fd, back, sizeof(back), 10 * 4096), (ssize_t)sizeof(back));
	CU_ASSERT_EQUAL(memcmp(back, ut_host, sizeof(back)), 0);
	/* read it back into another part of host memory */
	memset(ut_host + 65536, 0, sizeof(back));
	UT_ASSERT_ST(ut_rw_async(q, nsid, PV_NVME_OPC_READ, 10, 8, 65536), 0, 0);
	CU_ASSERT_EQUAL(memcmp(ut_host + 65536, ut_host, sizeof(back)), 0);
	/* write zeroes over 2 blocks, deallocate 1, flush */
	UT_ASSERT_ST(ut_rw_async(q, nsid, PV_NVME_OPC_WRITE_ZEROES, 11, 2, 0), 0, 0);
	{
		struct pv_nvme_dsm_range r = { .nlb = rte_cpu_to_le_32(1),
					       .slba = rte_cpu_to_le_64(15) };

		memcpy(ut_host + 200000, &r, sizeof(r));
		ut_cmd_init(&c, PV_NVME_OPC_DATASET_MGMT);
		c.nsid = rte_cpu_to_le_32(nsid);
		c.cdw11 = rte_cpu_to_le_32(PV_NVME_DSM_AD);
		ut_cmd_keyed(&c, 200000, sizeof(r));
		UT_ASSERT_ST(ut_submit_async(q, &c), 0, 0);
	}
	UT_ASSERT_ST(ut_rw_async(q, nsid, PV_NVME_OPC_FLUSH, 0, 1, 0), 0, 0);
	CU_ASSERT_EQUAL(pread(fd, back, sizeof(back), 10 * 4096), (ssize_t)sizeof(back));
	CU_ASSERT_EQUAL(memcmp(back, ut_host, 4096), 0);		/* LBA 10 kept */
	CU_ASSERT(ut_zero(back + 4096, 2 * 4096));			/* 11, 12 zero */
	CU_ASSERT_EQUAL(memcmp(back + 3 * 4096, ut_host + 3 * 4096, 2 * 4096), 0);
	CU_ASSERT(ut_zero(back + 5 * 4096, 4096));			/* 15 deallocated */
	CU_ASSERT_EQUAL(memcmp(back + 6 * 4096, ut_host + 6 * 4096, 2 * 4096), 0);

	/* batching: 4 writes (data in their capsules), write zeroes, flush */
	CU_ASSERT_EQUAL(pv_nvmf_ns_file_stats_get(ns, &st0), 0);
	for (i = 0; i < 4 * 4096; i++)
		ut_host[300 * 1024 + i] = (uint8_t)(i * 7 + nsid);
	memset(reqs, 0, sizeof(reqs));
	for (i = 0; i < 6; i++) {
		reqs[i].qp = &q->qp;
		if (i < 4) {
			ut_icd_write_cmd(&reqs[i].cmd, nsid, 40 + i, 1);
			reqs[i].icd = ut_host + 300 * 1024 + i * 4096;
			reqs[i].icd_len = 4096;
		} else if (i == 4) {
			ut_io_cmd(&reqs[i].cmd, PV_NVME_OPC_WRITE_ZEROES, nsid, 50, 1);
		} else {
			ut_io_cmd(&reqs[i].cmd, PV_NVME_OPC_FLUSH, nsid, 0, 1);
		}
	}
	before = q->ncpl;
	for (i = 0; i < 6; i++)
		pv_nvmf_req_submit(&reqs[i]);
	CU_ASSERT_EQUAL(q->ncpl, before);	/* queued, not yet submitted */
	CU_ASSERT_EQUAL(q->qp.outstanding, 6);
	ut_poll_until(q, before + 6);
	for (i = 0; i < 6; i++)
		UT_ASSERT_ST(q->cpl[before + i], 0, 0);
	CU_ASSERT_EQUAL(pv_nvmf_ns_file_stats_get(ns, &st1), 0);
	CU_ASSERT_EQUAL(st1.sqes - st0.sqes, 6);
	CU_ASSERT_EQUAL(st1.submit_calls - st0.submit_calls, (6 + depth - 1) / depth);
	CU_ASSERT_EQUAL(pread(fd, back, 4 * 4096, 40 * 4096), 4 * 4096);
	CU_ASSERT_EQUAL(memcmp(back, ut_host + 300 * 1024, 4 * 4096), 0);
	CU_ASSERT_EQUAL(q->qp.outstanding, 0);
}

/* a file of 256 blocks of 4 KiB in @p dir, its path in @p path: its descriptor */
static int
ut_file_make(const char *dir, const char *name, char *path, size_t len)
{
	int fd;

	snprintf(path, len, "%s/%s.XXXXXX", dir, name);
	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL_FATAL(ftruncate(fd, 256 * 4096), 0);
	return fd;
}

static void
test_file_ns(void)
{
	struct pv_nvmf_ns_file_opts o = { .queue_depth = 4097 };
	struct pv_nvmf_ns_file_stats st;
	struct pv_nvmf_subsys *s;
	struct pv_nvmf_ns *ns;
	struct pv_nvme_cpl cpl;
	struct ut_qp *a, *q;
	char path[64];
	int fd;

	fd = ut_file_make("/tmp", "pv_ut_nvmf_file", path, sizeof(path));
	ns = pv_nvmf_ns_file_create(path, 4096, 32);
	if (ns == NULL && errno == EOPNOTSUPP) {
		printf("(built without liburing) ");
		CU_ASSERT_EQUAL(pv_nvmf_ns_file_stats_get(ut_ns, &st), -EOPNOTSUPP);
		close(fd);
		unlink(path);
		return;
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(ns);
	CU_ASSERT_EQUAL(ns->num_blocks, 256);
	/* every documented errno of the calls */
	CU_ASSERT_PTR_NULL(pv_nvmf_ns_file_create(path, 1000, 16));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_PTR_NULL(pv_nvmf_ns_file_create(path, 4096, 0));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_PTR_NULL(pv_nvmf_ns_file_create("/nonexistent/x", 4096, 16));
	CU_ASSERT_EQUAL(errno, ENOENT);
	CU_ASSERT_PTR_NULL(pv_nvmf_ns_file_create_opts(path, 4096, NULL));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_PTR_NULL(pv_nvmf_ns_file_create_opts(path, 4096, &o));
	CU_ASSERT_EQUAL(errno, EINVAL);
	o.queue_depth = 16;
	CU_ASSERT_PTR_NULL(pv_nvmf_ns_file_create_opts("/dev/null", 4096, &o));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(pv_nvmf_ns_file_stats_get(ut_ns, &st), -EINVAL);
	CU_ASSERT_EQUAL(pv_nvmf_ns_file_stats_get(NULL, &st), -EINVAL);
	CU_ASSERT_EQUAL(pv_nvmf_ns_file_stats_get(ns, NULL), -EINVAL);
	s = pv_nvmf_subsys_find(ut_tgt, UT_FILE_NQN);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	ns->nsid = 1;
	CU_ASSERT_EQUAL_FATAL(pv_nvmf_subsys_add_ns(s, ns), 0);

	q = ut_file_ctrlr_up(&a);
	ut_file_ns_sequence(q, ns, 1, fd, 32);
	CU_ASSERT_EQUAL(pv_nvmf_ns_file_stats_get(ns, &st), 0);
	CU_ASSERT(st.buffered_ios >= 6);
	CU_ASSERT_EQUAL(st.direct_ios, 0);
	CU_ASSERT_EQUAL(st.unaligned_ios, 0);
	/* out of range: refused before any I/O */
	cpl = ut_rw(q, PV_NVME_OPC_WRITE, 1, 250, 8, 0, 8 * 4096);
	UT_ASSERT_ST(cpl, 0, PV_NVME_SC_LBA_OUT_OF_RANGE);
	CU_ASSERT_EQUAL(q->qp.outstanding, 0);
	ut_qp_free(q);
	ut_qp_free(a);
	close(fd);
	unlink(path);
}

/* the name of @p dir's file system, for a skip message */
static const char *
ut_fs_name(const char *dir, char *buf, size_t len)
{
	static const struct {
		unsigned long magic;
		const char *name;
	} fs[] = {
		{ 0x01021994, "tmpfs" },
		{ 0x6969, "nfs" },
		{ 0x794c7630, "overlayfs" },
		{ 0x9123683e, "btrfs" },
		{ 0xef53, "ext4" },
		{ 0x58465342, "xfs" },
	};
	struct statfs sf;
	unsigned int i;

	if (statfs(dir, &sf) != 0)
		return "an unknown file system";
	for (i = 0; i < RTE_DIM(fs); i++)
		if ((unsigned long)sf.f_type == fs[i].magic)
			return fs[i].name;
	snprintf(buf, len, "file system 0x%lx", (unsigned long)sf.f_type);
	return buf;
}

static void
test_file_ns_direct(void)
{
	const struct pv_nvmf_ns_file_opts o = { .queue_depth = 32, .direct = true };
	const char *dir = "/var/tmp";
	struct pv_nvmf_ns_file_stats st0, st1;
	struct pv_nvmf_subsys *s;
	struct pv_nvmf_ns *ns;
	struct pv_nvme_cmd c;
	struct ut_qp *a, *q;
	uint8_t back[4096];
	char path[64], fsb[40];
	unsigned int i;
	uint8_t *odd;
	int fd;

	fd = ut_file_make(dir, "pv_ut_nvmf_direct", path, sizeof(path));
	ns = pv_nvmf_ns_file_create_opts(path, 4096, &o);
	if (ns == NULL && (errno == EINVAL || errno == EOPNOTSUPP)) {
		printf("skipped: O_DIRECT unsupported on %s (%s) ",
		       ut_fs_name(dir, fsb, sizeof(fsb)), dir);
		close(fd);
		unlink(path);
		return;
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(ns);
	s = pv_nvmf_subsys_find(ut_tgt, UT_FILE_NQN);
	ns->nsid = 2;
	CU_ASSERT_EQUAL_FATAL(pv_nvmf_subsys_add_ns(s, ns), 0);
	q = ut_file_ctrlr_up(&a);
	ut_file_ns_sequence(q, ns, 2, fd, 32);
	/* the transport's page-aligned buffer and aligned capsules: all direct */
	CU_ASSERT_EQUAL(pv_nvmf_ns_file_stats_get(ns, &st0), 0);
	CU_ASSERT(st0.direct_ios >= 6);
	CU_ASSERT_EQUAL(st0.buffered_ios, 0);
	CU_ASSERT_EQUAL(st0.unaligned_ios, 0);

	/* in-capsule data at an odd address: through the buffered descriptor */
	odd = ut_host + 400 * 1024 + 1;
	for (i = 0; i < 4096; i++)
		odd[i] = (uint8_t)(i * 5 + 3);
	ut_icd_write_cmd(&c, 2, 20, 1);
	UT_ASSERT_ST(ut_submit_async_icd(q, &c, odd, 4096), 0, 0);
	CU_ASSERT_EQUAL(pread(fd, back, 4096, 20 * 4096), 4096);
	CU_ASSERT_EQUAL(memcmp(back, odd, 4096), 0);
	/* a transport buffer 8 bytes off: read back the same way */
	ut_buf_off = 8;
	memset(ut_host + 500 * 1024, 0, 4096);
	UT_ASSERT_ST(ut_rw_async(q, 2, PV_NVME_OPC_READ, 20, 1, 500 * 1024), 0, 0);
	ut_buf_off = 0;
	CU_ASSERT_EQUAL(memcmp(ut_host + 500 * 1024, odd, 4096), 0);
	/* an aligned read of the same block: direct, the same bytes */
	memset(ut_host + 504 * 1024, 0, 4096);
	UT_ASSERT_ST(ut_rw_async(q, 2, PV_NVME_OPC_READ, 20, 1, 504 * 1024), 0, 0);
	CU_ASSERT_EQUAL(memcmp(ut_host + 504 * 1024, odd, 4096), 0);
	CU_ASSERT_EQUAL(pv_nvmf_ns_file_stats_get(ns, &st1), 0);
	CU_ASSERT_EQUAL(st1.unaligned_ios - st0.unaligned_ios, 2);
	CU_ASSERT_EQUAL(st1.buffered_ios - st0.buffered_ios, 2);
	CU_ASSERT_EQUAL(st1.direct_ios - st0.direct_ios, 1);
	printf("(%" PRIu64 " direct, %" PRIu64 " unaligned through the page cache) ",
	       st1.direct_ios, st1.unaligned_ios);
	ut_qp_free(q);
	ut_qp_free(a);
	close(fd);
	unlink(path);
}

static void
test_file_ns_sqpoll(void)
{
	/* 4 entries: the batch of six fills the SQ, which waits for the SQ thread */
	const struct pv_nvmf_ns_file_opts o = {
		.queue_depth = 4,
		.sqpoll = true,
		.sqpoll_idle_ms = 10,
	};
	struct pv_nvmf_ns_file_stats st;
	struct pv_nvmf_subsys *s;
	struct pv_nvmf_ns *ns;
	struct ut_qp *a, *q;
	char path[64];
	int fd;

	fd = ut_file_make("/tmp", "pv_ut_nvmf_sqpoll", path, sizeof(path));
	ns = pv_nvmf_ns_file_create_opts(path, 4096, &o);
	if (ns == NULL && (errno == EPERM || errno == EINVAL || errno == EOPNOTSUPP ||
			   errno == ENOSYS)) {
		printf("skipped: SQPOLL refused by the kernel (%s) ", strerror(errno));
		close(fd);
		unlink(path);
		return;
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(ns);
	s = pv_nvmf_subsys_find(ut_tgt, UT_FILE_NQN);
	ns->nsid = 3;
	CU_ASSERT_EQUAL_FATAL(pv_nvmf_subsys_add_ns(s, ns), 0);
	q = ut_file_ctrlr_up(&a);
	ut_file_ns_sequence(q, ns, 3, fd, 4);
	CU_ASSERT_EQUAL(pv_nvmf_ns_file_stats_get(ns, &st), 0);
	printf("(%" PRIu64 " SQEs, %" PRIu64 " io_uring_submit calls) ", st.sqes,
	       st.submit_calls);
	ut_qp_free(q);
	ut_qp_free(a);
	close(fd);
	unlink(path);
}

static void
test_api_errors(void)
{
	struct pv_nvmf_tgt_opts o = { .max_io_size = 3000 };

	CU_ASSERT_PTR_NULL(pv_nvmf_tgt_create(&o));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_PTR_NULL(pv_nvmf_subsys_create(ut_tgt, UT_SUBNQN, "s", "m", true));
	CU_ASSERT_EQUAL(errno, EEXIST);
	CU_ASSERT_PTR_NULL(pv_nvmf_subsys_create(ut_tgt, "nqn.x", "123456789012345678901", "m",
						 true));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_PTR_NULL(pv_nvmf_ns_ram_create(16, 1000));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_PTR_NULL(pv_nvmf_ns_ram_create(0, 512));
	CU_ASSERT_EQUAL(pv_nvmf_tgt_add_listener(ut_tgt, "", "4420"), -EINVAL);
	CU_ASSERT_EQUAL(pv_nvmf_tgt_add_listener(ut_tgt, "10.77.0.1", "4420"), -EEXIST);
	CU_ASSERT_EQUAL(pv_nvmf_subsys_add_ns(pv_nvmf_subsys_find(ut_tgt, UT_SUBNQN), NULL),
			-EINVAL);
	pv_nvmf_ns_destroy(NULL);
	pv_nvmf_tgt_destroy(NULL);
}

static const struct ut_case ut_cases[] = {
	{ "connect_admin_and_props", test_connect_admin_and_props, NULL },
	{ "identify", test_identify, NULL },
	{ "features_logs_ka", test_features_logs_ka, NULL },
	{ "aer", test_aer, NULL },
	{ "connect_errors", test_connect_errors, NULL },
	{ "connect_data_in_flight", test_connect_data_in_flight, NULL },
	{ "command_errors", test_command_errors, NULL },
	{ "io_data_paths", test_io_data_paths, NULL },
	{ "io_random_model", test_io_random_model, NULL },
	{ "discovery", test_discovery, NULL },
	{ "file_ns", test_file_ns, NULL },
	{ "file_ns_direct", test_file_ns_direct, NULL },
	{ "file_ns_sqpoll", test_file_ns_sqpoll, NULL },
	{ "api_errors", test_api_errors, NULL },
	{ NULL, NULL, NULL },
};

static int
ut_suite_init(void)
{
	return ut_setup();
}

static int
ut_suite_fini(void)
{
	return ut_teardown();
}

static const struct ut_suite ut_nvmf = {
	.name = "nvmf_ctrlr",
	.init = ut_suite_init,
	.fini = ut_suite_fini,
	.cases = ut_cases,
};

int
main(void)
{
	int ret = ut_pv_init("test_nvmf_ctrlr", 64, "pv_ut_nvmf_ctrlr", "0", NULL);

	if (ret < 0) {
		fprintf(stderr, "pv_init: %s\n", strerror(-ret));
		return 1;
	}
	ret = ut_cunit_run_one(&ut_nvmf);
	pv_cleanup();
	return ret;
}
