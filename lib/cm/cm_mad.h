/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Communication management MADs (IBA vol. 1 ch. 12 and 13.4): the common
 * MAD header, the CM messages REQ, MRA, REJ, REP, RTU, DREQ, DREP,
 * SIDR_REQ, SIDR_REP, LAP, APR and ClassPortInfo, and the rdma_cm
 * private-data header Linux's rdma_cm puts in front of the consumer's
 * private data. Host-order structs with every field, packed to and parsed
 * from the 256-byte wire MAD (big endian, bit fields as IBA tables 99-109;
 * Linux include/rdma/ibta_vol1_c12.h has the same offsets). Reserved bits
 * are written 0 and ignored on receive (IBA 13.4.3), so a MAD whose
 * reserved bits are 0 (every MAD Linux sends) encodes back byte for byte.
 *
 * Not exported: lib/cm's own. Thread: any (pure functions, no state).
 */

#ifndef PV_LIB_CM_CM_MAD_H
#define PV_LIB_CM_CM_MAD_H

#include <stddef.h>
#include <stdint.h>

#define PV_MAD_SIZE		256	/* every GSI MAD (IBA 13.4.2) */
#define PV_MAD_HDR_SIZE		24	/* common MAD header */
#define PV_MAD_DATA_SIZE	(PV_MAD_SIZE - PV_MAD_HDR_SIZE)

#define PV_MAD_BASE_VERSION	1
#define PV_MAD_CLASS_CM		0x07	/* communication management */
#define PV_MAD_CM_CLASS_VERSION	2

/* methods (IBA 13.4.5) */
#define PV_MAD_METHOD_GET	0x01
#define PV_MAD_METHOD_SET	0x02
#define PV_MAD_METHOD_SEND	0x03
#define PV_MAD_METHOD_GET_RESP	0x81

/* MAD status (IBA table 112): bits 2-4 "invalid field" codes */
#define PV_MAD_STATUS_BAD_VERSION	0x0004	/* bad class/base version */
#define PV_MAD_STATUS_METHOD_UNSUPP	0x0008	/* method not supported */
#define PV_MAD_STATUS_METHOD_ATTR_UNSUPP 0x000c	/* method/attribute combination */
#define PV_MAD_STATUS_INVALID_FIELD	0x001c	/* invalid value in a field */

/* CM attribute IDs (IBA table 97) */
#define PV_CM_ATTR_CLASS_PORT_INFO	0x0001
#define PV_CM_ATTR_REQ			0x0010
#define PV_CM_ATTR_MRA			0x0011
#define PV_CM_ATTR_REJ			0x0012
#define PV_CM_ATTR_REP			0x0013
#define PV_CM_ATTR_RTU			0x0014
#define PV_CM_ATTR_DREQ			0x0015
#define PV_CM_ATTR_DREP			0x0016
#define PV_CM_ATTR_SIDR_REQ		0x0017
#define PV_CM_ATTR_SIDR_REP		0x0018
#define PV_CM_ATTR_LAP			0x0019
#define PV_CM_ATTR_APR			0x001a

/* private data bytes of each message (IBA table 98) */
#define PV_CM_REQ_PRIVATE_DATA_SIZE	92
#define PV_CM_MRA_PRIVATE_DATA_SIZE	222
#define PV_CM_REJ_PRIVATE_DATA_SIZE	148
#define PV_CM_REP_PRIVATE_DATA_SIZE	196
#define PV_CM_RTU_PRIVATE_DATA_SIZE	224
#define PV_CM_DREQ_PRIVATE_DATA_SIZE	220
#define PV_CM_DREP_PRIVATE_DATA_SIZE	224
#define PV_CM_SIDR_REQ_PRIVATE_DATA_SIZE 216
#define PV_CM_SIDR_REP_PRIVATE_DATA_SIZE 136
#define PV_CM_LAP_PRIVATE_DATA_SIZE	168
#define PV_CM_APR_PRIVATE_DATA_SIZE	148
#define PV_CM_REJ_ARI_LENGTH		72
#define PV_CM_APR_INFO_LENGTH		72
#define PV_CM_CLASS_PORT_INFO_SIZE	72

