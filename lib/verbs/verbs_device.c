/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * Device registry and the device/context verbs: probing drivers with the
 * --pv-dev arguments, device lists, open/close, query_device/port/gid/pkey,
 * pv_progress, devargs parsing.
 */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_lcore.h>
#include <rte_log.h>

#include "pv_rtc.h"
#include "pv_rtc_internal.h"
#include "verbs_priv.h"

RTE_LOG_REGISTER_DEFAULT(pv_verbs_logtype, NOTICE);

/* pv_cleanup() removes the devices while DPDK still works */
RTE_INIT(verbs_cleanup_hook_register)
{
	pv_rtc_cleanup_hook_add(pv_verbs_cleanup);
}

#define PV_VERBS_MAX_DEVICES 64

/*
 * probe_lock serialises probing (a driver's probe calls pv_device_add(),
 * which takes dev_lock), dev_lock guards the device table.
 */
static pthread_mutex_t verbs_probe_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t verbs_dev_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pv_device *verbs_devs[PV_VERBS_MAX_DEVICES];
static int verbs_nb_devs;
static int verbs_probed;
static int verbs_fork_requested;

int
pv_device_add(const struct pv_driver *driver, struct pv_device *device)
{
	int i;

	if (driver == NULL || device == NULL || device->name[0] == '\0')
		return -EINVAL;
	pthread_mutex_lock(&verbs_dev_lock);
	for (i = 0; i < verbs_nb_devs; i++) {
		if (strcmp(verbs_devs[i]->name, device->name) == 0) {
			pthread_mutex_unlock(&verbs_dev_lock);
			VERBS_LOG(ERR, "device %s: name already in use", device->name);
			return -EEXIST;
		}
	}
	if (verbs_nb_devs == PV_VERBS_MAX_DEVICES) {
		pthread_mutex_unlock(&verbs_dev_lock);
		VERBS_LOG(ERR, "device %s: registry full (%d devices)", device->name,
			  PV_VERBS_MAX_DEVICES);
		return -ENOSPC;
	}
	device->driver = driver;
	verbs_devs[verbs_nb_devs++] = device;
	pthread_mutex_unlock(&verbs_dev_lock);
	VERBS_LOG(INFO, "device %s added by driver %s", device->name, driver->name);
	return 0;
}

/* Length of the DRIVER part of a "DRIVER[:ARGS]" string. */
static size_t
verbs_devarg_drvlen(const char *devarg)
{
	return strcspn(devarg, ":");
}

static int
verbs_devarg_names(const char *devarg, const char *name)
{
	size_t len = verbs_devarg_drvlen(devarg);

	return strlen(name) == len && strncmp(devarg, name, len) == 0;
}

/* Probe every registered driver once, each with the --pv-dev args naming it. */
static void
verbs_probe_all(void)
{
	const char *const *devargs;
	const char **mine;
	struct pv_driver *drv;
	int nb = 0;
	int i, n, ret;

	devargs = pv_rtc_devargs(&nb);
	if (devargs == NULL)
		nb = 0;
	mine = calloc(nb + 1, sizeof(*mine));
	if (mine == NULL) {
		VERBS_LOG(ERR, "no memory to probe drivers");
		return;
	}
	for (i = 0; i < nb; i++) {
		TAILQ_FOREACH(drv, &pv_verbs_drivers, next)
			if (verbs_devarg_names(devargs[i], drv->name))
				break;
		if (drv == NULL)
			VERBS_LOG(ERR, "--pv-dev=%s: no driver named \"%.*s\"", devargs[i],
				  (int)verbs_devarg_drvlen(devargs[i]), devargs[i]);
	}
	/* A driver named by no --pv-dev is still probed (nb_devargs 0): mlx5
	 * discovers its hardware itself. */
	TAILQ_FOREACH(drv, &pv_verbs_drivers, next) {
		n = 0;
		for (i = 0; i < nb; i++) {
			const char *colon;

			if (!verbs_devarg_names(devargs[i], drv->name))
				continue;
			colon = strchr(devargs[i], ':');
			mine[n++] = colon != NULL ? colon + 1 : "";
		}
		mine[n] = NULL;
		ret = drv->ops_full.probe(drv, mine, n);
		if (ret < 0 && !(ret == -EOPNOTSUPP && n == 0))
			VERBS_LOG(ERR, "driver %s: probe with %d devargs failed: %s", drv->name, n,
				  rte_strerror(-ret));
		else if (ret > 0)
			VERBS_LOG(INFO, "driver %s: %d device(s)", drv->name, ret);
	}
	free(mine);
}

