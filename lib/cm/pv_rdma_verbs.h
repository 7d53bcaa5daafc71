/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/**
 * @file
 * librdmacm's verbs helpers (rdma/rdma_verbs.h of rdma-core 44) with the
 * pv_ prefix: static inline wrappers over the pv_* verbs that take a
 * pv_rdma_cm_id and use its PD, QP, SRQ, CQs and completion channels. The
 * semantics are librdmacm's, including its error convention: 0 (or a
 * completion count) on success, -1 with errno set on failure.
 *
 * The send and receive completion helpers need the CQs and channels that
 * pv_rdma_create_qp() makes when its attributes name no CQ (id->send_cq,
 * id->send_cq_channel, ...); they block in pv_get_cq_event() when no
 * completion is queued.
 *
 * rdma_create_srq() and rdma_destroy_srq() are not provided.
 *
 * Threads: as the verbs they call (any thread in the default thread-safe
 * progress mode).
 */

#ifndef PV_LIB_CM_PV_RDMA_VERBS_H
#define PV_LIB_CM_PV_RDMA_VERBS_H

#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include <pv_rdma_cma.h>
#include <pv_verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * librdmacm's conversion of a verb's positive errno: 0 stays 0, anything
 * else is stored in errno and becomes -1.
 */
static inline int
pv_rdma_seterrno(int ret)
{
	if (ret != 0) {
		errno = ret;
		ret = -1;
	}
	return ret;
}

/**
 * Register @p length bytes at @p addr on the id's PD for sends and
 * receives (PV_ACCESS_LOCAL_WRITE).
 * @return The MR, or NULL with errno (pv_reg_mr()).
 * Ownership: the caller's; free it with pv_rdma_dereg_mr().
 */
static inline struct pv_mr *
pv_rdma_reg_msgs(struct pv_rdma_cm_id *id, void *addr, size_t length)
{
	return pv_reg_mr(id->pd, addr, length, PV_ACCESS_LOCAL_WRITE);
}

/** As pv_rdma_reg_msgs(), and the peer may RDMA READ it (REMOTE_READ). */
static inline struct pv_mr *
pv_rdma_reg_read(struct pv_rdma_cm_id *id, void *addr, size_t length)
{
	return pv_reg_mr(id->pd, addr, length, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_READ);
}

/** As pv_rdma_reg_msgs(), and the peer may RDMA WRITE it (REMOTE_WRITE). */
static inline struct pv_mr *
pv_rdma_reg_write(struct pv_rdma_cm_id *id, void *addr, size_t length)
{
	return pv_reg_mr(id->pd, addr, length, PV_ACCESS_LOCAL_WRITE | PV_ACCESS_REMOTE_WRITE);
}

/**
 * Deregister an MR of the helpers above.
 * @return 0, or -1 with errno (pv_dereg_mr()'s: EINVAL, EBUSY).
 */
static inline int
pv_rdma_dereg_mr(struct pv_mr *mr)
{
	return pv_rdma_seterrno(pv_dereg_mr(mr));
}

/**
 * Post one receive of @p nsge SGEs to the id's SRQ when it has one, else to
 * its QP; its completion carries wr_id = @p context.
 * @param sgl  @p nsge entries; read during the call only.
 * @return 0, or -1 with errno (pv_post_recv()'s).
 * Ownership: the buffers stay the caller's and must stay registered and
 *            untouched until the completion.
 */
static inline int
pv_rdma_post_recvv(struct pv_rdma_cm_id *id, void *context, struct pv_sge *sgl, int nsge)
{
	struct pv_recv_wr wr, *bad;

	wr.wr_id = (uintptr_t)context;
	wr.next = NULL;
	wr.sg_list = sgl;
	wr.num_sge = nsge;

	if (id->srq != NULL)
		return pv_rdma_seterrno(pv_post_srq_recv(id->srq, &wr, &bad));
	return pv_rdma_seterrno(pv_post_recv(id->qp, &wr, &bad));
}

/**
 * Post one SEND of @p nsge SGEs on the id's QP.
 * @param flags  PV_SEND_* flags (PV_SEND_SIGNALED, PV_SEND_INLINE ...).
 * @return 0, or -1 with errno (pv_post_send()'s).
 */
