/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * lib/nvmf's wire structures against Linux's own traffic: the capture
 * ../shared/data/rxe/nvmf_connect_io.pcap (Linux nvme-rdma host and nvmet-rdma
 * target over rxe; MANIFEST.md lists what it holds). The NVMe RDMA CM request
 * and accept in the CM REQ / REP private data, every 64-byte command capsule
 * and 16-byte response in an RC SEND Only (or SEND Only with Invalidate),
 * and the Connect data the target RDMA-READs, decoded with pv_nvmf_spec.h
 * and checked against the values MANIFEST.md gives.
 *
 * usage: test_nvmf_capture DIR (the capture directory); exit 77 without it.
 */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include <CUnit/Basic.h>

#include "pv_nvmf_spec.h"
#include "ut_common.h"

static const char *ut_dir;

/* offsets in a RoCEv2 frame: Ethernet 14 + IPv4 20 + UDP 8 = BTH at 42 */
#define UT_BTH		42
#define UT_PAYLOAD	(UT_BTH + 12)
#define UT_ICRC		4

struct ut_counts {
	unsigned int req, rep, sqe, cqe, cqe_inv, cqe_err, connect_data;
	unsigned int connects, prop, identify, logpage, features, aer, rw, unknown;
	uint16_t qid[3], hrq[3], hsq[3], crq[3];
	uint32_t tgt_qpn[3];		/* the target's QPN of each queue (REP) */
	char subnqn[2][256], hostnqn[2][256];
};

static void
ut_mad(const uint8_t *mad, struct ut_counts *c)
{
	uint16_t attr = (uint16_t)(mad[16] << 8 | mad[17]);

	if (mad[1] != 0x07)	/* management class CM */
		return;
	if (attr == 0x0010 && c->req < 3) {		/* REQ: private data at MAD 24 + 140 */
		struct pv_nvmf_rdma_cm_req r;

		/* rdma_cm's 36-byte header comes first */
		memcpy(&r, mad + 24 + 140 + 36, sizeof(r));
		CU_ASSERT_EQUAL(rte_le_to_cpu_16(r.recfmt), 0);
		c->qid[c->req] = rte_le_to_cpu_16(r.qid);
		c->hrq[c->req] = rte_le_to_cpu_16(r.hrqsize);
		c->hsq[c->req] = rte_le_to_cpu_16(r.hsqsize);
		c->req++;
	} else if (attr == 0x0013 && c->rep < 3) {	/* REP: private data at MAD 24 + 36 */
		struct pv_nvmf_rdma_cm_accept a;

		memcpy(&a, mad + 24 + 36, sizeof(a));
		CU_ASSERT_EQUAL(rte_le_to_cpu_16(a.recfmt), 0);
		/* REP: local comm ID, remote comm ID, local Q_Key, then local QPN */
		c->tgt_qpn[c->rep] = (uint32_t)mad[24 + 12] << 16 | mad[24 + 13] << 8 | mad[24 + 14];
		c->crq[c->rep++] = rte_le_to_cpu_16(a.crqsize);
	}
}

