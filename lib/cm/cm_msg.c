/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Encoders and decoders of the messages two processes exchange before
 * connecting: rc_pingpong's text address and pollverbs' binary one. Pure
 * functions, no I/O: the callers move the bytes with pv_cm_oob_*().
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pv_cm.h"

#define CM_24BIT_MAX 0xffffffu

static const char msg_conn_magic[4] = { 'P', 'V', 'C', 'M' };

static int
msg_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

void
pv_cm_gid_to_wire(const uint8_t gid[16], char *wgid)
{
	static const char hex[] = "0123456789abcdef";
	int i;

	/*
	 * rc_pingpong prints four htobe32() words with %08x: on any host that
	 * is the sixteen bytes in memory order.
	 */
	for (i = 0; i < 16; i++) {
		wgid[2 * i] = hex[gid[i] >> 4];
		wgid[2 * i + 1] = hex[gid[i] & 0xf];
	}
	wgid[PV_CM_WIRE_GID_LEN] = '\0';
}

int
pv_cm_wire_to_gid(const char *wgid, uint8_t gid[16])
{
	uint8_t tmp[16];
	int i, hi, lo;

	if (wgid == NULL || gid == NULL)
		return -EINVAL;
	for (i = 0; i < 16; i++) {
		hi = msg_hex_digit(wgid[2 * i]);
		if (hi < 0)
			return -EINVAL;
		lo = msg_hex_digit(wgid[2 * i + 1]);
		if (lo < 0)
			return -EINVAL;
		tmp[i] = hi << 4 | lo;
	}
	if (wgid[PV_CM_WIRE_GID_LEN] != '\0')
		return -EINVAL;
	memcpy(gid, tmp, sizeof(tmp));
	return 0;
}

int
pv_cm_pp_encode(const struct pv_cm_pp_dest *dest, char msg[PV_CM_PP_MSG_LEN])
{
	char wgid[PV_CM_WIRE_GID_LEN + 1];

	if (dest == NULL || msg == NULL || dest->qpn > CM_24BIT_MAX || dest->psn > CM_24BIT_MAX)
		return -EINVAL;
	pv_cm_gid_to_wire(dest->gid, wgid);
	/* the peer reads all PV_CM_PP_MSG_LEN bytes: send no stack garbage */
	memset(msg, 0, PV_CM_PP_MSG_LEN);
	snprintf(msg, PV_CM_PP_MSG_LEN, "%04x:%06x:%06x:%s", dest->lid, dest->qpn, dest->psn,
		 wgid);
	return 0;
}

/* Parse one hex field of at most @p max_digits digits ending at @p end_char. */
static int
msg_pp_field(const char **pp, int max_digits, char end_char, uint32_t *val_p)
{
	const char *p = *pp;
	uint32_t val = 0;
	int n = 0, d;

	while ((d = msg_hex_digit(*p)) >= 0) {
		if (++n > max_digits)
			return -EINVAL;
		val = val << 4 | d;
		p++;
	}
	if (n == 0 || *p != end_char)
		return -EINVAL;
	*pp = p + 1;
	*val_p = val;
	return 0;
}

int
pv_cm_pp_decode(const char *msg, size_t len, struct pv_cm_pp_dest *dest_p)
{
	struct pv_cm_pp_dest d;
	uint32_t lid;
	const char *p = msg;

	if (msg == NULL || dest_p == NULL || memchr(msg, '\0', len) == NULL)
		return -EINVAL;
	memset(&d, 0, sizeof(d));
	if (msg_pp_field(&p, 4, ':', &lid) < 0 || msg_pp_field(&p, 6, ':', &d.qpn) < 0 ||
	    msg_pp_field(&p, 6, ':', &d.psn) < 0 || pv_cm_wire_to_gid(p, d.gid) < 0)
		return -EINVAL;
	d.lid = lid;
	*dest_p = d;
	return 0;
}

