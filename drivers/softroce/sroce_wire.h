/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RoCEv2 wire layer of the softroce driver: opcode table, header layouts,
 * frame parser, ICRC and a one-line formatter. Shared by the engine and by
 * the pv-roce-decode tool. Private to drivers/softroce (and in-tree tools).
 *
 * Wire format (IBTA vol. 1 ch. 9 + annex A17; RC, UC, UD, XRC):
 *   Ethernet [802.1Q] / IPv4 or IPv6 / UDP (dport 4791) / BTH / [ext hdrs] /
 *   payload / pad (0..3) / ICRC (4 bytes)
 */
#ifndef PV_DRIVERS_SOFTROCE_SROCE_WIRE_H
#define PV_DRIVERS_SOFTROCE_SROCE_WIRE_H

#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_common.h>

/* byte sizes of the headers */
#define SROCE_ETH_HLEN		14
#define SROCE_VLAN_HLEN		4
#define SROCE_IPV4_HLEN		20
#define SROCE_IPV6_HLEN		40
#define SROCE_UDP_HLEN		8
#define SROCE_BTH_LEN		12
#define SROCE_RETH_LEN		16
#define SROCE_AETH_LEN		4
#define SROCE_IMM_LEN		4
#define SROCE_ATMETH_LEN	28
#define SROCE_ATMACK_LEN	8
#define SROCE_DETH_LEN		8
#define SROCE_IETH_LEN		4
#define SROCE_XRCETH_LEN	4
#define SROCE_ICRC_LEN		4
#define SROCE_UDP_PORT		4791
/* Ethernet + IPv4 + UDP, no VLAN: offset of the BTH in a frame we build */
#define SROCE_L2L4_HLEN		(SROCE_ETH_HLEN + SROCE_IPV4_HLEN + SROCE_UDP_HLEN)
/* the longest: Ethernet + 802.1Q + IPv6 + UDP */
#define SROCE_L2L4_HLEN_MAX	(SROCE_ETH_HLEN + SROCE_VLAN_HLEN + SROCE_IPV6_HLEN + \
				 SROCE_UDP_HLEN)
#define SROCE_ETHERTYPE_IPV4	0x0800
#define SROCE_ETHERTYPE_ARP	0x0806
#define SROCE_ETHERTYPE_VLAN	0x8100
#define SROCE_ETHERTYPE_IPV6	0x86dd

#define SROCE_PSN_MASK		0xffffffu
#define SROCE_QPN_MASK		0xffffffu
#define SROCE_DEFAULT_PKEY	0xffff
/* the GSI QP (QP1, IBA vol. 1 13.4.6.1): its number and its well-known Q_Key */
#define SROCE_GSI_QPN		1
#define SROCE_GSI_QKEY		0x80010000u

/* IBTA opcode values (vol. 1 9.2.1 table 38): RC 0x00-0x1f, UC 0x20.., UD 0x64/0x65 */
enum sroce_opcode {
	SROCE_OP_RC_SEND_FIRST		= 0x00,
	SROCE_OP_RC_SEND_MIDDLE		= 0x01,
	SROCE_OP_RC_SEND_LAST		= 0x02,
	SROCE_OP_RC_SEND_LAST_IMM	= 0x03,
	SROCE_OP_RC_SEND_ONLY		= 0x04,
	SROCE_OP_RC_SEND_ONLY_IMM	= 0x05,
	SROCE_OP_RC_WRITE_FIRST		= 0x06,
	SROCE_OP_RC_WRITE_MIDDLE	= 0x07,
	SROCE_OP_RC_WRITE_LAST		= 0x08,
	SROCE_OP_RC_WRITE_LAST_IMM	= 0x09,
	SROCE_OP_RC_WRITE_ONLY		= 0x0a,
	SROCE_OP_RC_WRITE_ONLY_IMM	= 0x0b,
	SROCE_OP_RC_READ_REQ		= 0x0c,
	SROCE_OP_RC_READ_RESP_FIRST	= 0x0d,
	SROCE_OP_RC_READ_RESP_MIDDLE	= 0x0e,
	SROCE_OP_RC_READ_RESP_LAST	= 0x0f,
	SROCE_OP_RC_READ_RESP_ONLY	= 0x10,
	SROCE_OP_RC_ACK			= 0x11,
	SROCE_OP_RC_ATOMIC_ACK		= 0x12,
	SROCE_OP_RC_CMP_SWAP		= 0x13,
	SROCE_OP_RC_FETCH_ADD		= 0x14,
	SROCE_OP_RC_SEND_LAST_INV	= 0x16,
	SROCE_OP_RC_SEND_ONLY_INV	= 0x17,

