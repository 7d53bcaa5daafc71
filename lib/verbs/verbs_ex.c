/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Extended device verbs (ibv_query_device_ex(3), ibv_query_gid_ex(3)) and
 * the verbs of features no pollverbs driver has (on-demand paging, device
 * memory, null MRs, ECE, import): their argument checks, then EOPNOTSUPP,
 * as libibverbs answers for a provider without them.
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>

#include "verbs_priv.h"

int
pv_verbs_default_query_device_ex(struct pv_context *ctx __rte_unused,
				 struct pv_device_attr_ex *attr __rte_unused)
{
	return 0;	/* nothing beyond query_device: every extension is 0 */
}

int
pv_query_device_ex(struct pv_context *context, const struct pv_query_device_ex_input *input,
		   struct pv_device_attr_ex *attr)
{
	struct pv_device_attr_ex a;
	int ret;

	if (context == NULL || attr == NULL || (input != NULL && input->comp_mask != 0))
		return EINVAL;
	memset(&a, 0, sizeof(a));
	ret = verbs_ops(context)->query_device(context, &a.orig_attr);
	if (ret != 0)
		return ret;
	a.device_cap_flags_ex = a.orig_attr.device_cap_flags;
	a.phys_port_cnt_ex = a.orig_attr.phys_port_cnt;
	/* odp_caps: none (no driver pages on demand, whatever it says) */
	ret = verbs_ops(context)->query_device_ex(context, &a);
	if (ret != 0)
		return ret;
	memset(&a.odp_caps, 0, sizeof(a.odp_caps));
	a.xrc_odp_caps = 0;
	*attr = a;
	return 0;
}

int
pv_verbs_default_query_gid_ex(struct pv_context *ctx, uint8_t port_num, uint32_t index,
			      struct pv_gid_entry *entry)
{
	static const union pv_gid zero;
	struct pv_port_attr pattr;
	int ret;

	ret = verbs_ops(ctx)->query_gid(ctx, port_num, (int)index, &entry->gid);
	if (ret != 0)
		return ret;
	if (memcmp(&entry->gid, &zero, sizeof(zero)) == 0)
		return ENODATA;
	ret = pv_verbs_port_query(ctx, port_num, &pattr);
	if (ret != 0)
		return ret;
	/* softroce and the mlx5 model speak RoCE v2 only */
	entry->gid_type = pattr.link_layer == PV_LINK_LAYER_ETHERNET ? PV_GID_TYPE_ROCE_V2 :
								       PV_GID_TYPE_IB;
	return 0;
}

/* One entry of a port's table; 0, ENODATA or a positive errno. */
static int
verbs_gid_entry_query(struct pv_context *ctx, uint8_t port_num, uint32_t index,
		      struct pv_gid_entry *entry)
{
	struct pv_gid_entry e;
	int ret;

	memset(&e, 0, sizeof(e));
	ret = verbs_ops(ctx)->query_gid_ex(ctx, port_num, index, &e);
	if (ret != 0)
		return ret;
	e.gid_index = index;
	e.port_num = port_num;
	*entry = e;
	return 0;
}

int
pv_query_gid_ex(struct pv_context *context, uint32_t port_num, uint32_t gid_index,
		struct pv_gid_entry *entry, uint32_t flags)
{
	struct pv_port_attr pattr;
	int ret;

	if (context == NULL || entry == NULL)
		return EINVAL;
	if (flags != 0)
		return EOPNOTSUPP;
	if (port_num > UINT8_MAX || pv_verbs_port_check(context, (uint8_t)port_num) != 0)
		return EINVAL;
	ret = pv_verbs_port_query(context, (uint8_t)port_num, &pattr);
	if (ret != 0)
		return ret;
	if (gid_index >= (uint32_t)RTE_MAX(pattr.gid_tbl_len, 0))
		return EINVAL;
	return verbs_gid_entry_query(context, (uint8_t)port_num, gid_index, entry);
}

ssize_t
pv_query_gid_table(struct pv_context *context, struct pv_gid_entry *entries, size_t max_entries,
		   uint32_t flags)
{
	const struct pv_device_attr *dattr;
	struct pv_port_attr pattr;
	struct pv_gid_entry e;
	size_t n = 0;
	uint32_t i;
	int port, ret;

	if (context == NULL || (entries == NULL && max_entries != 0))
		return -EINVAL;
	if (flags != 0)
		return -EOPNOTSUPP;
	dattr = verbs_dev_attr(context);
	for (port = 1; port <= dattr->phys_port_cnt; port++) {
		ret = pv_verbs_port_query(context, (uint8_t)port, &pattr);
		if (ret != 0)
			return -ret;
		for (i = 0; i < (uint32_t)RTE_MAX(pattr.gid_tbl_len, 0); i++) {
			ret = verbs_gid_entry_query(context, (uint8_t)port, i, &e);
			if (ret == ENODATA)
				continue;
			if (ret != 0)
				return -ret;
			if (n == max_entries)
				return -EINVAL;	/* as the kernel: the table does not fit */
			entries[n++] = e;
		}
	}
	return (ssize_t)n;
}

