/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/**
 * @file
 * NVMe and NVMe over Fabrics wire structures: the 64-byte submission queue
 * entry, the 16-byte completion queue entry, SGL descriptors, the Fabrics
 * commands (Connect, Property Get/Set, Disconnect), the Connect data,
 * Identify Controller / Namespace, the log pages the target serves (error,
 * SMART / health, changed namespace list, discovery) and the private data of
 * the NVMe RDMA transport's rdma_cm exchange.
 *
 * Written from the specifications: NVM Express Base 1.4 (SQE, CQE, status
 * codes 4.6.1, SGL 4.4, admin commands 5, NVM commands 6 of NVM Command
 * Set), NVMe over Fabrics 1.1 (capsules 2, Fabrics commands 3, Connect 3.3,
 * properties 3.4, discovery log page 5.3) and the NVMe over Fabrics RDMA
 * transport binding (rdma_cm private data 3.1, SGLs 3.2). Every field is
 * little-endian on the wire (rte_le*_t); convert with rte_le_to_cpu_*() and
 * rte_cpu_to_le_*(). Each structure's size is checked at compile time.
 */

#ifndef PV_LIB_NVMF_PV_NVMF_SPEC_H
#define PV_LIB_NVMF_PV_NVMF_SPEC_H

#include <stdint.h>

#include <rte_byteorder.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* constants                                                            */
/* ------------------------------------------------------------------ */

#define PV_NVME_NQN_MAX_LEN		223	/* base 7.9: NQN up to 223 bytes + NUL */
#define PV_NVMF_DISCOVERY_NQN		"nqn.2014-08.org.nvmexpress.discovery"
#define PV_NVMF_RDMA_PORT		4420	/* IANA port of NVMe-oF */

/* admin opcodes (base 5, figure 139) */
#define PV_NVME_OPC_DELETE_IO_SQ	0x00
#define PV_NVME_OPC_CREATE_IO_SQ	0x01
#define PV_NVME_OPC_GET_LOG_PAGE	0x02
#define PV_NVME_OPC_DELETE_IO_CQ	0x04
#define PV_NVME_OPC_CREATE_IO_CQ	0x05
#define PV_NVME_OPC_IDENTIFY		0x06
#define PV_NVME_OPC_ABORT		0x08
#define PV_NVME_OPC_SET_FEATURES	0x09
#define PV_NVME_OPC_GET_FEATURES	0x0a
#define PV_NVME_OPC_ASYNC_EVENT_REQ	0x0c
#define PV_NVME_OPC_KEEP_ALIVE		0x18
#define PV_NVME_OPC_FABRICS		0x7f	/* NVMe-oF 3, on admin and I/O queues */

/* NVM command set opcodes (NVM command set 3) */
#define PV_NVME_OPC_FLUSH		0x00
#define PV_NVME_OPC_WRITE		0x01
#define PV_NVME_OPC_READ		0x02
#define PV_NVME_OPC_WRITE_UNCORRECTABLE	0x04
#define PV_NVME_OPC_COMPARE		0x05
#define PV_NVME_OPC_WRITE_ZEROES	0x08
#define PV_NVME_OPC_DATASET_MGMT	0x09

/* Fabrics command types (NVMe-oF 1.1 figure 10) */
#define PV_NVMF_FCTYPE_PROPERTY_SET	0x00
#define PV_NVMF_FCTYPE_CONNECT		0x01
#define PV_NVMF_FCTYPE_PROPERTY_GET	0x04
#define PV_NVMF_FCTYPE_AUTH_SEND	0x05
#define PV_NVMF_FCTYPE_AUTH_RECV	0x06
#define PV_NVMF_FCTYPE_DISCONNECT	0x08

/* status code types and codes (base 4.6.1.2) */
#define PV_NVME_SCT_GENERIC		0x0
#define PV_NVME_SCT_CMD_SPECIFIC	0x1
#define PV_NVME_SCT_MEDIA		0x2