	SROCE_OP_UC_SEND_FIRST		= 0x20,
	SROCE_OP_UC_SEND_MIDDLE		= 0x21,
	SROCE_OP_UC_SEND_LAST		= 0x22,
	SROCE_OP_UC_SEND_LAST_IMM	= 0x23,
	SROCE_OP_UC_SEND_ONLY		= 0x24,
	SROCE_OP_UC_SEND_ONLY_IMM	= 0x25,
	SROCE_OP_UC_WRITE_FIRST		= 0x26,
	SROCE_OP_UC_WRITE_MIDDLE	= 0x27,
	SROCE_OP_UC_WRITE_LAST		= 0x28,
	SROCE_OP_UC_WRITE_LAST_IMM	= 0x29,
	SROCE_OP_UC_WRITE_ONLY		= 0x2a,
	SROCE_OP_UC_WRITE_ONLY_IMM	= 0x2b,

	SROCE_OP_UD_SEND_ONLY		= 0x64,
	SROCE_OP_UD_SEND_ONLY_IMM	= 0x65,
};

/* transport bits of an opcode (its top 3 bits) */
#define SROCE_OP_TRANSPORT(op)	((op) & 0xe0)
#define SROCE_OP_RC		0x00
#define SROCE_OP_UC		0x20
#define SROCE_OP_UD		0x60
#define SROCE_OP_XRC		0xa0	/* the RC opcodes + 0xa0 (IBTA table 38) */

/* extension headers present after the BTH, in wire order: DETH, XRCETH,
 * RETH/ATMETH, AETH, ATMACK, IMM/IETH; PAYLOAD = the opcode may carry
 * payload bytes */
enum {
	SROCE_HDR_RETH		= 1 << 0,
	SROCE_HDR_AETH		= 1 << 1,
	SROCE_HDR_IMM		= 1 << 2,
	SROCE_HDR_ATMETH	= 1 << 3,
	SROCE_HDR_ATMACK	= 1 << 4,
	SROCE_HDR_DETH		= 1 << 5,
	SROCE_HDR_IETH		= 1 << 6,
	SROCE_HDR_PAYLOAD	= 1 << 7,
	SROCE_HDR_XRCETH	= 1 << 8,	/* right after the BTH, XRC requests */
};

/* properties of an opcode */
enum {
	SROCE_OPF_FIRST		= 1 << 0,	/* first packet of a multi-packet message */
	SROCE_OPF_MIDDLE	= 1 << 1,
	SROCE_OPF_LAST		= 1 << 2,
	SROCE_OPF_ONLY		= 1 << 3,	/* single-packet message */
	SROCE_OPF_REQ		= 1 << 4,	/* requester -> responder */
	SROCE_OPF_RESP		= 1 << 5,	/* responder -> requester: ACK, READ resp, atomic ACK */
	SROCE_OPF_SEND		= 1 << 6,
	SROCE_OPF_WRITE		= 1 << 7,
	SROCE_OPF_READ		= 1 << 8,	/* READ request or READ response */
	SROCE_OPF_ATOMIC	= 1 << 9,	/* CMP_SWAP, FETCH_ADD, ATOMIC ACK */
	SROCE_OPF_ACK		= 1 << 10,	/* RC ACK (AETH only) */
	SROCE_OPF_IMM		= 1 << 11,	/* with immediate data */
	SROCE_OPF_INV		= 1 << 12,	/* with invalidate */
};

