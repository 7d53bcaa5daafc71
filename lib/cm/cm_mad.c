/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The CM MAD codec (cm_mad.h). Each message is one table of fields, which
 * the encoder walks one way and the decoder the other: a field is written
 * down once, so the two directions cannot disagree, and a table row reads
 * like the row of the IBA table it comes from. Offsets are bytes from the
 * start of the MAD data (after the 24-byte common header), bits count from
 * the most significant bit of that byte, values are big endian: IBA vol. 1
 * tables 99-109 (Linux include/rdma/ibta_vol1_c12.h gives the same
 * offsets). Whatever no row covers is reserved: written 0, never read.
 *
 * Also rdma_cm's private-data header (Linux cma.c struct cma_hdr) and the
 * service ID and flow label rdma_cm derives from ports.
 */

#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

#include "cm_mad.h"

/* One field: where it sits in the MAD and in struct pv_cm_msg. */
struct mad_field {
	uint16_t off;		/* byte offset from the start of the MAD */
	uint8_t bit;		/* first bit; 0 is the MSB of byte @off */
	uint8_t bits;		/* width; 0: a byte string */
	uint16_t host_off;	/* offsetof(struct pv_cm_msg, ...) */
	uint16_t host_len;	/* integer: 1, 2, 4 or 8; byte string: its length */
};

#define MAD_HOST_SIZE(m)	sizeof(((struct pv_cm_msg *)NULL)->m)

/* a header field at MAD byte @o, @w bits wide */
#define MAD_HDR(m, o, w) \
	{ (o), 0, (w), offsetof(struct pv_cm_msg, hdr.m), MAD_HOST_SIZE(hdr.m) }
/* an integer of @w bits at data byte @o, bit @b */
#define CM_INT(m, o, b, w) \
	{ PV_MAD_HDR_SIZE + (o), (b), (w), offsetof(struct pv_cm_msg, m), MAD_HOST_SIZE(m) }
/* a byte string at data byte @o, as long as its host array */
#define CM_BYTES(m, o) \
	{ PV_MAD_HDR_SIZE + (o), 0, 0, offsetof(struct pv_cm_msg, m), MAD_HOST_SIZE(m) }

/*
 * A path at data byte @o: the REQ's primary and alternate and the LAP's
 * alternate share every position except those of the traffic class, hop
 * limit and packet rate (@tc, @hl, @rate, relative to @o).
 */
#define CM_PATH(p, o, tc, hl, rate) \
	CM_INT(p.local_lid, (o), 0, 16), \
	CM_INT(p.remote_lid, (o) + 2, 0, 16), \
	CM_BYTES(p.local_gid, (o) + 4), \
	CM_BYTES(p.remote_gid, (o) + 20), \
	CM_INT(p.flow_label, (o) + 36, 0, 20), \
	CM_INT(p.packet_rate, (o) + (rate), 2, 6), \
	CM_INT(p.traffic_class, (o) + (tc), 0, 8), \
	CM_INT(p.hop_limit, (o) + (hl), 0, 8), \
	CM_INT(p.sl, (o) + 42, 0, 4), \
	CM_INT(p.subnet_local, (o) + 42, 4, 1), \
	CM_INT(p.local_ack_timeout, (o) + 43, 0, 5)
/* REQ: flow label, 6 reserved bits, packet rate; traffic class; hop limit */
#define CM_REQ_PATH(p, o)	CM_PATH(p, o, 40, 41, 39)
/* LAP: flow label, 4 reserved bits, traffic class; hop limit; packet rate */
#define CM_LAP_PATH(p, o)	CM_PATH(p, o, 39, 40, 41)

/* the common MAD header (IBA 13.4.3); bytes 18-19 are reserved */
static const struct mad_field mad_hdr_fields[] = {
	MAD_HDR(base_version, 0, 8),
	MAD_HDR(mgmt_class, 1, 8),
	MAD_HDR(class_version, 2, 8),
	MAD_HDR(method, 3, 8),
	MAD_HDR(status, 4, 16),
	MAD_HDR(class_specific, 6, 16),
	MAD_HDR(tid, 8, 64),
	MAD_HDR(attr_id, 16, 16),
	MAD_HDR(attr_mod, 20, 32),
};

