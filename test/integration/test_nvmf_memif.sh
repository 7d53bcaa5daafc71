#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 pollverbs authors
#
# pv-nvmf-tgt (two RAM namespaces and a file namespace through io_uring,
# lcore 0) and pv-nvmf-perf (lcore 1) in two
# processes over net_memif on softroce. One target serves every run in turn,
# so each run also checks that the previous host's queues were torn down:
#   randrw 4 KiB QD 16 --verify      in-capsule writes, keyed reads
#   write then read 128 KiB QD 4     keyed SGLs both ways, MDTS-sized
#   randrw 512 B QD 1 --verify       the smallest I/O
#   2 I/O queues (-c 0x3)            two queue pairs of one controller
#   a host killed (SIGKILL) with I/O in flight;
#   a host leaving with I/O still in a RAM namespace that completes each
#                                    I/O 8 s late ("delay_us"): the target
#                                    tears its queues down at once but keeps
#                                    their buffers until that I/O completes;
#                                    then a new host --verify
#   a subsystem that does not exist  Connect rejected, perf exits 1
# Each perf run must exit 0 (none of its I/Os failed, no block mismatched)
# and print its table; the target must exit 0 after SIGTERM.
# Exit 77 (skip) when the softroce device cannot be created here.
#
# With MODE "srq" the target's poll group receives every capsule from one
# SRQ of 64 buffers (fewer than the queues' entries: a host that sends
# more waits on RNR NAKs) instead of per-QP receive queues.
#
# usage: test_nvmf_memif.sh PV_NVMF_TGT PV_NVMF_PERF [SECONDS [MODE]]
set -uo pipefail

tgt=$1
perf=$2
secs=${3:-2}
mode=${4:-}
srq=false
[ "$mode" = srq ] && srq=true
tag=pvnvmf-$$
sock=/tmp/$tag.sock
logdir=$(mktemp -d /tmp/$tag.XXXXXX)
srv_ip=10.99.0.1
port=$((20000 + $$ % 20000))
nqn=nqn.2026-11.org.pollverbs:test
spid=""
fails=0

# shellcheck source=test/integration/memif_pair.sh
. "$(dirname "$0")/memif_pair.sh"
trap memif_pair_cleanup EXIT

truncate -s 8M "$logdir/ns3.img"
cat >"$logdir/tgt.json" <<JSON
{
  "transport": { "max_io_size": 131072, "in_capsule_data_size": 4096,
                 "max_queue_depth": 128, "buffers_per_group": 128,
                 "srq": $srq, "srq_depth": 64 },
  "poll_groups": { "lcores": [0] },
  "listeners": [ { "traddr": "$srv_ip", "trsvcid": "$port" } ],
  "subsystems": [
    { "nqn": "$nqn", "serial": "PVTEST01", "model": "pollverbs test",
      "allow_any_host": true,
      "namespaces": [ { "type": "ram", "size_mb": 8, "block_size": 512 },
                      { "type": "ram", "size_mb": 4, "block_size": 4096 },
                      { "type": "file", "path": "$logdir/ns3.img", "block_size": 4096 } ] },
    { "nqn": "$nqn-slow", "serial": "PVTEST02", "model": "pollverbs slow",
      "allow_any_host": true,
      "namespaces": [ { "type": "ram", "size_mb": 1, "block_size": 4096,
                        "delay_us": 8000000 } ] }
  ]
}
JSON

# shellcheck disable=SC2046
"$tgt" $(memif_pair_eal server $srv_ip 0) --log-level=pv.nvmf:notice -- \
	-c "$logdir/tgt.json" >"$logdir/tgt.log" 2>&1 &
spid=$!
memif_pair_wait_listening "$spid"
if ! kill -0 "$spid" 2>/dev/null || grep -q 'pv_init: \|no device\|bad devargs' "$logdir/tgt.log"; then
	echo "skip: target did not start here:"
	cat "$logdir/tgt.log"
	exit 77
fi

