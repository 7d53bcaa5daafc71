/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/* lib/cm/cm_msg.c: rc_pingpong and pollverbs connection message codecs. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "pv_cm.h"
#include "ut_common.h"

static const uint8_t ut_gid[16] = {
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0xff, 0xff, 0x0a, 0x63, 0x00, 0x01,
};
static const char ut_wgid[] = "00000000000000000000ffff0a630001";

static void
test_gid_to_wire_is_bytes_in_order(void)
{
	char w[PV_CM_WIRE_GID_LEN + 1];
	uint8_t g[16];
	int i;

	pv_cm_gid_to_wire(ut_gid, w);
	CU_ASSERT_STRING_EQUAL(w, ut_wgid);
	for (i = 0; i < 16; i++)
		g[i] = 0xf0 | i;
	pv_cm_gid_to_wire(g, w);
	CU_ASSERT_STRING_EQUAL(w, "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
}

static void
test_wire_to_gid_round_trip_and_errors(void)
{
	uint8_t g[16], keep[16];

	CU_ASSERT_EQUAL(pv_cm_wire_to_gid(ut_wgid, g), 0);
	CU_ASSERT_EQUAL(memcmp(g, ut_gid, 16), 0);
	CU_ASSERT_EQUAL(pv_cm_wire_to_gid("00000000000000000000FFFF0A630001", g), 0);
	CU_ASSERT_EQUAL(memcmp(g, ut_gid, 16), 0);

	memset(keep, 0x5a, sizeof(keep));
	memcpy(g, keep, 16);
	CU_ASSERT_EQUAL(pv_cm_wire_to_gid("0000000000000000000ffff0a630001", g), -EINVAL);
	CU_ASSERT_EQUAL(pv_cm_wire_to_gid("00000000000000000000ffff0a6300011", g), -EINVAL);
	CU_ASSERT_EQUAL(pv_cm_wire_to_gid("00000000000000000000ffff0a63000g", g), -EINVAL);
	CU_ASSERT_EQUAL(memcmp(g, keep, 16), 0);
	CU_ASSERT_EQUAL(pv_cm_wire_to_gid(NULL, g), -EINVAL);
	CU_ASSERT_EQUAL(pv_cm_wire_to_gid(ut_wgid, NULL), -EINVAL);
}

static void
test_pp_encode_exact_bytes(void)
{
	struct pv_cm_pp_dest d = { .lid = 0x12, .qpn = 0x000011, .psn = 0xabcdef };
	static const char want[] = "0012:000011:abcdef:00000000000000000000ffff0a630001";
	char msg[PV_CM_PP_MSG_LEN];

	CU_ASSERT_EQUAL(sizeof(want), PV_CM_PP_MSG_LEN);
	CU_ASSERT_EQUAL(sizeof("0000:000000:000000:00000000000000000000000000000000"),
			PV_CM_PP_MSG_LEN);
	memcpy(d.gid, ut_gid, 16);
	memset(msg, 0x77, sizeof(msg));
	CU_ASSERT_EQUAL(pv_cm_pp_encode(&d, msg), 0);
	CU_ASSERT_EQUAL(memcmp(msg, want, PV_CM_PP_MSG_LEN), 0);

	d.qpn = 0x1000000;
	CU_ASSERT_EQUAL(pv_cm_pp_encode(&d, msg), -EINVAL);
	d.qpn = 1;
	d.psn = 0x1000000;
	CU_ASSERT_EQUAL(pv_cm_pp_encode(&d, msg), -EINVAL);
	CU_ASSERT_EQUAL(pv_cm_pp_encode(NULL, msg), -EINVAL);
	CU_ASSERT_EQUAL(pv_cm_pp_encode(&d, NULL), -EINVAL);
}

static void
test_pp_decode_round_trip_and_errors(void)
{
	struct pv_cm_pp_dest in = { .lid = 0xffff, .qpn = 0xffffff, .psn = 0x123456 };
	struct pv_cm_pp_dest out, keep;
	char msg[PV_CM_PP_MSG_LEN];

	memcpy(in.gid, ut_gid, 16);
	CU_ASSERT_EQUAL(pv_cm_pp_encode(&in, msg), 0);
	CU_ASSERT_EQUAL(pv_cm_pp_decode(msg, sizeof(msg), &out), 0);
	CU_ASSERT_EQUAL(out.lid, in.lid);
	CU_ASSERT_EQUAL(out.qpn, in.qpn);
	CU_ASSERT_EQUAL(out.psn, in.psn);
	CU_ASSERT_EQUAL(memcmp(out.gid, in.gid, 16), 0);

	memset(&keep, 0x3c, sizeof(keep));
	out = keep;
	/* no NUL within len */
	CU_ASSERT_EQUAL(pv_cm_pp_decode(msg, 20, &out), -EINVAL);
	CU_ASSERT_EQUAL(pv_cm_pp_decode("0000:1000000:000001:00000000000000000000ffff0a630001",
					64, &out), -EINVAL);
	CU_ASSERT_EQUAL(pv_cm_pp_decode("10000:000001:000001:00000000000000000000ffff0a630001",
					64, &out), -EINVAL);
	CU_ASSERT_EQUAL(pv_cm_pp_decode("0000:000001:000001:00000000000000000000ffff0a6300",
					64, &out), -EINVAL);
	CU_ASSERT_EQUAL(pv_cm_pp_decode("0000;000001:000001:00000000000000000000ffff0a630001",
					64, &out), -EINVAL);
	CU_ASSERT_EQUAL(pv_cm_pp_decode(":000001:000001:00000000000000000000ffff0a630001",
					64, &out), -EINVAL);
	CU_ASSERT_EQUAL(memcmp(&out, &keep, sizeof(out)), 0);
	CU_ASSERT_EQUAL(pv_cm_pp_decode(NULL, 64, &out), -EINVAL);
	CU_ASSERT_EQUAL(pv_cm_pp_decode(msg, sizeof(msg), NULL), -EINVAL);

	/* short fields are what sscanf("%x:...") accepts too */
	CU_ASSERT_EQUAL(pv_cm_pp_decode("0:1a:2:00000000000000000000ffff0a630001", 64, &out), 0);
	CU_ASSERT_EQUAL(out.lid, 0);
	CU_ASSERT_EQUAL(out.qpn, 0x1a);
	CU_ASSERT_EQUAL(out.psn, 2);
}