static const struct mad_field cm_req_fields[] = {
	CM_INT(req.local_comm_id, 0, 0, 32),
	CM_INT(req.service_id, 8, 0, 64),
	CM_INT(req.local_ca_guid, 16, 0, 64),
	CM_INT(req.local_qkey, 28, 0, 32),
	CM_INT(req.local_qpn, 32, 0, 24),
	CM_INT(req.responder_resources, 35, 0, 8),
	CM_INT(req.local_eecn, 36, 0, 24),
	CM_INT(req.initiator_depth, 39, 0, 8),
	CM_INT(req.remote_eecn, 40, 0, 24),
	CM_INT(req.remote_cm_response_timeout, 43, 0, 5),
	CM_INT(req.transport_type, 43, 5, 2),
	CM_INT(req.end_to_end_flow_control, 43, 7, 1),
	CM_INT(req.starting_psn, 44, 0, 24),
	CM_INT(req.local_cm_response_timeout, 47, 0, 5),
	CM_INT(req.retry_count, 47, 5, 3),
	CM_INT(req.pkey, 48, 0, 16),
	CM_INT(req.path_mtu, 50, 0, 4),
	CM_INT(req.rdc_exists, 50, 4, 1),
	CM_INT(req.rnr_retry_count, 50, 5, 3),
	CM_INT(req.max_cm_retries, 51, 0, 4),
	CM_INT(req.srq, 51, 4, 1),
	CM_INT(req.extended_transport_type, 51, 5, 3),
	CM_REQ_PATH(req.primary, 52),
	CM_REQ_PATH(req.alternate, 96),
	CM_BYTES(req.private_data, 140),
};

static const struct mad_field cm_mra_fields[] = {
	CM_INT(mra.local_comm_id, 0, 0, 32),
	CM_INT(mra.remote_comm_id, 4, 0, 32),
	CM_INT(mra.msg_mraed, 8, 0, 2),
	CM_INT(mra.service_timeout, 9, 0, 5),
	CM_BYTES(mra.private_data, 10),
};

static const struct mad_field cm_rej_fields[] = {
	CM_INT(rej.local_comm_id, 0, 0, 32),
	CM_INT(rej.remote_comm_id, 4, 0, 32),
	CM_INT(rej.msg_rejected, 8, 0, 2),
	CM_INT(rej.reject_info_length, 9, 0, 7),
	CM_INT(rej.reason, 10, 0, 16),
	CM_BYTES(rej.ari, 12),
	CM_BYTES(rej.private_data, 84),
};

static const struct mad_field cm_rep_fields[] = {
	CM_INT(rep.local_comm_id, 0, 0, 32),
	CM_INT(rep.remote_comm_id, 4, 0, 32),
	CM_INT(rep.local_qkey, 8, 0, 32),
	CM_INT(rep.local_qpn, 12, 0, 24),
	CM_INT(rep.local_eecn, 16, 0, 24),
	CM_INT(rep.starting_psn, 20, 0, 24),
	CM_INT(rep.responder_resources, 24, 0, 8),
	CM_INT(rep.initiator_depth, 25, 0, 8),
	CM_INT(rep.target_ack_delay, 26, 0, 5),
	CM_INT(rep.failover_accepted, 26, 5, 2),
	CM_INT(rep.end_to_end_flow_control, 26, 7, 1),
	CM_INT(rep.rnr_retry_count, 27, 0, 3),
	CM_INT(rep.srq, 27, 3, 1),
	CM_INT(rep.local_ca_guid, 28, 0, 64),
	CM_BYTES(rep.private_data, 36),
};

static const struct mad_field cm_rtu_fields[] = {
	CM_INT(rtu.local_comm_id, 0, 0, 32),
	CM_INT(rtu.remote_comm_id, 4, 0, 32),
	CM_BYTES(rtu.private_data, 8),
};

static const struct mad_field cm_dreq_fields[] = {
	CM_INT(dreq.local_comm_id, 0, 0, 32),
	CM_INT(dreq.remote_comm_id, 4, 0, 32),
	CM_INT(dreq.remote_qpn, 8, 0, 24),
	CM_BYTES(dreq.private_data, 12),
};

static const struct mad_field cm_drep_fields[] = {
	CM_INT(drep.local_comm_id, 0, 0, 32),
	CM_INT(drep.remote_comm_id, 4, 0, 32),
	CM_BYTES(drep.private_data, 8),
};

static const struct mad_field cm_sidr_req_fields[] = {
	CM_INT(sidr_req.request_id, 0, 0, 32),
	CM_INT(sidr_req.pkey, 4, 0, 16),
	CM_INT(sidr_req.service_id, 8, 0, 64),
	CM_BYTES(sidr_req.private_data, 16),
};

static const struct mad_field cm_sidr_rep_fields[] = {
	CM_INT(sidr_rep.request_id, 0, 0, 32),
	CM_INT(sidr_rep.status, 4, 0, 8),
	CM_INT(sidr_rep.add_info_length, 5, 0, 8),
	CM_INT(sidr_rep.qpn, 8, 0, 24),
	CM_INT(sidr_rep.service_id, 12, 0, 64),
	CM_INT(sidr_rep.qkey, 20, 0, 32),
	CM_BYTES(sidr_rep.class_port_info, 24),
	CM_BYTES(sidr_rep.private_data, 96),
};

