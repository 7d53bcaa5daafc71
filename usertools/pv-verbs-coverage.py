#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every ibv_* function of rdma-core's infiniband/verbs.h with its pv_* state.

    usertools/pv-verbs-coverage.py [--verbs-h PATH] [--lib build/libpollverbs.so]

Reads the function names (declared and static inline) of the installed
verbs.h (libibverbs-dev; rdma-core 44 on Debian 12), looks for the pv_
counterpart in lib/verbs/pv_verbs.h and pv_verbs_ex.h, and, when a built
library is given, checks that the non-inline ones are exported. The state
per driver comes from the drivers' ops tables (an op left NULL is lib/verbs'
EOPNOTSUPP stub) and from the lists below, which say where the code answers
EOPNOTSUPP whatever the driver (keep them true: a verb listed here as
implemented must work, and the tests of doc/guides/prog_guide/verbs.rst
show it). Prints a
Markdown table and the totals; exit status 1 if a verb claimed implemented
is not declared or not exported.
"""

import argparse
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADERS = [os.path.join(REPO, "lib", "verbs", h) for h in ("pv_verbs.h", "pv_verbs_ex.h")]

# verbs answered with EOPNOTSUPP (after argument checks) by every driver
NONE = {
    "advise_mr": "ODP only; no driver has ODP",
    "alloc_null_mr": "not implemented",
    "query_ece": "no ECE",
    "set_ece": "no ECE",
    "import_device": "no kernel command fd to share",
    "import_pd": "no kernel objects to import",
    "import_mr": "no kernel objects to import",
    "import_dm": "no kernel objects to import",
    "unimport_pd": "nothing imported: does nothing",
    "unimport_mr": "nothing imported: does nothing",
    "unimport_dm": "nothing imported: does nothing",
    "modify_cq": "no CQ moderation",
    "open_qp": "XRC domains are not shared between processes",
    "modify_qp_rate_limit": "no packet pacing",
    "query_rt_values_ex": "no device clock",
    "resolve_eth_l2_from_gid": "softroce resolves addresses itself",
    "reg_dmabuf_mr": "no dma-buf import",
    "wr_send_tso": "TSO refused at create_qp_ex",
    "wr_atomic_write": "ATOMIC_WRITE refused at create_qp_ex",
    "attach_mcast": "no UD multicast",
    "detach_mcast": "no UD multicast",
    "get_device_index": "answers -1 (no kernel index)",
}

# verbs whose driver op, when a driver leaves it NULL, is lib/verbs'
# EOPNOTSUPP stub: the state per driver is read from its ops table
OP_BACKED = {
    "create_ah": "create_ah", "destroy_ah": "create_ah", "create_ah_from_wc": "create_ah",
    "resize_cq": "resize_cq",
    "attach_mcast": "attach_mcast", "detach_mcast": "attach_mcast",
    "alloc_mw": "alloc_mw", "dealloc_mw": "alloc_mw", "bind_mw": "alloc_mw",
    "wr_bind_mw": "alloc_mw",
    "open_xrcd": "open_xrcd", "close_xrcd": "open_xrcd", "get_srq_num": "get_srq_num",
    "rereg_mr": "rereg_mr",
    "alloc_dm": "alloc_dm", "free_dm": "alloc_dm", "memcpy_to_dm": "alloc_dm",
    "memcpy_from_dm": "alloc_dm", "reg_dm_mr": "alloc_dm",
    "reg_mr_iova": "reg_mr_iova", "reg_mr_iova2": "reg_mr_iova",
    "create_srq": "create_srq", "modify_srq": "create_srq", "query_srq": "create_srq",
    "destroy_srq": "create_srq", "post_srq_recv": "create_srq",
}
# without reg_mr_iova a driver still registers with iova == addr
PARTLY_WITHOUT_OP = {"reg_mr_iova", "reg_mr_iova2"}

# work request opcodes only softroce's data path builds (mlx5: RC and XRC
# SEND, WRITE, READ, atomics, SEND_WITH_INV, LOCAL_INV and BIND_MW through
# mlx5dv WQEs)
DATAPATH_SOFTROCE_ONLY = {
    "wr_set_ud_addr": "UD QPs (mlx5: RC and XRC only)",
}

DRIVER_OPS = {
    "softroce": (os.path.join(REPO, "drivers", "softroce", "sroce_dev.c"), "sroce_ops"),
    "mlx5": (os.path.join(REPO, "drivers", "mlx5", "mlx5_hw.c"), "pv_mlx5_hw_ops"),
}


def driver_ops(path, table):
    """The op names a driver's struct pv_driver_ops initializer sets."""
    text = open(path).read()
    m = re.search(r"struct pv_driver_ops\s+" + table + r"\s*=\s*\{(.*?)\n\};", text, re.S)
    if m is None:
        raise SystemExit(f"{path}: no ops table {table}")
    return set(re.findall(r"^\s*\.([a-z_0-9]+)\s*=", m.group(1), flags=re.M))


