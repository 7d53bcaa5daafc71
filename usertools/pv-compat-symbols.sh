#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 pollverbs authors
#
# Symbol coverage of lib/compat: every symbol that a Debian binary of the
# compat matrix imports from libibverbs.so.1, librdmacm.so.1, libmlx5.so.1,
# libmlx4.so.1 or libefa.so.1 (its version node is IBVERBS_*, RDMACM_*,
# MLX5_*, MLX4_* or EFA_*) must be exported by the compat library of that
# name at that version. The binaries: ibverbs-utils, perftest,
# rdmacm-utils, qperf and fio (and the shared libraries they load that
# import verbs: fio's libceph-common), plus DPDK's mlx4/mlx5 driver plugins,
# which EAL loads at start inside every pv-run program (a plugin that
# misses a symbol makes rte_eal_init() fail).
#
# Prints one line per binary (imports, missing) and the missing symbols;
# exit 0 when nothing is missing, 1 otherwise, 77 when none of the
# packages is installed.
#
# usage: pv-compat-symbols.sh COMPAT_DIR
set -uo pipefail

dir=${1:?usage: pv-compat-symbols.sh COMPAT_DIR}
nodes='IBVERBS_|RDMACM_|MLX5_|MLX4_|EFA_'

for l in libibverbs libmlx5; do
	if [ ! -e "$dir/$l.so.1" ]; then
		echo "pv-compat-symbols: $dir/$l.so.1 missing (build lib/compat)" >&2
		exit 1
	fi
done

bins=()
for pkg in ibverbs-utils perftest rdmacm-utils qperf fio; do
	dpkg -s "$pkg" >/dev/null 2>&1 || continue
	while read -r f; do
		[ -f "$f" ] && head -c 4 "$f" | grep -q ELF && bins+=("$f")
	done < <(dpkg -L "$pkg" | grep -E '^/usr/(s?bin|lib/.*/fio)/')
done
if [ ${#bins[@]} -eq 0 ]; then
	echo "SKIP: none of ibverbs-utils, perftest, rdmacm-utils, qperf, fio installed"
	exit 77
fi
# the libraries they load that import verbs themselves (not rdma-core's own)
libs=$(for b in "${bins[@]}"; do ldd "$b" 2>/dev/null | awk '$3 ~ /^\// { print $3 }'; done |
	sort -u | while read -r l; do
		case $(basename "$l") in
		libibverbs.so.*|librdmacm.so.*|libmlx[45].so.*|libefa.so.*) continue ;;
		esac
		# (grep reads it all: -q would stop objdump with SIGPIPE under pipefail)
		objdump -T "$l" 2>/dev/null | grep -E "\*UND\*.*\(($nodes)" >/dev/null && echo "$l"
	done)
plugins=$(ls /usr/lib/*/dpdk/pmds-*/librte_*mlx*.so 2>/dev/null)

# "NAME@VERSION" of every versioned symbol the compat libraries define
exports=$(for l in "$dir"/lib{ibverbs,rdmacm,mlx5,mlx4,efa}.so.1; do
	[ -e "$l" ] && objdump -T "$l" | awk 'NF > 2 && !/\*UND\*/ && $(NF-1) ~ /^[A-Z]/ {
		print $NF "@" $(NF-1) }'
done | sort -u)

missing_all=0
printf '%-48s %8s %8s\n' binary imports missing
# shellcheck disable=SC2086
for b in "${bins[@]}" $libs $plugins; do
	imports=$(objdump -T "$b" 2>/dev/null | awk -v n="$nodes" '/\*UND\*/ {
		v = $(NF-1); gsub(/[()]/, "", v); if (v ~ "^(" n ")") print $NF "@" v }' | sort -u)
	[ -n "$imports" ] || continue
	missing=$(comm -23 <(echo "$imports") <(echo "$exports"))
	nb=$(echo "$imports" | wc -l)
	nm=0
	[ -n "$missing" ] && nm=$(echo "$missing" | wc -l)
	printf '%-48s %8d %8d\n' "$(basename "$b")" "$nb" "$nm"
	if [ "$nm" -gt 0 ]; then
		echo "$missing" | sed 's/^/    missing: /'
		missing_all=1
	fi
done
exit $missing_all