trid="trtype:RDMA adrfam:IPv4 traddr:$srv_ip trsvcid:$port subnqn:$nqn"
n=0
# run NAME WANT_RC LCORES PERF_ARGS...: one perf process, the memif client
run() {
	local name=$1 want=$2 lcores=$3 rc log
	shift 3
	n=$((n + 1))
	log=$logdir/$n-$name.log
	# shellcheck disable=SC2046
	timeout 60 "$perf" $(memif_pair_eal client 10.99.0.2 "$lcores") -- "$@" >"$log" 2>&1
	rc=$?
	if [ "$rc" -eq "$want" ] && { [ "$want" -ne 0 ] || grep -q '^Total' "$log"; }; then
		echo "ok: $name"
		grep -E '^Total|^verify|connect to' "$log" | sed 's/^/    /'
	else
		fails=$((fails + 1))
		echo "FAIL: $name (exit $rc, expected $want)"
		tail -n 20 "$log"
	fi
	# the memif client reconnects for the next run: let the server notice
	sleep 1
}

run randrw-4k-qd16-verify 0 1 -r "$trid" -q 16 -o 4096 -w randrw -t "$secs" --verify
# the SRQ variant skips the runs whose data path is the same either way:
# every perf process's exit can cost minutes on this machine's kernel
# (doc/guides/apps/nvmf-tgt.rst, known problem)
if [ "$mode" != srq ]; then
	run write-128k-qd4 0 1 -r "$trid" -q 4 -o 131072 -w write -t "$secs"
	run read-128k-qd4-verify 0 1 -r "$trid" -q 4 -o 131072 -w read -t "$secs" --verify
	run randrw-4k-qd1-verify 0 1 -r "$trid" -q 1 -o 4096 -w randrw -M 30 -t "$secs" --verify
fi
run two-queues-verify 0 "0,1 --main-lcore=1" -r "$trid" -q 8 -o 8192 -w randrw -t "$secs" -c 0x3 --verify
# a host killed with I/O in flight: the target notices (RC retries, then the
# CM), drains its queues and serves the next host
n=$((n + 1))
# shellcheck disable=SC2046
timeout -s KILL 3 "$perf" $(memif_pair_eal client 10.99.0.2 1) -- -r "$trid" -q 32 -o 16384 \
	-w randrw -t 30 >"$logdir/$n-killed.log" 2>&1
echo "ok: host killed with I/O in flight (exit $?)"
sleep 1
# a host that leaves with I/O still in the slow namespace (8 s an I/O): it
# stops waiting for it after its 5 s drain and disconnects; the target tears
# the queue pair down at once and releases it once that I/O is done
n=$((n + 1))
# shellcheck disable=SC2046
timeout -s KILL 30 "$perf" $(memif_pair_eal client 10.99.0.2 1) -- -r "${trid}-slow" -q 32 \
	-o 4096 -w randrw -t 1 >"$logdir/$n-left-slow.log" 2>&1
echo "ok: host left with I/O in a slow namespace (exit $?)"
for i in $(seq 100); do
	grep -q 'its last namespace I/O done: released' "$logdir/tgt.log" && break
	sleep 0.2
done
if grep -q 'drained with [0-9]* I/O(s) still in a namespace' "$logdir/tgt.log" &&
   grep -q 'its last namespace I/O done: released' "$logdir/tgt.log"; then
	echo "ok: the queue pair's release waited for its namespace I/O"
else
	fails=$((fails + 1))
	echo "FAIL: no queue pair was released after I/O still in the slow namespace"
	tail -n 20 "$logdir/tgt.log"
fi
# one host after both (every perf process's exit may cost minutes, see above)
run after-kill-and-leave-verify 0 1 -r "$trid" -q 8 -o 4096 -w randrw -t "$secs" --verify
[ "$mode" = srq ] || run no-such-subsystem 1 1 -r "trtype:RDMA adrfam:IPv4 traddr:$srv_ip trsvcid:$port subnqn:nqn.nope" -t 1

kill -TERM "$spid"
memif_pair_wait_server
if [ "$src" -ne 0 ]; then
	fails=$((fails + 1))
	echo "FAIL: target exit $src"
	tail -n 20 "$logdir/tgt.log"
else
	echo "ok: target exited 0"
fi
grep -E "did not drain|still use" "$logdir/tgt.log" && { fails=$((fails + 1)); echo "FAIL: target teardown left queue pairs behind"; }
[ "$fails" -eq 0 ] || { echo "$fails failure(s); logs in $logdir"; exit 1; }
