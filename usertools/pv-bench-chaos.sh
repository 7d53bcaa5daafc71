#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# softroce under chaos for longer than `make test` does: test_sroce_chaos in
# bench mode runs UD, UC and RC traffic between two devices on crossed
# net_ring ports, each for SECONDS, under 10 % loss, 10 % reorder, 5 %
# duplication and 1 % corruption in both directions, checking every byte,
# and prints the messages that survived (delivered byte-exact, once) per
# minute.
#
# usage: usertools/pv-bench-chaos.sh [BUILD_DIR] [SECONDS]
set -euo pipefail

build=${1:-build}
secs=${2:-20}
bin="$build/test/integration/test_sroce_chaos"
[ -x "$bin" ] || { echo "pv-bench-chaos: $bin not built (make build)" >&2; exit 1; }

out=$(mktemp)
trap 'rm -f "$out"' EXIT
rc=0
PV_CHAOS_SECONDS=$secs "$bin" >"$out" 2>&1 || rc=$?
# CUnit prints a test's name and its output on one line: match inside lines
grep -oE 'chaos (ud|uc|rc): .*|(uc|rc): ([0-9]+|stuck) .*' "$out" || true
grep -E 'FAILED|^ +[0-9]+\. ' "$out" || true
if [ "$rc" -ne 0 ]; then
	echo "pv-bench-chaos: a run failed its checks (exit $rc), full log:" >&2
	cat "$out" >&2
	exit "$rc"
fi