static const struct mad_field cm_lap_fields[] = {
	CM_INT(lap.local_comm_id, 0, 0, 32),
	CM_INT(lap.remote_comm_id, 4, 0, 32),
	CM_INT(lap.remote_qpn, 12, 0, 24),
	CM_INT(lap.remote_cm_response_timeout, 15, 0, 5),
	CM_LAP_PATH(lap.alternate, 20),
	CM_BYTES(lap.private_data, 64),
};

static const struct mad_field cm_apr_fields[] = {
	CM_INT(apr.local_comm_id, 0, 0, 32),
	CM_INT(apr.remote_comm_id, 4, 0, 32),
	CM_INT(apr.add_info_length, 8, 0, 8),
	CM_INT(apr.status, 9, 0, 8),
	CM_BYTES(apr.add_info, 12),
	CM_BYTES(apr.private_data, 84),
};

/* the CM's ClassPortInfo (IBA 13.4.8.1), kept as its 72 wire bytes */
static const struct mad_field cm_class_port_info_fields[] = {
	CM_BYTES(class_port_info, 0),
};

/* every message's private data runs to the end of the MAD (IBA table 98) */
static_assert(140 + PV_CM_REQ_PRIVATE_DATA_SIZE == PV_MAD_DATA_SIZE, "REQ");
static_assert(10 + PV_CM_MRA_PRIVATE_DATA_SIZE == PV_MAD_DATA_SIZE, "MRA");
static_assert(84 + PV_CM_REJ_PRIVATE_DATA_SIZE == PV_MAD_DATA_SIZE, "REJ");
static_assert(36 + PV_CM_REP_PRIVATE_DATA_SIZE == PV_MAD_DATA_SIZE, "REP");
static_assert(8 + PV_CM_RTU_PRIVATE_DATA_SIZE == PV_MAD_DATA_SIZE, "RTU");
static_assert(12 + PV_CM_DREQ_PRIVATE_DATA_SIZE == PV_MAD_DATA_SIZE, "DREQ");
static_assert(8 + PV_CM_DREP_PRIVATE_DATA_SIZE == PV_MAD_DATA_SIZE, "DREP");
static_assert(16 + PV_CM_SIDR_REQ_PRIVATE_DATA_SIZE == PV_MAD_DATA_SIZE, "SIDR_REQ");
static_assert(96 + PV_CM_SIDR_REP_PRIVATE_DATA_SIZE == PV_MAD_DATA_SIZE, "SIDR_REP");
static_assert(64 + PV_CM_LAP_PRIVATE_DATA_SIZE == PV_MAD_DATA_SIZE, "LAP");
static_assert(84 + PV_CM_APR_PRIVATE_DATA_SIZE == PV_MAD_DATA_SIZE, "APR");
static_assert(12 + PV_CM_REJ_ARI_LENGTH == 84 && 12 + PV_CM_APR_INFO_LENGTH == 84, "ARI");

struct cm_attr {
	uint16_t id;
	const char *name;
	const struct mad_field *fields;
	unsigned int n_fields;
};

#define CM_ATTR(id, name, f)	{ (id), (name), (f), sizeof(f) / sizeof((f)[0]) }

static const struct cm_attr cm_attrs[] = {
	CM_ATTR(PV_CM_ATTR_CLASS_PORT_INFO, "ClassPortInfo", cm_class_port_info_fields),
	CM_ATTR(PV_CM_ATTR_REQ, "REQ", cm_req_fields),
	CM_ATTR(PV_CM_ATTR_MRA, "MRA", cm_mra_fields),
	CM_ATTR(PV_CM_ATTR_REJ, "REJ", cm_rej_fields),
	CM_ATTR(PV_CM_ATTR_REP, "REP", cm_rep_fields),
	CM_ATTR(PV_CM_ATTR_RTU, "RTU", cm_rtu_fields),
	CM_ATTR(PV_CM_ATTR_DREQ, "DREQ", cm_dreq_fields),
	CM_ATTR(PV_CM_ATTR_DREP, "DREP", cm_drep_fields),
	CM_ATTR(PV_CM_ATTR_SIDR_REQ, "SIDR_REQ", cm_sidr_req_fields),
	CM_ATTR(PV_CM_ATTR_SIDR_REP, "SIDR_REP", cm_sidr_rep_fields),
	CM_ATTR(PV_CM_ATTR_LAP, "LAP", cm_lap_fields),
	CM_ATTR(PV_CM_ATTR_APR, "APR", cm_apr_fields),
};