static void
test_conn_encode_layout(void)
{
	struct pv_cm_conn_info i = {
		.qpn = 0x123456, .psn = 0xfedcba, .rkey = 0xdeadbeef, .lid = 0x0102,
		.out_reads = 16, .mtu = 5, .addr = 0x0011223344556677ull,
		.len = 0x8899aabbccddeeffull,
	};
	uint8_t msg[PV_CM_CONN_MSG_LEN];
	static const uint8_t head[40] = {
		'P', 'V', 'C', 'M', 0x00, 0x01, 0x01, 0x02,
		0x00, 0x12, 0x34, 0x56, 0x00, 0xfe, 0xdc, 0xba,
		0xde, 0xad, 0xbe, 0xef, 16, 5, 0, 0,
		0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
		0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
	};
	static const uint8_t zero[8];

	memcpy(i.gid, ut_gid, 16);
	memset(msg, 0xee, sizeof(msg));
	CU_ASSERT_EQUAL(pv_cm_conn_encode(&i, msg), 0);
	CU_ASSERT_EQUAL(memcmp(msg, head, sizeof(head)), 0);
	CU_ASSERT_EQUAL(memcmp(msg + 40, ut_gid, 16), 0);
	CU_ASSERT_EQUAL(memcmp(msg + 56, zero, 8), 0);

	i.qpn = 0x1000000;
	CU_ASSERT_EQUAL(pv_cm_conn_encode(&i, msg), -EINVAL);
	i.qpn = 1;
	i.psn = 0x1000000;
	CU_ASSERT_EQUAL(pv_cm_conn_encode(&i, msg), -EINVAL);
	CU_ASSERT_EQUAL(pv_cm_conn_encode(NULL, msg), -EINVAL);
	CU_ASSERT_EQUAL(pv_cm_conn_encode(&i, NULL), -EINVAL);
}

static void
test_conn_decode_round_trip_and_errors(void)
{
	struct pv_cm_conn_info in = {
		.qpn = 0xffffff, .psn = 7, .rkey = 0x80000001, .lid = 0,
		.out_reads = 1, .mtu = 3, .addr = 0x7f0000001000ull, .len = 8 << 20,
	};
	struct pv_cm_conn_info out, keep;
	uint8_t msg[PV_CM_CONN_MSG_LEN];

	memcpy(in.gid, ut_gid, 16);
	CU_ASSERT_EQUAL(pv_cm_conn_encode(&in, msg), 0);
	CU_ASSERT_EQUAL(pv_cm_conn_decode(msg, &out), 0);
	CU_ASSERT_EQUAL(memcmp(&in, &out, sizeof(in)), 0);

	memset(&keep, 0x11, sizeof(keep));
	out = keep;
	msg[0] = 'X';
	CU_ASSERT_EQUAL(pv_cm_conn_decode(msg, &out), -EPROTO);
	msg[0] = 'P';
	msg[5] = 2;
	CU_ASSERT_EQUAL(pv_cm_conn_decode(msg, &out), -EPROTO);
	msg[5] = 1;
	msg[8] = 1;	/* qpn 0x1ffffff */
	CU_ASSERT_EQUAL(pv_cm_conn_decode(msg, &out), -EINVAL);
	msg[8] = 0;
	msg[12] = 1;	/* psn */
	CU_ASSERT_EQUAL(pv_cm_conn_decode(msg, &out), -EINVAL);
	CU_ASSERT_EQUAL(memcmp(&out, &keep, sizeof(out)), 0);
	CU_ASSERT_EQUAL(pv_cm_conn_decode(NULL, &out), -EINVAL);
	CU_ASSERT_EQUAL(pv_cm_conn_decode(msg, NULL), -EINVAL);
}

static const struct ut_case ut_cm_msg_cases[] = {
	{ "gid_to_wire_is_bytes_in_order", test_gid_to_wire_is_bytes_in_order },
	{ "wire_to_gid_round_trip_and_errors", test_wire_to_gid_round_trip_and_errors },
	{ "pp_encode_exact_bytes", test_pp_encode_exact_bytes },
	{ "pp_decode_round_trip_and_errors", test_pp_decode_round_trip_and_errors },
	{ "conn_encode_layout", test_conn_encode_layout },
	{ "conn_decode_round_trip_and_errors", test_conn_decode_round_trip_and_errors },
	{ NULL, NULL },
};

static const struct ut_suite ut_cm_msg_suite = { "cm_msg", NULL, NULL, ut_cm_msg_cases };

int
main(void)
{
	return ut_cunit_run_one(&ut_cm_msg_suite);
}
