#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 pollverbs authors
#
# make bench-compat: what the compat path (lib/compat) costs. The same
# three runs, in one go, of Debian's perftest through pv-run and of
# pv-perf native (--thread-safe: the progress mode pv-run gives programs,
# libibverbs' thread rules), between two processes over net_memif on
# softroce (path MTU 4096 as in make demo):
#   write_bw -s 65536            bandwidth, Gb/s
#   send_lat -s 8                latency (t_typical), us
#   write_bw -s 8 -l 32          message rate (post lists of 32), Mpps
# in three pairings (native, client, compat: see one() below). Each figure
# is the median of PV_BENCH_REPS rounds (default 5; the pairings take turns,
# so the machine's other load hits them alike), with the range of the
# rounds on the line below; the ratios are those of the medians. The
# message-rate run posts 1,000,000 messages (about 100 ms): shorter runs
# measure the start of a run (first touches, the perftest server's
# progress thread finding the stream) more than its rate.
#
# usage: usertools/pv-bench-compat.sh [BUILD_DIR]
#   PV_BENCH_REPS   rounds (default 5)
set -uo pipefail

build=${1:-build}
perf=$build/apps/pv-perf
pvrun=$build/usertools/pv-run
reps=${PV_BENCH_REPS:-5}
tag=pvbc-$$
sock=/tmp/$tag.sock
port=$((30000 + $$ % 10000))
logdir=$(mktemp -d /tmp/$tag.XXXXXX)
spid=""

cleanup() {
	if [ -n "$spid" ] && kill -0 "$spid" 2>/dev/null; then
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
	fi
	rm -f "$sock"
	rm -rf "$logdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for p in "$perf" "$pvrun"; do
	if [ ! -x "$p" ]; then
		echo "pv-bench-compat: $p not found: build first (make build)" >&2
		exit 1
	fi
done
for p in ib_write_bw ib_send_lat; do
	if ! command -v "$p" >/dev/null; then
		echo "pv-bench-compat: $p not found: apt-get install perftest" >&2
		exit 1
	fi
done

# eal ROLE IP LCORE [MEMIF_EXTRA]: EAL and --pv-dev arguments of one side
eal() {
	echo "-l $3 --no-huge -m 1024 --no-pci --file-prefix=$tag-$1 --log-level=*:warning" \
		"--vdev=net_memif0,role=$1,socket=$sock,socket-abstract=no,bsize=4352${4:-}" \
		"--pv-dev=softroce:port=net_memif0,ip=$2,mtu=9000"
}

listening() {
	awk -v s="$sock" '$8 == s && $4 ~ /^0*10000$/ { f = 1 } END { exit !f }' /proc/net/unix
}

# one KIND EXTRA NATIVE_ARGS -- PERFTEST_PROG ARGS...: one server/client pair;
# the client's table line on stdout. KIND:
#   native  pv-perf on both sides (--thread-safe: libibverbs' thread rules)
#   client  perftest through pv-run as the client of pv-perf --perftest:
#           what the compat library costs the side that drives the test
#   compat  perftest through pv-run on both sides (the server's device is
#           progressed by pollverbs' background thread: perftest's server
#           waits in a TCP read while the client writes)
one() {
	local kind=$1 extra=$2 i crc
	local -a nat=() prog=()
	shift 2
	while [ "$1" != "--" ]; do nat+=("$1"); shift; done
	shift
	prog=("$@")
	rm -f "$sock"
	port=$((port + 1))
	if [ "$kind" = compat ]; then
		# shellcheck disable=SC2046
		"$pvrun" --link-wait=30 $(eal server 10.99.8.1 0 "$extra") -- \
			"${prog[@]}" -x 1 -p "$port" >"$logdir/s" 2>&1 &
	else
		local pt=""

		[ "$kind" = client ] && pt=--perftest
		# shellcheck disable=SC2046
		"$perf" $(eal server 10.99.8.1 0 "$extra") -- "${nat[@]}" --thread-safe $pt \
			-p "$port" >"$logdir/s" 2>&1 &
	fi
	spid=$!
	for i in $(seq 300); do
		listening && break
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	if [ "$kind" = native ]; then
		sleep 0.5
		# shellcheck disable=SC2046
		timeout 120 "$perf" $(eal client 10.99.8.2 1 "$extra") -- "${nat[@]}" \
			--thread-safe -p "$port" 127.0.0.1 >"$logdir/c" 2>&1
	else
		# shellcheck disable=SC2046
		timeout 120 "$pvrun" --link-wait=30 --wait-listen="$port" \
			$(eal client 10.99.8.2 1 "$extra") -- "${prog[@]}" -x 1 -p "$port" \
			127.0.0.1 >"$logdir/c" 2>&1
	fi
	crc=$?
	for i in $(seq 100); do
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	spid=""
	[ "$crc" -eq 0 ] || return 1
	# the first line of numbers under the "#bytes" header
	awk '/#bytes/ { h = 1; next } h && $1 ~ /^[0-9]+$/ { print; exit }' "$logdir/c"
}

# median V...: the median of the figures given ("" when none)
median() {
	printf '%s\n' "$@" | awk 'NF' | sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) exit
		if (NR % 2) print v[(NR + 1) / 2]
		else printf "%.6g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# range V...: "min-max" of the figures given
range() {
	printf '%s\n' "$@" | awk 'NF' | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 }
		END { if (NR) printf "%.4g-%.4g", lo, hi }'
}