static const struct cm_attr *
cm_attr_find(uint16_t id)
{
	size_t i;

	for (i = 0; i < sizeof(cm_attrs) / sizeof(cm_attrs[0]); i++)
		if (cm_attrs[i].id == id)
			return &cm_attrs[i];
	return NULL;
}

static uint64_t
mad_width_mask(unsigned int bits)
{
	return bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
}

/* the ceil((bit + bits) / 8) bytes a field touches, big endian, as one word */
static uint64_t
mad_word_get(const uint8_t *p, unsigned int n)
{
	uint64_t w = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		w = w << 8 | p[i];
	return w;
}

static uint64_t
mad_host_get(const struct pv_cm_msg *msg, const struct mad_field *f)
{
	const uint8_t *p = (const uint8_t *)msg + f->host_off;

	switch (f->host_len) {
	case 1:
		return *p;
	case 2:
		return *(const uint16_t *)p;
	case 4:
		return *(const uint32_t *)p;
	default:
		return *(const uint64_t *)p;
	}
}

static void
mad_host_set(struct pv_cm_msg *msg, const struct mad_field *f, uint64_t v)
{
	uint8_t *p = (uint8_t *)msg + f->host_off;

	/* the table never gives a field more wire bits than its host type holds */
	switch (f->host_len) {
	case 1:
		*p = (uint8_t)v;
		break;
	case 2:
		*(uint16_t *)p = (uint16_t)v;
		break;
	case 4:
		*(uint32_t *)p = (uint32_t)v;
		break;
	default:
		*(uint64_t *)p = v;
		break;
	}
}

/* write @p n fields of @p msg into @p mad, whose other bits are left alone */
static void
mad_fields_pack(const struct mad_field *f, unsigned int n, const struct pv_cm_msg *msg,
		uint8_t *mad)
{
	unsigned int nbytes, shift, i;
	uint64_t w, mask;

	for (; n > 0; f++, n--) {
		if (f->bits == 0) {
			memcpy(mad + f->off, (const uint8_t *)msg + f->host_off, f->host_len);
			continue;
		}
		nbytes = (f->bit + f->bits + 7) / 8;
		shift = nbytes * 8 - f->bit - f->bits;
		mask = mad_width_mask(f->bits) << shift;
		w = mad_word_get(mad + f->off, nbytes);
		w = (w & ~mask) | ((mad_host_get(msg, f) << shift) & mask);
		for (i = nbytes; i-- > 0; w >>= 8)
			mad[f->off + i] = (uint8_t)w;
	}
}

static void
mad_fields_unpack(const struct mad_field *f, unsigned int n, const uint8_t *mad,
		  struct pv_cm_msg *msg)
{
	unsigned int nbytes;
	uint64_t w;

	for (; n > 0; f++, n--) {
		if (f->bits == 0) {
			memcpy((uint8_t *)msg + f->host_off, mad + f->off, f->host_len);
			continue;
		}
		nbytes = (f->bit + f->bits + 7) / 8;
		w = mad_word_get(mad + f->off, nbytes) >> (nbytes * 8 - f->bit - f->bits);
		mad_host_set(msg, f, w & mad_width_mask(f->bits));
	}
}

/*
 * The length fields that count bytes of a 72-byte array: a larger value
 * is one no sender may use (IBA 12.6.7 REJ, 12.11.2 SIDR_REP, the APR).
 */
static int
cm_msg_lengths_check(const struct pv_cm_msg *msg)
{
	switch (msg->hdr.attr_id) {
	case PV_CM_ATTR_REJ:
		return (msg->rej.reject_info_length & 0x7f) > PV_CM_REJ_ARI_LENGTH;
	case PV_CM_ATTR_APR:
		return msg->apr.add_info_length > PV_CM_APR_INFO_LENGTH;
	case PV_CM_ATTR_SIDR_REP:
		return msg->sidr_rep.add_info_length > PV_CM_CLASS_PORT_INFO_SIZE;
	default:
		return 0;
	}
}

int
pv_cm_mad_encode(const struct pv_cm_msg *msg, uint8_t mad[PV_MAD_SIZE])
{
	const struct cm_attr *a;

	if (msg == NULL || mad == NULL)
		return -EINVAL;
	a = cm_attr_find(msg->hdr.attr_id);
	if (a == NULL || cm_msg_lengths_check(msg))
		return -EINVAL;
	memset(mad, 0, PV_MAD_SIZE);
	mad_fields_pack(mad_hdr_fields, sizeof(mad_hdr_fields) / sizeof(mad_hdr_fields[0]),
			msg, mad);
	mad_fields_pack(a->fields, a->n_fields, msg, mad);
	return 0;
}

