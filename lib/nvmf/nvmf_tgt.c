/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * The target object: options, listeners (for the discovery log page),
 * subsystems with their allowed hosts and namespaces.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_random.h>

#include "nvmf_priv.h"

static const struct pv_nvmf_tgt_opts nvmf_default_opts = {
	.max_io_size = 128 * 1024,
	.in_capsule_data_size = 4096,
	.max_queue_depth = 128,
	.max_qpairs_per_ctrlr = 64,
	.kas_ms = 1000,
};

struct pv_nvmf_tgt *
pv_nvmf_tgt_create(const struct pv_nvmf_tgt_opts *opts)
{
	struct pv_nvmf_tgt *tgt;

	if (opts == NULL)
		opts = &nvmf_default_opts;
	if (opts->max_io_size < 4096 || !rte_is_power_of_2(opts->max_io_size) ||
	    opts->max_io_size > (4096u << 8) || opts->in_capsule_data_size % 16 != 0 ||
	    opts->in_capsule_data_size > 64 * 1024 || opts->max_queue_depth < 2 ||
	    opts->max_qpairs_per_ctrlr < 2 || opts->max_qpairs_per_ctrlr > PV_NVMF_MAX_QPAIRS ||
	    opts->kas_ms == 0 || opts->kas_ms % 100 != 0 || opts->kas_ms > 0xffff * 100u) {
		NVMF_LOG(ERR, "target options out of range\n");
		errno = EINVAL;
		return NULL;
	}
	tgt = calloc(1, sizeof(*tgt));
	if (tgt == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	tgt->opts = *opts;
	rte_spinlock_init(&tgt->lock);
	TAILQ_INIT(&tgt->subsystems);
	tgt->discovery = pv_nvmf_subsys_create(tgt, PV_NVMF_DISCOVERY_NQN, "", "", true);
	if (tgt->discovery == NULL) {
		free(tgt);
		errno = ENOMEM;
		return NULL;
	}
	tgt->discovery->is_discovery = true;
	return tgt;
}

const struct pv_nvmf_tgt_opts *
pv_nvmf_tgt_opts(const struct pv_nvmf_tgt *tgt)
{
	return &tgt->opts;
}

void
pv_nvmf_tgt_destroy(struct pv_nvmf_tgt *tgt)
{
	struct pv_nvmf_subsys *s;
	unsigned int i;

	if (tgt == NULL)
		return;
	while ((s = TAILQ_FIRST(&tgt->subsystems)) != NULL) {
		TAILQ_REMOVE(&tgt->subsystems, s, link);
		if (!TAILQ_EMPTY(&s->ctrlrs))
			NVMF_LOG(ERR, "%s: destroyed with controllers connected\n", s->nqn);
		for (i = 0; i < PV_NVMF_MAX_NS; i++)
			pv_nvmf_ns_destroy(s->ns[i]);
		for (i = 0; i < s->num_hosts; i++)
			free(s->hosts[i]);
		free(s);
	}
	free(tgt);
}

int
pv_nvmf_tgt_add_listener(struct pv_nvmf_tgt *tgt, const char *traddr, const char *trsvcid)
{
	struct nvmf_listener *l;
	unsigned int i;

	if (tgt == NULL || traddr == NULL || trsvcid == NULL || traddr[0] == '\0' ||
	    trsvcid[0] == '\0' || strlen(traddr) >= sizeof(l->traddr) ||
	    strlen(trsvcid) >= sizeof(l->trsvcid))
		return -EINVAL;
	for (i = 0; i < tgt->num_listeners; i++)
		if (strcmp(tgt->listeners[i].traddr, traddr) == 0 &&
		    strcmp(tgt->listeners[i].trsvcid, trsvcid) == 0)
			return -EEXIST;
	if (tgt->num_listeners == NVMF_MAX_LISTENERS)
		return -ENOSPC;
	l = &tgt->listeners[tgt->num_listeners++];
	strcpy(l->traddr, traddr);
	strcpy(l->trsvcid, trsvcid);
	tgt->genctr++;
	return 0;
}

static bool
nvmf_str_ok(const char *s, size_t max)
{
	return s != NULL && strnlen(s, max + 1) <= max;
}

struct pv_nvmf_subsys *
pv_nvmf_subsys_find(struct pv_nvmf_tgt *tgt, const char *nqn)
{
	struct pv_nvmf_subsys *s;

	TAILQ_FOREACH(s, &tgt->subsystems, link)
		if (strcmp(s->nqn, nqn) == 0)
			return s;
	return NULL;
}

struct pv_nvmf_subsys *
pv_nvmf_subsys_create(struct pv_nvmf_tgt *tgt, const char *nqn, const char *serial,
		      const char *model, bool allow_any_host)
{
	struct pv_nvmf_subsys *s;

	if (tgt == NULL || !nvmf_str_ok(nqn, PV_NVME_NQN_MAX_LEN) || nqn[0] == '\0' ||
	    !nvmf_str_ok(serial, 20) || !nvmf_str_ok(model, 40)) {
		NVMF_LOG(ERR, "subsystem: NQN, serial or model missing or too long\n");
		errno = EINVAL;
		return NULL;
	}
	if (pv_nvmf_subsys_find(tgt, nqn) != NULL) {
		NVMF_LOG(ERR, "subsystem %s exists already\n", nqn);
		errno = EEXIST;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	s->tgt = tgt;
	strcpy(s->nqn, nqn);
	strcpy(s->serial, serial);
	strcpy(s->model, model);
	s->allow_any_host = allow_any_host;
	s->next_cntlid = 1;
	TAILQ_INIT(&s->ctrlrs);
	TAILQ_INSERT_TAIL(&tgt->subsystems, s, link);
	tgt->genctr++;
	return s;
}

int
pv_nvmf_subsys_add_host(struct pv_nvmf_subsys *s, const char *hostnqn)
{
	if (s == NULL || !nvmf_str_ok(hostnqn, PV_NVME_NQN_MAX_LEN) || hostnqn[0] == '\0')
		return -EINVAL;
	if (s->num_hosts == NVMF_MAX_HOSTS)
		return -ENOSPC;
	s->hosts[s->num_hosts] = strdup(hostnqn);
	if (s->hosts[s->num_hosts] == NULL)
		return -ENOMEM;
	s->num_hosts++;
	return 0;
}

int
pv_nvmf_subsys_add_ns(struct pv_nvmf_subsys *s, struct pv_nvmf_ns *ns)
{
	uint32_t nsid;
	uint64_t r;
	int i;

	if (s == NULL || ns == NULL || s->is_discovery || ns->ops == NULL ||
	    ns->num_blocks == 0 || ns->block_size != (1u << ns->lbads) ||
	    ns->nsid > PV_NVMF_MAX_NS)
		return -EINVAL;
	nsid = ns->nsid;
	if (nsid == 0) {
		for (nsid = 1; nsid <= PV_NVMF_MAX_NS && s->ns[nsid - 1] != NULL; nsid++)
			;
		if (nsid > PV_NVMF_MAX_NS)
			return -ENOSPC;
	} else if (s->ns[nsid - 1] != NULL) {
		return -EEXIST;
	}
	/* identifiers the host keeps the namespace apart by (base 5.15.2.3) */
	for (i = 0; i < 16; i++)
		if (ns->nguid[i] != 0)
			break;
	if (i == 16) {
		r = rte_rand();
		memcpy(ns->nguid, &r, 8);
		r = rte_rand();
		memcpy(ns->nguid + 8, &r, 8);
		memcpy(ns->uuid, ns->nguid, 16);
		ns->uuid[6] = (ns->uuid[6] & 0x0f) | 0x40;	/* RFC 4122 version 4 */
		ns->uuid[8] = (ns->uuid[8] & 0x3f) | 0x80;
	}
	if (ns->ops->poll != NULL) {
		if (s->tgt->num_poll_ns == RTE_DIM(s->tgt->poll_ns))
			return -ENOSPC;
		s->tgt->poll_ns[s->tgt->num_poll_ns++] = ns;
	}
	ns->nsid = nsid;
	s->ns[nsid - 1] = ns;
	if (nsid > s->max_nsid)
		s->max_nsid = nsid;
	return 0;
}

unsigned int
pv_nvmf_tgt_ns_poll(struct pv_nvmf_tgt *tgt)
{
	unsigned int i, n = 0;

	for (i = 0; i < tgt->num_poll_ns; i++)
		n += tgt->poll_ns[i]->ops->poll(tgt->poll_ns[i]);
	return n;
}