/* message REJected / MRAed (IBA 12.6.7, 12.6.6) */
#define PV_CM_MSG_REQ	0
#define PV_CM_MSG_REP	1
#define PV_CM_MSG_OTHER	2	/* MRA: the LAP; REJ: none of them ("other") */

/* REJ reasons (IBA table 103) */
enum pv_cm_rej_reason {
	PV_CM_REJ_NO_QP = 1,
	PV_CM_REJ_NO_EEC = 2,
	PV_CM_REJ_NO_RESOURCES = 3,
	PV_CM_REJ_TIMEOUT = 4,
	PV_CM_REJ_UNSUPPORTED = 5,
	PV_CM_REJ_INVALID_COMM_ID = 6,
	PV_CM_REJ_INVALID_COMM_INSTANCE = 7,
	PV_CM_REJ_INVALID_SERVICE_ID = 8,
	PV_CM_REJ_INVALID_TRANSPORT_TYPE = 9,
	PV_CM_REJ_STALE_CONN = 10,
	PV_CM_REJ_RDC_NOT_EXIST = 11,
	PV_CM_REJ_INVALID_GID = 12,
	PV_CM_REJ_INVALID_LID = 13,
	PV_CM_REJ_INVALID_SL = 14,
	PV_CM_REJ_INVALID_TRAFFIC_CLASS = 15,
	PV_CM_REJ_INVALID_HOP_LIMIT = 16,
	PV_CM_REJ_INVALID_PACKET_RATE = 17,
	PV_CM_REJ_INVALID_ALT_GID = 18,
	PV_CM_REJ_INVALID_ALT_LID = 19,
	PV_CM_REJ_INVALID_ALT_SL = 20,
	PV_CM_REJ_INVALID_ALT_TRAFFIC_CLASS = 21,
	PV_CM_REJ_INVALID_ALT_HOP_LIMIT = 22,
	PV_CM_REJ_INVALID_ALT_PACKET_RATE = 23,
	PV_CM_REJ_PORT_CM_REDIRECT = 24,
	PV_CM_REJ_PORT_REDIRECT = 25,
	PV_CM_REJ_INVALID_MTU = 26,
	PV_CM_REJ_INSUFFICIENT_RESP_RESOURCES = 27,
	PV_CM_REJ_CONSUMER_DEFINED = 28,
	PV_CM_REJ_INVALID_RNR_RETRY = 29,
	PV_CM_REJ_DUPLICATE_LOCAL_COMM_ID = 30,
	PV_CM_REJ_INVALID_CLASS_VERSION = 31,
	PV_CM_REJ_INVALID_FLOW_LABEL = 32,
	PV_CM_REJ_INVALID_ALT_FLOW_LABEL = 33,
};

/* SIDR_REP status (IBA table 109) */
enum pv_cm_sidr_status {
	PV_CM_SIDR_SUCCESS = 0,
	PV_CM_SIDR_UNSUPPORTED = 1,	/* service ID not supported */
	PV_CM_SIDR_REJECT = 2,		/* rejected by the service provider */
	PV_CM_SIDR_NO_QP = 3,
	PV_CM_SIDR_REDIRECT = 4,
	PV_CM_SIDR_UNSUPPORTED_VERSION = 5,
};

/* APR AP status "unsupported request" (IBA ch. 12 APR message; Linux
 * IB_CM_APR_UNSUPPORTED): what a LAP is answered with, as we support no
 * alternate path. (1 is "invalid communication ID", 6 "invalid QPN/EECN".) */
#define PV_CM_APR_UNSUPPORTED	2

/* transport service type of a REQ (IBA table 99) */
#define PV_CM_TRANSPORT_RC	0
#define PV_CM_TRANSPORT_UC	1
#define PV_CM_TRANSPORT_RD	2
#define PV_CM_TRANSPORT_XRC	3	/* with extended transport type 1 */