int
pv_cm_mad_decode(const uint8_t *mad, size_t len, struct pv_cm_msg *msg)
{
	const struct cm_attr *a;

	if (mad == NULL || msg == NULL)
		return -EINVAL;
	if (len < PV_MAD_SIZE)
		return -EMSGSIZE;
	if (mad[0] != PV_MAD_BASE_VERSION || mad[1] != PV_MAD_CLASS_CM ||
	    mad[2] != PV_MAD_CM_CLASS_VERSION)
		return -EPROTONOSUPPORT;
	a = cm_attr_find((uint16_t)(mad[16] << 8 | mad[17]));
	if (a == NULL)
		return -ENOMSG;
	/* padding and the unused part of the union too: decoded messages compare */
	memset(msg, 0, sizeof(*msg));
	mad_fields_unpack(mad_hdr_fields, sizeof(mad_hdr_fields) / sizeof(mad_hdr_fields[0]),
			  mad, msg);
	mad_fields_unpack(a->fields, a->n_fields, mad, msg);
	return cm_msg_lengths_check(msg) ? -EBADMSG : 0;
}

const char *
pv_cm_attr_str(uint16_t attr_id)
{
	const struct cm_attr *a = cm_attr_find(attr_id);

	return a != NULL ? a->name : "unknown";
}

/* bytes of one address in struct cma_hdr (union cma_ip_addr) */
#define CMA_ADDR_SIZE	16
#define CMA_SRC_OFF	4
#define CMA_DST_OFF	(CMA_SRC_OFF + CMA_ADDR_SIZE)
static_assert(CMA_DST_OFF + CMA_ADDR_SIZE == PV_CMA_HDR_SIZE, "struct cma_hdr");

/* bytes of an address of @p ip_version, 0 for neither 4 nor 6 */
static unsigned int
cma_addr_len(unsigned int ip_version)
{
	return ip_version == 4 ? 4 : ip_version == 6 ? 16 : 0;
}

int
pv_cma_hdr_encode(const struct pv_cma_hdr *hdr, uint8_t buf[PV_CMA_HDR_SIZE])
{
	unsigned int alen;

	if (hdr == NULL || buf == NULL)
		return -EINVAL;
	if (!(hdr->family == AF_INET && hdr->ip_version == 4) &&
	    !(hdr->family == AF_INET6 && hdr->ip_version == 6))
		return -EINVAL;
	alen = cma_addr_len(hdr->ip_version);
	memset(buf, 0, PV_CMA_HDR_SIZE);
	buf[0] = hdr->cma_version;
	buf[1] = (uint8_t)(hdr->ip_version << 4);
	buf[2] = (uint8_t)(hdr->src_port >> 8);
	buf[3] = (uint8_t)hdr->src_port;
	/* an IPv4 address is the last word of the field (cma.c union cma_ip_addr) */
	memcpy(buf + CMA_DST_OFF - alen, hdr->src_addr, alen);
	memcpy(buf + PV_CMA_HDR_SIZE - alen, hdr->dst_addr, alen);
	return 0;
}

int
pv_cma_hdr_decode(const uint8_t *buf, size_t len, struct pv_cma_hdr *hdr)
{
	unsigned int alen;

	if (buf == NULL || hdr == NULL || len < PV_CMA_HDR_SIZE)
		return -EINVAL;
	alen = cma_addr_len(buf[1] >> 4);
	if (buf[0] != PV_CMA_VERSION || alen == 0)
		return -EPROTONOSUPPORT;
	memset(hdr, 0, sizeof(*hdr));
	hdr->cma_version = buf[0];
	hdr->ip_version = buf[1] >> 4;
	hdr->family = alen == 4 ? AF_INET : AF_INET6;
	hdr->src_port = (uint16_t)(buf[2] << 8 | buf[3]);
	memcpy(hdr->src_addr, buf + CMA_DST_OFF - alen, alen);
	memcpy(hdr->dst_addr, buf + PV_CMA_HDR_SIZE - alen, alen);
	return 0;
}

uint64_t
pv_cma_service_id(uint16_t ps, uint16_t port)
{
	return (uint64_t)ps << 16 | port;
}

uint32_t
pv_cma_flow_label(uint16_t src_port, uint16_t dst_port)
{
	/* cma.c cma_get_roce_udp_flow_label(): K&R hash of the two ports */
	return ((uint32_t)src_port * 31 + dst_port) & 0xfffff;
}
