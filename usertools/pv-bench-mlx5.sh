#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Instruction budget of the mlx5 data path (issue #5): run pv-mlx5-bench under
# callgrind, collecting only inside the driver's post_send and poll_cq entry
# points (the device model and the benchmark loop are not counted), and
# print instructions per WQE and per CQE. Targets: <= 60 and <= 30.
#
# usage: usertools/pv-bench-mlx5.sh [BUILD_DIR] [LISTS]
set -euo pipefail

build=${1:-build}
lists=${2:-2000}
bin="$build/tools/pv-mlx5-bench"
[ -x "$bin" ] || { echo "pv-bench-mlx5: $bin not built (make build)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "pv-bench-mlx5: valgrind not installed" >&2; exit 1; }

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Entry points: post_send has BlueFlame / doorbell-only variants, each with
# and without the small-inline shortcut; poll_cq one per CQE size. Collection is on only inside them (and their
# callees); the model's step and the loop around them are not counted.
valgrind --tool=callgrind --callgrind-out-file="$out/cg.out" \
	--toggle-collect=mlx5_post_send_bf --toggle-collect=mlx5_post_send_db \
	--toggle-collect=mlx5_post_send_bf_inl16 --toggle-collect=mlx5_post_send_db_inl16 \
	--toggle-collect=mlx5_poll_cq_64 --toggle-collect=mlx5_poll_cq_128 \
	"$bin" --no-huge --no-pci -m 256 -l 0 --file-prefix="pv_mlx5_bench_$$" \
	--log-level='*:warning' --pv-dev=mlx5_model:lcore=none -- -n "$lists" -b 32 \
	>"$out/log" 2>"$out/err" || { cat "$out/err" "$out/log" >&2; exit 1; }
cat "$out/log"

wqes=$(sed -n 's/^wqes: //p' "$out/log")
cqes=$(sed -n 's/^cqes: //p' "$out/log")
# inclusive cost of each measured function (its callees included)
callgrind_annotate --inclusive=yes --threshold=100 "$out/cg.out" >"$out/annot" 2>/dev/null
ir_of() {	# one line per function carries its object in brackets
	grep -E "$1 \\[" "$out/annot" | awk '{ gsub(",", "", $1); s += $1 } END { print s + 0 }'
}
post=$(ir_of ':mlx5_post_send_(bf|db)(_inl16)?')
poll=$(ir_of ':mlx5_poll_cq_(64|128)')
echo "post_send instructions: $post for $wqes WQEs"
echo "poll_cq instructions: $poll for $cqes CQEs"
echo "instructions per WQE: $(awk -v a="$post" -v b="$wqes" 'BEGIN { printf "%.1f", a / b }')"
echo "instructions per CQE: $(awk -v a="$poll" -v b="$cqes" 'BEGIN { printf "%.1f", a / b }')"
