/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 pollverbs authors
 */

/*
 * pv-devinfo: list pollverbs devices and their ports, like ibv_devinfo.
 *
 *   pv-devinfo [EAL args] [-- [-d DEV] [-i PORT] [-v] [-l]]
 *
 * With no EAL arguments it runs on lcore 0 without hugepages or PCI, so a
 * plain `pv-devinfo` works anywhere (and shows mlx5 devices rdma-core sees).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>

#include "pv_rtc.h"
#include "pv_verbs.h"

#define DEVINFO_MAX_ARGS 64

static int devinfo_verbose;

static const char *
devinfo_transport_str(enum pv_transport_type t)
{
	switch (t) {
	case PV_TRANSPORT_IB:
		return "InfiniBand";
	case PV_TRANSPORT_IWARP:
		return "iWARP";
	case PV_TRANSPORT_USNIC:
		return "usNIC";
	case PV_TRANSPORT_USNIC_UDP:
		return "usNIC UDP";
	default:
		return "invalid transport";
	}
}

static const char *
devinfo_port_state_str(enum pv_port_state s)
{
	switch (s) {
	case PV_PORT_DOWN:
		return "PORT_DOWN";
	case PV_PORT_INIT:
		return "PORT_INIT";
	case PV_PORT_ARMED:
		return "PORT_ARMED";
	case PV_PORT_ACTIVE:
		return "PORT_ACTIVE";
	default:
		return "invalid state";
	}
}

static const char *
devinfo_mtu_str(enum pv_mtu mtu)
{
	static const char *const names[] = { "256", "512", "1024", "2048", "4096" };

	if (mtu < PV_MTU_256 || mtu > PV_MTU_4096)
		return "invalid MTU";
	return names[mtu - PV_MTU_256];
}

static const char *
devinfo_link_layer_str(uint8_t ll)
{
	switch (ll) {
	case PV_LINK_LAYER_UNSPECIFIED:
	case PV_LINK_LAYER_INFINIBAND:
		return "InfiniBand";
	case PV_LINK_LAYER_ETHERNET:
		return "Ethernet";
	default:
		return "Unknown";
	}
}

static const char *
devinfo_atomic_str(enum pv_atomic_cap cap)
{
	switch (cap) {
	case PV_ATOMIC_NONE:
		return "ATOMIC_NONE";
	case PV_ATOMIC_HCA:
		return "ATOMIC_HCA";
	case PV_ATOMIC_GLOB:
		return "ATOMIC_GLOB";
	default:
		return "invalid atomic capability";
	}
}

static const char *
devinfo_guid_str(pv_be64 be_guid, char *buf, size_t len)
{
	uint64_t g = rte_be_to_cpu_64(be_guid);

	snprintf(buf, len, "%04x:%04x:%04x:%04x", (unsigned int)(g >> 48) & 0xffff,
		 (unsigned int)(g >> 32) & 0xffff, (unsigned int)(g >> 16) & 0xffff,
		 (unsigned int)g & 0xffff);
	return buf;
}

static void
devinfo_cap_flags_print(unsigned int flags)
{
	static const struct {
		unsigned int bit;
		const char *name;
	} caps[] = {
		{ PV_DEVICE_RESIZE_MAX_WR, "RESIZE_MAX_WR" },
		{ PV_DEVICE_BAD_PKEY_CNTR, "BAD_PKEY_CNTR" },
		{ PV_DEVICE_BAD_QKEY_CNTR, "BAD_QKEY_CNTR" },
		{ PV_DEVICE_RAW_MULTI, "RAW_MULTI" },
		{ PV_DEVICE_AUTO_PATH_MIG, "AUTO_PATH_MIG" },
		{ PV_DEVICE_CHANGE_PHY_PORT, "CHANGE_PHY_PORT" },
		{ PV_DEVICE_UD_AV_PORT_ENFORCE, "UD_AV_PORT_ENFORCE" },
		{ PV_DEVICE_CURR_QP_STATE_MOD, "CURR_QP_STATE_MOD" },
		{ PV_DEVICE_SHUTDOWN_PORT, "SHUTDOWN_PORT" },
		{ PV_DEVICE_INIT_TYPE, "INIT_TYPE" },
		{ PV_DEVICE_PORT_ACTIVE_EVENT, "PORT_ACTIVE_EVENT" },
		{ PV_DEVICE_SYS_IMAGE_GUID, "SYS_IMAGE_GUID" },
		{ PV_DEVICE_RC_RNR_NAK_GEN, "RC_RNR_NAK_GEN" },
		{ PV_DEVICE_SRQ_RESIZE, "SRQ_RESIZE" },
		{ PV_DEVICE_N_NOTIFY_CQ, "N_NOTIFY_CQ" },
		{ PV_DEVICE_MEM_WINDOW, "MEM_WINDOW" },
		{ PV_DEVICE_UD_IP_CSUM, "UD_IP_CSUM" },
		{ PV_DEVICE_XRC, "XRC" },
		{ PV_DEVICE_MEM_MGT_EXTENSIONS, "MEM_MGT_EXTENSIONS" },
		{ PV_DEVICE_MEM_WINDOW_TYPE_2A, "MEM_WINDOW_TYPE_2A" },
		{ PV_DEVICE_MEM_WINDOW_TYPE_2B, "MEM_WINDOW_TYPE_2B" },
		{ PV_DEVICE_RC_IP_CSUM, "RC_IP_CSUM" },
		{ PV_DEVICE_RAW_IP_CSUM, "RAW_IP_CSUM" },
		{ PV_DEVICE_MANAGED_FLOW_STEERING, "MANAGED_FLOW_STEERING" },
	};
	unsigned int known = 0;
	size_t i;

	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		known |= caps[i].bit;
		if (flags & caps[i].bit)
			printf("\t\t\t\t\t%s\n", caps[i].name);
	}
	if (flags & ~known)
		printf("\t\t\t\t\tUnknown flags: 0x%X\n", flags & ~known);
}

static void
devinfo_device_attr_print(const struct pv_device_attr *a)
{
	printf("\tmax_mr_size:\t\t\t0x%" PRIx64 "\n", a->max_mr_size);
	printf("\tpage_size_cap:\t\t\t0x%" PRIx64 "\n", a->page_size_cap);
	printf("\tmax_qp:\t\t\t\t%d\n", a->max_qp);
	printf("\tmax_qp_wr:\t\t\t%d\n", a->max_qp_wr);
	printf("\tdevice_cap_flags:\t\t0x%08x\n", a->device_cap_flags);
	devinfo_cap_flags_print(a->device_cap_flags);
	printf("\tmax_sge:\t\t\t%d\n", a->max_sge);
	printf("\tmax_sge_rd:\t\t\t%d\n", a->max_sge_rd);
	printf("\tmax_cq:\t\t\t\t%d\n", a->max_cq);
	printf("\tmax_cqe:\t\t\t%d\n", a->max_cqe);
	printf("\tmax_mr:\t\t\t\t%d\n", a->max_mr);
	printf("\tmax_pd:\t\t\t\t%d\n", a->max_pd);
	printf("\tmax_qp_rd_atom:\t\t\t%d\n", a->max_qp_rd_atom);
	printf("\tmax_ee_rd_atom:\t\t\t%d\n", a->max_ee_rd_atom);
	printf("\tmax_res_rd_atom:\t\t%d\n", a->max_res_rd_atom);
	printf("\tmax_qp_init_rd_atom:\t\t%d\n", a->max_qp_init_rd_atom);
	printf("\tmax_ee_init_rd_atom:\t\t%d\n", a->max_ee_init_rd_atom);
	printf("\tatomic_cap:\t\t\t%s (%d)\n", devinfo_atomic_str(a->atomic_cap), a->atomic_cap);
	printf("\tmax_ee:\t\t\t\t%d\n", a->max_ee);
	printf("\tmax_rdd:\t\t\t%d\n", a->max_rdd);
	printf("\tmax_mw:\t\t\t\t%d\n", a->max_mw);
	printf("\tmax_raw_ipv6_qp:\t\t%d\n", a->max_raw_ipv6_qp);
	printf("\tmax_raw_ethy_qp:\t\t%d\n", a->max_raw_ethy_qp);
	printf("\tmax_mcast_grp:\t\t\t%d\n", a->max_mcast_grp);
	printf("\tmax_mcast_qp_attach:\t\t%d\n", a->max_mcast_qp_attach);
	printf("\tmax_total_mcast_qp_attach:\t%d\n", a->max_total_mcast_qp_attach);
	printf("\tmax_ah:\t\t\t\t%d\n", a->max_ah);
	printf("\tmax_fmr:\t\t\t%d\n", a->max_fmr);
	if (a->max_fmr != 0)
		printf("\tmax_map_per_fmr:\t\t%d\n", a->max_map_per_fmr);
	printf("\tmax_srq:\t\t\t%d\n", a->max_srq);
	if (a->max_srq != 0) {
		printf("\tmax_srq_wr:\t\t\t%d\n", a->max_srq_wr);
		printf("\tmax_srq_sge:\t\t\t%d\n", a->max_srq_sge);
	}
	printf("\tmax_pkeys:\t\t\t%d\n", a->max_pkeys);
	printf("\tlocal_ca_ack_delay:\t\t%d\n", a->local_ca_ack_delay);
	printf("\tmax_inline_data:\t\t%u\n", a->max_inline_data);
	printf("\tgeneral_odp_caps:\n");
	if (a->odp_general_caps & PV_ODP_SUPPORT)
		printf("\t\t\t\t\tODP_SUPPORT\n");
	if (a->odp_general_caps & PV_ODP_SUPPORT_IMPLICIT)
		printf("\t\t\t\t\tODP_SUPPORT_IMPLICIT\n");
}

static void
devinfo_port_attr_print(const struct pv_port_attr *p)
{
	printf("\t\t\tmax_msg_sz:\t\t0x%x\n", p->max_msg_sz);
	printf("\t\t\tport_cap_flags:\t\t0x%08x\n", p->port_cap_flags);
	printf("\t\t\tport_cap_flags2:\t0x%04x\n", p->port_cap_flags2);
	printf("\t\t\tmax_vl_num:\t\t%d\n", p->max_vl_num);
	printf("\t\t\tbad_pkey_cntr:\t\t0x%x\n", p->bad_pkey_cntr);
	printf("\t\t\tqkey_viol_cntr:\t\t0x%x\n", p->qkey_viol_cntr);
	printf("\t\t\tsm_sl:\t\t\t%d\n", p->sm_sl);
	printf("\t\t\tpkey_tbl_len:\t\t%d\n", p->pkey_tbl_len);
	printf("\t\t\tgid_tbl_len:\t\t%d\n", p->gid_tbl_len);
	printf("\t\t\tsubnet_timeout:\t\t%d\n", p->subnet_timeout);
	printf("\t\t\tinit_type_reply:\t%d\n", p->init_type_reply);
	printf("\t\t\tactive_width:\t\t%d\n", p->active_width);
	printf("\t\t\tactive_speed:\t\t%d\n", p->active_speed);
	printf("\t\t\tphys_state:\t\t%d\n", p->phys_state);
}

/* Non-zero GIDs as addresses; RoCE ports (Ethernet) speak RoCE v2. */
static int
devinfo_gids_print(struct pv_context *ctx, uint8_t port, const struct pv_port_attr *p)
{
	char addr[INET6_ADDRSTRLEN];
	static const uint8_t zero[16];
	union pv_gid gid;
	int i;

	for (i = 0; i < p->gid_tbl_len; i++) {
		if (pv_query_gid(ctx, port, i, &gid) != 0) {
			fprintf(stderr, "Failed to query gid to port %u, index %d\n", port, i);
			return -1;
		}
		if (memcmp(gid.raw, zero, sizeof(zero)) == 0)
			continue;
		if (inet_ntop(AF_INET6, gid.raw, addr, sizeof(addr)) == NULL)
			continue;
		printf("\t\t\tGID[%3d]:\t\t%s%s\n", i, addr,
		       p->link_layer == PV_LINK_LAYER_ETHERNET ? ", RoCE v2" : "");
	}
	return 0;
}