struct sroce_opcode_info {
	const char *name;	/* "RC SEND Only", "RC Acknowledge" (tshark style) */
	uint16_t hdrs;		/* SROCE_HDR_* */
	uint16_t flags;		/* SROCE_OPF_* */
	uint8_t hdr_len;	/* BTH + extension header bytes */
};

/** Indexed by BTH opcode; .name == NULL marks an opcode we do not accept. */
extern const struct sroce_opcode_info pv_sroce_opcode_info[256];

/* AETH syndrome (vol. 1 9.7.5.1.1): bit 7 reserved, bits 6-5 type, 4-0 value */
#define SROCE_AETH_TYPE_MASK	0x60
#define SROCE_AETH_VALUE_MASK	0x1f
#define SROCE_AETH_ACK		0x00	/* value: credit count, 31 = invalid */
#define SROCE_AETH_RNR_NAK	0x20	/* value: RNR timer code */
#define SROCE_AETH_NAK		0x60	/* value: SROCE_NAK_* */
#define SROCE_AETH_CREDIT_INVALID 0x1f
#define SROCE_NAK_PSN_SEQ_ERR	0x00
#define SROCE_NAK_INV_REQ	0x01
#define SROCE_NAK_REM_ACCESS	0x02
#define SROCE_NAK_REM_OP	0x03
#define SROCE_NAK_INV_RD_REQ	0x04

/*
 * Wire structs: network byte order, packed layouts. The frame offsets we
 * parse are not guaranteed to be 4-byte aligned (a VLAN tag or a pcap buffer
 * moves them), hence __rte_packed.
 */
struct sroce_bth {
	uint8_t opcode;
	uint8_t flags;		/* SE:1 M:1 PadCnt:2 TVer:4 */
	rte_be16_t pkey;
	rte_be32_t qpn;		/* Resv8a (FECN:1 BECN:1 resv:6) : DestQP:24 */
	rte_be32_t apsn;	/* AckReq:1 resv:7 PSN:24 */
} __rte_packed;
static_assert(sizeof(struct sroce_bth) == SROCE_BTH_LEN, "BTH size");

#define SROCE_BTH_SE		0x80
#define SROCE_BTH_MIG		0x40
#define SROCE_BTH_PAD_SHIFT	4
#define SROCE_BTH_PAD_MASK	0x30
#define SROCE_BTH_TVER_MASK	0x0f
#define SROCE_BTH_ACKREQ	0x80000000u
#define SROCE_BTH_FECN		0x80000000u	/* in qpn word */
#define SROCE_BTH_BECN		0x40000000u

struct sroce_reth {
	rte_be64_t va;
	rte_be32_t rkey;
	rte_be32_t dma_len;
} __rte_packed;
static_assert(sizeof(struct sroce_reth) == SROCE_RETH_LEN, "RETH size");

struct sroce_aeth {
	rte_be32_t smsn;	/* Syndrome:8 MSN:24 */
} __rte_packed;
static_assert(sizeof(struct sroce_aeth) == SROCE_AETH_LEN, "AETH size");

struct sroce_atmeth {
	rte_be64_t va;
	rte_be32_t rkey;
	rte_be64_t swap_add;
	rte_be64_t compare;
} __rte_packed;
static_assert(sizeof(struct sroce_atmeth) == SROCE_ATMETH_LEN, "AtomicETH size");

struct sroce_atmack {
	rte_be64_t orig;
} __rte_packed;
static_assert(sizeof(struct sroce_atmack) == SROCE_ATMACK_LEN, "AtomicAckETH size");

struct sroce_deth {
	rte_be32_t qkey;
	rte_be32_t sqpn;	/* resv:8 SrcQP:24 */
} __rte_packed;
static_assert(sizeof(struct sroce_deth) == SROCE_DETH_LEN, "DETH size");

