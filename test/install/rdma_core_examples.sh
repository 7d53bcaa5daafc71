#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# pv_verbs.h compiles what rdma-core's infiniband/verbs.h (v44) compiles:
# rdma-core's own libibverbs/examples (rc, uc, ud, srq and xsrq pingpong, with
# pingpong.c/.h), renamed ibv_ -> pv_ (and the kernel uapi prefix
# IB_UVERBS_ -> PV_ that rc_pingpong uses for ibv_advise_mr), are built
# against the source tree's headers and linked with libpollverbs.so.
# The examples are not in this tree (not vendored) nor packaged as source:
# they come from RDMA_CORE_SRC (a checkout) or RDMA_CORE_GIT (a git dir,
# read at tag v44.0). Without either: exit 77 (skipped).
# Usage: rdma_core_examples.sh SRCROOT BUILDROOT CC
set -euo pipefail
src=$1
build=$2
cc=$3
files="rc_pingpong.c uc_pingpong.c ud_pingpong.c srq_pingpong.c xsrq_pingpong.c pingpong.c pingpong.h"
tmp=$(mktemp -d "$build/rdma-core-examples.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

fetch() {
	if [ -n "${RDMA_CORE_SRC:-}" ] && [ -f "$RDMA_CORE_SRC/libibverbs/examples/$1" ]; then
		cat "$RDMA_CORE_SRC/libibverbs/examples/$1"
	elif [ -n "${RDMA_CORE_GIT:-}" ]; then
		git --git-dir="$RDMA_CORE_GIT" show "v44.0:libibverbs/examples/$1"
	else
		return 1
	fi
}

for f in $files; do
	if ! fetch "$f" >"$tmp/orig_$f" 2>/dev/null; then
		echo "rdma_core_examples.sh: no rdma-core source (set RDMA_CORE_SRC or RDMA_CORE_GIT): skipped"
		exit 77
	fi
	sed -e 's/ibv_/pv_/g; s/IBV_/PV_/g; s/IB_UVERBS_/PV_/g' \
	    -e 's|<infiniband/verbs.h>|"pv_verbs.h"|' "$tmp/orig_$f" >"$tmp/$f"
done
# what the examples take from rdma-core's build: config.h and ccan/minmax.h
: >"$tmp/config.h"
mkdir -p "$tmp/ccan"
cat >"$tmp/ccan/minmax.h" <<'EOH'
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#define min_t(t, a, b) min((t)(a), (t)(b))
EOH
"$cc" -std=gnu11 -Wall -Werror -c -I"$tmp" -I"$src/lib/verbs" "$tmp/pingpong.c" -o "$tmp/pingpong.o"
for p in rc uc ud srq xsrq; do
	"$cc" -std=gnu11 -Wall -Werror -I"$tmp" -I"$src/lib/verbs" "$tmp/${p}_pingpong.c" \
		"$tmp/pingpong.o" -L"$build" -lpollverbs -o "$tmp/${p}_pingpong"
	echo "rdma_core_examples.sh: ${p}_pingpong built"
done