static int
devinfo_device_print(struct pv_device *dev, int port_sel)
{
	struct pv_device_attr a;
	struct pv_port_attr p;
	struct pv_context *ctx;
	char buf[32];
	int rc = 0;
	int port;

	ctx = pv_open_device(dev);
	if (ctx == NULL) {
		fprintf(stderr, "Failed to open device %s: %s\n", pv_get_device_name(dev),
			strerror(errno));
		return 1;
	}
	if (pv_query_device(ctx, &a) != 0) {
		fprintf(stderr, "Failed to query device props\n");
		rc = 2;
		goto out;
	}
	if (port_sel > a.phys_port_cnt) {
		fprintf(stderr, "Invalid port requested for device\n");
		rc = 4;
		goto out;
	}
	printf("hca_id:\t%s\n", pv_get_device_name(dev));
	printf("\ttransport:\t\t\t%s (%d)\n", devinfo_transport_str(dev->transport_type),
	       dev->transport_type);
	if (a.fw_ver[0] != '\0')
		printf("\tfw_ver:\t\t\t\t%s\n", a.fw_ver);
	printf("\tnode_guid:\t\t\t%s\n", devinfo_guid_str(a.node_guid, buf, sizeof(buf)));
	printf("\tsys_image_guid:\t\t\t%s\n",
	       devinfo_guid_str(a.sys_image_guid, buf, sizeof(buf)));
	printf("\tvendor_id:\t\t\t0x%04x\n", a.vendor_id);
	printf("\tvendor_part_id:\t\t\t%u\n", a.vendor_part_id);
	printf("\thw_ver:\t\t\t\t0x%X\n", a.hw_ver);
	printf("\tphys_port_cnt:\t\t\t%d\n", a.phys_port_cnt);
	if (devinfo_verbose)
		devinfo_device_attr_print(&a);

	for (port = 1; port <= a.phys_port_cnt; port++) {
		if (port_sel != 0 && port != port_sel)
			continue;
		if (pv_query_port(ctx, port, &p) != 0) {
			fprintf(stderr, "Failed to query port %d props\n", port);
			rc = 5;
			goto out;
		}
		printf("\t\tport:\t%d\n", port);
		printf("\t\t\tstate:\t\t\t%s (%d)\n", devinfo_port_state_str(p.state), p.state);
		printf("\t\t\tmax_mtu:\t\t%s (%d)\n", devinfo_mtu_str(p.max_mtu), p.max_mtu);
		printf("\t\t\tactive_mtu:\t\t%s (%d)\n", devinfo_mtu_str(p.active_mtu),
		       p.active_mtu);
		printf("\t\t\tsm_lid:\t\t\t%d\n", p.sm_lid);
		printf("\t\t\tport_lid:\t\t%d\n", p.lid);
		printf("\t\t\tport_lmc:\t\t0x%02x\n", p.lmc);
		printf("\t\t\tlink_layer:\t\t%s\n", devinfo_link_layer_str(p.link_layer));
		if (devinfo_verbose)
			devinfo_port_attr_print(&p);
		if (devinfo_gids_print(ctx, port, &p) != 0) {
			rc = 6;
			goto out;
		}
		printf("\n");
	}
out:
	if (pv_close_device(ctx) != 0) {
		fprintf(stderr, "Failed to close device\n");
		rc = 3;
	}
	return rc;
}