#define PV_NVME_SC_SUCCESS		0x00
#define PV_NVME_SC_INVALID_OPCODE	0x01
#define PV_NVME_SC_INVALID_FIELD	0x02
#define PV_NVME_SC_CID_CONFLICT		0x03
#define PV_NVME_SC_DATA_XFER_ERROR	0x04
#define PV_NVME_SC_INTERNAL		0x06
#define PV_NVME_SC_ABORTED_BY_REQUEST	0x07
#define PV_NVME_SC_ABORTED_SQ_DELETION	0x08
#define PV_NVME_SC_INVALID_NS		0x0b
#define PV_NVME_SC_CMD_SEQ_ERROR	0x0c
#define PV_NVME_SC_INVALID_SGL_SEG	0x0d
#define PV_NVME_SC_INVALID_NUM_SGL	0x0e
#define PV_NVME_SC_DATA_SGL_LEN_INVALID	0x0f
#define PV_NVME_SC_SGL_TYPE_INVALID	0x11
#define PV_NVME_SC_SGL_OFFSET_INVALID	0x16
#define PV_NVME_SC_KA_EXPIRED		0x19
#define PV_NVME_SC_KA_INVALID		0x1a
#define PV_NVME_SC_LBA_OUT_OF_RANGE	0x80
#define PV_NVME_SC_CAPACITY_EXCEEDED	0x81

/* command specific (SCT 1) */
#define PV_NVME_SC_INVALID_QID		0x01
#define PV_NVME_SC_ASYNC_LIMIT		0x05
#define PV_NVME_SC_INVALID_LOG_PAGE	0x09
#define PV_NVME_SC_FEAT_NOT_SAVEABLE	0x0d
/* Fabrics (SCT 1, NVMe-oF 1.1 figure 11 and 21) */
#define PV_NVMF_SC_CONNECT_INCOMPAT_FMT	0x80
#define PV_NVMF_SC_CONNECT_CTRL_BUSY	0x81
#define PV_NVMF_SC_CONNECT_INVALID_PARAM 0x82
#define PV_NVMF_SC_CONNECT_RESTART_DISC	0x83
#define PV_NVMF_SC_CONNECT_INVALID_HOST	0x84

/* CQE status field: bit 0 phase, 8:1 SC, 11:9 SCT, 14 M, 15 DNR */
#define PV_NVME_STATUS(sct, sc)		((uint16_t)(((sct) << 9) | ((sc) << 1)))
#define PV_NVME_STATUS_DNR		0x8000u
#define PV_NVME_STATUS_SC(st)		(((st) >> 1) & 0xff)
#define PV_NVME_STATUS_SCT(st)		(((st) >> 9) & 0x7)

/* SGL descriptor type (high nibble) and subtype (low nibble), base 4.4 */
#define PV_NVME_SGL_TYPE_DATA_BLOCK	0x0
#define PV_NVME_SGL_TYPE_BIT_BUCKET	0x1
#define PV_NVME_SGL_TYPE_SEGMENT	0x2
#define PV_NVME_SGL_TYPE_LAST_SEGMENT	0x3
#define PV_NVME_SGL_TYPE_KEYED_DATA	0x4
#define PV_NVME_SGL_SUBTYPE_ADDRESS	0x0
#define PV_NVME_SGL_SUBTYPE_OFFSET	0x1
#define PV_NVME_SGL_SUBTYPE_INVALIDATE	0xf	/* keyed: invalidate the key */

/* properties (NVMe-oF 1.1 3.4.1 figure 18) */
#define PV_NVMF_PROP_CAP		0x00	/* 8 bytes */
#define PV_NVMF_PROP_VS			0x08
#define PV_NVMF_PROP_CC			0x14
#define PV_NVMF_PROP_CSTS		0x1c
#define PV_NVMF_PROP_NSSR		0x20
#define PV_NVMF_PROP_SIZE_8		0x1	/* attrib bits 2:0: 0 = 4 bytes */

#define PV_NVME_CC_EN			0x1u
#define PV_NVME_CC_SHN_SHIFT		14
#define PV_NVME_CC_SHN_MASK		0x3u
#define PV_NVME_CSTS_RDY		0x1u
#define PV_NVME_CSTS_CFS		0x2u
#define PV_NVME_CSTS_SHST_SHIFT		2
#define PV_NVME_CSTS_SHST_COMPLETE	0x2u

/* Identify CNS (base 5.15.1) */
#define PV_NVME_CNS_NS			0x00
#define PV_NVME_CNS_CTRLR		0x01
#define PV_NVME_CNS_ACTIVE_NS_LIST	0x02
#define PV_NVME_CNS_NS_DESC_LIST	0x03
#define PV_NVME_CNS_CS_CTRLR		0x06	/* I/O command set specific controller */