/* The common MAD header (IBA 13.4.3), host order. */
struct pv_mad_hdr {
	uint8_t base_version;
	uint8_t mgmt_class;
	uint8_t class_version;
	uint8_t method;			/* with the R bit: PV_MAD_METHOD_* */
	uint16_t status;
	uint16_t class_specific;
	uint64_t tid;
	uint16_t attr_id;
	uint16_t resv;			/* reserved: written 0, decoded as 0 */
	uint32_t attr_mod;
};

/* One path of a REQ or LAP (IBA 12.6.5, table 99 "primary/alternate"). */
struct pv_cm_path {
	uint16_t local_lid;
	uint16_t remote_lid;
	uint8_t local_gid[16];
	uint8_t remote_gid[16];
	uint32_t flow_label;		/* 20 bits */
	uint8_t packet_rate;		/* 6 bits */
	uint8_t traffic_class;
	uint8_t hop_limit;
	uint8_t sl;			/* 4 bits */
	uint8_t subnet_local;		/* 1 bit */
	uint8_t local_ack_timeout;	/* 5 bits */
};

struct pv_cm_req {
	uint32_t local_comm_id;
	uint64_t service_id;
	uint64_t local_ca_guid;
	uint32_t local_qkey;
	uint32_t local_qpn;		/* 24 bits */
	uint8_t responder_resources;
	uint32_t local_eecn;		/* 24 bits */
	uint8_t initiator_depth;
	uint32_t remote_eecn;		/* 24 bits */
	uint8_t remote_cm_response_timeout; /* 5 bits */
	uint8_t transport_type;		/* 2 bits: PV_CM_TRANSPORT_* */
	uint8_t end_to_end_flow_control;/* 1 bit */
	uint32_t starting_psn;		/* 24 bits */
	uint8_t local_cm_response_timeout; /* 5 bits */
	uint8_t retry_count;		/* 3 bits */
	uint16_t pkey;
	uint8_t path_mtu;		/* 4 bits: enum pv_mtu */
	uint8_t rdc_exists;		/* 1 bit */
	uint8_t rnr_retry_count;	/* 3 bits */
	uint8_t max_cm_retries;		/* 4 bits */
	uint8_t srq;			/* 1 bit */
	uint8_t extended_transport_type;/* 3 bits */
	/* SAP Supported (byte 139 bit 5 of the MAD data) is not kept: written 0 */
	struct pv_cm_path primary;
	struct pv_cm_path alternate;	/* all zero: none */
	uint8_t private_data[PV_CM_REQ_PRIVATE_DATA_SIZE];
};

struct pv_cm_mra {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t msg_mraed;		/* 2 bits: PV_CM_MSG_* */
	uint8_t service_timeout;	/* 5 bits */
	uint8_t private_data[PV_CM_MRA_PRIVATE_DATA_SIZE];
};

struct pv_cm_rej {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t msg_rejected;		/* 2 bits: PV_CM_MSG_* */
	uint8_t reject_info_length;	/* 7 bits, bytes of ari, <= 72 */
	uint16_t reason;		/* enum pv_cm_rej_reason */
	uint8_t ari[PV_CM_REJ_ARI_LENGTH];
	uint8_t private_data[PV_CM_REJ_PRIVATE_DATA_SIZE];
};

struct pv_cm_rep {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint32_t local_qkey;
	uint32_t local_qpn;		/* 24 bits */
	uint32_t local_eecn;		/* 24 bits */
	uint32_t starting_psn;		/* 24 bits */
	uint8_t responder_resources;
	uint8_t initiator_depth;
	uint8_t target_ack_delay;	/* 5 bits */
	uint8_t failover_accepted;	/* 2 bits */
	uint8_t end_to_end_flow_control;/* 1 bit */
	uint8_t rnr_retry_count;	/* 3 bits */
	uint8_t srq;			/* 1 bit */
	uint64_t local_ca_guid;
	uint8_t private_data[PV_CM_REP_PRIVATE_DATA_SIZE];
};

struct pv_cm_rtu {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t private_data[PV_CM_RTU_PRIVATE_DATA_SIZE];
};

struct pv_cm_dreq {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint32_t remote_qpn;		/* 24 bits (QPN or EECN) */
	uint8_t private_data[PV_CM_DREQ_PRIVATE_DATA_SIZE];
};