static void
msg_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void
msg_put_be32(uint8_t *p, uint32_t v)
{
	msg_put_be16(p, v >> 16);
	msg_put_be16(p + 2, v);
}

static void
msg_put_be64(uint8_t *p, uint64_t v)
{
	msg_put_be32(p, v >> 32);
	msg_put_be32(p + 4, v);
}

static uint16_t
msg_get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
msg_get_be32(const uint8_t *p)
{
	return (uint32_t)msg_get_be16(p) << 16 | msg_get_be16(p + 2);
}

static uint64_t
msg_get_be64(const uint8_t *p)
{
	return (uint64_t)msg_get_be32(p) << 32 | msg_get_be32(p + 4);
}

/* byte offsets of the connection message fields (see pv_cm_conn_encode()) */
enum {
	CM_CONN_MAGIC = 0,
	CM_CONN_VERSION = 4,
	CM_CONN_LID = 6,
	CM_CONN_QPN = 8,
	CM_CONN_PSN = 12,
	CM_CONN_RKEY = 16,
	CM_CONN_OUT_READS = 20,
	CM_CONN_MTU = 21,
	CM_CONN_ADDR = 24,
	CM_CONN_LEN = 32,
	CM_CONN_GID = 40,
	CM_CONN_END = 56,	/* 8 reserved zero bytes follow */
};

int
pv_cm_conn_encode(const struct pv_cm_conn_info *info, uint8_t msg[PV_CM_CONN_MSG_LEN])
{
	if (info == NULL || msg == NULL || info->qpn > CM_24BIT_MAX || info->psn > CM_24BIT_MAX)
		return -EINVAL;
	memset(msg, 0, PV_CM_CONN_MSG_LEN);
	memcpy(msg + CM_CONN_MAGIC, msg_conn_magic, sizeof(msg_conn_magic));
	msg_put_be16(msg + CM_CONN_VERSION, PV_CM_CONN_VERSION);
	msg_put_be16(msg + CM_CONN_LID, info->lid);
	msg_put_be32(msg + CM_CONN_QPN, info->qpn);
	msg_put_be32(msg + CM_CONN_PSN, info->psn);
	msg_put_be32(msg + CM_CONN_RKEY, info->rkey);
	msg[CM_CONN_OUT_READS] = info->out_reads;
	msg[CM_CONN_MTU] = info->mtu;
	msg_put_be64(msg + CM_CONN_ADDR, info->addr);
	msg_put_be64(msg + CM_CONN_LEN, info->len);
	memcpy(msg + CM_CONN_GID, info->gid, sizeof(info->gid));
	return 0;
}

int
pv_cm_conn_decode(const uint8_t msg[PV_CM_CONN_MSG_LEN], struct pv_cm_conn_info *info_p)
{
	struct pv_cm_conn_info info;

	if (msg == NULL || info_p == NULL)
		return -EINVAL;
	if (memcmp(msg + CM_CONN_MAGIC, msg_conn_magic, sizeof(msg_conn_magic)) != 0 ||
	    msg_get_be16(msg + CM_CONN_VERSION) != PV_CM_CONN_VERSION)
		return -EPROTO;
	memset(&info, 0, sizeof(info));
	info.lid = msg_get_be16(msg + CM_CONN_LID);
	info.qpn = msg_get_be32(msg + CM_CONN_QPN);
	info.psn = msg_get_be32(msg + CM_CONN_PSN);
	info.rkey = msg_get_be32(msg + CM_CONN_RKEY);
	info.out_reads = msg[CM_CONN_OUT_READS];
	info.mtu = msg[CM_CONN_MTU];
	info.addr = msg_get_be64(msg + CM_CONN_ADDR);
	info.len = msg_get_be64(msg + CM_CONN_LEN);
	memcpy(info.gid, msg + CM_CONN_GID, sizeof(info.gid));
	if (info.qpn > CM_24BIT_MAX || info.psn > CM_24BIT_MAX)
		return -EINVAL;
	*info_p = info;
	return 0;
}
