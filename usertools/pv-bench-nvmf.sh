#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 pollverbs authors
#
# make bench-nvmf: pv-nvmf-tgt (RAM namespace) and pv-nvmf-perf in two
# processes over net_memif on softroce on this machine (issue 15 item 6):
#   4 KiB randread and randwrite at QD 1 and QD 32, 128 KiB sequential read
#   at QD 8, with 1 target lcore (core 0) and 1 perf lcore (core 1); then 4
#   KiB randread QD 32 with 2 target lcores (2 poll groups) and 2 perf queue
#   pairs, which on a two-core machine share the cores with each other:
#   once on one softroce queue per side, once with queues=2 on both sides
#   (one engine per lcore, softroce.rst "Queues and engines").
# Prints one table: IOPS, MiB/s (and Gb/s), average / p50 / p99 / p99.9 us,
# and the issue's targets beside them.
#
# usage: usertools/pv-bench-nvmf.sh [BUILD_DIR]
#   PV_BENCH_SECONDS  duration of each run (default 5)
set -uo pipefail

build=${1:-build}
secs=${PV_BENCH_SECONDS:-5}
tgt=$build/apps/pv-nvmf-tgt
perf=$build/apps/pv-nvmf-perf
tag=pvbnvmf-$$
sock=/tmp/$tag.sock
logdir=$(mktemp -d /tmp/$tag.XXXXXX)
port=4420
nqn=nqn.2026-11.org.pollverbs:bench
spid=""
fails=0
qargs=""	# extra softroce devargs of both sides (",queues=2")

for b in "$tgt" "$perf"; do
	[ -x "$b" ] || { echo "pv-bench-nvmf: $b not built (make build; libjansson-dev)"; exit 1; }
done
# shellcheck source=test/integration/memif_pair.sh
. "$(dirname "$0")/../test/integration/memif_pair.sh"
trap 'memif_pair_cleanup; rm -rf "$logdir"' EXIT

# start_target LCORES GROUPS_JSON
start_target() {
	cat >"$logdir/tgt.json" <<JSON
{
  "transport": { "max_io_size": 131072, "in_capsule_data_size": 4096,
                 "max_queue_depth": 128, "buffers_per_group": 256 },
  "poll_groups": { "lcores": $2 },
  "listeners": [ { "traddr": "10.99.0.1", "trsvcid": "$port" } ],
  "subsystems": [ { "nqn": "$nqn", "serial": "PVBENCH1", "model": "pollverbs bench",
                    "namespaces": [ { "type": "ram", "size_mb": 256, "block_size": 512 } ] } ]
}
JSON
	rm -f "$sock"
	# shellcheck disable=SC2046
	"$tgt" $(memif_pair_eal server 10.99.0.1 "$1" "$qargs") -- -c "$logdir/tgt.json" \
		>"$logdir/tgt.log" 2>&1 &
	spid=$!
	memif_pair_wait_listening "$spid"
	kill -0 "$spid" 2>/dev/null || { echo "target did not start:"; cat "$logdir/tgt.log"; exit 1; }
}

stop_target() {
	kill -TERM "$spid" 2>/dev/null
	memif_pair_wait_server
}

printf '%-34s %10s %9s %8s %8s %8s %8s %8s\n' "test (target lcores)" IOPS MiB/s Gb/s \
	"avg us" "p50 us" "p99 us" "p99.9 us"
# bench NAME LCORES PERF_ARGS...
bench() {
	local name=$1 lcores=$2 log
	shift 2
	log=$logdir/$name.log
	# shellcheck disable=SC2046
	if ! timeout $((secs + 60)) "$perf" $(memif_pair_eal client 10.99.0.2 "$lcores" "$qargs") -- \
		-r "trtype:RDMA adrfam:IPv4 traddr:10.99.0.1 trsvcid:$port subnqn:$nqn" \
		-t "$secs" "$@" >"$log" 2>&1; then
		fails=$((fails + 1))
		printf '%-34s FAILED\n' "$name"
		tail -n 5 "$log"
		sleep 1
		return
	fi
	awk -v n="$name" '/^Total/ { sub(/.*: */, ""); split($0, f, " +");
		printf "%-34s %10.0f %9.1f %8.2f %8.2f %8.2f %8.2f %8.2f\n", n, f[1], f[2],
			f[2] * 1048576 * 8 / 1e9, f[3], f[6], f[7], f[8] }' "$log"
	sleep 1
}

start_target 0 "[0]"
bench "4k randread qd1 (1)" 1 -q 1 -o 4096 -w randread
bench "4k randread qd32 (1)" 1 -q 32 -o 4096 -w randread
bench "4k randwrite qd1 (1)" 1 -q 1 -o 4096 -w randwrite
bench "4k randwrite qd32 (1)" 1 -q 32 -o 4096 -w randwrite
bench "128k read qd8 (1)" 1 -q 8 -o 131072 -w read
stop_target
start_target "0,1" "[0, 1]"
bench "4k randread qd32 x2 qpairs (2)" "0,1 --main-lcore=1" -q 32 -o 4096 -w randread -c 0x3
stop_target
qargs=",queues=2"
start_target "0,1" "[0, 1]"
bench "4k randread qd32 x2 (2, queues=2)" "0,1 --main-lcore=1" -q 32 -o 4096 -w randread -c 0x3
stop_target
echo
echo "targets (issue 15): 4k randread qd32 >= 1,000,000 IOPS on 1 target lcore;" \
	"qd1 p50 <= 5 us; 128k read >= 80 Gb/s"
echo "machine: $(nproc) CPUs; target and perf share them; softroce in thread-safe mode"
[ "$fails" -eq 0 ]
