/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Protection domains, memory regions and address handles: generic
 * validation, then the driver op, then the common fields.
 */

#include <errno.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/ip.h>

#include <rte_byteorder.h>
#include <rte_ip.h>

#include "verbs_priv.h"

struct pv_pd *
pv_alloc_pd(struct pv_context *context)
{
	struct pv_pd *pd;

	if (context == NULL)
		return verbs_err_ptr(EINVAL);
	pd = verbs_ops(context)->alloc_pd(context);
	if (pd == NULL)
		return NULL;
	pd->context = context;
	pd->handle = verbs_handle_next(context);
	pd->usecnt = 0;
	pd->pd_base = NULL;
	pd->td = NULL;
	verbs_ref_get(&context->usecnt);
	return pd;
}

struct pv_td *
pv_alloc_td(struct pv_context *context, struct pv_td_init_attr *init_attr)
{
	struct pv_td *td;

	if (context == NULL || init_attr == NULL)
		return verbs_err_ptr(EINVAL);
	if (init_attr->comp_mask != 0) {
		VERBS_LOG(ERR, "td: unknown comp_mask 0x%x", init_attr->comp_mask);
		return verbs_err_ptr(EINVAL);
	}
	td = calloc(1, sizeof(*td));
	if (td == NULL)
		return verbs_err_ptr(ENOMEM);
	td->context = context;
	verbs_ref_get(&context->usecnt);
	return td;
}

int
pv_dealloc_td(struct pv_td *td)
{
	if (td == NULL)
		return EINVAL;
	if (verbs_ref_read(&td->usecnt) != 0) {
		VERBS_LOG(ERR, "td: %u parent domains still use it", verbs_ref_read(&td->usecnt));
		return EBUSY;
	}
	verbs_ref_put(&td->context->usecnt);
	free(td);
	return 0;
}

#define VERBS_PD_ATTR_KNOWN (PV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS | \
			     PV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)

/* A parent domain: the public PD, and what ibv_alloc_parent_domain(3) keeps. */
struct verbs_parent_domain {
	struct pv_pd pub;		/* first: what the application holds */
	void *pd_context;
};

struct pv_pd *
pv_alloc_parent_domain(struct pv_context *context, struct pv_parent_domain_init_attr *attr)
{
	struct verbs_parent_domain *pd;

	if (context == NULL || attr == NULL || attr->pd == NULL)
		return verbs_err_ptr(EINVAL);
	if (attr->pd->context != context || attr->pd->pd_base != NULL ||
	    (attr->td != NULL && attr->td->context != context)) {
		VERBS_LOG(ERR, "parent domain: the PD (a plain one) and TD must be of the context");
		return verbs_err_ptr(EINVAL);
	}
	if (attr->comp_mask & ~(uint32_t)VERBS_PD_ATTR_KNOWN) {
		VERBS_LOG(ERR, "parent domain: unknown comp_mask 0x%x", attr->comp_mask);
		return verbs_err_ptr(EINVAL);
	}
	if ((attr->comp_mask & PV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) &&
	    (attr->alloc == NULL || attr->free == NULL))
		return verbs_err_ptr(EINVAL);
	pd = calloc(1, sizeof(*pd));
	if (pd == NULL)
		return verbs_err_ptr(ENOMEM);
	pd->pub.context = context;
	pd->pub.handle = verbs_handle_next(context);
	pd->pub.pd_base = attr->pd;
	pd->pub.td = attr->td;
	if (attr->comp_mask & PV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)
		pd->pd_context = attr->pd_context;
	verbs_ref_get(&attr->pd->usecnt);
	if (attr->td != NULL)
		verbs_ref_get(&attr->td->usecnt);
	verbs_ref_get(&context->usecnt);
	return &pd->pub;
}

/* pv_dealloc_pd() of a parent domain (usecnt already checked) */
static int
verbs_parent_domain_free(struct pv_pd *pd)
{
	struct pv_context *ctx = pd->context;

	verbs_ref_put(&pd->pd_base->usecnt);
	if (pd->td != NULL)
		verbs_ref_put(&pd->td->usecnt);
	free(container_of(pd, struct verbs_parent_domain, pub));
	verbs_ref_put(&ctx->usecnt);
	return 0;
}

int
pv_dealloc_pd(struct pv_pd *pd)
{
	struct pv_context *ctx;
	int ret;

	if (pd == NULL)
		return EINVAL;
	if (verbs_ref_read(&pd->usecnt) != 0) {
		VERBS_LOG(ERR, "pd %u: %u objects still use it", pd->handle,
			  verbs_ref_read(&pd->usecnt));
		return EBUSY;
	}
	if (pd->pd_base != NULL)
		return verbs_parent_domain_free(pd);
	ctx = pd->context;
	ret = verbs_ops(ctx)->dealloc_pd(pd);
	if (ret == 0)
		verbs_ref_put(&ctx->usecnt);
	return ret;
}

