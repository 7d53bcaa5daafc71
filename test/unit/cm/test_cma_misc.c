/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Suite cma_misc: lib/cm/cma_misc.c, the self-contained calls of
 * pv_rdma_cma.h. Every event name (and librdmacm's own, when it is
 * installed), pv_rdma_getaddrinfo() on numeric IPv4 and IPv6 addresses,
 * passive and active, from hints alone, its errors (EAI_* returned, errno
 * set), pv_rdma_freeaddrinfo(NULL); pv_rdma_get_devices() before pv_init()
 * and then over a softroce device on a net_ring vdev; multicast and ECE
 * refused.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <string.h>

#include <CUnit/Basic.h>

#ifdef UT_HAVE_RDMACM
#include <rdma/rdma_cma.h>
#endif

#include "pv_rdma_cma.h"
#include "pv_rtc.h"
#include "ut_common.h"

static int eal_up;	/* pv_init() succeeded (in test_devices) */

static void
test_event_str(void)
{
	static const char *const names[] = {
		"RDMA_CM_EVENT_ADDR_RESOLVED",
		"RDMA_CM_EVENT_ADDR_ERROR",
		"RDMA_CM_EVENT_ROUTE_RESOLVED",
		"RDMA_CM_EVENT_ROUTE_ERROR",
		"RDMA_CM_EVENT_CONNECT_REQUEST",
		"RDMA_CM_EVENT_CONNECT_RESPONSE",
		"RDMA_CM_EVENT_CONNECT_ERROR",
		"RDMA_CM_EVENT_UNREACHABLE",
		"RDMA_CM_EVENT_REJECTED",
		"RDMA_CM_EVENT_ESTABLISHED",
		"RDMA_CM_EVENT_DISCONNECTED",
		"RDMA_CM_EVENT_DEVICE_REMOVAL",
		"RDMA_CM_EVENT_MULTICAST_JOIN",
		"RDMA_CM_EVENT_MULTICAST_ERROR",
		"RDMA_CM_EVENT_ADDR_CHANGE",
		"RDMA_CM_EVENT_TIMEWAIT_EXIT",
	};
	static const int out_of_range[] = { 16, 17, 1000, -1, 0x7fffffff };
	unsigned int i;

	CU_ASSERT_EQUAL(PV_RDMA_CM_EVENT_TIMEWAIT_EXIT, 15);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		CU_ASSERT_STRING_EQUAL(pv_rdma_event_str((enum pv_rdma_cm_event_type)i),
				       names[i]);
#ifdef UT_HAVE_RDMACM
		CU_ASSERT_STRING_EQUAL(pv_rdma_event_str((enum pv_rdma_cm_event_type)i),
				       rdma_event_str((enum rdma_cm_event_type)i));
#endif
	}
	for (i = 0; i < sizeof(out_of_range) / sizeof(out_of_range[0]); i++) {
		CU_ASSERT_STRING_EQUAL(
			pv_rdma_event_str((enum pv_rdma_cm_event_type)out_of_range[i]),
			"UNKNOWN EVENT");
#ifdef UT_HAVE_RDMACM
		CU_ASSERT_STRING_EQUAL(rdma_event_str((enum rdma_cm_event_type)out_of_range[i]),
				       "UNKNOWN EVENT");
#endif
	}
}

/* @p sa (@p len bytes) is @p ip (text, either family) port @p port */
static void
check_addr(const struct sockaddr *sa, socklen_t len, const char *ip, uint16_t port)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)sa;
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)sa;
	int v6 = strchr(ip, ':') != NULL;
	char text[INET6_ADDRSTRLEN];

	CU_ASSERT_PTR_NOT_NULL_FATAL(sa);
	CU_ASSERT_EQUAL_FATAL(sa->sa_family, v6 ? AF_INET6 : AF_INET);
	CU_ASSERT_EQUAL(len, v6 ? sizeof(*sin6) : sizeof(*sin));
	CU_ASSERT_EQUAL(ntohs(v6 ? sin6->sin6_port : sin->sin_port), port);
	CU_ASSERT_PTR_NOT_NULL_FATAL(inet_ntop(sa->sa_family, v6 ? (const void *)&sin6->sin6_addr :
					       (const void *)&sin->sin_addr, text,
					       sizeof(text)));
	CU_ASSERT_STRING_EQUAL(text, ip);
}