static void
devinfo_no_device_hint(void)
{
	fprintf(stderr,
		"No IB devices found\n"
		"\n"
		"pollverbs devices are created at start-up from --pv-dev arguments, e.g. a\n"
		"softroce device over a memif port:\n"
		"  pv-devinfo --no-huge --vdev=net_memif0,role=server \\\n"
		"             --pv-dev=softroce:port=net_memif0,ip=10.99.0.1\n"
		"mlx5 devices (ConnectX-4 and newer) are found without arguments when\n"
		"rdma-core sees them (ibv_devices).\n");
}

static void
devinfo_usage(const char *prog)
{
	printf("Usage: %s [EAL args] [-- [options]]   print the ca attributes\n"
	       "\n"
	       "Options (after --):\n"
	       "  -d, --ib-dev=<dev>     use device <dev> (default all devices)\n"
	       "  -i, --ib-port=<port>   use port <port> of the device (default all ports)\n"
	       "  -l, --list             print only the device names\n"
	       "  -v, --verbose          print all the attributes of the device(s)\n"
	       "  -h, --help             this text\n"
	       "\n"
	       "Without EAL args: --no-huge --no-pci -l 0 --no-shconf --no-telemetry\n"
	       "Devices: --pv-dev=softroce:port=<ethdev>,ip=A.B.C.D[,mac=..] (see the guides)\n",
	       prog);
}