#define VERBS_MR_ACCESS_KNOWN (PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE | \
			       PV_ACCESS_REMOTE_READ | PV_ACCESS_REMOTE_ATOMIC | \
			       PV_ACCESS_MW_BIND | PV_ACCESS_ZERO_BASED | \
			       PV_ACCESS_ON_DEMAND | PV_ACCESS_HUGETLB | \
			       PV_ACCESS_RELAXED_ORDERING)

/* ibv_reg_mr(3): access flag rules; 0, EINVAL or EOPNOTSUPP. */
static int
verbs_mr_access_check(struct pv_context *ctx, int access)
{
	unsigned int a = (unsigned int)access;

	if (a & ~VERBS_MR_ACCESS_KNOWN) {
		VERBS_LOG(ERR, "access 0x%x: unknown flags 0x%x", a, a & ~VERBS_MR_ACCESS_KNOWN);
		return EINVAL;
	}
	/* IBTA: remote write and atomic need local write (the HCA writes) */
	if ((a & (PV_ACCESS_REMOTE_WRITE | PV_ACCESS_REMOTE_ATOMIC)) &&
	    !(a & PV_ACCESS_LOCAL_WRITE)) {
		VERBS_LOG(ERR, "access 0x%x: remote write/atomic without local write", a);
		return EINVAL;
	}
	if ((a & PV_ACCESS_ON_DEMAND) && !(verbs_dev_attr(ctx)->odp_general_caps & PV_ODP_SUPPORT)) {
		VERBS_LOG(ERR, "device %s: no on-demand paging", ctx->device->name);
		return EOPNOTSUPP;
	}
	return 0;
}

struct pv_mr *
pv_verbs_default_reg_mr_iova(struct pv_pd *pd, void *addr __rte_unused,
			     size_t length __rte_unused, uint64_t iova __rte_unused,
			     int access __rte_unused)
{
	VERBS_LOG(ERR, "pd %u: driver %s cannot register with an iova other than addr",
		  pd->handle, pd->context->device->driver->name);
	return verbs_err_ptr(EOPNOTSUPP);
}

struct pv_mr *
pv_reg_mr(struct pv_pd *pd, void *addr, size_t length, int access)
{
	return pv_reg_mr_iova2(pd, addr, length, (uintptr_t)addr, (unsigned int)access);
}

struct pv_mr *
pv_reg_mr_iova(struct pv_pd *pd, void *addr, size_t length, uint64_t iova, int access)
{
	return pv_reg_mr_iova2(pd, addr, length, iova, (unsigned int)access);
}

struct pv_mr *
pv_reg_mr_iova2(struct pv_pd *pd, void *addr, size_t length, uint64_t iova,
		unsigned int access_flags)
{
	int access = (int)access_flags;
	struct pv_context *ctx;
	struct pv_mr *mr;
	int ret;

	if (pd == NULL || addr == NULL || length == 0)
		return verbs_err_ptr(EINVAL);
	ctx = pd->context;
	if (length > verbs_dev_attr(ctx)->max_mr_size) {
		VERBS_LOG(ERR, "pd %u: length %zu above max_mr_size %" PRIu64, pd->handle,
			  length, verbs_dev_attr(ctx)->max_mr_size);
		return verbs_err_ptr(EINVAL);
	}
	if (length - 1 > UINT64_MAX - iova) {
		VERBS_LOG(ERR, "pd %u: iova 0x%" PRIx64 " + %zu bytes wraps", pd->handle, iova,
			  length);
		return verbs_err_ptr(EINVAL);
	}
	ret = verbs_mr_access_check(ctx, access);
	if (ret != 0)
		return verbs_err_ptr(ret);
	/* iova is the address WRs use: the classic op when it is addr */
	if (iova == (uintptr_t)addr)
		mr = verbs_ops(ctx)->reg_mr(pd, addr, length, access);
	else
		mr = verbs_ops(ctx)->reg_mr_iova(pd, addr, length, iova, access);
	if (mr != NULL)
		pv_verbs_mr_fill(mr, pd, addr, length, (unsigned int)access);
	return mr;
}

void
pv_verbs_mr_fill(struct pv_mr *mr, struct pv_pd *pd, void *addr, size_t length,
		 unsigned int access)
{
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	mr->handle = verbs_handle_next(pd->context);
	mr->access = access;
	verbs_ref_get(&pd->usecnt);
}

