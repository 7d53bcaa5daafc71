#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 pollverbs authors
#
# pv-perf (write_bw, read_bw, send_bw, write_lat, send_lat, read_lat with
# --verify) and pv-pingpong (-c; RC, and UD as ibv_ud_pingpong) between two
# processes over net_memif on softroce, over IPv4 (-g 1) and IPv6 link-local
# (-g 0). Every run must exit 0 on both sides and print its table; the
# --verify runs must report every byte correct, the -c runs no "invalid"
# line. Exit 77 (skip) when the softroce device cannot be created here.
#
# With a third argument "rdma_cm": pv-perf -R instead (perftest's rdma_cm
# mode: the conversation over a first rdma_cm connection, the test QP
# connected by the CM), send_bw, write_bw and read_lat; the client then
# names the server by its RoCE address.
#
# usage: test_perf_memif.sh PV_PERF PV_PINGPONG [rdma_cm]
set -uo pipefail

perf=$1
pingpong=$2
mode=${3:-}
host=127.0.0.1
tag=pvit-$$
sock=/tmp/$tag.sock
port=$((20000 + $$ % 20000))
logdir=$(mktemp -d /tmp/$tag.XXXXXX)
spid=""
fails=0
runs=0

# shellcheck source=test/integration/memif_pair.sh
. "$(dirname "$0")/../memif_pair.sh"
trap memif_pair_cleanup EXIT

# pair NAME BINARY CHECK_REGEX ARGS...: run server and client, check both
pair() {
	local name=$1 bin=$2 want=$3 slog clog crc src i
	shift 3
	slog=$logdir/$name.server
	clog=$logdir/$name.client
	runs=$((runs + 1))
	rm -f "$sock"
	# shellcheck disable=SC2046
	"$bin" $(memif_pair_eal server 10.99.0.1 0) -- "$@" -p "$port" >"$slog" 2>&1 &
	spid=$!
	# the memif client connects once: wait until the server listens
	# and has started its port (pv-perf prints "Waiting..." after that;
	# pv-pingpong prints nothing before the link is up: give it a second)
	for i in $(seq 200); do
		if memif_pair_listening; then
			grep -q 'Waiting for client' "$slog" && break
			[ "$bin" = "$pingpong" ] && sleep 1 && break
		fi
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	if grep -q 'pv_init: \|no device\|bad devargs' "$slog"; then
		echo "skip: softroce device not available here:"
		cat "$slog"
		exit 77
	fi
	# shellcheck disable=SC2046
	timeout 60 "$bin" $(memif_pair_eal client 10.99.0.2 1) -- "$@" -p "$port" "$host" \
		>"$clog" 2>&1
	crc=$?
	memif_pair_wait_server
	port=$((port + 1))
	# pv-pingpong -c reports bad data ("invalid data in page", "invalid
	# GRH") as rc_pingpong does: on stdout, exit status 0
	if [ "$crc" -eq 0 ] && [ "$src" -eq 0 ] && grep -Eq "$want" "$clog" &&
		grep -Eq "$want" "$slog" && ! grep -q '^invalid ' "$clog" "$slog"; then
		echo "ok: $name"
		grep -E "$want" "$clog" | sed 's/^/    /'
		return
	fi
	fails=$((fails + 1))
	echo "FAIL: $name (client exit $crc, server exit $src)"
	echo "--- server ---"
	tail -n 20 "$slog"
	echo "--- client ---"
	tail -n 20 "$clog"
}

if [ "$mode" = rdma_cm ]; then
	# one size, no --verify (perftest's exchange); a result line: size, iterations
	host=10.99.0.1
	pair send_bw-rdma_cm "$perf" '^ *65536 +200 ' send_bw -R -n 200
	pair write_bw-rdma_cm "$perf" '^ *65536 +200 ' write_bw -R -n 200
	pair read_lat-rdma_cm "$perf" '^ *64 +200 ' read_lat -R -s 64 -n 200
	echo "$((runs - fails)) of $runs runs passed"
	[ "$fails" -eq 0 ]
	exit
fi

ok='every byte checked, all correct'
pair write_bw "$perf" "$ok" write_bw --verify --sizes=1,4096,65536 -n 200
pair read_bw "$perf" "$ok" read_bw --verify --sizes=4096,65536 -n 200
pair send_bw "$perf" "$ok" send_bw --verify --sizes=1,4096,65536 -n 200
pair write_lat "$perf" "$ok" write_lat --verify --sizes=2,8,4096 -n 200
pair send_lat "$perf" "$ok" send_lat --verify --sizes=8,4096 -n 200
pair read_lat "$perf" "$ok" read_lat --verify -s 64 -n 200
pair pingpong "$pingpong" 'iters in .* usec/iter' -g 1 -c -n 200 -s 4096
# GID 0: RoCEv2 over IPv6 link-local, the peer found by neighbour discovery
pair pingpong-ipv6 "$pingpong" 'iters in .* usec/iter' -g 0 -c -n 200 -s 4096

# refused NAME REGEX ARGS...: a pv-pingpong server that must exit 1 at
# start, printing REGEX
refused() {
	local name=$1 want=$2 log rc
	shift 2
	log=$logdir/$name.server
	runs=$((runs + 1))
	rm -f "$sock"
	# shellcheck disable=SC2046
	timeout 30 "$pingpong" $(memif_pair_eal server 10.99.0.1 0) -- "$@" -p "$port" >"$log" 2>&1
	rc=$?
	port=$((port + 1))
	if [ "$rc" -eq 1 ] && grep -Eq "$want" "$log"; then
		echo "ok: $name"
		return
	fi
	fails=$((fails + 1))
	echo "FAIL: $name (exit $rc, expected 1 and /$want/)"
	tail -n 20 "$log"
}

# UD as ibv_ud_pingpong: -c also checks each receive's length (GRH + -s)
# and that the GRH names the peer; -s 1024 by default, at most the path
# MTU (memif's 1500-byte Ethernet MTU: 1024)
ppud='--connection=UD'
pair pingpong-ud "$pingpong" '^200 iters in .* usec/iter' "$ppud" -g 1 -c -n 200
pair pingpong-ud-ipv6 "$pingpong" '^200 iters in .* usec/iter' "$ppud" -g 0 -c -n 200
pair pingpong-ud-events "$pingpong" '^200 iters in .* usec/iter' "$ppud" -g 1 -c -e -n 200 -s 8
pair pingpong-ud-ipv6-events "$pingpong" '^200 iters in .* usec/iter' "$ppud" -g 0 -c -e \
	-n 200 -s 8
refused pingpong-ud-above-mtu 'Requested size larger than port MTU \(1024\)' "$ppud" -g 1 -s 1025

echo "$((runs - fails)) of $runs runs passed"
[ "$fails" -eq 0 ]