static void
ut_sqe(const struct pv_nvme_cmd *cmd, bool io, struct ut_counts *c)
{
	const struct pv_nvmf_cmd *fc = (const void *)cmd;
	uint8_t type = cmd->sgl1.keyed.type;

	c->sqe++;
	/* Linux sends SGLs (PSDT 01b) and never fuses */
	CU_ASSERT_EQUAL(cmd->flags, 0x40);
	/* data by keyed SGL (with or without invalidate) or in the capsule */
	CU_ASSERT(type == 0x40 || type == 0x4f || type == 0x01);
	if (io) {
		/* the I/O queue: the multi-packet Connect is not here, so only reads and writes */
		if (cmd->opc == PV_NVME_OPC_READ || cmd->opc == PV_NVME_OPC_WRITE) {
			c->rw++;
			CU_ASSERT_EQUAL(rte_le_to_cpu_32(cmd->nsid), 1);
			CU_ASSERT_EQUAL(pv_nvme_sgl_keyed_len(&cmd->sgl1),
					((rte_le_to_cpu_32(cmd->cdw12) & 0xffff) + 1) * 512);
		} else {
			c->unknown++;
		}
		return;
	}
	switch (cmd->opc) {
	case PV_NVME_OPC_FABRICS:
		if (fc->fctype == PV_NVMF_FCTYPE_CONNECT) {
			const struct pv_nvmf_connect_cmd *cc = (const void *)cmd;

			c->connects++;
			CU_ASSERT_EQUAL(rte_le_to_cpu_16(cc->qid), 0);
			CU_ASSERT_EQUAL(rte_le_to_cpu_16(cc->sqsize), 31);
			CU_ASSERT_EQUAL(pv_nvme_sgl_keyed_len(&cc->sgl1), 1024);
			CU_ASSERT(rte_le_to_cpu_32(cc->kato) == 0 ||
				  rte_le_to_cpu_32(cc->kato) == 5000);
		} else if (fc->fctype == PV_NVMF_FCTYPE_PROPERTY_GET ||
			   fc->fctype == PV_NVMF_FCTYPE_PROPERTY_SET) {
			const struct pv_nvmf_prop_cmd *pc = (const void *)cmd;
			uint32_t o = rte_le_to_cpu_32(pc->ofst);

			c->prop++;
			CU_ASSERT(o == PV_NVMF_PROP_CAP || o == PV_NVMF_PROP_VS ||
				  o == PV_NVMF_PROP_CC || o == PV_NVMF_PROP_CSTS);
			/* CAP is the only 8-byte property */
			CU_ASSERT_EQUAL((pc->attrib & 7) == PV_NVMF_PROP_SIZE_8, o == PV_NVMF_PROP_CAP);
		} else {
			c->unknown++;
		}
		break;
	case PV_NVME_OPC_IDENTIFY:
		c->identify++;
		CU_ASSERT_EQUAL(pv_nvme_sgl_keyed_len(&cmd->sgl1), 4096);
		break;
	case PV_NVME_OPC_GET_LOG_PAGE:
		c->logpage++;
		/* NUMD and the SGL length agree */
		CU_ASSERT_EQUAL(((rte_le_to_cpu_32(cmd->cdw10) >> 16) + 1) * 4,
				pv_nvme_sgl_keyed_len(&cmd->sgl1));
		break;
	case PV_NVME_OPC_SET_FEATURES:
		c->features++;
		break;
	case PV_NVME_OPC_ASYNC_EVENT_REQ:
		c->aer++;
		break;
	default:
		c->unknown++;
		break;
	}
}