/** A parsed packet: all values in host order unless said otherwise. */
struct sroce_pkt {
	const uint8_t *frame;	/* Ethernet header */
	uint32_t frame_len;	/* bytes up to the end of the ICRC (Ethernet padding excluded) */
	uint16_t l3_off;	/* offset of the IP header: 14, or 18 with a VLAN tag */
	uint16_t bth_off;	/* offset of the BTH */
	uint16_t vlan_tci;	/* 0 without a VLAN tag */
	uint8_t smac[6], dmac[6];
	uint8_t ip_ver;		/* 4 or 6 */
	uint32_t sip, dip;	/* IPv4; 0 on IPv6 */
	uint8_t sip6[16], dip6[16];	/* IPv6 only (network order), not set on IPv4 */
	uint32_t flow_label;	/* IPv6 only */
	uint16_t sport, dport;
	uint8_t ttl, tos;	/* IPv6: hop limit, traffic class */
	/* BTH */
	uint8_t opcode, se, mig, pad, tver, ackreq;
	uint8_t fecn, becn;
	uint16_t pkey;
	uint32_t dqpn, psn;
	/* RETH, or va/rkey of the AtomicETH */
	uint64_t va;
	uint32_t rkey, dma_len;
	/* AETH */
	uint8_t aeth_syndrome;
	uint32_t msn;
	rte_be32_t imm;		/* ImmDt, kept in network order (as in pv_wc.imm_data) */
	/* AtomicETH / AtomicAckETH */
	uint64_t swap_add, compare, atomic_orig;
	/* DETH */
	uint32_t qkey, sqpn;
	/* IETH */
	uint32_t ieth_rkey;
	/* XRCETH: the XRC SRQ the request is for */
	uint32_t xrcsrq;
	uint16_t payload_off;	/* offset of the payload in frame */
	uint32_t payload_len;	/* payload bytes, pad and ICRC excluded */
	uint32_t icrc;		/* as read from the wire (little-endian u32, see icrc_calc) */
};

/**
 * Select the fastest rte_net_crc implementation for this CPU (AVX512, else
 * SSE4.2/PCLMULQDQ, else table-driven). Runs once per process; the ICRC
 * functions call it on first use. DPDK allows the vector code only after
 * rte_eal_init() (EAL sets the max SIMD bitwidth): called before it, the
 * table-driven code (~16x slower) is chosen for good. So an engine calls it
 * after rte_eal_init() and before launching lcores; tools without EAL
 * (pv-roce-decode) get the table-driven code, with the same results.
 *
 * Thread: any; concurrent first calls are serialised.
 */
void pv_sroce_wire_init(void);

/**
 * Parse a RoCEv2 Ethernet frame.
 *
 * Accepts Ethernet [one 802.1Q tag] / IPv4 (IHL >= 5, valid header checksum,
 * not fragmented) or IPv6 (next header UDP: no extension header, as rxe sends
 * it) / UDP dport 4791 (the UDP checksum is not checked: rxe sends 0) / BTH
 * (TVer 0, known opcode) / the extension headers of that opcode / payload /
 * pad / ICRC. Bytes after the IP total (IPv6: 40 + payload) length
 * (Ethernet padding) are ignored.
 *
 * @param frame       Contiguous frame starting at the Ethernet header.
 * @param len         Bytes at @p frame.
 * @param verify_icrc Non-zero: also check the ICRC. Then @p frame must be
 *                    writable memory: pv_sroce_icrc_check() overwrites up to
 *                    18 header bytes and restores them before returning.
 * @param pkt         Filled on success (and partially on failure); fields of
 *                    extension headers the opcode does not carry are left
 *                    unchanged (look at pv_sroce_opcode_info[opcode].hdrs).
 *                    On -EILSEQ every field is filled.
 * @return 0; -ENOENT not RoCEv2 (not IPv4 or IPv6 / UDP 4791, e.g. ARP,
 *         ICMPv6: pass on);
 *         -EBADMSG malformed (truncated, bad IP version/header length/checksum/
 *         total or payload length, fragment, bad UDP length, BTH TVer != 0,
 *         invalid opcode,
 *         pad > payload, payload on an opcode that carries none);
 *         -EILSEQ ICRC mismatch (only when @p verify_icrc).
 * Thread: any; no logging, no allocation.
 */
int pv_sroce_pkt_parse(const uint8_t *frame, uint32_t len, int verify_icrc,
		       struct sroce_pkt *pkt);