struct pv_cm_drep {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t private_data[PV_CM_DREP_PRIVATE_DATA_SIZE];
};

struct pv_cm_sidr_req {
	uint32_t request_id;
	uint16_t pkey;
	uint64_t service_id;
	uint8_t private_data[PV_CM_SIDR_REQ_PRIVATE_DATA_SIZE];
};

struct pv_cm_sidr_rep {
	uint32_t request_id;
	uint8_t status;			/* enum pv_cm_sidr_status */
	uint8_t add_info_length;	/* bytes of class_port_info, <= 72 */
	uint32_t qpn;			/* 24 bits */
	uint64_t service_id;
	uint32_t qkey;
	uint8_t class_port_info[PV_CM_CLASS_PORT_INFO_SIZE];
	uint8_t private_data[PV_CM_SIDR_REP_PRIVATE_DATA_SIZE];
};

/* LAP and APR: parsed so that a LAP can be answered with an APR. */
struct pv_cm_lap {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint32_t remote_qpn;		/* 24 bits */
	uint8_t remote_cm_response_timeout; /* 5 bits */
	struct pv_cm_path alternate;
	uint8_t private_data[PV_CM_LAP_PRIVATE_DATA_SIZE];
};

struct pv_cm_apr {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t add_info_length;	/* bytes of add_info, <= 72 */
	uint8_t status;			/* AP status: PV_CM_APR_* */
	uint8_t add_info[PV_CM_APR_INFO_LENGTH];
	uint8_t private_data[PV_CM_APR_PRIVATE_DATA_SIZE];
};

/* One decoded CM MAD. */
struct pv_cm_msg {
	struct pv_mad_hdr hdr;
	union {
		struct pv_cm_req req;
		struct pv_cm_mra mra;
		struct pv_cm_rej rej;
		struct pv_cm_rep rep;
		struct pv_cm_rtu rtu;
		struct pv_cm_dreq dreq;
		struct pv_cm_drep drep;
		struct pv_cm_sidr_req sidr_req;
		struct pv_cm_sidr_rep sidr_rep;
		struct pv_cm_lap lap;
		struct pv_cm_apr apr;
		uint8_t class_port_info[PV_CM_CLASS_PORT_INFO_SIZE];
	};
};

/**
 * Encode @p msg (the header and the message its hdr.attr_id names) into
 * the wire MAD @p mad. The header is written as given (versions, class and
 * method are not checked); reserved bits and the bytes after the message
 * are written 0; integer fields wider than their wire bits are masked.
 *
 * @param msg  Message to send; only hdr and the union member of
 *             hdr.attr_id are read.
 * @param mad  PV_MAD_SIZE (256) bytes, every one of them written on success.
 * @return 0; -EINVAL @p msg or @p mad NULL, hdr.attr_id not a CM attribute
 *         (PV_CM_ATTR_*), or a REJ reject_info_length, APR add_info_length
 *         or SIDR_REP add_info_length over 72 (@p mad untouched).
 * Thread: any.
 */
int pv_cm_mad_encode(const struct pv_cm_msg *msg, uint8_t mad[PV_MAD_SIZE]);

/**
 * Decode a received MAD into @p msg. Reserved bits are ignored (IBA
 * 13.4.3): a set reserved bit or byte is not an error. Of a longer buffer
 * (a MAD with trailing bytes) only the first PV_MAD_SIZE bytes are read.
 *
 * @param mad  The MAD (from its common header on), @p len bytes.
 * @param len  Bytes readable at @p mad; nothing past them is read.
 * @param msg  Filled on success: hdr and the union member of hdr.attr_id;
 *             every other byte of @p msg (padding, the rest of the union)
 *             is zeroed, so two decoded messages compare with memcmp().
 *             Unspecified on error.
 * @return 0; -EINVAL @p mad or @p msg NULL; -EMSGSIZE @p len < PV_MAD_SIZE;
 *         -EPROTONOSUPPORT base version not 1, class not CM (0x07) or class
 *         version not 2; -ENOMSG an attribute ID that is not a CM attribute;
 *         -EBADMSG a length field over its array: REJ reject info length,
 *         APR additional information length or SIDR_REP additional
 *         information length > 72.
 * Thread: any.
 */
