/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/* perftest's banner, address lines and result tables, column for column. */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perf.h"

#define PERF_RESULT_LINE \
	"---------------------------------------------------------------------------------------\n"

static const char *
perf_verb_str(enum perf_verb verb)
{
	switch (verb) {
	case PERF_WRITE:
		return "RDMA_Write";
	case PERF_READ:
		return "RDMA_Read";
	default:
		return "Send";
	}
}

static const char *
perf_link_str(uint8_t link_layer)
{
	switch (link_layer) {
	case PV_LINK_LAYER_ETHERNET:
		return "Ethernet";
	case PV_LINK_LAYER_INFINIBAND:
		return "IB";
	default:
		return "Unknown";
	}
}

void
perf_report_banner(const struct perf_run *r)
{
	const struct perf_params *p = &r->p;

	printf(PERF_RESULT_LINE);
	printf("                    %s ", perf_verb_str(p->verb));
	if (p->kind == PERF_BW)
		printf("%sBW ", p->post_list > 1 ? "Post List " : "");
	else
		printf("Latency ");
	printf("Test\n");
	printf(" Dual-port       : OFF\t\tDevice         : %s%s\n", p->ib_dev,
	       r->is_model ? " (device model, not hardware)" : "");
	printf(" Number of qps   : 1\t\tTransport type : %s\n",
	       r->ctx->device->transport_type == PV_TRANSPORT_IWARP ? "IW" : "IB");
	printf(" Connection type : RC\t\tUsing SRQ      : OFF\n");
	if (!r->is_server || p->kind == PERF_LAT)
		printf(" TX depth        : %d\n", p->tx_depth);
	if (p->post_list > 1)
		printf(" Post List       : %d\n", p->post_list);
	if (p->verb == PERF_SEND && (r->is_server || p->kind == PERF_LAT || p->loopback))
		printf(" RX depth        : %d\n", p->rx_depth);
	if (p->kind == PERF_BW) {
		printf(" CQ Moderation   : %d\n", perf_cq_mod(p, p->sizes[0]));
		printf(" CQE Poll Batch  : 16\n");
	}
	printf(" Mtu             : %d[B]\n", pv_mtu_to_bytes(r->mtu));
	printf(" Link type       : %s\n", perf_link_str(r->port_attr.link_layer));
	printf(" GID index       : %d\n", p->gid_index);
	if (p->verb != PERF_READ)
		printf(" Max inline data : %d[B]\n", r->inline_size);
	else
		printf(" Outstand reads  : %d\n",
		       r->local.out_reads < r->remote.out_reads ? r->local.out_reads :
		       r->remote.out_reads);
	if (p->verify)
		printf(" Data validation : ON\n");
	printf(" rdma_cm QPs\t : %s\n", p->rdma_cm ? "ON" : "OFF");
	if (p->loopback)
		printf(" Loopback        : ON (2 QPs of one device, one lcore drives both)\n");
	printf(" Data ex. method : %s\n", p->loopback ? "none (one process)" :
	       p->rdma_cm ? "rdma_cm" : "Ethernet");
	printf(PERF_RESULT_LINE);
	if (p->kind == PERF_BW && (p->duration_s > 0 || p->iters > 20000 ||
				   (r->is_server && p->verb == PERF_SEND)))
		printf(" WARNING: BW peak won't be measured in this run.\n");
}

void
perf_report_dest(const struct perf_run *r, const struct perf_dest *d, int remote)
{
	const uint8_t *g = d->gid.raw;

	printf(" %s address: LID %#04x QPN %#06x PSN %#06x", remote ? "remote" : "local",
	       d->lid, d->qpn, d->psn);
	if (r->p.verb == PERF_READ)
		printf(" OUT %#04x", d->out_reads);
	if (r->p.verb != PERF_SEND)
		printf(" RKey %#08x VAddr %#016" PRIx64, d->rkey, d->addr);
	printf("\n GID: %02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:"
	       "%02d:%02d:%02d:%02d\n", g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7],
	       g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
}

void
perf_report_header(const struct perf_run *r)
{
	const char *u = r->p.report_gbits ? "Gb/sec" : "MiB/sec";

	if (r->p.kind == PERF_BW)
		printf(" #bytes     #iterations    BW peak[%s]    BW average[%s]   "
		       "MsgRate[Mpps]\n", u, u);
	else
		printf(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
		       "t_avg[usec]    t_stdev[usec]   99%% percentile[usec]   "
		       "99.9%% percentile[usec] \n");
}

