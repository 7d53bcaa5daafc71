/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The calls of pv_rdma_cma.h that need no connection manager: event names,
 * address translation through getaddrinfo(3), the device list, and the
 * multicast and ECE calls pollverbs does not implement. Each behaves as
 * rdma-core 44's librdmacm (cma.c, addrinfo.c) does, but where said.
 */

#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_common.h>

#include "pv_rdma_cma.h"

const char *
pv_rdma_event_str(enum pv_rdma_cm_event_type event)
{
	static const char *const names[] = {
		[PV_RDMA_CM_EVENT_ADDR_RESOLVED] = "RDMA_CM_EVENT_ADDR_RESOLVED",
		[PV_RDMA_CM_EVENT_ADDR_ERROR] = "RDMA_CM_EVENT_ADDR_ERROR",
		[PV_RDMA_CM_EVENT_ROUTE_RESOLVED] = "RDMA_CM_EVENT_ROUTE_RESOLVED",
		[PV_RDMA_CM_EVENT_ROUTE_ERROR] = "RDMA_CM_EVENT_ROUTE_ERROR",
		[PV_RDMA_CM_EVENT_CONNECT_REQUEST] = "RDMA_CM_EVENT_CONNECT_REQUEST",
		[PV_RDMA_CM_EVENT_CONNECT_RESPONSE] = "RDMA_CM_EVENT_CONNECT_RESPONSE",
		[PV_RDMA_CM_EVENT_CONNECT_ERROR] = "RDMA_CM_EVENT_CONNECT_ERROR",
		[PV_RDMA_CM_EVENT_UNREACHABLE] = "RDMA_CM_EVENT_UNREACHABLE",
		[PV_RDMA_CM_EVENT_REJECTED] = "RDMA_CM_EVENT_REJECTED",
		[PV_RDMA_CM_EVENT_ESTABLISHED] = "RDMA_CM_EVENT_ESTABLISHED",
		[PV_RDMA_CM_EVENT_DISCONNECTED] = "RDMA_CM_EVENT_DISCONNECTED",
		[PV_RDMA_CM_EVENT_DEVICE_REMOVAL] = "RDMA_CM_EVENT_DEVICE_REMOVAL",
		[PV_RDMA_CM_EVENT_MULTICAST_JOIN] = "RDMA_CM_EVENT_MULTICAST_JOIN",
		[PV_RDMA_CM_EVENT_MULTICAST_ERROR] = "RDMA_CM_EVENT_MULTICAST_ERROR",
		[PV_RDMA_CM_EVENT_ADDR_CHANGE] = "RDMA_CM_EVENT_ADDR_CHANGE",
		[PV_RDMA_CM_EVENT_TIMEWAIT_EXIT] = "RDMA_CM_EVENT_TIMEWAIT_EXIT",
	};

	/* an int may hold any value: compare unsigned, negatives are out too */
	if ((unsigned int)event >= RTE_DIM(names))
		return "UNKNOWN EVENT";
	return names[event];
}

/* the getaddrinfo(3) hints of @p rai (librdmacm's ucma_convert_to_ai()) */
static void
cma_ai_hints(const struct pv_rdma_addrinfo *rai, struct addrinfo *ai)
{
	memset(ai, 0, sizeof(*ai));
	if (rai->ai_flags & PV_RAI_PASSIVE)
		ai->ai_flags = AI_PASSIVE;
	if (rai->ai_flags & PV_RAI_NUMERICHOST)
		ai->ai_flags |= AI_NUMERICHOST;
	/* AF_IB names nothing getaddrinfo knows: any family then */
	if (rai->ai_family != AF_IB)
		ai->ai_family = rai->ai_family;
	switch (rai->ai_qp_type) {
	case PV_QPT_RC:
	case PV_QPT_UC:
	case PV_QPT_XRC_SEND:
	case PV_QPT_XRC_RECV:
		ai->ai_socktype = SOCK_STREAM;
		break;
	case PV_QPT_UD:
		ai->ai_socktype = SOCK_DGRAM;
		break;
	default:
		break;
	}
	switch (rai->ai_port_space) {
	case PV_RDMA_PS_TCP:
		ai->ai_protocol = IPPROTO_TCP;
		break;
	case PV_RDMA_PS_IPOIB:
	case PV_RDMA_PS_UDP:
		ai->ai_protocol = IPPROTO_UDP;
		break;
	case PV_RDMA_PS_IB:
		if (ai->ai_socktype == SOCK_STREAM)
			ai->ai_protocol = IPPROTO_TCP;
		else if (ai->ai_socktype == SOCK_DGRAM)
			ai->ai_protocol = IPPROTO_UDP;
		break;
	default:
		break;
	}
}