/**
 * Compute the RoCEv2 ICRC (IBTA annex A17.8) of an IPv4 or IPv6 frame: CRC-32
 * (Ethernet polynomial, rte_net_crc RTE_NET_CRC32_ETH, equal to zlib crc32)
 * over 8 bytes of 0xff, the IP header with its variant fields set to all
 * ones (IPv4: TOS, TTL and header checksum; IPv6: traffic class, flow label
 * and hop limit, as rxe_icrc.c masks them), the UDP header with its checksum
 * set to all ones, the BTH with byte 4 (Resv8a, holding FECN/BECN) set to
 * all ones, and every byte after the BTH up to the ICRC. The family is the
 * frame's ethertype (0x0800 or 0x86dd, after an optional 802.1Q tag).
 *
 * To avoid copying, the function temporarily overwrites, in place, the 8
 * bytes just before the IP header (the end of the Ethernet header) and the
 * masked fields, and restores them before returning: afterwards the frame is
 * byte-identical. So @p frame must be writable and nobody may read it
 * concurrently.
 *
 * @param frame            Frame starting at the Ethernet header (VLAN tag allowed);
 *                         the IP header must be at least 8 bytes into it.
 * @param len_without_icrc Bytes from the Ethernet header to the end of the pad.
 * @return The ICRC as a CPU-order u32; store it with pv_sroce_icrc_set() or
 *         as a little-endian u32 (rxe and hardware put it on the wire so).
 *         The frame is assumed well formed (use on frames we built or parsed).
 * Thread: any.
 */
uint32_t pv_sroce_icrc_calc(uint8_t *frame, uint32_t len_without_icrc);

/**
 * Compute and store the ICRC in the last 4 bytes of the frame (little-endian).
 *
 * @param frame          As for pv_sroce_icrc_calc() (temporarily modified, restored).
 * @param len_with_icrc  Bytes from the Ethernet header to the end of the ICRC.
 */
void pv_sroce_icrc_set(uint8_t *frame, uint32_t len_with_icrc);

/**
 * Check the ICRC in the last 4 bytes of the frame.
 *
 * @param frame          As for pv_sroce_icrc_calc() (temporarily modified, restored).
 * @param len_with_icrc  Bytes from the Ethernet header to the end of the ICRC
 *                       (Ethernet padding excluded: use sroce_pkt.frame_len).
 * @return 0 match, -EILSEQ mismatch.
 */
int pv_sroce_icrc_check(uint8_t *frame, uint32_t len_with_icrc);

/**
 * Name of an AETH syndrome: "ACK", "RNR NAK", "NAK PSN sequence error",
 * "NAK invalid request", "NAK remote access error", "NAK remote operational
 * error", "NAK invalid RD request", "NAK reserved", "reserved".
 */
const char *pv_sroce_aeth_name(uint8_t syndrome);

/**
 * One-line human readable decode of a parsed packet, as pv-roce-decode prints
 * it (without frame number and ICRC verdict, without a trailing newline), e.g.
 * "10.77.0.12:49441 > 10.77.0.11:4791 RC SEND Only qpn 0x000011 psn 9909355
 *  ackreq 1 payload 256".
 *
 * @return What snprintf() returns: characters written or that would be.
 */
int pv_sroce_pkt_format(const struct sroce_pkt *pkt, char *buf, size_t len);

/** @return (psn + n) mod 2^24. */
static inline uint32_t
sroce_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & SROCE_PSN_MASK;
}

/**
 * @return a - b as a signed 24-bit distance, in [-2^23, 2^23): > 0 when @p a
 * is after @p b in PSN order.
 */
static inline int32_t
sroce_psn_diff(uint32_t a, uint32_t b)
{
	/* shift the 24-bit difference into the top bits and sign-extend back */
	return (int32_t)((a - b) << 8) >> 8;
}

/** @return non-zero when @p a comes before @p b in 24-bit PSN order. */
static inline int
sroce_psn_before(uint32_t a, uint32_t b)
{
	return sroce_psn_diff(a, b) < 0;
}

#endif /* PV_DRIVERS_SOFTROCE_SROCE_WIRE_H */