void
perf_report_line(const struct perf_run *r, const struct perf_result *res)
{
	const double *v = res->v;

	if (res->kind == PERF_BW)
		printf(" %-7" PRIu64 "    %-10" PRIu64 "       %-7.2lf            %-7.2lf\t\t"
		       "     %-7.6lf\n", res->size, res->iters, v[0], v[1], v[2]);
	else
		printf(" %-7" PRIu64 " %" PRIu64 "          %-7.2f        %-7.2f      %-7.2f  \t"
		       "       %-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f\n", res->size, res->iters,
		       v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
	(void)r;
	fflush(stdout);
}

void
perf_report_footer(void)
{
	printf(PERF_RESULT_LINE);
	fflush(stdout);
}

/* After the table: say that the figures are not a NIC's. */
void
perf_report_model(const struct perf_run *r)
{
	if (!r->is_model)
		return;
	printf(" Device model: %s is a software model of the device (fw_ver \"%s\"); these\n"
	       " figures are pollverbs' data path plus a software HCA, not hardware figures.\n",
	       r->p.ib_dev, r->dev_attr.fw_ver);
	fflush(stdout);
}

/*
 * Average over the whole run; peak as perftest: the best rate of any window
 * from a post (every post_list-th WR) to a signalled completion.
 * @param iters  WRs completed; entries [0, iters) of tposted/tcompleted.
 */
void
perf_bw_result(struct perf_run *r, uint64_t iters, uint64_t cq_mod, int peak,
	       struct perf_result *res)
{
	double factor = r->p.report_gbits ? 125000000.0 : 1048576.0;
	double hz = (double)r->tsc_hz;
	uint64_t last = peak ? iters - 1 : 0;
	uint64_t cycles, best, i, j, t, step = r->p.post_list;

	memset(res, 0, sizeof(*res));
	res->kind = PERF_BW;
	res->size = r->size;
	res->iters = iters;
	if (iters == 0)
		return;
	cycles = r->tcompleted[last] - r->tposted[0];
	if (cycles == 0)
		cycles = 1;
	if (peak) {
		best = cycles;
		for (i = 0; i < iters; i += step) {
			for (j = (i + cq_mod) / cq_mod * cq_mod - 1; j < iters; j += cq_mod) {
				t = (r->tcompleted[j] - r->tposted[i]) / (j - i + 1);
				if (r->tcompleted[j] != 0 && t < best)
					best = t;
			}
			if (iters % cq_mod) {
				j = iters - 1;
				t = (r->tcompleted[j] - r->tposted[i]) / (j - i + 1);
				if (t < best)
					best = t;
			}
		}
		if (best == 0)
			best = 1;
		res->v[0] = (double)r->size * hz / ((double)best * factor);
	}
	res->v[1] = (double)r->size * (double)iters * hz / ((double)cycles * factor);
	res->v[2] = (double)iters * hz / ((double)cycles * 1e6);
}

static int
perf_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* perftest's print_report_lat(): gaps between posts, largest 2 dropped. */
int
perf_lat_result(struct perf_run *r, uint64_t iters, struct perf_result *res)
{
	double unit = (double)r->tsc_hz / 1e6 * (r->p.verb == PERF_READ ? 1 : 2);
	uint64_t *d, n, i, median;
	double sum = 0, var = 0, x;

	memset(res, 0, sizeof(*res));
	res->kind = PERF_LAT;
	res->size = r->size;
	res->iters = iters;
	if (iters < PERF_LAT_TAIL + 2)
		return 0;
	n = iters - 1;
	d = malloc(n * sizeof(*d));
	if (d == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		d[i] = r->tposted[i + 1] - r->tposted[i];
	qsort(d, n, sizeof(*d), perf_u64_cmp);
	n -= PERF_LAT_TAIL;
	median = (n - 1) % 2 ? (d[n / 2] + d[n / 2 - 1]) / 2 : d[n / 2];
	for (i = 0; i < n; i++)
		sum += d[i] / unit;
	for (i = 0; i < n; i++) {
		x = sum / n - d[i] / unit;
		var += x * x;
	}
	res->v[0] = d[0] / unit;
	res->v[1] = d[n] / unit;
	res->v[2] = median / unit;
	res->v[3] = sum / n;
	res->v[4] = sqrt(var / n);
	res->v[5] = d[(uint64_t)ceil(n * 0.99)] / unit;
	res->v[6] = d[(uint64_t)ceil(n * 0.999)] / unit;
	free(d);
	return 0;
}