/* log pages (base 5.14.1) */
#define PV_NVME_LOG_ERROR		0x01
#define PV_NVME_LOG_SMART		0x02
#define PV_NVME_LOG_FW_SLOT		0x03
#define PV_NVME_LOG_CHANGED_NS		0x04
#define PV_NVME_LOG_DISCOVERY		0x70

/* features (base 5.21.1) */
#define PV_NVME_FEAT_ARBITRATION	0x01
#define PV_NVME_FEAT_POWER_MGMT		0x02
#define PV_NVME_FEAT_VOLATILE_WC	0x06
#define PV_NVME_FEAT_NUM_QUEUES		0x07
#define PV_NVME_FEAT_ASYNC_EVENT_CFG	0x0b
#define PV_NVME_FEAT_KEEP_ALIVE_TIMER	0x0f

/* namespace identification descriptor types (base 5.15.2.3) */
#define PV_NVME_NIDT_EUI64		0x1
#define PV_NVME_NIDT_NGUID		0x2
#define PV_NVME_NIDT_UUID		0x3

/* Dataset Management cdw11 attribute: deallocate */
#define PV_NVME_DSM_AD			(1u << 2)

/* discovery log entry values (NVMe-oF 1.1 figure 38) */
#define PV_NVMF_TRTYPE_RDMA		1
#define PV_NVMF_ADRFAM_IPV4		1
#define PV_NVMF_SUBTYPE_DISCOVERY	1
#define PV_NVMF_SUBTYPE_NVME		2
#define PV_NVMF_TREQ_NOT_SPECIFIED	0
#define PV_NVMF_TREQ_NOT_REQUIRED	2
#define PV_NVMF_RDMA_QPTYPE_CONNECTED	1
#define PV_NVMF_RDMA_PRTYPE_NOT_SPEC	1
#define PV_NVMF_RDMA_CMS_RDMA_CM	1

/* NVMe RDMA transport rdma_cm reject status (RDMA binding figure 5) */
#define PV_NVMF_RDMA_CM_INVALID_LEN	0x01
#define PV_NVMF_RDMA_CM_INVALID_RECFMT	0x02
#define PV_NVMF_RDMA_CM_INVALID_QID	0x03
#define PV_NVMF_RDMA_CM_INVALID_HSQSIZE	0x04
#define PV_NVMF_RDMA_CM_INVALID_HRQSIZE	0x05
#define PV_NVMF_RDMA_CM_NO_RSC		0x06
#define PV_NVMF_RDMA_CM_INVALID_IRD	0x07
#define PV_NVMF_RDMA_CM_INVALID_ORD	0x08

/* ------------------------------------------------------------------ */
/* SGL descriptor (16 bytes)                                            */
/* ------------------------------------------------------------------ */

/** An SGL descriptor: data block / segment (unkeyed) or keyed data block. */
struct pv_nvme_sgl {
	rte_le64_t addr;		/* address, or offset in the capsule */
	union {
		struct {
			rte_le32_t length;
			uint8_t rsvd[3];
			uint8_t type;	/* subtype 3:0, type 7:4 */
		} unkeyed;
		struct {
			uint8_t length[3];	/* 24-bit little-endian */
			uint8_t key[4];		/* 32-bit little-endian */
			uint8_t type;
		} keyed;
	};
} __attribute__((packed));
_Static_assert(sizeof(struct pv_nvme_sgl) == 16, "SGL descriptor is 16 bytes");

/* ------------------------------------------------------------------ */
/* submission and completion queue entries                              */
/* ------------------------------------------------------------------ */

/** The submission queue entry of every command (base 4.2). */
struct pv_nvme_cmd {
	uint8_t opc;
	uint8_t flags;			/* fuse 1:0, psdt 7:6 (10b: SGL for data) */
	rte_le16_t cid;
	rte_le32_t nsid;		/* Fabrics commands: byte 4 is fctype */
	rte_le32_t cdw2;
	rte_le32_t cdw3;
	rte_le64_t mptr;
	struct pv_nvme_sgl sgl1;	/* dptr */
	rte_le32_t cdw10;
	rte_le32_t cdw11;
	rte_le32_t cdw12;
	rte_le32_t cdw13;
	rte_le32_t cdw14;
	rte_le32_t cdw15;
} __attribute__((packed));
_Static_assert(sizeof(struct pv_nvme_cmd) == 64, "SQE is 64 bytes");