static void
test_capture(void)
{
	char path[512], err[PCAP_ERRBUF_SIZE];
	struct ut_counts c;
	struct pcap_pkthdr *h;
	const uint8_t *d;
	pcap_t *p;

	memset(&c, 0, sizeof(c));
	snprintf(path, sizeof(path), "%s/nvmf_connect_io.pcap", ut_dir);
	p = pcap_open_offline(path, err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	while (pcap_next_ex(p, &h, &d) == 1) {
		uint8_t op;
		uint32_t len;
		const uint8_t *pl;

		if (h->caplen < UT_PAYLOAD + UT_ICRC || d[12] != 0x08 || d[13] != 0x00 ||
		    d[23] != 17 || (d[36] << 8 | d[37]) != 4791)
			continue;
		op = d[UT_BTH];
		pl = d + UT_PAYLOAD;
		len = h->caplen - UT_PAYLOAD - UT_ICRC;
		if (op == 0x64 && len >= 8 + 256) {			/* UD SEND Only: DETH, MAD */
			ut_mad(pl + 8, &c);
		} else if (op == 0x04 && len == sizeof(struct pv_nvme_cmd)) {
			struct pv_nvme_cmd cmd;

			memcpy(&cmd, pl, sizeof(cmd));
			ut_sqe(&cmd, c.rep == 3 && ((uint32_t)d[UT_BTH + 5] << 16 |
				  d[UT_BTH + 6] << 8 | d[UT_BTH + 7]) == c.tgt_qpn[2], &c);
		} else if ((op == 0x04 && len == 16) || (op == 0x17 && len == 4 + 16)) {
			struct pv_nvme_cpl cpl;

			memcpy(&cpl, op == 0x17 ? pl + 4 : pl, sizeof(cpl));	/* IETH first */
			c.cqe++;
			c.cqe_inv += op == 0x17;
			c.cqe_err += (rte_le_to_cpu_16(cpl.status) & 0xfffe) != 0;
		} else if (op == 0x10 && len == 4 + sizeof(struct pv_nvmf_connect_data) &&
			   c.connect_data < 2) {	/* READ Response Only: AETH, then data */
			struct pv_nvmf_connect_data cd;

			memcpy(&cd, pl + 4, sizeof(cd));
			CU_ASSERT_EQUAL(rte_le_to_cpu_16(cd.cntlid), 0xffff);
			memcpy(c.subnqn[c.connect_data], cd.subnqn, 256);
			memcpy(c.hostnqn[c.connect_data], cd.hostnqn, 256);
			c.connect_data++;
		}
	}
	pcap_close(p);
	/* MANIFEST.md: three queues: discovery admin, I/O controller admin, I/O queue 1 */
	CU_ASSERT_EQUAL(c.req, 3);
	CU_ASSERT_EQUAL(c.rep, 3);
	CU_ASSERT(c.qid[0] == 0 && c.hrq[0] == 32 && c.hsq[0] == 31 && c.crq[0] == 32);
	CU_ASSERT(c.qid[1] == 0 && c.hrq[1] == 32 && c.hsq[1] == 31 && c.crq[1] == 32);
	CU_ASSERT(c.qid[2] == 1 && c.hrq[2] == 128 && c.hsq[2] == 127 && c.crq[2] == 128);
	/* 99 commands, two of them (Connect of queue 1, the 4 KiB write) in several
	 * packets; 97 responses, 74 with invalidate, all successful */
	CU_ASSERT_EQUAL(c.sqe, 97);
	CU_ASSERT_EQUAL(c.cqe, 97);
	CU_ASSERT_EQUAL(c.cqe_inv, 74);
	CU_ASSERT_EQUAL(c.cqe_err, 0);
	CU_ASSERT_EQUAL(c.connects, 2);
	CU_ASSERT_EQUAL(c.aer, 2);
	CU_ASSERT_EQUAL(c.unknown, 0);
	CU_ASSERT_EQUAL(c.rw, 51);	/* 50 reads and the keyed 12 KiB write */
	CU_ASSERT_EQUAL(c.connect_data, 2);
	CU_ASSERT_STRING_EQUAL(c.subnqn[0], PV_NVMF_DISCOVERY_NQN);
	CU_ASSERT_STRING_EQUAL(c.subnqn[1], "nqn.2026-11.io.pollverbs:lab");
	CU_ASSERT_STRING_EQUAL(c.hostnqn[1],
			       "nqn.2014-08.org.nvmexpress:uuid:7743cd52-8f84-484d-a28d-6794ff69d081");
	printf("\n    REQ/REP %u/%u, SQEs %u (connect %u, property %u, identify %u, log %u, "
	       "features %u, AER %u, read/write %u), CQEs %u (%u with invalidate)\n", c.req,
	       c.rep, c.sqe, c.connects, c.prop, c.identify, c.logpage, c.features, c.aer, c.rw,
	       c.cqe, c.cqe_inv);
}

static const struct ut_case ut_cases[] = {
	{ "nvmf_connect_io", test_capture, NULL },
	{ NULL, NULL, NULL },
};

static const struct ut_suite ut_suite_cap = {
	.name = "nvmf_capture",
	.cases = ut_cases,
};

int
main(int argc, char **argv)
{
	char path[512];
	FILE *f;

	if (argc < 2)
		return UT_EXIT_SKIP;
	ut_dir = argv[1];
	snprintf(path, sizeof(path), "%s/nvmf_connect_io.pcap", ut_dir);
	f = fopen(path, "rb");
	if (f == NULL) {
		printf("skip: %s not found\n", path);
		return UT_EXIT_SKIP;
	}
	fclose(f);
	return ut_cunit_run_one(&ut_suite_cap);
}
