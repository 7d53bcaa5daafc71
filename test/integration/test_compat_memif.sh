#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 pollverbs authors
#
# Debian's unmodified verbs and rdma_cm programs on pollverbs (lib/compat,
# pv-run) between two processes over net_memif on softroce:
#   ibv_rc_pingpong -g 1 -c      (ibverbs-utils: data checked by the program)
#   ib_write_bw -x 1 -n 1000     (perftest: the BW table on both sides)
#   rping -V -C 10               (rdmacm-utils: -V verifies every ping)
#   qperf -cm1 rc_bw rc_lat ...  (qperf: its server forks a process per test)
#   fio --ioengine=rdma          (verb=send: the server verifies every block's
#                                 crc32c; verb=write: RDMA WRITE, counted)
# Every run must exit 0 on both sides and print what is checked. Exit 77
# (skip) when none of those programs is installed (usertools/
# pv-install-deps.sh installs ibverbs-utils, perftest and rdmacm-utils),
# a program alone missing skips its run.
#
# usage: test_compat_memif.sh PV_RUN
set -uo pipefail

pvrun=$1
tag=pvcompat-$$
sock=/tmp/$tag.sock
port=$((40000 + $$ % 20000))
logdir=$(mktemp -d /tmp/$tag.XXXXXX)
spid=""
fails=0
runs=0

# shellcheck source=test/integration/memif_pair.sh
. "$(dirname "$0")/memif_pair.sh"
trap memif_pair_cleanup EXIT

have=0
for p in ibv_rc_pingpong ib_write_bw rping qperf fio; do
	command -v "$p" >/dev/null 2>&1 && have=1
done
if [ "$have" = 0 ]; then
	echo "SKIP: none of ibv_rc_pingpong, ib_write_bw, rping installed" \
		"(apt-get install ibverbs-utils perftest rdmacm-utils)"
	exit 77
fi

# side ROLE IP [TCP_PORT]: pv-run's arguments for one process (its lcores
# float: the program's thread and pollverbs' progress thread share the
# machine). Both wait for the memif link; the client then for its server
# to listen: on TCP_PORT when given (perftest and ibv_rc_pingpong connect
# their TCP exchange once), else 1.5 s (rping: its rdma_cm listen is not a
# socket).
# With swap=1 the memif roles are the other way round and the client
# starts pollverbs before main() (pv-run --eager): qperf's server forks a
# process per test, which attaches to the client's memif server as its
# memif client when it starts (a memif client connects once).
swap=0
pname=""
side() {
	local settle="" role=$1

	if [ "$1" = client ]; then
		settle="--link-settle=1500"
		[ -n "${3:-}" ] && settle="--wait-listen=$3"
		[ "$swap" = 1 ] && settle="$settle --eager"
	fi
	if [ "$swap" = 1 ]; then
		[ "$1" = client ] && role=server || role=client
	fi
	echo "--link-wait=30 $settle --no-huge -m 512 --file-prefix=$tag-$pname-$1" \
		"--log-level=*:warning" \
		"--vdev=net_memif0,role=$role,socket=$sock,socket-abstract=no" \
		"--pv-dev=softroce:port=net_memif0,ip=$2"
}

# pair NAME TCP_PORT SERVER_REGEX CLIENT_REGEX SERVER_CMD... -- CLIENT_CMD...
# (TCP_PORT "": the pair has no TCP exchange; SERVER_REGEX -: the server
# prints nothing to check, its exit status is checked)
pair() {
	local name=$1 tcp=$2 swant=$3 cwant=$4 slog clog crc i
	local -a scmd=() ccmd=()
	shift 4
	while [ "$1" != "--" ]; do scmd+=("$1"); shift; done
	shift
	ccmd=("$@")
	if ! command -v "${scmd[0]}" >/dev/null 2>&1; then
		echo "SKIP: $name (${scmd[0]} not installed)"
		return 0
	fi
	pname=$name		# its own EAL files: a failed pair's leftovers do not matter
	slog=$logdir/$name.server
	clog=$logdir/$name.client
	runs=$((runs + 1))
	rm -f "$sock"
	# shellcheck disable=SC2046
	"$pvrun" $(side server "$sip") -- timeout 100 "${scmd[@]}" >"$slog" 2>&1 &
	spid=$!
	for i in $(seq 300); do
		[ "$swap" = 1 ] && break
		memif_pair_listening && break
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	# shellcheck disable=SC2046
	timeout 100 "$pvrun" $(side client "$cip" "$tcp") -- "${ccmd[@]}" >"$clog" 2>&1
	crc=$?
	memif_pair_wait_server
	# rping (rdma-core < 58) exits 255 when its CM thread calls
	# rdma_get_cm_event() after main() destroyed the channel at the end of
	# a run that passed: rping's own race, fixed upstream by rdma-core
	# pull request 1622 ("rping: Fix spurious failure return codes")
	if [ "$name" = rping ] && [ "$src" -eq 255 ] &&
	   grep -q 'server ping data: rdma-ping-9:' "$slog" &&
	   grep -q '^rdma_get_cm_event: Bad file descriptor$' "$slog"; then
		echo "note: rping server hit rping's exit race (rdma-core PR 1622)"
		src=0
	fi
	# the same race on the client's side (its CM thread still reads the
	# channel main() destroyed), after all ten pings went through
	if [ "$name" = rping ] && [ "$crc" -eq 255 ] &&
	   grep -q 'server ping data: rdma-ping-9:' "$slog" &&
	   grep -q '^rdma_get_cm_event: Bad file descriptor$' "$clog"; then
		echo "note: rping client hit rping's exit race (rdma-core PR 1622)"
		crc=0
	fi
	if [ "$crc" -ne 0 ] || [ "$src" -ne 0 ] ||
	   { [ "$swant" != - ] && ! grep -Eq "$swant" "$slog"; } ||
	   ! grep -Eq "$cwant" "$clog"; then
		echo "FAIL: $name (client exit $crc, server exit $src)"
		echo "--- server ---"; tail -n 20 "$slog"
		echo "--- client ---"; tail -n 20 "$clog"
		fails=$((fails + 1))
		return 0
	fi
	echo "ok: $name"
}