int
pv_rereg_mr(struct pv_mr *mr, int flags, struct pv_pd *pd, void *addr, size_t length,
	    int access)
{
	int ret;

	/* ibv_rereg_mr's own input checks (libibverbs verbs.c) */
	if (mr == NULL || flags == 0 || (flags & ~PV_REREG_MR_FLAGS_SUPPORTED))
		goto err_input;
	if ((flags & PV_REREG_MR_CHANGE_TRANSLATION) && (addr == NULL || length == 0))
		goto err_input;
	if (access != 0 && !(flags & PV_REREG_MR_CHANGE_ACCESS))
		goto err_input;
	if ((flags & PV_REREG_MR_CHANGE_ACCESS) && verbs_mr_access_check(mr->context, access) != 0)
		goto err_input;
	if ((flags & PV_REREG_MR_CHANGE_PD) && (pd == NULL || pd->context != mr->context))
		goto err_input;
	if ((flags & PV_REREG_MR_CHANGE_TRANSLATION) &&
	    length > verbs_dev_attr(mr->context)->max_mr_size)
		goto err_input;
	ret = verbs_ops(mr->context)->rereg_mr(mr, flags, pd, addr, length, access);
	if (ret != 0) {
		/* the command failed: the MR is left as it was */
		VERBS_LOG(ERR, "mr 0x%x: driver %s: re-register: %s", mr->lkey,
			  mr->context->device->driver->name, strerror(ret));
		errno = ret;
		return PV_REREG_MR_ERR_CMD;
	}
	if (flags & PV_REREG_MR_CHANGE_PD) {
		verbs_ref_put(&mr->pd->usecnt);
		verbs_ref_get(&pd->usecnt);
		mr->pd = pd;
	}
	if (flags & PV_REREG_MR_CHANGE_TRANSLATION) {
		mr->addr = addr;
		mr->length = length;
	}
	if (flags & PV_REREG_MR_CHANGE_ACCESS)
		mr->access = (unsigned int)access;
	return 0;

err_input:
	errno = EINVAL;
	return PV_REREG_MR_ERR_INPUT;
}

int
pv_dereg_mr(struct pv_mr *mr)
{
	struct pv_pd *pd;
	int ret;

	if (mr == NULL)
		return EINVAL;
	pd = mr->pd;
	ret = verbs_ops(mr->context)->dereg_mr(mr);
	if (ret == 0)
		verbs_ref_put(&pd->usecnt);
	return ret;
}

int
pv_verbs_ah_attr_check(struct pv_context *ctx, const struct pv_ah_attr *attr)
{
	struct pv_port_attr pattr;

	if (pv_verbs_port_check(ctx, attr->port_num) != 0) {
		VERBS_LOG(ERR, "ah: port %u not in 1..%u", attr->port_num,
			  verbs_dev_attr(ctx)->phys_port_cnt);
		return EINVAL;
	}
	if (pv_verbs_port_query(ctx, attr->port_num, &pattr) != 0)
		return EINVAL;
	if (pattr.link_layer == PV_LINK_LAYER_ETHERNET && !attr->is_global) {
		VERBS_LOG(ERR, "ah: port %u is RoCE: is_global (GRH) required", attr->port_num);
		return EINVAL;
	}
	if (attr->is_global && attr->grh.sgid_index >= pattr.gid_tbl_len) {
		VERBS_LOG(ERR, "ah: sgid_index %u beyond gid_tbl_len %d", attr->grh.sgid_index,
			  pattr.gid_tbl_len);
		return EINVAL;
	}
	if (attr->static_rate != PV_RATE_MAX && pv_rate_to_mbps(attr->static_rate) < 0) {
		VERBS_LOG(ERR, "ah: static_rate %u invalid", attr->static_rate);
		return EINVAL;
	}
	return 0;
}

struct pv_ah *
pv_create_ah(struct pv_pd *pd, struct pv_ah_attr *attr)
{
	struct pv_context *ctx;
	struct pv_ah *ah;
	int ret;

	if (pd == NULL || attr == NULL)
		return verbs_err_ptr(EINVAL);
	ctx = pd->context;
	ret = pv_verbs_ah_attr_check(ctx, attr);
	if (ret != 0)
		return verbs_err_ptr(ret);
	ah = verbs_ops(ctx)->create_ah(pd, attr);
	if (ah == NULL)
		return NULL;
	ah->context = ctx;
	ah->pd = pd;
	ah->handle = verbs_handle_next(ctx);
	ah->attr = *attr;
	verbs_ref_get(&pd->usecnt);
	return ah;
}

int
pv_destroy_ah(struct pv_ah *ah)
{
	struct pv_pd *pd;
	int ret;

	if (ah == NULL)
		return EINVAL;
	pd = ah->pd;
	ret = verbs_ops(ah->context)->destroy_ah(ah);
	if (ret == 0)
		verbs_ref_put(&pd->usecnt);
	return ret;
}