static inline int
pv_rdma_post_sendv(struct pv_rdma_cm_id *id, void *context, struct pv_sge *sgl, int nsge,
		   int flags)
{
	struct pv_send_wr wr, *bad;

	wr.wr_id = (uintptr_t)context;
	wr.next = NULL;
	wr.sg_list = sgl;
	wr.num_sge = nsge;
	wr.opcode = PV_WR_SEND;
	wr.send_flags = (unsigned int)flags;

	return pv_rdma_seterrno(pv_post_send(id->qp, &wr, &bad));
}

/* one RDMA READ or WRITE work request of @p nsge SGEs on the id's QP */
static inline int
pv_rdma_post_rdmav(struct pv_rdma_cm_id *id, void *context, struct pv_sge *sgl, int nsge,
		   int flags, enum pv_wr_opcode opcode, uint64_t remote_addr, uint32_t rkey)
{
	struct pv_send_wr wr, *bad;

	wr.wr_id = (uintptr_t)context;
	wr.next = NULL;
	wr.sg_list = sgl;
	wr.num_sge = nsge;
	wr.opcode = opcode;
	wr.send_flags = (unsigned int)flags;
	wr.wr.rdma.remote_addr = remote_addr;
	wr.wr.rdma.rkey = rkey;

	return pv_rdma_seterrno(pv_post_send(id->qp, &wr, &bad));
}

/**
 * Post one RDMA READ of the peer's @p remote_addr (@p rkey) into @p sgl.
 * @return 0, or -1 with errno (pv_post_send()'s).
 */
static inline int
pv_rdma_post_readv(struct pv_rdma_cm_id *id, void *context, struct pv_sge *sgl, int nsge,
		   int flags, uint64_t remote_addr, uint32_t rkey)
{
	return pv_rdma_post_rdmav(id, context, sgl, nsge, flags, PV_WR_RDMA_READ,
				  remote_addr, rkey);
}

/**
 * Post one RDMA WRITE of @p sgl to the peer's @p remote_addr (@p rkey).
 * @return 0, or -1 with errno (pv_post_send()'s).
 */
static inline int
pv_rdma_post_writev(struct pv_rdma_cm_id *id, void *context, struct pv_sge *sgl, int nsge,
		    int flags, uint64_t remote_addr, uint32_t rkey)
{
	return pv_rdma_post_rdmav(id, context, sgl, nsge, flags, PV_WR_RDMA_WRITE,
				  remote_addr, rkey);
}

/**
 * Post one receive of @p length bytes at @p addr, inside @p mr (asserted).
 * @return As pv_rdma_post_recvv().
 */
static inline int
pv_rdma_post_recv(struct pv_rdma_cm_id *id, void *context, void *addr, size_t length,
		  struct pv_mr *mr)
{
	struct pv_sge sge;

	assert((uint8_t *)addr >= (uint8_t *)mr->addr &&
	       (uint8_t *)addr + length <= (uint8_t *)mr->addr + mr->length);
	sge.addr = (uint64_t)(uintptr_t)addr;
	sge.length = (uint32_t)length;
	sge.lkey = mr->lkey;

	return pv_rdma_post_recvv(id, context, &sge, 1);
}

/**
 * Post one SEND of @p length bytes at @p addr.
 * @param mr  NULL: lkey 0 (PV_SEND_INLINE data needs no MR).
 * @return As pv_rdma_post_sendv().
 */
static inline int
pv_rdma_post_send(struct pv_rdma_cm_id *id, void *context, void *addr, size_t length,
		  struct pv_mr *mr, int flags)
{
	struct pv_sge sge;

	sge.addr = (uint64_t)(uintptr_t)addr;
	sge.length = (uint32_t)length;
	sge.lkey = mr != NULL ? mr->lkey : 0;

	return pv_rdma_post_sendv(id, context, &sge, 1, flags);
}

/**
 * Post one RDMA READ of @p length bytes into @p addr (in @p mr).
 * @return As pv_rdma_post_readv().
 */
static inline int
pv_rdma_post_read(struct pv_rdma_cm_id *id, void *context, void *addr, size_t length,
		  struct pv_mr *mr, int flags, uint64_t remote_addr, uint32_t rkey)
{
	struct pv_sge sge;

	sge.addr = (uint64_t)(uintptr_t)addr;
	sge.length = (uint32_t)length;
	sge.lkey = mr->lkey;

