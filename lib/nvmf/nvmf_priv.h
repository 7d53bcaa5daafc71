/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/* lib/nvmf internals: the target, subsystem and controller objects. */

#ifndef PV_LIB_NVMF_NVMF_PRIV_H
#define PV_LIB_NVMF_NVMF_PRIV_H

#include <stdbool.h>
#include <string.h>
#include <stdint.h>
#include <sys/queue.h>

#include <rte_log.h>
#include <rte_spinlock.h>

#include "pv_nvmf.h"

extern int pv_nvmf_logtype;
#define NVMF_LOG(level, ...) \
	rte_log(RTE_LOG_ ## level, pv_nvmf_logtype, "nvmf: " __VA_ARGS__)

#define NVMF_MAX_LISTENERS	16
#define NVMF_MAX_HOSTS		32
#define NVMF_ERR_LOG_ENTRIES	16
#define NVMF_VS			0x00010300u	/* NVMe 1.3 */

struct nvmf_listener {
	char traddr[64];
	char trsvcid[32];
};

struct pv_nvmf_subsys {
	TAILQ_ENTRY(pv_nvmf_subsys) link;
	struct pv_nvmf_tgt *tgt;
	char nqn[PV_NVME_NQN_MAX_LEN + 1];
	char serial[21];
	char model[41];
	bool allow_any_host;
	bool is_discovery;
	unsigned int num_hosts;
	char *hosts[NVMF_MAX_HOSTS];
	struct pv_nvmf_ns *ns[PV_NVMF_MAX_NS];	/* index nsid - 1 */
	uint32_t max_nsid;
	uint16_t next_cntlid;
	TAILQ_HEAD(, pv_nvmf_ctrlr) ctrlrs;
};

struct pv_nvmf_tgt {
	struct pv_nvmf_tgt_opts opts;
	rte_spinlock_t lock;			/* subsystems' controller lists */
	TAILQ_HEAD(, pv_nvmf_subsys) subsystems;
	struct pv_nvmf_subsys *discovery;
	unsigned int num_listeners;
	struct nvmf_listener listeners[NVMF_MAX_LISTENERS];
	uint64_t genctr;
	unsigned int num_poll_ns;		/* namespaces with a poll op */
	struct pv_nvmf_ns *poll_ns[PV_NVMF_MAX_NS * 8];
};

struct pv_nvmf_ctrlr {
	TAILQ_ENTRY(pv_nvmf_ctrlr) link;
	struct pv_nvmf_subsys *subsys;
	uint16_t cntlid;
	char hostnqn[PV_NVME_NQN_MAX_LEN + 1];
	uint8_t hostid[16];
	rte_spinlock_t lock;			/* everything below */
	unsigned int refs;			/* connected queue pairs */
	struct pv_nvmf_qpair *qpairs[PV_NVMF_MAX_QPAIRS];
	uint16_t max_qpairs;			/* admin included */
	uint32_t cc;
	uint32_t csts;
	uint32_t kato_ms;			/* 0: no keep-alive */
	uint64_t last_ka_ms;
	bool failed;
	uint32_t aec;				/* async event configuration */
	uint32_t num_queues_feat;		/* Set Features NQ value, 0-based fields */
	bool num_queues_set;
	/* admin queue only (its lcore) */
	TAILQ_HEAD(, pv_nvmf_req) aers;
	unsigned int num_aers;
	uint64_t err_count;
	unsigned int err_head;
	struct pv_nvme_error_log err_log[NVMF_ERR_LOG_ENTRIES];
	uint32_t changed_ns[16];
	unsigned int num_changed_ns;
};

/* nvmf_ctrlr.c */
void pv_nvmf_fabrics_exec(struct pv_nvmf_req *req);
void pv_nvmf_admin_exec(struct pv_nvmf_req *req);
void pv_nvmf_ctrlr_put(struct pv_nvmf_ctrlr *c);

/* nvmf_io.c */
uint16_t pv_nvmf_io_check(struct pv_nvmf_req *req);
void pv_nvmf_io_exec(struct pv_nvmf_req *req);

/* nvmf_req.c */
void pv_nvmf_req_complete(struct pv_nvmf_req *req);

static inline void
nvmf_req_status(struct pv_nvmf_req *req, uint8_t sct, uint8_t sc)
{
	uint16_t st = PV_NVME_STATUS(sct, sc);

	if (sct != 0 || sc != 0)
		st |= PV_NVME_STATUS_DNR;
	req->cpl.status = rte_cpu_to_le_16(st);
}

/* fill a fixed-width space-padded ASCII field */
static inline void
nvmf_str_pad(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len);

	memcpy(dst, src, n);
	memset(dst + n, ' ', len - n);
}

#endif /* PV_LIB_NVMF_NVMF_PRIV_H */