/* Index of @p gid in the port's GID table; -1 with errno if absent. */
static int
verbs_gid_index_find(struct pv_context *ctx, uint8_t port_num, const union pv_gid *gid)
{
	struct pv_port_attr pattr;
	union pv_gid cur;
	int i;

	if (pv_verbs_port_query(ctx, port_num, &pattr) != 0) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < pattr.gid_tbl_len; i++) {
		if (pv_query_gid(ctx, port_num, i, &cur) != 0)
			return -1;
		if (memcmp(&cur, gid, sizeof(cur)) == 0)
			return i;
	}
	errno = ENOENT;
	return -1;
}

/* ::ffff:a.b.c.d, the GID of an IPv4 address (RoCE v2). */
static void
verbs_gid_from_ipv4(union pv_gid *gid, rte_be32_t addr)
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = 0xff;
	gid->raw[11] = 0xff;
	memcpy(&gid->raw[12], &addr, sizeof(addr));
}

/*
 * The 40-byte GRH buffer of a RoCE v2 receive holds either an IPv6 header or,
 * for IPv4, 20 unused bytes then the IPv4 header. An IPv4 header is
 * recognised by version 4, IHL 5 and a valid checksum.
 */
static int
verbs_grh_is_ipv4(const struct pv_grh *grh)
{
	const struct rte_ipv4_hdr *ip4 = (const void *)((const uint8_t *)grh + 20);
	uint32_t vtf = rte_be_to_cpu_32(grh->version_tclass_flow);

	if (ip4->version_ihl != 0x45)
		return 0;
	if ((vtf >> 28) != 6)
		return 1;
	/* summed with its checksum field, a valid header sums to 0xffff */
	return rte_ipv4_cksum(ip4) == 0;
}

int
pv_init_ah_from_wc(struct pv_context *context, uint8_t port_num, struct pv_wc *wc,
		   struct pv_grh *grh, struct pv_ah_attr *ah_attr)
{
	struct pv_port_attr pattr;
	union pv_gid sgid;
	uint32_t vtf;
	int idx;

	if (context == NULL || wc == NULL || ah_attr == NULL ||
	    ((wc->wc_flags & PV_WC_GRH) && grh == NULL))
		goto err_inval;
	if (pv_verbs_port_check(context, port_num) != 0 ||
	    pv_verbs_port_query(context, port_num, &pattr) != 0)
		goto err_inval;
	if (pattr.link_layer == PV_LINK_LAYER_ETHERNET && !(wc->wc_flags & PV_WC_GRH)) {
		VERBS_LOG(ERR, "port %u is RoCE: the completion must carry a GRH", port_num);
		goto err_inval;
	}
	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->dlid = wc->slid;
	ah_attr->sl = wc->sl;
	ah_attr->src_path_bits = wc->dlid_path_bits;
	ah_attr->port_num = port_num;
	if (!(wc->wc_flags & PV_WC_GRH))
		return 0;

	/* reply path: the sender's source becomes our destination, and our
	 * source GID is the one the packet was addressed to */
	ah_attr->is_global = 1;
	vtf = rte_be_to_cpu_32(grh->version_tclass_flow);
	ah_attr->grh.flow_label = vtf & 0xfffff;
	if (verbs_grh_is_ipv4(grh)) {
		const struct rte_ipv4_hdr *ip4 = (const void *)((const uint8_t *)grh + 20);

		if ((rte_be_to_cpu_32(ip4->dst_addr) >> 28) == 0xe)
			goto err_inval;	/* multicast is in no GID table */
		verbs_gid_from_ipv4(&sgid, ip4->dst_addr);
		verbs_gid_from_ipv4(&ah_attr->grh.dgid, ip4->src_addr);
		ah_attr->grh.hop_limit = ip4->time_to_live;
		ah_attr->grh.traffic_class = ip4->type_of_service;
	} else {
		if (grh->dgid.raw[0] == 0xff)
			goto err_inval;
		sgid = grh->dgid;
		ah_attr->grh.dgid = grh->sgid;
		ah_attr->grh.hop_limit = grh->hop_limit;
		ah_attr->grh.traffic_class = (vtf >> 20) & 0xff;
	}
	idx = verbs_gid_index_find(context, port_num, &sgid);
	if (idx < 0) {
		VERBS_LOG(ERR, "port %u: destination GID of the packet is not ours", port_num);
		return -1;
	}
	ah_attr->grh.sgid_index = (uint8_t)idx;
	return 0;

err_inval:
	errno = EINVAL;
	return -1;
}

struct pv_ah *
pv_create_ah_from_wc(struct pv_pd *pd, struct pv_wc *wc, struct pv_grh *grh, uint8_t port_num)
{
	struct pv_ah_attr attr;

	if (pd == NULL)
		return verbs_err_ptr(EINVAL);
	if (pv_init_ah_from_wc(pd->context, port_num, wc, grh, &attr) != 0)
		return NULL;
	return pv_create_ah(pd, &attr);
}