/* Does the user's EAL part already name option @p opt (exact or "opt=...")? */
static int
devinfo_has_opt(int argc, char **argv, const char *opt)
{
	size_t len = strlen(opt);
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strncmp(argv[i], opt, len) == 0 &&
		    (argv[i][len] == '\0' || argv[i][len] == '='))
			return 1;
	return 0;
}

/*
 * True when there is no "--" and every argument is a pv-devinfo option, as
 * in `pv-devinfo -v` or `pv-devinfo -l` (ibv_devinfo's habits): they are then
 * application arguments, not EAL's -v (version) and -l (lcores).
 */
static int
devinfo_only_app_opts(int argc, char **argv)
{
	static const char *const flags[] = {
		"-l", "-v", "-h", "--list", "--verbose", "--help",
	};
	int i;
	size_t f;

	if (argc < 2)
		return 0;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-d") == 0 || strcmp(argv[i], "-i") == 0) {
			i++;	/* its value */
			continue;
		}
		if (strncmp(argv[i], "--ib-dev=", 9) == 0 || strncmp(argv[i], "--ib-port=", 10) == 0)
			continue;
		for (f = 0; f < sizeof(flags) / sizeof(flags[0]); f++)
			if (strcmp(argv[i], flags[f]) == 0)
				break;
		if (f == sizeof(flags) / sizeof(flags[0]))
			return 0;
	}
	return 1;
}