int
pv_advise_mr(struct pv_pd *pd, enum pv_advise_mr_advice advice, uint32_t flags,
	     struct pv_sge *sg_list, uint32_t num_sge)
{
	if (pd == NULL || sg_list == NULL || num_sge == 0)
		return EINVAL;
	if (advice > PV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT ||
	    (flags & ~(uint32_t)PV_ADVISE_MR_FLAG_FLUSH))
		return EINVAL;
	/* every advice concerns ODP MRs, and no driver registers one */
	return EOPNOTSUPP;
}

struct pv_mr *
pv_alloc_null_mr(struct pv_pd *pd)
{
	if (pd == NULL)
		return verbs_err_ptr(EINVAL);
	return verbs_err_ptr(EOPNOTSUPP);
}

#define VERBS_DM_ATTR_KNOWN 0u

struct pv_dm *
pv_alloc_dm(struct pv_context *context, struct pv_alloc_dm_attr *attr)
{
	struct pv_dm *dm;

	if (context == NULL || attr == NULL || attr->length == 0 ||
	    (attr->comp_mask & ~VERBS_DM_ATTR_KNOWN))
		return verbs_err_ptr(EINVAL);
	/* softroce and the mlx5 model: no op, max_dm_size 0 (EOPNOTSUPP) */
	dm = verbs_ops(context)->alloc_dm(context, attr);
	if (dm == NULL)
		return NULL;
	dm->context = context;
	dm->handle = verbs_handle_next(context);
	verbs_ref_get(&context->usecnt);
	return dm;
}

int
pv_free_dm(struct pv_dm *dm)
{
	struct pv_context *ctx;
	int ret;

	if (dm == NULL)
		return EINVAL;
	ctx = dm->context;
	ret = verbs_ops(ctx)->free_dm(dm);
	if (ret == 0)
		verbs_ref_put(&ctx->usecnt);
	return ret;
}

struct pv_mr *
pv_reg_dm_mr(struct pv_pd *pd, struct pv_dm *dm, uint64_t dm_offset, size_t length,
	     unsigned int access)
{
	struct pv_mr *mr;

	if (pd == NULL || dm == NULL || length == 0 || !(access & PV_ACCESS_ZERO_BASED) ||
	    dm->context != pd->context)
		return verbs_err_ptr(EINVAL);
	mr = verbs_ops(pd->context)->reg_dm_mr(pd, dm, dm_offset, length, access);
	/* zero based: WRs address it from 0, no host address */
	if (mr != NULL)
		pv_verbs_mr_fill(mr, pd, NULL, length, access);
	return mr;
}

int
pv_get_device_index(struct pv_device *device __rte_unused)
{
	return -1;	/* not a kernel device */
}

int
pv_query_ece(struct pv_qp *qp, struct pv_ece *ece)
{
	return qp == NULL || ece == NULL ? EINVAL : EOPNOTSUPP;
}

int
pv_set_ece(struct pv_qp *qp, struct pv_ece *ece)
{
	return qp == NULL || ece == NULL ? EINVAL : EOPNOTSUPP;
}

struct pv_context *
pv_import_device(int cmd_fd __rte_unused)
{
	return verbs_err_ptr(EOPNOTSUPP);
}

struct pv_pd *
pv_import_pd(struct pv_context *context, uint32_t pd_handle __rte_unused)
{
	return verbs_err_ptr(context == NULL ? EINVAL : EOPNOTSUPP);
}

void
pv_unimport_pd(struct pv_pd *pd __rte_unused)
{
}

struct pv_mr *
pv_import_mr(struct pv_pd *pd, uint32_t mr_handle __rte_unused)
{
	return verbs_err_ptr(pd == NULL ? EINVAL : EOPNOTSUPP);
}

void
pv_unimport_mr(struct pv_mr *mr __rte_unused)
{
}

struct pv_dm *
pv_import_dm(struct pv_context *context, uint32_t dm_handle __rte_unused)
{
	return verbs_err_ptr(context == NULL ? EINVAL : EOPNOTSUPP);
}

void
pv_unimport_dm(struct pv_dm *dm __rte_unused)
{
}