/** The Fabrics command header (NVMe-oF 1.1 figure 9): opcode 0x7f. */
struct pv_nvmf_cmd {
	uint8_t opc;
	uint8_t rsvd1;
	rte_le16_t cid;
	uint8_t fctype;
	uint8_t rsvd2[19];
	struct pv_nvme_sgl sgl1;
	uint8_t fcs[24];		/* command specific */
} __attribute__((packed));
_Static_assert(sizeof(struct pv_nvmf_cmd) == 64, "Fabrics SQE is 64 bytes");

/** Connect command (NVMe-oF 1.1 figure 19). */
struct pv_nvmf_connect_cmd {
	uint8_t opc;
	uint8_t rsvd1;
	rte_le16_t cid;
	uint8_t fctype;
	uint8_t rsvd2[19];
	struct pv_nvme_sgl sgl1;	/* the 1024-byte connect data */
	rte_le16_t recfmt;		/* 0 */
	rte_le16_t qid;			/* 0: admin queue */
	rte_le16_t sqsize;		/* 0-based */
	uint8_t cattr;
	uint8_t rsvd3;
	rte_le32_t kato;		/* keep-alive timeout, ms; admin only */
	uint8_t rsvd4[12];
} __attribute__((packed));
_Static_assert(sizeof(struct pv_nvmf_connect_cmd) == 64, "Connect SQE is 64 bytes");

/* offsets a Connect Invalid Parameters response names (IPO) */
#define PV_NVMF_CONNECT_OFF_RECFMT	40
#define PV_NVMF_CONNECT_OFF_QID		42
#define PV_NVMF_CONNECT_OFF_SQSIZE	44
#define PV_NVMF_CONNECT_DATA_OFF_CNTLID	16
#define PV_NVMF_CONNECT_DATA_OFF_SUBNQN	256
#define PV_NVMF_CONNECT_DATA_OFF_HOSTNQN 512

/** Connect data (NVMe-oF 1.1 figure 20). */
struct pv_nvmf_connect_data {
	uint8_t hostid[16];
	rte_le16_t cntlid;		/* 0xffff: dynamic controller model */
	uint8_t rsvd1[238];
	char subnqn[256];
	char hostnqn[256];
	uint8_t rsvd2[256];
} __attribute__((packed));
_Static_assert(sizeof(struct pv_nvmf_connect_data) == 1024, "Connect data is 1024 bytes");

/** Property Get / Set (NVMe-oF 1.1 figures 22 and 24). */
struct pv_nvmf_prop_cmd {
	uint8_t opc;
	uint8_t rsvd1;
	rte_le16_t cid;
	uint8_t fctype;
	uint8_t rsvd2[35];
	uint8_t attrib;			/* 2:0 size: 0 = 4 bytes, 1 = 8 bytes */
	uint8_t rsvd3[3];
	rte_le32_t ofst;
	rte_le64_t value;		/* Property Set only */
	uint8_t rsvd4[8];
} __attribute__((packed));
_Static_assert(sizeof(struct pv_nvmf_prop_cmd) == 64, "Property SQE is 64 bytes");

/** The completion queue entry (base 4.6). */
struct pv_nvme_cpl {
	rte_le32_t cdw0;		/* command specific result */
	rte_le32_t cdw1;
	rte_le16_t sqhd;
	rte_le16_t sqid;
	rte_le16_t cid;
	rte_le16_t status;		/* phase 0, SC 8:1, SCT 11:9, M 14, DNR 15 */
} __attribute__((packed));
_Static_assert(sizeof(struct pv_nvme_cpl) == 16, "CQE is 16 bytes");

/* ------------------------------------------------------------------ */
/* Identify                                                             */
/* ------------------------------------------------------------------ */

/** Power state descriptor (base figure 250). */
struct pv_nvme_psd {
	rte_le16_t mp;
	uint8_t rsvd[30];
} __attribute__((packed));

