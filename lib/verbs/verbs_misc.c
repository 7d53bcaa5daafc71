/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The smaller verbs of verbs.h v44 that no driver implements here: their
 * arguments are checked as libibverbs checks them, then EOPNOTSUPP (listed
 * as missing in doc/guides/prog_guide/verbs.rst). pv_get_pkey_index() and
 * pv_is_fork_initialized() are real.
 */

#include <errno.h>

#include "verbs_priv.h"

enum pv_fork_status
pv_is_fork_initialized(void)
{
	return PV_FORK_UNNEEDED;
}

int
pv_get_pkey_index(struct pv_context *context, uint8_t port_num, pv_be16 pkey)
{
	struct pv_port_attr pattr;
	pv_be16 entry;
	int i;

	if (context == NULL || pv_query_port(context, port_num, &pattr) != 0) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < pattr.pkey_tbl_len; i++)
		if (pv_query_pkey(context, port_num, i, &entry) == 0 && entry == pkey)
			return i;
	errno = ENOENT;
	return -1;
}

int
pv_modify_cq(struct pv_cq *cq, struct pv_modify_cq_attr *attr)
{
	if (cq == NULL || attr == NULL || (attr->attr_mask & ~(uint32_t)PV_CQ_ATTR_MODERATE))
		return EINVAL;
	return EOPNOTSUPP;
}

#define VERBS_QP_OPEN_NEEDED (PV_QP_OPEN_ATTR_NUM | PV_QP_OPEN_ATTR_XRCD | PV_QP_OPEN_ATTR_TYPE)

struct pv_qp *
pv_open_qp(struct pv_context *context, struct pv_qp_open_attr *qp_open_attr)
{
	if (context == NULL || qp_open_attr == NULL ||
	    (qp_open_attr->comp_mask & VERBS_QP_OPEN_NEEDED) != VERBS_QP_OPEN_NEEDED ||
	    (qp_open_attr->comp_mask & ~(uint32_t)(PV_QP_OPEN_ATTR_RESERVED - 1)))
		return verbs_err_ptr(EINVAL);
	return verbs_err_ptr(EOPNOTSUPP);
}

int
pv_modify_qp_rate_limit(struct pv_qp *qp, struct pv_qp_rate_limit_attr *attr)
{
	if (qp == NULL || attr == NULL)
		return EINVAL;
	return EOPNOTSUPP;
}

int
pv_query_rt_values_ex(struct pv_context *context, struct pv_values_ex *values)
{
	if (context == NULL || values == NULL)
		return EINVAL;
	return EOPNOTSUPP;
}

int
pv_resolve_eth_l2_from_gid(struct pv_context *context, struct pv_ah_attr *attr,
			   uint8_t eth_mac[6], uint16_t *vid)
{
	if (context == NULL || attr == NULL || eth_mac == NULL || vid == NULL)
		return EINVAL;
	return EOPNOTSUPP;
}

struct pv_mr *
pv_reg_dmabuf_mr(struct pv_pd *pd, uint64_t offset __rte_unused, size_t length __rte_unused,
		 uint64_t iova __rte_unused, int fd __rte_unused, int access __rte_unused)
{
	if (pd == NULL)
		return verbs_err_ptr(EINVAL);
	return verbs_err_ptr(EOPNOTSUPP);
}