/* *@p dst = a malloc'ed copy of @p src; 0 or -ENOMEM */
static int
cma_addr_dup(struct sockaddr **dst, socklen_t *dst_len, const struct sockaddr *src,
	     socklen_t len)
{
	*dst = malloc(len);
	if (*dst == NULL)
		return -ENOMEM;
	memcpy(*dst, src, len);
	*dst_len = len;
	return 0;
}

/*
 * @p rai from the first answer @p ai of getaddrinfo(3) (librdmacm's
 * ucma_convert_to_rai()): QP type and port space from the hints, else from
 * the socket type and protocol; passive: the source address and only
 * RAI_PASSIVE in ai_flags, else the destination address and no flag.
 * @return 0 or -ENOMEM
 */
static int
cma_rai_from_ai(struct pv_rdma_addrinfo *rai, const struct pv_rdma_addrinfo *hints,
		const struct addrinfo *ai)
{
	char **canon;

	if (hints->ai_qp_type != 0)
		rai->ai_qp_type = hints->ai_qp_type;
	else if (ai->ai_socktype == SOCK_STREAM)
		rai->ai_qp_type = PV_QPT_RC;
	else if (ai->ai_socktype == SOCK_DGRAM)
		rai->ai_qp_type = PV_QPT_UD;
	if (hints->ai_port_space != 0)
		rai->ai_port_space = hints->ai_port_space;
	else if (ai->ai_protocol == IPPROTO_TCP)
		rai->ai_port_space = PV_RDMA_PS_TCP;
	else if (ai->ai_protocol == IPPROTO_UDP)
		rai->ai_port_space = PV_RDMA_PS_UDP;
	rai->ai_family = ai->ai_family;
	if (hints->ai_flags & PV_RAI_PASSIVE)
		rai->ai_flags = PV_RAI_PASSIVE;
	canon = rai->ai_flags & PV_RAI_PASSIVE ? &rai->ai_src_canonname : &rai->ai_dst_canonname;
	/* getaddrinfo gives one only when asked (AI_CANONNAME): librdmacm never asks */
	if (ai->ai_canonname != NULL) {
		*canon = strdup(ai->ai_canonname);
		if (*canon == NULL)
			return -ENOMEM;
	}
	if (rai->ai_flags & PV_RAI_PASSIVE)
		return cma_addr_dup(&rai->ai_src_addr, &rai->ai_src_len, ai->ai_addr,
				    ai->ai_addrlen);
	return cma_addr_dup(&rai->ai_dst_addr, &rai->ai_dst_len, ai->ai_addr, ai->ai_addrlen);
}

/* the errno of a getaddrinfo(3) failure (its EAI_* code is returned as well) */
static int
cma_eai_errno(int eai, int sys_errno)
{
	switch (eai) {
	case EAI_SYSTEM:
		return sys_errno != 0 ? sys_errno : EIO;
	case EAI_MEMORY:
		return ENOMEM;
	case EAI_AGAIN:
		return EAGAIN;
	case EAI_BADFLAGS:
		return EINVAL;
	case EAI_FAMILY:
		return EAFNOSUPPORT;
	case EAI_SERVICE:
	case EAI_SOCKTYPE:
		return EPROTONOSUPPORT;
	case EAI_NONAME:
	case EAI_NODATA:
	case EAI_ADDRFAMILY:
		return EADDRNOTAVAIL;
	default:	/* EAI_FAIL */
		return EIO;
	}
}