struct pv_device **
pv_get_device_list(int *num_devices)
{
	struct pv_device **list;
	int i, n;

	if (rte_lcore_count() == 0) {
		VERBS_LOG(ERR, "pv_init() has not been called");
		return verbs_err_ptr(ENOSYS);
	}
	pthread_mutex_lock(&verbs_probe_lock);
	if (!verbs_probed) {
		verbs_probed = 1;
		verbs_probe_all();
	}
	pthread_mutex_unlock(&verbs_probe_lock);

	pthread_mutex_lock(&verbs_dev_lock);
	n = verbs_nb_devs;
	list = calloc(n + 1, sizeof(*list));
	if (list == NULL) {
		pthread_mutex_unlock(&verbs_dev_lock);
		return verbs_err_ptr(ENOMEM);
	}
	for (i = 0; i < n; i++)
		list[i] = verbs_devs[i];
	pthread_mutex_unlock(&verbs_dev_lock);
	if (num_devices != NULL)
		*num_devices = n;
	return list;
}

void
pv_free_device_list(struct pv_device **list)
{
	free(list);
}

void
pv_verbs_cleanup(void)
{
	int i;

	pthread_mutex_lock(&verbs_probe_lock);
	pthread_mutex_lock(&verbs_dev_lock);
	for (i = verbs_nb_devs - 1; i >= 0; i--) {
		struct pv_device *dev = verbs_devs[i];

		verbs_devs[i] = NULL;
		dev->driver->ops_full.remove(dev);
	}
	verbs_nb_devs = 0;
	verbs_probed = 0;
	pthread_mutex_unlock(&verbs_dev_lock);
	pthread_mutex_unlock(&verbs_probe_lock);
}

const char *
pv_get_device_name(struct pv_device *device)
{
	return device != NULL ? device->name : NULL;
}

pv_be64
pv_get_device_guid(struct pv_device *device)
{
	return device != NULL ? device->node_guid : 0;
}

struct pv_context *
pv_open_device(struct pv_device *device)
{
	const struct pv_driver_ops *ops;
	struct pv_context_priv *priv;
	struct pv_context *ctx;
	int ret;

	if (device == NULL || device->driver == NULL)
		return verbs_err_ptr(EINVAL);
	ops = pv_device_ops(device);
	priv = calloc(1, sizeof(*priv));
	if (priv == NULL)
		return verbs_err_ptr(ENOMEM);
	errno = 0;
	ctx = ops->open_device(device);
	if (ctx == NULL) {
		ret = errno != 0 ? errno : ENOMEM;
		VERBS_LOG(ERR, "device %s: open failed: %s", device->name, rte_strerror(ret));
		free(priv);
		return verbs_err_ptr(ret);
	}
	ctx->device = device;
	ctx->priv = priv;
	ctx->usecnt = 0;
	if (ctx->cmd_fd == 0)
		ctx->cmd_fd = -1;	/* no kernel command channel */
	if (ctx->num_comp_vectors <= 0)
		ctx->num_comp_vectors = 1;
	pthread_mutex_init(&ctx->mutex, NULL);

	ret = ops->query_device(ctx, &priv->dev_attr);
	if (ret != 0) {
		VERBS_LOG(ERR, "device %s: query_device failed: %s", device->name,
			  rte_strerror(ret));
		goto err_close;
	}
	ret = -pv_verbs_async_init(ctx);
	if (ret != 0)
		goto err_close;
	pv_verbs_async_open(ctx);
	return ctx;

err_close:
	pthread_mutex_destroy(&ctx->mutex);
	ctx->priv = NULL;
	ops->close_device(ctx);
	free(priv);
	return verbs_err_ptr(ret);
}

int
pv_close_device(struct pv_context *context)
{
	const struct pv_driver_ops *ops;
	struct pv_context_priv *priv;
	int ret;

	if (context == NULL)
		return EINVAL;
	if (verbs_ref_read(&context->usecnt) != 0) {
		VERBS_LOG(ERR, "device %s: %u objects still open", context->device->name,
			  verbs_ref_read(&context->usecnt));
		return EBUSY;
	}
	ops = verbs_ops(context);
	priv = context->priv;
	/* event sources beside close (the control thread) stop posting here;
	 * the async queue goes before close_device, which frees the context */
	pv_verbs_async_close(context);
	pv_verbs_async_fini(context);
	pthread_mutex_destroy(&context->mutex);
	ret = ops->close_device(context);
	if (ret != 0) {
		/* still open: give it back what it had */
		pthread_mutex_init(&context->mutex, NULL);
		if (pv_verbs_async_init(context) != 0)
			VERBS_LOG(ERR, "device %s: async queue lost", context->device->name);
		else
			pv_verbs_async_open(context);
		return ret;
	}
	free(priv);
	return 0;
}