/* active side, numeric IPv4: the destination, RC over the TCP port space */
static void
test_getaddrinfo_ipv4(void)
{
	struct pv_rdma_addrinfo hints, *res = NULL;

	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = PV_RAI_NUMERICHOST;
	CU_ASSERT_EQUAL_FATAL(pv_rdma_getaddrinfo("192.0.2.1", "7471", &hints, &res), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(res);
	CU_ASSERT_EQUAL(res->ai_flags, 0);
	CU_ASSERT_EQUAL(res->ai_family, AF_INET);
	CU_ASSERT_EQUAL(res->ai_qp_type, PV_QPT_RC);
	CU_ASSERT_EQUAL(res->ai_port_space, PV_RDMA_PS_TCP);
	check_addr(res->ai_dst_addr, res->ai_dst_len, "192.0.2.1", 7471);
	CU_ASSERT_PTR_NULL(res->ai_src_addr);
	CU_ASSERT_EQUAL(res->ai_src_len, 0);
	CU_ASSERT_PTR_NULL(res->ai_src_canonname);
	CU_ASSERT_PTR_NULL(res->ai_dst_canonname);
	CU_ASSERT_PTR_NULL(res->ai_route);
	CU_ASSERT_PTR_NULL(res->ai_connect);
	CU_ASSERT_PTR_NULL(res->ai_next);
	pv_rdma_freeaddrinfo(res);

	/* no hints at all: getaddrinfo's first answer, a stream: RC, TCP */
	res = NULL;
	CU_ASSERT_EQUAL_FATAL(pv_rdma_getaddrinfo("127.0.0.1", NULL, NULL, &res), 0);
	CU_ASSERT_EQUAL(res->ai_qp_type, PV_QPT_RC);
	CU_ASSERT_EQUAL(res->ai_port_space, PV_RDMA_PS_TCP);
	check_addr(res->ai_dst_addr, res->ai_dst_len, "127.0.0.1", 0);
	pv_rdma_freeaddrinfo(res);

	/* a source address in the hints comes back with the destination */
	{
		struct sockaddr_in src = { .sin_family = AF_INET, .sin_port = htons(9) };

		inet_pton(AF_INET, "192.0.2.2", &src.sin_addr);
		hints.ai_src_addr = (struct sockaddr *)&src;
		hints.ai_src_len = sizeof(src);
		res = NULL;
		CU_ASSERT_EQUAL_FATAL(pv_rdma_getaddrinfo("192.0.2.1", "7471", &hints, &res), 0);
		check_addr(res->ai_dst_addr, res->ai_dst_len, "192.0.2.1", 7471);
		check_addr(res->ai_src_addr, res->ai_src_len, "192.0.2.2", 9);
		CU_ASSERT_PTR_NOT_EQUAL(res->ai_src_addr, hints.ai_src_addr);	/* a copy */
		pv_rdma_freeaddrinfo(res);
	}
}

/* numeric IPv6; a UD QP type asks for the UDP port space */
static void
test_getaddrinfo_ipv6(void)
{
	struct pv_rdma_addrinfo hints, *res = NULL;

	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = PV_RAI_NUMERICHOST;
	hints.ai_qp_type = PV_QPT_UD;
	CU_ASSERT_EQUAL_FATAL(pv_rdma_getaddrinfo("2001:db8::5", "4791", &hints, &res), 0);
	CU_ASSERT_EQUAL(res->ai_family, AF_INET6);
	CU_ASSERT_EQUAL(res->ai_qp_type, PV_QPT_UD);
	CU_ASSERT_EQUAL(res->ai_port_space, PV_RDMA_PS_UDP);
	check_addr(res->ai_dst_addr, res->ai_dst_len, "2001:db8::5", 4791);
	CU_ASSERT_PTR_NULL(res->ai_src_addr);
	pv_rdma_freeaddrinfo(res);

	/* the hints' port space is kept as given */
	hints.ai_qp_type = PV_QPT_RC;
	hints.ai_port_space = PV_RDMA_PS_IB;
	res = NULL;
	CU_ASSERT_EQUAL_FATAL(pv_rdma_getaddrinfo("::1", "1", &hints, &res), 0);
	CU_ASSERT_EQUAL(res->ai_qp_type, PV_QPT_RC);
	CU_ASSERT_EQUAL(res->ai_port_space, PV_RDMA_PS_IB);
	check_addr(res->ai_dst_addr, res->ai_dst_len, "::1", 1);
	pv_rdma_freeaddrinfo(res);
}

/* passive: the source address (a wildcard without node), RAI_PASSIVE only */
static void
test_getaddrinfo_passive(void)
{
	struct pv_rdma_addrinfo hints, *res = NULL;

	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = PV_RAI_PASSIVE | PV_RAI_NOROUTE;
	hints.ai_family = AF_INET;
	CU_ASSERT_EQUAL_FATAL(pv_rdma_getaddrinfo(NULL, "7471", &hints, &res), 0);
	CU_ASSERT_EQUAL(res->ai_flags, PV_RAI_PASSIVE);
	CU_ASSERT_EQUAL(res->ai_family, AF_INET);
	check_addr(res->ai_src_addr, res->ai_src_len, "0.0.0.0", 7471);
	CU_ASSERT_PTR_NULL(res->ai_dst_addr);
	CU_ASSERT_EQUAL(res->ai_dst_len, 0);
	pv_rdma_freeaddrinfo(res);

	hints.ai_flags = PV_RAI_PASSIVE | PV_RAI_NUMERICHOST;
	hints.ai_family = AF_INET6;
	res = NULL;
	CU_ASSERT_EQUAL_FATAL(pv_rdma_getaddrinfo("2001:db8::7", "20049", &hints, &res), 0);
	check_addr(res->ai_src_addr, res->ai_src_len, "2001:db8::7", 20049);
	CU_ASSERT_PTR_NULL(res->ai_dst_addr);
	pv_rdma_freeaddrinfo(res);
}

/* neither node nor service: the hints, copied */
static void
test_getaddrinfo_hints_only(void)
{
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(7) };
	struct pv_rdma_addrinfo hints, *res = NULL;

	inet_pton(AF_INET, "198.51.100.3", &dst.sin_addr);
	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = PV_RAI_NOROUTE;
	hints.ai_family = AF_INET;
	hints.ai_qp_type = PV_QPT_UD;
	hints.ai_port_space = PV_RDMA_PS_UDP;
	hints.ai_dst_addr = (struct sockaddr *)&dst;
	hints.ai_dst_len = sizeof(dst);
	CU_ASSERT_EQUAL_FATAL(pv_rdma_getaddrinfo(NULL, NULL, &hints, &res), 0);
	CU_ASSERT_EQUAL(res->ai_flags, PV_RAI_NOROUTE);
	CU_ASSERT_EQUAL(res->ai_family, AF_INET);
	CU_ASSERT_EQUAL(res->ai_qp_type, PV_QPT_UD);
	CU_ASSERT_EQUAL(res->ai_port_space, PV_RDMA_PS_UDP);
	check_addr(res->ai_dst_addr, res->ai_dst_len, "198.51.100.3", 7);
	CU_ASSERT_PTR_NOT_EQUAL(res->ai_dst_addr, hints.ai_dst_addr);
	CU_ASSERT_PTR_NULL(res->ai_src_addr);
	pv_rdma_freeaddrinfo(res);
}