	return pv_rdma_post_readv(id, context, &sge, 1, flags, remote_addr, rkey);
}

/**
 * Post one RDMA WRITE of @p length bytes from @p addr.
 * @param mr  NULL: lkey 0 (inline data).
 * @return As pv_rdma_post_writev().
 */
static inline int
pv_rdma_post_write(struct pv_rdma_cm_id *id, void *context, void *addr, size_t length,
		   struct pv_mr *mr, int flags, uint64_t remote_addr, uint32_t rkey)
{
	struct pv_sge sge;

	sge.addr = (uint64_t)(uintptr_t)addr;
	sge.length = (uint32_t)length;
	sge.lkey = mr != NULL ? mr->lkey : 0;

	return pv_rdma_post_writev(id, context, &sge, 1, flags, remote_addr, rkey);
}

/**
 * Post one UD SEND of @p length bytes to QP @p remote_qpn behind @p ah,
 * with the RDMA_PS_UDP Q_Key (PV_RDMA_UDP_QKEY).
 * @param mr  NULL: lkey 0 (inline data).
 * @return 0, or -1 with errno (pv_post_send()'s).
 */
static inline int
pv_rdma_post_ud_send(struct pv_rdma_cm_id *id, void *context, void *addr, size_t length,
		     struct pv_mr *mr, int flags, struct pv_ah *ah, uint32_t remote_qpn)
{
	struct pv_send_wr wr, *bad;
	struct pv_sge sge;

	sge.addr = (uint64_t)(uintptr_t)addr;
	sge.length = (uint32_t)length;
	sge.lkey = mr != NULL ? mr->lkey : 0;

	wr.wr_id = (uintptr_t)context;
	wr.next = NULL;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = PV_WR_SEND;
	wr.send_flags = (unsigned int)flags;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = remote_qpn;
	wr.wr.ud.remote_qkey = PV_RDMA_UDP_QKEY;

	return pv_rdma_seterrno(pv_post_send(id->qp, &wr, &bad));
}

/*
 * librdmacm's completion wait: poll; when empty arm the CQ, poll once more
 * (a completion may have slipped in before the arm), then sleep on the
 * channel, acknowledge the event and start over.
 */
static inline int
pv_rdma_get_comp(struct pv_rdma_cm_id *id, struct pv_cq *id_cq, struct pv_comp_channel *ch,
		 struct pv_wc *wc)
{
	struct pv_cq *cq;
	void *context;
	int ret;

	for (;;) {
		ret = pv_poll_cq(id_cq, 1, wc);
		if (ret != 0)
			break;
		ret = pv_req_notify_cq(id_cq, 0);
		if (ret != 0)
			return pv_rdma_seterrno(ret);
		ret = pv_poll_cq(id_cq, 1, wc);
		if (ret != 0)
			break;
		ret = pv_get_cq_event(ch, &cq, &context);
		if (ret != 0)
			return ret;
		assert(cq == id_cq && context == id);
		(void)context;
		pv_ack_cq_events(id_cq, 1);
	}
	return ret < 0 ? pv_rdma_seterrno(ret) : ret;
}

/**
 * Wait for the next completion of the id's send CQ (id->send_cq): poll,
 * else arm it, poll again, then sleep on id->send_cq_channel.
 * @param wc  One entry, filled.
 * @return 1 (one completion in @p wc; check wc->status); -1 with errno from
 *         pv_req_notify_cq() or pv_get_cq_event() (EAGAIN on a non-blocking
 *         channel fd), or a negative pv_poll_cq() result made -1 with errno
 *         set to it (as librdmacm).
 * Thread: one waiter per CQ.
 */
static inline int
pv_rdma_get_send_comp(struct pv_rdma_cm_id *id, struct pv_wc *wc)
{
	return pv_rdma_get_comp(id, id->send_cq, id->send_cq_channel, wc);
}

/** As pv_rdma_get_send_comp(), on id->recv_cq and id->recv_cq_channel. */
static inline int
pv_rdma_get_recv_comp(struct pv_rdma_cm_id *id, struct pv_wc *wc)
{
	return pv_rdma_get_comp(id, id->recv_cq, id->recv_cq_channel, wc);
}

#ifdef __cplusplus
}
#endif

#endif /* PV_LIB_CM_PV_RDMA_VERBS_H */