int
pv_query_device(struct pv_context *context, struct pv_device_attr *device_attr)
{
	if (context == NULL || device_attr == NULL)
		return EINVAL;
	return verbs_ops(context)->query_device(context, device_attr);
}

int
pv_verbs_port_check(struct pv_context *ctx, uint8_t port_num)
{
	if (port_num < 1 || port_num > verbs_dev_attr(ctx)->phys_port_cnt)
		return EINVAL;
	return 0;
}

int
pv_verbs_port_query(struct pv_context *ctx, uint8_t port_num, struct pv_port_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	return verbs_ops(ctx)->query_port(ctx, port_num, attr);
}

int
pv_query_port(struct pv_context *context, uint8_t port_num, struct pv_port_attr *port_attr)
{
	int ret;

	if (context == NULL || port_attr == NULL)
		ret = EINVAL;
	else if (pv_verbs_port_check(context, port_num) != 0)
		ret = EINVAL;
	else
		ret = pv_verbs_port_query(context, port_num, port_attr);
	/* libibverbs returns the command's errno and leaves it in errno too */
	if (ret != 0)
		errno = ret;
	return ret;
}

/* Check port and table index for query_gid/query_pkey; 0 or a positive errno. */
static int
verbs_table_index_check(struct pv_context *ctx, uint8_t port_num, int index, int is_gid)
{
	struct pv_port_attr pattr;
	int ret;

	if (pv_verbs_port_check(ctx, port_num) != 0 || index < 0)
		return EINVAL;
	ret = pv_verbs_port_query(ctx, port_num, &pattr);
	if (ret != 0)
		return ret;
	if (index >= (is_gid ? pattr.gid_tbl_len : pattr.pkey_tbl_len))
		return EINVAL;
	return 0;
}

int
pv_query_gid(struct pv_context *context, uint8_t port_num, int index, union pv_gid *gid)
{
	int ret;

	if (context == NULL || gid == NULL) {
		errno = EINVAL;
		return -1;
	}
	ret = verbs_table_index_check(context, port_num, index, 1);
	if (ret == 0)
		ret = verbs_ops(context)->query_gid(context, port_num, index, gid);
	if (ret != 0) {
		errno = ret;
		return -1;
	}
	return 0;
}

int
pv_query_pkey(struct pv_context *context, uint8_t port_num, int index, pv_be16 *pkey)
{
	int ret;

	if (context == NULL || pkey == NULL) {
		errno = EINVAL;
		return -1;
	}
	ret = verbs_table_index_check(context, port_num, index, 0);
	if (ret == 0)
		ret = verbs_ops(context)->query_pkey(context, port_num, index, pkey);
	if (ret != 0) {
		errno = ret;
		return -1;
	}
	return 0;
}

int
pv_progress(struct pv_context *context)
{
	if (context == NULL)
		return -EINVAL;
	return verbs_ops(context)->progress(context);
}

int
pv_set_progress_mode(struct pv_context *context, enum pv_progress_mode mode)
{
	if (context == NULL)
		return EINVAL;
	if (mode != PV_PROGRESS_THREAD_SAFE && mode != PV_PROGRESS_APP) {
		VERBS_LOG(ERR, "device %s: unknown progress mode %d", context->device->name,
			  (int)mode);
		return EINVAL;
	}
	return verbs_ops(context)->set_progress_mode(context, mode);
}

int
pv_get_progress_mode(struct pv_context *context)
{
	if (context == NULL)
		return -EINVAL;
	return verbs_ops(context)->get_progress_mode(context);
}

int
pv_fork_init(void)
{
	/* DPDK memory is never shared with a child: nothing to protect */
	__atomic_store_n(&verbs_fork_requested, 1, __ATOMIC_RELAXED);
	return 0;
}

int
pv_devargs_parse(const char *args,
		 int (*fn)(const char *key, const char *value, void *opaque),
		 void *opaque)
{
	char *copy, *pair, *save = NULL;
	int ret = 0;

	if (args == NULL || fn == NULL)
		return -EINVAL;
	copy = strdup(args);
	if (copy == NULL)
		return -ENOMEM;
	for (pair = strtok_r(copy, ",", &save); pair != NULL;
	     pair = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(pair, '=');

		if (eq == NULL || eq == pair) {
			VERBS_LOG(ERR, "devargs \"%s\": \"%s\" is not key=value", args, pair);
			ret = -EINVAL;
			break;
		}
		*eq = '\0';
		ret = fn(pair, eq + 1, opaque);
		if (ret != 0)
			break;
	}
	free(copy);
	return ret;
}