/** Identify Controller data structure (base figure 247, NVMe-oF 1.1 4.1). */
struct pv_nvme_id_ctrl {
	rte_le16_t vid;
	rte_le16_t ssvid;
	char sn[20];			/* ASCII, space padded */
	char mn[40];
	char fr[8];
	uint8_t rab;
	uint8_t ieee[3];
	uint8_t cmic;
	uint8_t mdts;			/* 2^n units of CAP.MPSMIN; 0: no limit */
	rte_le16_t cntlid;
	rte_le32_t ver;
	rte_le32_t rtd3r;
	rte_le32_t rtd3e;
	rte_le32_t oaes;
	rte_le32_t ctratt;
	rte_le16_t rrls;
	uint8_t rsvd102[9];
	uint8_t cntrltype;		/* 1 I/O, 2 discovery */
	uint8_t fguid[16];
	rte_le16_t crdt[3];
	uint8_t rsvd134[122];
	rte_le16_t oacs;		/* 256 */
	uint8_t acl;
	uint8_t aerl;
	uint8_t frmw;
	uint8_t lpa;
	uint8_t elpe;
	uint8_t npss;
	uint8_t avscc;
	uint8_t apsta;
	rte_le16_t wctemp;
	rte_le16_t cctemp;
	rte_le16_t mtfa;
	rte_le32_t hmpre;
	rte_le32_t hmmin;
	uint8_t tnvmcap[16];
	uint8_t unvmcap[16];
	rte_le32_t rpmbs;
	rte_le16_t edstt;
	uint8_t dsto;
	uint8_t fwug;
	rte_le16_t kas;			/* keep-alive granularity, 100 ms units */
	rte_le16_t hctma;
	rte_le16_t mntmt;
	rte_le16_t mxtmt;
	rte_le32_t sanicap;
	rte_le32_t hmminds;
	rte_le16_t hmmaxd;
	rte_le16_t nsetidmax;
	rte_le16_t endgidmax;
	uint8_t anatt;
	uint8_t anacap;
	rte_le32_t anagrpmax;
	rte_le32_t nanagrpid;
	rte_le32_t pels;
	uint8_t rsvd356[156];
	uint8_t sqes;			/* 512 */
	uint8_t cqes;
	rte_le16_t maxcmd;
	rte_le32_t nn;
	rte_le16_t oncs;
	rte_le16_t fuses;
	uint8_t fna;
	uint8_t vwc;
	rte_le16_t awun;
	rte_le16_t awupf;
	uint8_t icsvscc;
	uint8_t nwpc;
	rte_le16_t acwu;
	uint8_t rsvd534[2];
	rte_le32_t sgls;
	rte_le32_t mnan;
	uint8_t rsvd544[224];
	char subnqn[256];		/* 768 */
	uint8_t rsvd1024[768];
	rte_le32_t ioccsz;		/* 1792: I/O SQE + in-capsule data, 16-byte units */
	rte_le32_t iorcsz;		/* I/O CQE size, 16-byte units */
	rte_le16_t icdoff;
	uint8_t fcatt;
	uint8_t msdbd;
	rte_le16_t ofcs;
	uint8_t rsvd1806[242];
	struct pv_nvme_psd psd[32];	/* 2048 */
	uint8_t vs[1024];		/* 3072 */
} __attribute__((packed));
_Static_assert(sizeof(struct pv_nvme_id_ctrl) == 4096, "Identify Controller is 4096 bytes");
_Static_assert(__builtin_offsetof(struct pv_nvme_id_ctrl, oacs) == 256, "oacs at 256");
_Static_assert(__builtin_offsetof(struct pv_nvme_id_ctrl, sqes) == 512, "sqes at 512");
_Static_assert(__builtin_offsetof(struct pv_nvme_id_ctrl, subnqn) == 768, "subnqn at 768");
_Static_assert(__builtin_offsetof(struct pv_nvme_id_ctrl, ioccsz) == 1792, "ioccsz at 1792");

/** LBA format (base figure 249). */
struct pv_nvme_lbaf {
	rte_le16_t ms;
	uint8_t lbads;			/* log2 of the LBA size */
	uint8_t rp;
} __attribute__((packed));