int pv_cm_mad_decode(const uint8_t *mad, size_t len, struct pv_cm_msg *msg);

/* ---------------------------------------------------------------------- */
/* rdma_cm's private-data header (Linux drivers/infiniband/core/cma.c,     */
/* struct cma_hdr) and service IDs                                         */
/* ---------------------------------------------------------------------- */

#define PV_CMA_HDR_SIZE		36
#define PV_CMA_VERSION		0x00

/* The header rdma_cm puts first in a REQ's (and SIDR_REQ's) private data. */
struct pv_cma_hdr {
	uint8_t cma_version;		/* PV_CMA_VERSION */
	uint8_t ip_version;		/* 4 or 6 (wire: high nibble) */
	uint16_t src_port;		/* host order */
	int family;			/* AF_INET or AF_INET6 */
	uint8_t src_addr[16];		/* IPv4: 4 bytes in [0..3]; IPv6: 16 */
	uint8_t dst_addr[16];
};

/**
 * Encode @p hdr into the first PV_CMA_HDR_SIZE bytes of @p buf as cma.c's
 * cma_format_hdr() does: cma_version as given, ip_version in the high
 * nibble of byte 1, the port big endian, IPv4 addresses in the last 4
 * bytes of each 16-byte field (the other 12 zero).
 *
 * @param hdr  family AF_INET with ip_version 4, or AF_INET6 with 6.
 * @param buf  PV_CMA_HDR_SIZE (36) bytes, all written on success.
 * @return 0; -EINVAL NULL argument, family neither AF_INET nor AF_INET6,
 *         or ip_version not the family's (@p buf untouched).
 * Thread: any.
 */
int pv_cma_hdr_encode(const struct pv_cma_hdr *hdr, uint8_t buf[PV_CMA_HDR_SIZE]);

/**
 * Decode the rdma_cm header at the start of a received REQ's (or
 * SIDR_REQ's) private data. The low nibble of byte 1 and, for IPv4, the 12
 * bytes before each address are not checked (cma.c does not either).
 *
 * @param buf  The private data, @p len bytes; only the first
 *             PV_CMA_HDR_SIZE are read.
 * @param hdr  Filled on success (unused address bytes zeroed); untouched
 *             on error.
 * @return 0; -EINVAL NULL argument or @p len < PV_CMA_HDR_SIZE;
 *         -EPROTONOSUPPORT cma_version not 0 or ip_version neither 4 nor 6.
 * Thread: any.
 */
int pv_cma_hdr_decode(const uint8_t *buf, size_t len, struct pv_cma_hdr *hdr);

/**
 * Service ID of @p port in port space @p ps, as cma.c's
 * cma_get_service_id(): ((uint64_t)ps << 16) | port. RDMA_PS_TCP (0x0106)
 * port 7471 gives 0x0000000001061d2f.
 * Thread: any.
 */
uint64_t pv_cma_service_id(uint16_t ps, uint16_t port);

/**
 * Flow label Linux (6.1) rdma_cm puts in the REQ's primary path of a
 * RoCEv2 connection, which also fixes the connection's UDP source port:
 * cma.c cma_get_roce_udp_flow_label() hashes the rdma_cm source and
 * destination ports, (src_port * 31 + dst_port) & 0xfffff. (An IPv6
 * source address with a non-zero sin6_flowinfo flow label uses that label
 * instead; rdma_calc_flow_label() of QPNs is for connections rdma_cm does
 * not set up.) cm_rdma_server.pcap: ports 54793 -> 7471 give 0xa0846.
 *
 * @return The 20-bit flow label.
 * Thread: any.
 */
uint32_t pv_cma_flow_label(uint16_t src_port, uint16_t dst_port);

/**
 * Name of a CM attribute ID, for logs.
 * @return "REQ", "MRA", ..., "ClassPortInfo", or "unknown"; a static string.
 * Thread: any.
 */
const char *pv_cm_attr_str(uint16_t attr_id);

#endif /* PV_LIB_CM_CM_MAD_H */