int
pv_rdma_getaddrinfo(const char *node, const char *service,
		    const struct pv_rdma_addrinfo *hints, struct pv_rdma_addrinfo **res)
{
	static const struct pv_rdma_addrinfo nohints;
	struct pv_rdma_addrinfo *rai;
	struct addrinfo aih, *ai;
	int ret = 0, err;

	if (res == NULL || (node == NULL && service == NULL && hints == NULL)) {
		errno = EINVAL;
		return -1;
	}
	/* a numeric AF_IB address (librdmacm: a sockaddr_ib): no IB addressing here */
	if (hints != NULL && hints->ai_family == AF_IB &&
	    (hints->ai_flags & (PV_RAI_FAMILY | PV_RAI_NUMERICHOST)) ==
	    (PV_RAI_FAMILY | PV_RAI_NUMERICHOST)) {
		errno = EAFNOSUPPORT;
		return -1;
	}
	rai = calloc(1, sizeof(*rai));
	if (rai == NULL) {
		errno = ENOMEM;
		return -1;
	}
	if (node != NULL || service != NULL) {
		if (hints != NULL)
			cma_ai_hints(hints, &aih);
		errno = 0;
		ret = getaddrinfo(node, service, hints != NULL ? &aih : NULL, &ai);
		if (ret != 0) {
			/* as librdmacm: the EAI_* code is the return value */
			err = cma_eai_errno(ret, errno);
			pv_rdma_freeaddrinfo(rai);
			errno = err;
			return ret;
		}
		ret = cma_rai_from_ai(rai, hints != NULL ? hints : &nohints, ai);
		freeaddrinfo(ai);
	} else {
		/* from the hints alone */
		rai->ai_flags = hints->ai_flags;
		rai->ai_family = hints->ai_family;
		rai->ai_qp_type = hints->ai_qp_type;
		rai->ai_port_space = hints->ai_port_space;
		if (hints->ai_dst_len != 0)
			ret = cma_addr_dup(&rai->ai_dst_addr, &rai->ai_dst_len, hints->ai_dst_addr,
					   hints->ai_dst_len);
	}
	/* a source address the caller gave goes with an active side's answer */
	if (ret == 0 && rai->ai_src_len == 0 && hints != NULL && hints->ai_src_len != 0)
		ret = cma_addr_dup(&rai->ai_src_addr, &rai->ai_src_len, hints->ai_src_addr,
				   hints->ai_src_len);
	if (ret != 0) {
		pv_rdma_freeaddrinfo(rai);
		errno = -ret;
		return -1;
	}
	*res = rai;
	return 0;
}

void
pv_rdma_freeaddrinfo(struct pv_rdma_addrinfo *res)
{
	while (res != NULL) {
		struct pv_rdma_addrinfo *next = res->ai_next;

		free(res->ai_connect);
		free(res->ai_route);
		free(res->ai_src_canonname);
		free(res->ai_dst_canonname);
		free(res->ai_src_addr);
		free(res->ai_dst_addr);
		free(res);
		res = next;
	}
}

struct pv_context **
pv_rdma_get_devices(int *num_devices)
{
	struct pv_context **list = NULL;
	struct pv_device **devs;
	int n = 0, i, k = 0, err = 0;

	devs = pv_get_device_list(&n);
	if (devs == NULL) {
		/* ENOSYS: pv_init() not done, which librdmacm would call no device */
		err = errno == ENOSYS ? ENODEV : errno;
		goto out;
	}
	list = calloc((size_t)n + 1, sizeof(*list));
	if (list == NULL) {
		err = ENOMEM;
	} else {
		/* as librdmacm, a device that does not open is left out */
		for (i = 0; i < n; i++) {
			list[k] = pv_open_device(devs[i]);
			if (list[k] != NULL)
				k++;
		}
		if (k == 0) {
			free(list);
			list = NULL;
			err = ENODEV;
		}
	}
	pv_free_device_list(devs);
out:
	/* librdmacm sets the count on failure too: 0 */
	if (num_devices != NULL)
		*num_devices = k;
	if (list == NULL)
		errno = err;
	return list;
}

void
pv_rdma_free_devices(struct pv_context **list)
{
	int i;

	if (list == NULL)
		return;
	for (i = 0; list[i] != NULL; i++)
		(void)pv_close_device(list[i]);
	free(list);
}

/* the answer of every call pollverbs does not implement: -1, errno EOPNOTSUPP */
static int
cma_unsupported(void)
{
	errno = EOPNOTSUPP;
	return -1;
}

int
pv_rdma_join_multicast(struct pv_rdma_cm_id *id __rte_unused, struct sockaddr *addr __rte_unused,
		       void *context __rte_unused)
{
	return cma_unsupported();
}

int
pv_rdma_leave_multicast(struct pv_rdma_cm_id *id __rte_unused,
			struct sockaddr *addr __rte_unused)
{
	return cma_unsupported();
}

int
pv_rdma_join_multicast_ex(struct pv_rdma_cm_id *id __rte_unused,
			  struct pv_rdma_cm_join_mc_attr_ex *mc_join_attr __rte_unused,
			  void *context __rte_unused)
{
	return cma_unsupported();
}

int
pv_rdma_set_local_ece(struct pv_rdma_cm_id *id __rte_unused, struct pv_ece *ece __rte_unused)
{
	return cma_unsupported();
}

int
pv_rdma_get_remote_ece(struct pv_rdma_cm_id *id __rte_unused, struct pv_ece *ece __rte_unused)
{
	return cma_unsupported();
}