/** Identify Namespace data structure (NVM command set figure 114). */
struct pv_nvme_id_ns {
	rte_le64_t nsze;
	rte_le64_t ncap;
	rte_le64_t nuse;
	uint8_t nsfeat;
	uint8_t nlbaf;			/* 0-based */
	uint8_t flbas;
	uint8_t mc;
	uint8_t dpc;
	uint8_t dps;
	uint8_t nmic;
	uint8_t rescap;
	uint8_t fpi;
	uint8_t dlfeat;			/* 2:0 = 001b: deallocated blocks read zero */
	rte_le16_t nawun;
	rte_le16_t nawupf;
	rte_le16_t nacwu;
	rte_le16_t nabsn;
	rte_le16_t nabo;
	rte_le16_t nabspf;
	rte_le16_t noiob;
	uint8_t nvmcap[16];
	rte_le16_t npwg;
	rte_le16_t npwa;
	rte_le16_t npdg;
	rte_le16_t npda;
	rte_le16_t nows;
	uint8_t rsvd74[18];
	rte_le32_t anagrpid;
	uint8_t rsvd96[3];
	uint8_t nsattr;
	rte_le16_t nvmsetid;
	rte_le16_t endgid;
	uint8_t nguid[16];
	uint8_t eui64[8];
	struct pv_nvme_lbaf lbaf[16];	/* 128 */
	uint8_t rsvd192[192];
	uint8_t vs[3712];
} __attribute__((packed));
_Static_assert(sizeof(struct pv_nvme_id_ns) == 4096, "Identify Namespace is 4096 bytes");
_Static_assert(__builtin_offsetof(struct pv_nvme_id_ns, lbaf) == 128, "lbaf at 128");

/** Namespace identification descriptor header (base figure 251). */
struct pv_nvme_ns_id_desc {
	uint8_t nidt;
	uint8_t nidl;
	uint8_t rsvd[2];
	/* nidl bytes follow */
} __attribute__((packed));
_Static_assert(sizeof(struct pv_nvme_ns_id_desc) == 4, "descriptor header is 4 bytes");

/* ------------------------------------------------------------------ */
/* log pages                                                            */
/* ------------------------------------------------------------------ */

/** Error information log entry (base figure 194). */
struct pv_nvme_error_log {
	rte_le64_t error_count;
	rte_le16_t sqid;
	rte_le16_t cid;
	rte_le16_t status;
	rte_le16_t err_loc;
	rte_le64_t lba;
	rte_le32_t nsid;
	uint8_t vs;
	uint8_t trtype;
	uint8_t rsvd30[2];
	rte_le64_t cs;
	rte_le16_t trtype_specific;
	uint8_t rsvd42[22];
} __attribute__((packed));
_Static_assert(sizeof(struct pv_nvme_error_log) == 64, "error log entry is 64 bytes");

/** SMART / Health information log (base figure 196); counters are 128-bit. */
struct pv_nvme_smart_log {
	uint8_t critical_warning;
	uint8_t temperature[2];		/* kelvin */
	uint8_t avail_spare;
	uint8_t spare_thresh;
	uint8_t percent_used;
	uint8_t endu_grp_crit_warn;
	uint8_t rsvd7[25];
	uint8_t data_units_read[16];	/* 1000 units of 512 bytes */
	uint8_t data_units_written[16];
	uint8_t host_reads[16];
	uint8_t host_writes[16];
	uint8_t ctrl_busy_time[16];
	uint8_t power_cycles[16];
	uint8_t power_on_hours[16];
	uint8_t unsafe_shutdowns[16];
	uint8_t media_errors[16];
	uint8_t num_err_log_entries[16];
	rte_le32_t warning_temp_time;
	rte_le32_t critical_comp_time;
	rte_le16_t temp_sensor[8];
	uint8_t rsvd216[296];
} __attribute__((packed));
_Static_assert(sizeof(struct pv_nvme_smart_log) == 512, "SMART log is 512 bytes");

/** Discovery log page header (NVMe-oF 1.1 figure 37). */
struct pv_nvmf_disc_log_hdr {
	rte_le64_t genctr;
	rte_le64_t numrec;
	rte_le16_t recfmt;
	uint8_t rsvd[1006];
} __attribute__((packed));
_Static_assert(sizeof(struct pv_nvmf_disc_log_hdr) == 1024, "discovery log header is 1024");

/** Discovery log page entry (NVMe-oF 1.1 figure 38) with the RDMA TSAS. */
struct pv_nvmf_disc_log_entry {
	uint8_t trtype;
	uint8_t adrfam;
	uint8_t subtype;
	uint8_t treq;
	rte_le16_t portid;
	rte_le16_t cntlid;
	rte_le16_t asqsz;
	uint8_t rsvd10[22];
	char trsvcid[32];
	uint8_t rsvd64[192];
	char subnqn[256];
	char traddr[256];
	union {
		struct {
			uint8_t qptype;
			uint8_t prtype;
			uint8_t cms;
			uint8_t rsvd3[5];
			rte_le16_t pkey;
			uint8_t rsvd10[246];
		} rdma;
		uint8_t raw[256];
	} tsas;
} __attribute__((packed));
_Static_assert(sizeof(struct pv_nvmf_disc_log_entry) == 1024, "discovery log entry is 1024");

