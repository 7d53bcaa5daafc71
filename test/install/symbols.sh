#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The ABI of libpollverbs.so (lib/libpollverbs.map): every symbol it exports
# starts with pv_ and carries the version node PV_0.1, and every pv_ symbol
# the given programs take from it resolves to that node (so the installed
# applications use only what is exported).
# Usage: symbols.sh LIBPOLLVERBS_SO [PROGRAM ...]
# Exits 77 (skipped) without nm.
set -euo pipefail
lib=$1
shift
node=PV_0.1

if ! command -v nm >/dev/null 2>&1; then
	echo "symbols.sh: nm not found: skipped"
	exit 77
fi

# "ADDR T pv_init@@PV_0.1"; the node itself is an absolute symbol "A PV_0.1"
syms=$(nm -D --defined-only "$lib" | awk '$2 != "A" { print $3 }')
count=$(wc -l <<<"$syms")
bad=$(grep -v "^pv_[A-Za-z0-9_]*@@$node\$" <<<"$syms" || true)
if [ -n "$bad" ]; then
	echo "symbols.sh: $lib exports symbols without the pv_ prefix or node $node:" >&2
	echo "$bad" >&2
	exit 1
fi
if [ "$count" -lt 1 ] || [ -z "$syms" ]; then
	echo "symbols.sh: $lib exports nothing" >&2
	exit 1
fi
# not "nm | grep -q": grep quits at the match and, under pipefail, nm's
# SIGPIPE on a long symbol list would fail the check
if ! grep -q " A $node\$" <<<"$(nm -D --defined-only "$lib")"; then
	echo "symbols.sh: $lib has no version node $node" >&2
	exit 1
fi
echo "symbols.sh: $lib exports $count symbols, all pv_*@@$node"

for prog in "$@"; do
	unver=$(nm -D --undefined-only "$prog" | awk '{ print $2 }' |
		grep '^pv_' | grep -v "@$node\$" || true)
	if [ -n "$unver" ]; then
		echo "symbols.sh: $prog takes pv_ symbols not exported under $node:" >&2
		echo "$unver" >&2
		exit 1
	fi
	n=$(nm -D --undefined-only "$prog" | grep -c " pv_.*@$node\$" || true)
	echo "symbols.sh: $(basename "$prog"): $n pv_ symbols, all from $node"
done