# ratio HIGHER_IS_BETTER NATIVE OTHER: other / native as a speed (1: same)
ratio() {
	awk -v n="$2" -v c="$3" -v h="$1" 'BEGIN {
		if (n + 0 == 0 || c + 0 == 0) { print "n/a"; exit }
		printf "%.3f", h ? c / n : n / c }'
}

# bench NAME UNIT FIELD HIGHER_IS_BETTER EXTRA NATIVE_ARGS -- PERFTEST...:
# the three kinds taken in turn, $reps rounds (the machine's load drifts:
# each kind sees the same drift); the median of each, its range below
bench() {
	local name=$1 unit=$2 field=$3 hib=$4 extra=$5 r k
	local -A all=([native]="" [client]="" [compat]="") med=()
	shift 5
	for r in $(seq "$reps"); do
		for k in native client compat; do
			all[$k]+=" $(one "$k" "$extra" "$@" | awk -v f="$field" '{ print $f }')"
		done
	done
	for k in native client compat; do
		# shellcheck disable=SC2086
		med[$k]=$(median ${all[$k]})
	done
	printf '%-34s %-6s %10s %10s %10s %8s %8s\n' "$name" "$unit" "${med[native]:-n/a}" \
		"${med[client]:-n/a}" "${med[compat]:-n/a}" \
		"$(ratio "$hib" "${med[native]}" "${med[client]}")" \
		"$(ratio "$hib" "${med[native]}" "${med[compat]}")"
	# shellcheck disable=SC2086
	printf '%-34s %-6s %10s %10s %10s\n' "  range of $reps rounds" "" \
		"$(range ${all[native]})" "$(range ${all[client]})" "$(range ${all[compat]})"
}

echo "pv-bench-compat: perftest $(dpkg-query -W -f='${Version}' perftest 2>/dev/null)" \
	"through pv-run vs pv-perf --thread-safe, softroce over memif, mtu 9000," \
	"median of $reps rounds"
printf '%-34s %-6s %10s %10s %10s %8s %8s\n' test unit native client compat \
	client/n compat/n
# BW: column 4 is BW average (Gb/s), 5 the message rate (Mpps)
# --slots=1: perftest writes from and into one 64 KiB buffer; pv-perf by
# default cycles over 4 MiB of slots (for --verify), which leaves the caches
bench "write_bw -s 65536 (BW average)" Gb/s 4 1 "" \
	write_bw -s 65536 -n 5000 --slots=1 -- ib_write_bw -s 65536 -n 5000 --report_gbits
# The 8 B runs: perftest sends no inline data on a device it does not
# know (its header prints "Max inline data : 0[B]": it keeps inline for the
# vendor part IDs in its own table), so pv-perf native runs with -I 0 too:
# the same work on the wire and in the driver, the compat path the only
# difference.
# latency: one message in flight: a small memif ring stays warm
# (pv-demo.sh); column 5 is t_typical
bench "send_lat -s 8 (t_typical)" usec 5 0 ",rsize=8" \
	send_lat -s 8 -I 0 -- ib_send_lat -s 8
bench "write_bw -s 8 -l 32 (msg rate)" Mpps 5 1 "" \
	write_bw -s 8 -l 32 -I 0 -n 1000000 -- ib_write_bw -s 8 -l 32 -n 1000000 --report_gbits
echo "native: pv-perf on both sides; client: perftest through pv-run against" \
	"pv-perf --perftest (the compat library on the driving side);"
echo "compat: perftest through pv-run on both sides; x/n: speed relative to" \
	"native (rates: x / native; latency: native / x); 0.950 is the 5 % budget"