/* failures: getaddrinfo's EAI_* code returned (librdmacm 44), errno set from it */
static void
test_getaddrinfo_errors(void)
{
	struct pv_rdma_addrinfo hints, *res = NULL, *keep = (struct pv_rdma_addrinfo *)&hints;

	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = PV_RAI_NUMERICHOST;
	res = keep;
	errno = 0;
	CU_ASSERT_EQUAL(pv_rdma_getaddrinfo("not.an.address", "7471", &hints, &res), EAI_NONAME);
	CU_ASSERT_EQUAL(errno, EADDRNOTAVAIL);
	CU_ASSERT_PTR_EQUAL(res, keep);		/* untouched */
	errno = 0;
	CU_ASSERT_EQUAL(pv_rdma_getaddrinfo("192.0.2.1", "no-such-service-xyz", &hints, &res),
			EAI_SERVICE);
	CU_ASSERT_EQUAL(errno, EPROTONOSUPPORT);
	hints.ai_family = AF_INET;
	errno = 0;
	CU_ASSERT_NOT_EQUAL(pv_rdma_getaddrinfo("2001:db8::5", NULL, &hints, &res), 0);
	CU_ASSERT(errno == EADDRNOTAVAIL || errno == EAFNOSUPPORT);
	/* a UD QP in the TCP port space: a datagram socket of protocol TCP */
	hints.ai_family = 0;
	hints.ai_qp_type = PV_QPT_UD;
	hints.ai_port_space = PV_RDMA_PS_TCP;
	errno = 0;
	CU_ASSERT_NOT_EQUAL(pv_rdma_getaddrinfo("192.0.2.1", "1", &hints, &res), 0);
	CU_ASSERT_EQUAL(errno, EPROTONOSUPPORT);
	CU_ASSERT_PTR_EQUAL(res, keep);

	/* no node, service nor hints; no result pointer */
	errno = 0;
	CU_ASSERT_EQUAL(pv_rdma_getaddrinfo(NULL, NULL, NULL, &res), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_EQUAL(pv_rdma_getaddrinfo("192.0.2.1", NULL, NULL, NULL), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	/* a numeric AF_IB address: no IB addressing in pollverbs */
	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = PV_RAI_FAMILY | PV_RAI_NUMERICHOST;
	hints.ai_family = AF_IB;
	errno = 0;
	CU_ASSERT_EQUAL(pv_rdma_getaddrinfo("fe80::1", NULL, &hints, &res), -1);
	CU_ASSERT_EQUAL(errno, EAFNOSUPPORT);
	CU_ASSERT_PTR_EQUAL(res, keep);

	pv_rdma_freeaddrinfo(NULL);
}

/* multicast and ECE are not implemented */
static void
test_unsupported(void)
{
	struct sockaddr_in mc = { .sin_family = AF_INET };
	struct pv_rdma_cm_join_mc_attr_ex mca = { 0 };
	struct pv_ece ece = { 0 };

	errno = 0;
	CU_ASSERT_EQUAL(pv_rdma_join_multicast(NULL, (struct sockaddr *)&mc, NULL), -1);
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	errno = 0;
	CU_ASSERT_EQUAL(pv_rdma_leave_multicast(NULL, (struct sockaddr *)&mc), -1);
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	errno = 0;
	CU_ASSERT_EQUAL(pv_rdma_join_multicast_ex(NULL, &mca, NULL), -1);
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	errno = 0;
	CU_ASSERT_EQUAL(pv_rdma_set_local_ece(NULL, &ece), -1);
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	errno = 0;
	CU_ASSERT_EQUAL(pv_rdma_get_remote_ece(NULL, &ece), -1);
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
}

/* before pv_init(): no device (ENODEV), the count set to 0 as librdmacm does */
static void
test_devices_before_init(void)
{
	int n = 42;

	errno = 0;
	CU_ASSERT_PTR_NULL(pv_rdma_get_devices(&n));
	CU_ASSERT_EQUAL(errno, ENODEV);
	CU_ASSERT_EQUAL(n, 0);
	errno = 0;
	CU_ASSERT_PTR_NULL(pv_rdma_get_devices(NULL));
	CU_ASSERT_EQUAL(errno, ENODEV);
	pv_rdma_free_devices(NULL);
}

/* after pv_init() with one softroce device: it, opened, then closed by free */
static void
test_devices(void)
{
	struct pv_device_attr attr;
	struct pv_context **list, **again;
	int n = -1, ret;

	ret = ut_pv_init("test_cma_misc", 256, "ut_cma_misc", "0",
			 "--vdev=net_ring0", "--pv-dev=softroce:port=net_ring0,ip=10.0.11.1,"
			 "progress=app", NULL);
	if (ret < 0) {
		/* no EAL or no ring PMD here: the rest needs a device */
		printf("pv_init: %s: skipped ", strerror(-ret));
		return;
	}
	eal_up = 1;
	list = pv_rdma_get_devices(&n);
	CU_ASSERT_PTR_NOT_NULL_FATAL(list);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(list[0]);
	CU_ASSERT_PTR_NULL(list[1]);
	CU_ASSERT_STRING_EQUAL(pv_get_device_name(list[0]->device), "sroce0");
	CU_ASSERT_EQUAL(pv_query_device(list[0], &attr), 0);
	/* every call opens its own contexts */
	again = pv_rdma_get_devices(NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(again);
	CU_ASSERT_PTR_NOT_EQUAL(again[0], list[0]);
	pv_rdma_free_devices(again);
	pv_rdma_free_devices(list);
}

static const struct ut_case ut_cma_misc_cases[] = {
	{ "event_str", test_event_str, NULL },
	{ "getaddrinfo_ipv4", test_getaddrinfo_ipv4, NULL },
	{ "getaddrinfo_ipv6", test_getaddrinfo_ipv6, NULL },
	{ "getaddrinfo_passive", test_getaddrinfo_passive, NULL },
	{ "getaddrinfo_hints_only", test_getaddrinfo_hints_only, NULL },
	{ "getaddrinfo_errors", test_getaddrinfo_errors, NULL },
	{ "multicast_ece_unsupported", test_unsupported, NULL },
	{ "devices_before_pv_init", test_devices_before_init, NULL },
	{ "devices", test_devices, NULL },
	{ NULL, NULL, NULL },
};

static const struct ut_suite ut_cma_misc_suite = { "cma_misc", NULL, NULL, ut_cma_misc_cases };

int
main(void)
{
	int fails = ut_cunit_run_one(&ut_cma_misc_suite);

	if (eal_up)
		pv_cleanup();
	return fails;
}