/*
 * The EAL arguments to use: the built-in set when the user gave none (first
 * argument absent or "--", or only pv-devinfo options); otherwise the user's,
 * after a quiet log level and a private in-memory runtime unless the user
 * chose a file prefix.
 */
static int
devinfo_args_build(int argc, char **argv, char **out)
{
	int app_only = devinfo_only_app_opts(argc, argv);
	int builtin = argc < 2 || strcmp(argv[1], "--") == 0 || app_only;
	int n = 0, i;

	out[n++] = argv[0];
	if (builtin) {
		out[n++] = "--no-huge";
		out[n++] = "--no-pci";
		out[n++] = "-l";
		out[n++] = "0";
	}
	out[n++] = "--log-level=*:warning";
	if (!devinfo_has_opt(argc, argv, "--telemetry"))
		out[n++] = "--no-telemetry";
	/* a private runtime, so a running pollverbs process is no obstacle
	 * (--in-memory is refused by EAL together with --no-huge) */
	if (!devinfo_has_opt(argc, argv, "--file-prefix") &&
	    !devinfo_has_opt(argc, argv, "--in-memory") &&
	    !devinfo_has_opt(argc, argv, "--no-shconf") &&
	    !devinfo_has_opt(argc, argv, "--proc-type"))
		out[n++] = builtin || devinfo_has_opt(argc, argv, "--no-huge") ?
			   "--no-shconf" : "--in-memory";
	if (app_only)
		out[n++] = "--";
	for (i = 1; i < argc && n < DEVINFO_MAX_ARGS; i++)
		out[n++] = argv[i];
	out[n] = NULL;
	return n;
}

int
main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ .name = "ib-dev", .has_arg = 1, .val = 'd' },
		{ .name = "ib-port", .has_arg = 1, .val = 'i' },
		{ .name = "list", .has_arg = 0, .val = 'l' },
		{ .name = "verbose", .has_arg = 0, .val = 'v' },
		{ .name = "help", .has_arg = 0, .val = 'h' },
		{ 0 },
	};
	char *args[DEVINFO_MAX_ARGS + 8];
	struct pv_device **list;
	const char *devname = NULL;
	int list_only = 0, port_sel = 0;
	int nargs, ret, c, n = 0, i;
	int rc = 0;

	if (argc > DEVINFO_MAX_ARGS) {
		fprintf(stderr, "too many arguments\n");
		return 1;
	}
	nargs = devinfo_args_build(argc, argv, args);
	ret = pv_init(nargs, args);
	if (ret < 0) {
		fprintf(stderr, "pv_init failed: %s\n", strerror(-ret));
		return 1;
	}
	argc = nargs - ret;
	argv = args + ret;
	while ((c = getopt_long(argc, argv, "d:i:lvh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			devname = optarg;
			break;
		case 'i':
			port_sel = atoi(optarg);
			if (port_sel <= 0) {
				devinfo_usage(argv[0]);
				rc = 1;
				goto out;
			}
			break;
		case 'l':
			list_only = 1;
			break;
		case 'v':
			devinfo_verbose = 1;
			break;
		case 'h':
			devinfo_usage(argv[0]);
			goto out;
		default:
			devinfo_usage(argv[0]);
			rc = 1;
			goto out;
		}
	}

	list = pv_get_device_list(&n);
	if (list == NULL) {
		fprintf(stderr, "Failed to get IB devices list: %s\n", strerror(errno));
		rc = 1;
		goto out;
	}
	if (list_only) {
		printf("%d HCA%s found:\n", n, n != 1 ? "s" : "");
		for (i = 0; i < n; i++)
			printf("\t%s\n", pv_get_device_name(list[i]));
		printf("\n");
	} else if (devname != NULL) {
		for (i = 0; i < n; i++)
			if (strcmp(pv_get_device_name(list[i]), devname) == 0)
				break;
		if (i == n) {
			fprintf(stderr, "IB device '%s' wasn't found\n", devname);
			rc = 1;
		} else {
			rc = devinfo_device_print(list[i], port_sel);
		}
	} else if (n == 0) {
		devinfo_no_device_hint();
		rc = 1;
	} else {
		for (i = 0; i < n; i++)
			rc |= devinfo_device_print(list[i], port_sel);
	}
	pv_free_device_list(list);
out:
	pv_cleanup();
	return rc;
}
