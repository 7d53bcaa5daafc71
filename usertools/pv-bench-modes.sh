#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 pollverbs authors
#
# make bench-modes: what thread safety costs. Runs, in one invocation and
# interleaved (app, thread-safe, app, thread-safe ...), the pv-perf pairs of
# the demo (usertools/pv-demo.sh: two processes over net_memif) for
# write_bw 64 KiB, send_lat 8 B and the 8 B write message rate with post
# lists of 32, once with pv-perf declaring itself the device's only thread
# (its default: PV_PROGRESS_APP, no lock, no background progress) and once
# with --thread-safe (the library's default: a lock per verb, background
# progress). Prints the median of each over the rounds and the difference.
#
# usage: usertools/pv-bench-modes.sh [BUILD_DIR]
#   PV_BENCH_ROUNDS   rounds (default 3)
#   PV_BENCH_SECONDS  duration of each bandwidth and rate run (default 2)
set -uo pipefail

build=${1:-build}
rounds=${PV_BENCH_ROUNDS:-3}
here=$(dirname "$0")
out=$(mktemp -d /tmp/pv-bench-modes.XXXXXX)
trap 'rm -rf "$out"' EXIT

# the three tests in mode $1 (app | ts), output to $2: the bandwidth and
# rate runs by duration (-D, so that set-up does not count), the latency
# run by iterations (pv-perf's latency tests count iterations)
run_mode() {
	local extra=""
	[ "$1" = ts ] && extra=--thread-safe
	PV_DEMO_ONLY="write_bw write_rate" PV_DEMO_SIZES=65536 \
		PV_DEMO_ARGS="$extra -D ${PV_BENCH_SECONDS:-2}" "$here/pv-demo.sh" "$build" \
		>"$2" 2>&1 &&
		PV_DEMO_ONLY="send_lat" PV_DEMO_ARGS="$extra -n 20000" \
		"$here/pv-demo.sh" "$build" >>"$2" 2>&1
}

# figures of one demo output: "bw_64k_gbps lat_typical_us rate_mpps"
figures() {
	awk '
		/pv-demo: pv-perf / { t = ($3 == "write_bw" && $0 ~ /-l 32/) ? "rate" : $3 }
		/^ *[0-9]+ +[0-9]+ / {
			if (t == "write_bw" && $1 == 65536) bw = $4
			if (t == "rate") rate = $NF
		}
		/^ *8 +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+/ { if (t == "send_lat") lat = $5 }
		END { printf "%s %s %s\n", bw, lat, rate }' "$1"
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }

echo "pv-bench-modes: $rounds rounds of write_bw 64 KiB, send_lat 8 B, write rate 8 B -l 32"
for r in $(seq "$rounds"); do
	for m in app ts; do
		if ! run_mode "$m" "$out/$m.$r"; then
			echo "pv-bench-modes: round $r mode $m failed; its output:"
			tail -n 30 "$out/$m.$r"
			exit 1
		fi
		echo "round $r $m: $(figures "$out/$m.$r")"
	done
done
printf '\n%-28s %14s %14s %8s\n' test app-mode thread-safe diff
for i in 1 2 3; do
	name=("" "write_bw 64 KiB (Gb/s)" "send_lat 8 B t_typical (us)" "write 8 B -l 32 (Mpps)")
	a=$(for r in $(seq "$rounds"); do figures "$out/app.$r"; done | awk -v i=$i '{ print $i }' | median)
	t=$(for r in $(seq "$rounds"); do figures "$out/ts.$r"; done | awk -v i=$i '{ print $i }' | median)
	d=$(awk -v a="$a" -v t="$t" 'BEGIN { if (a > 0) printf "%+.1f%%", (t - a) / a * 100 }')
	printf '%-28s %14s %14s %8s\n' "${name[$i]}" "$a" "$t" "$d"
done