# notes for verbs implemented on both
NOTES = {
    "alloc_dm": "mlx5: rdma-core's MEMIC on a ConnectX (not run here); softroce: max_dm_size 0",
    "reg_dm_mr": "mlx5 on a ConnectX only",
    "rereg_mr": "softroce in place, keys kept; mlx5 through rdma-core (keys may change)",
    "reg_mr_iova2": "mlx5 through rdma-core",
    "create_qp": "softroce RC/UC/UD; mlx5 RC only (XRC through create_qp_ex)",
    "create_ah": "mlx5: no UD",
    "create_qp_ex": "adds XRC INI/TGT; TSO, RSS, creation flags: EOPNOTSUPP",
    "create_srq_ex": "XRC SRQs (mlx5 on a ConnectX: CQE version 0 only); "
                     "tag matching EOPNOTSUPP",
    "create_cq_ex": "completion timestamps refused",
    "fork_init": "records the request (DPDK memory pins nothing)",
    "is_fork_initialized": "PV_FORK_UNNEEDED",
    "query_gid_ex": "RoCE v2 entries",
    "inc_rkey": "inline, driver independent",
}

# verbs.h names that are not verbs (rdma-core internals of the inline wrappers)
SKIP = {"ibv_static_providers"}


def verbs_functions(path):
    """Function names of verbs.h: every identifier called or declared with '('."""
    text = open(path).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    names = set(re.findall(r"\b((?:ibv_|mult_to_ibv_|mbps_to_ibv_)[a-z0-9_]*)\s*\(", text))
    types = set(re.findall(r"\b(?:struct|enum|union)\s+(ibv_[a-z0-9_]+)", text))
    # object-like macros are constants; function-like ones (ibv_reg_mr,
    # ibv_reg_mr_iova, ibv_query_port ...) are verbs
    macros = set(re.findall(r"#\s*define\s+(ibv_[a-z0-9_]+)(?!\()", text))
    return sorted(n for n in names if n not in types and n not in macros and n not in SKIP)


def pv_name(ibv):
    if ibv.startswith("mult_to_ibv_"):
        return "pv_mult_to_rate"
    if ibv.startswith("mbps_to_ibv_"):
        return "pv_mbps_to_rate"
    return "pv_" + ibv[len("ibv_"):]


def pv_declared():
    decl, inline = set(), set()
    for h in HEADERS:
        text = open(h).read()
        decl |= set(re.findall(r"\b(pv_[a-z0-9_]+)\s*\(", text))
        inline |= set(re.findall(r"static inline[^;{(]*?\b(pv_[a-z0-9_]+)\s*\(", text, flags=re.S))
    return decl, inline


def exported(lib):
    if lib is None or not os.path.exists(lib):
        return None
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True,
                         check=True).stdout
    return {line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--verbs-h", default="/usr/include/infiniband/verbs.h")
    ap.add_argument("--lib", default=os.path.join(REPO, "build", "libpollverbs.so"))
    args = ap.parse_args()
    if not os.path.exists(args.verbs_h):
        print(f"{args.verbs_h}: not found (apt-get install libibverbs-dev)", file=sys.stderr)
        return 2
    decl, inline = pv_declared()
    ops = {d: driver_ops(*DRIVER_OPS[d]) for d in DRIVER_OPS}
    syms = exported(args.lib)
    rows, bad = [], []
    counts = {"softroce": 0, "mlx5": 0, "EOPNOTSUPP": 0, "missing": 0}
    for ibv in verbs_functions(args.verbs_h):
        pv = pv_name(ibv)
        short = pv[len("pv_"):]
        if pv not in decl:
            rows.append((ibv, "-", "missing", "missing", ""))
            counts["missing"] += 1
            continue
        if syms is not None and pv not in inline and pv not in syms:
            bad.append(f"{pv}: declared, not exported by {args.lib}")
        if short in NONE:
            rows.append((ibv, pv, "EOPNOTSUPP", "EOPNOTSUPP", NONE[short]))
            counts["EOPNOTSUPP"] += 1
            continue
        state = {}
        for drv in ("softroce", "mlx5"):
            st = "yes"
            if short in OP_BACKED and OP_BACKED[short] not in ops[drv]:
                st = "partly" if short in PARTLY_WITHOUT_OP else "EOPNOTSUPP"
            if drv == "mlx5" and short in DATAPATH_SOFTROCE_ONLY:
                st = "EOPNOTSUPP"
            state[drv] = st
            if st != "EOPNOTSUPP":
                counts[drv] += 1
        note = NOTES.get(short, DATAPATH_SOFTROCE_ONLY.get(short, ""))
        if state["mlx5"] == "partly" and short in PARTLY_WITHOUT_OP:
            note = "mlx5: only iova == addr"
        rows.append((ibv, pv, state["softroce"], state["mlx5"], note))
    print(f"rdma-core verbs.h: {args.verbs_h}, {len(rows)} functions\n")
    print("| ibv_ function | pv_ function | softroce | mlx5 | notes |")
    print("|---|---|---|---|---|")
    for r in rows:
        print("| `%s` | %s | %s | %s | %s |" % (r[0], "`%s`" % r[1] if r[1] != "-" else "-",
                                              r[2], r[3], r[4]))
    print(f"\nimplemented (or partly): softroce {counts['softroce']}, mlx5 {counts['mlx5']}; "
          f"EOPNOTSUPP on both {counts['EOPNOTSUPP']}; missing {counts['missing']}; "
          f"of {len(rows)}")
    for b in bad:
        print("ERROR: " + b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