/** Dataset Management range (NVM command set figure 39). */
struct pv_nvme_dsm_range {
	rte_le32_t cattr;
	rte_le32_t nlb;			/* 1-based here */
	rte_le64_t slba;
} __attribute__((packed));
_Static_assert(sizeof(struct pv_nvme_dsm_range) == 16, "DSM range is 16 bytes");

/* ------------------------------------------------------------------ */
/* NVMe RDMA transport: rdma_cm private data (RDMA binding 3.1)         */
/* ------------------------------------------------------------------ */

/** RDMA_CM_REQUEST private data, host to controller (figure 3). */
struct pv_nvmf_rdma_cm_req {
	rte_le16_t recfmt;		/* 0 */
	rte_le16_t qid;
	rte_le16_t hrqsize;		/* host receive queue size (1-based) */
	rte_le16_t hsqsize;		/* host send queue size (0-based) */
	rte_le16_t cntlid;		/* NVMe-oF 1.1: 0xffff for the admin queue */
	uint8_t rsvd[22];
} __attribute__((packed));
_Static_assert(sizeof(struct pv_nvmf_rdma_cm_req) == 32, "RDMA CM request is 32 bytes");

/** RDMA_CM_ACCEPT private data, controller to host (figure 4). */
struct pv_nvmf_rdma_cm_accept {
	rte_le16_t recfmt;
	rte_le16_t crqsize;		/* controller receive queue size */
	uint8_t rsvd[28];
} __attribute__((packed));
_Static_assert(sizeof(struct pv_nvmf_rdma_cm_accept) == 32, "RDMA CM accept is 32 bytes");

/** RDMA_CM_REJECT private data (figure 5). */
struct pv_nvmf_rdma_cm_rej {
	rte_le16_t sts;			/* PV_NVMF_RDMA_CM_* */
} __attribute__((packed));
_Static_assert(sizeof(struct pv_nvmf_rdma_cm_rej) == 2, "RDMA CM reject is 2 bytes");

/* ------------------------------------------------------------------ */
/* helpers                                                              */
/* ------------------------------------------------------------------ */

/** The 24-bit length of a keyed SGL descriptor, in bytes. */
static inline uint32_t
pv_nvme_sgl_keyed_len(const struct pv_nvme_sgl *s)
{
	return (uint32_t)s->keyed.length[0] | (uint32_t)s->keyed.length[1] << 8 |
	       (uint32_t)s->keyed.length[2] << 16;
}

/** The 32-bit key of a keyed SGL descriptor. */
static inline uint32_t
pv_nvme_sgl_keyed_key(const struct pv_nvme_sgl *s)
{
	return (uint32_t)s->keyed.key[0] | (uint32_t)s->keyed.key[1] << 8 |
	       (uint32_t)s->keyed.key[2] << 16 | (uint32_t)s->keyed.key[3] << 24;
}

/**
 * Fill @p s as a keyed data block descriptor: @p addr, @p len bytes (up to
 * 2^24 - 1), @p key, subtype @p subtype (ADDRESS or INVALIDATE).
 */
static inline void
pv_nvme_sgl_keyed_set(struct pv_nvme_sgl *s, uint64_t addr, uint32_t len, uint32_t key,
		      uint8_t subtype)
{
	s->addr = rte_cpu_to_le_64(addr);
	s->keyed.length[0] = len & 0xff;
	s->keyed.length[1] = (len >> 8) & 0xff;
	s->keyed.length[2] = (len >> 16) & 0xff;
	s->keyed.key[0] = key & 0xff;
	s->keyed.key[1] = (key >> 8) & 0xff;
	s->keyed.key[2] = (key >> 16) & 0xff;
	s->keyed.key[3] = key >> 24;
	s->keyed.type = (uint8_t)(PV_NVME_SGL_TYPE_KEYED_DATA << 4 | subtype);
}

#ifdef __cplusplus
}
#endif

#endif /* PV_LIB_NVMF_PV_NVMF_SPEC_H */