sip=10.99.9.1
cip=10.99.9.2
pingpong='[0-9]+ iters in [0-9.]+ seconds'
pair rc_pingpong "$port" "$pingpong" "$pingpong" \
	ibv_rc_pingpong -g 1 -c -n 200 -p "$port" -- \
	ibv_rc_pingpong -g 1 -c -n 200 -p "$port" 127.0.0.1

bw='^ 65536 +1000 +[0-9.]+ +[0-9.]+'
pair write_bw "$((port + 1))" "$bw" "$bw" \
	ib_write_bw -x 1 -n 1000 -p "$((port + 1))" -- \
	ib_write_bw -x 1 -n 1000 -p "$((port + 1))" 127.0.0.1

# rping -V exits non-zero on a data mismatch; -v prints each ping
pair rping "" 'server ping data: rdma-ping-9:' 'ping data: rdma-ping-9:' \
	rping -s -a 10.99.9.1 -p "$((port + 2))" -V -v -C 10 -- \
	rping -c -a 10.99.9.1 -p "$((port + 2))" -V -v -C 10

# qperf -cm1 (rdma_cm; without it qperf sets no GRH, which RoCE needs)
# resolves the host it reaches over TCP: the softroce addresses are
# loopback ones, so 127.0.0.1 is the TCP server and the RDMA peer both.
# qperf 0.4.11's server calls rdma_destroy_qp() on its listen id (fixed
# upstream after 0.4.11) and leaves its connected id behind: its process
# ends it at exit, as the kernel would (a DREP to the client's DREQ).
# Every test prints its figure; the RC ones are those qperf runs on RoCE
# (its UD/UC tests need the GRH or an address handle from a SIDR REQ).
swap=1 sip=127.0.0.1 cip=127.0.0.2
qp=$((port + 3))
pair qperf "$qp" - 'msg_rate  =  [0-9.]+ [KM]?/sec' \
	qperf -lp "$qp" -- \
	qperf -lp "$qp" -cm1 -cp 1 -t 1 127.0.0.1 rc_bw rc_lat rc_rdma_read_bw \
	rc_rdma_write_bw rc_rdma_write_lat rc_compare_swap_mr quit
# all six figures, each under its test's name
if [ -f "$logdir/qperf.client" ]; then
	n=$(awk '/^[a-z_]+:$/ { t = $1; next }
		 t != "" && /^    (bw|latency|msg_rate)  =  [0-9.]+ / { n++; t = "" }
		 END { print n + 0 }' "$logdir/qperf.client")
	if [ "$n" -ne 6 ]; then
		echo "FAIL: qperf: $n of 6 tests printed a figure"
		cat "$logdir/qperf.client"
		fails=$((fails + 1))
	fi
fi
swap=0 sip=10.99.9.1 cip=10.99.9.2

# fio's rdma engine: the client connects with rdma_cm (no TCP exchange).
# Channel semantics: every 64 KiB the client sends carries fio's verify
# header and crc32c, which the server's read job checks (a block sent
# without them fails it: "verify: bad magic header"). Memory semantics:
# the client RDMA WRITEs into the buffers the server advertised (fio
# checks nothing there, the byte counts are compared). fio's client
# connects with rnr_retry_count 0: one RNR NAK ends it, so the server posts
# a receive for every block at once (iodepth = 256 blocks; fio's advice).
fsrv=(fio --thread --name=srv --ioengine=rdma --port="$((port + 4))" --rw=read --iodepth=256
      --bs=64k --size=16m)
fcli=(fio --thread --name=cli --ioengine=rdma --hostname="$sip" --port="$((port + 4))"
      --rw=write --iodepth=4 --bs=64k --size=16m)
pair fio_send "" 'READ: bw=.*io=16\.0MiB' 'WRITE: bw=.*io=16\.0MiB' \
	"${fsrv[@]}" --verify=crc32c -- "${fcli[@]}" --verb=send --verify=crc32c
pair fio_write "" 'srv: .*err= 0' 'WRITE: bw=.*io=16\.0MiB' \
	"${fsrv[@]}" -- "${fcli[@]}" --verb=write

echo "$((runs - fails))/$runs pairs passed"
[ "$fails" -eq 0 ]
