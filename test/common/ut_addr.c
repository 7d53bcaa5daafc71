/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/* RoCEv2 addresses of the tests: IPv4-mapped GIDs and the AH towards them. */

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "ut_common.h"

int
ut_gid_ipv4(const char *ip, union pv_gid *gid_p)
{
	struct in_addr a;

	if (inet_pton(AF_INET, ip, &a) != 1)
		return -EINVAL;
	memset(gid_p, 0, sizeof(*gid_p));
	gid_p->raw[10] = 0xff;
	gid_p->raw[11] = 0xff;
	memcpy(&gid_p->raw[12], &a, sizeof(a));
	return 0;
}

int
ut_ah_attr_ipv4(const char *ip, struct pv_ah_attr *a_p)
{
	memset(a_p, 0, sizeof(*a_p));
	a_p->is_global = 1;
	a_p->port_num = 1;
	a_p->grh.sgid_index = 1;
	a_p->grh.hop_limit = 64;
	return ut_gid_ipv4(ip, &a_p->grh.dgid);
}
