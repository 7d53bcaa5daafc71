#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 pollverbs authors
#
# The rdma_cm applications between two processes over net_memif on
# softroce: pv-rping (-C 10 -V -S 4096, and -v data lines), the RDMA
# read/write sample (pv-rdma-rw-server / -client, write and read mode: each
# side must print the other's fixed message as "remote buffer: ...") and
# pv-rdma-steps (plain verbs, and -H: the rdma_verbs.h helpers). Every run
# must exit 0 on both sides and print what is checked. Exit 77 (skip) when
# the softroce device cannot be created here.
#
# The counterparts of librdmacm's examples too: pv-cmatose (-c 3, -V: each
# side checks the other's pattern), pv-udaddy (-c 2, -V) and pv-rdma-server
# / pv-rdma-client.
#
# usage: test_cm_apps_memif.sh PV_RPING PV_RDMA_RW_SERVER PV_RDMA_RW_CLIENT PV_RDMA_STEPS
#                              PV_CMATOSE PV_UDADDY PV_RDMA_SERVER PV_RDMA_CLIENT
set -uo pipefail

rping=$1
rw_server=$2
rw_client=$3
steps=$4
cmatose=$5
udaddy=$6
sync_server=$7
sync_client=$8
tag=pvcm-$$
sock=/tmp/$tag.sock
port=$((20000 + $$ % 20000))
logdir=$(mktemp -d /tmp/$tag.XXXXXX)
srv_ip=10.99.0.1
spid=""
fails=0
runs=0

# shellcheck source=test/integration/memif_pair.sh
. "$(dirname "$0")/memif_pair.sh"
trap memif_pair_cleanup EXIT

# pair NAME SERVER_REGEX CLIENT_REGEX SERVER_CMD -- CLIENT_CMD: the server
# command (binary and application arguments; PORT is replaced by this
# run's port) in the background, then the client; both must exit 0 and
# print their regex (grep -E; each line of a regex separated by '|' ...)
pair() {
	local name=$1 swant=$2 cwant=$3 slog clog crc src i sbin cbin
	local -a sargs=() cargs=()
	shift 3
	sbin=$1
	shift
	while [ "$1" != "--" ]; do sargs+=("${1//PORT/$port}"); shift; done
	shift
	cbin=$1
	shift
	for a in "$@"; do cargs+=("${a//PORT/$port}"); done
	slog=$logdir/$name.server
	clog=$logdir/$name.client
	runs=$((runs + 1))
	rm -f "$sock"
	# shellcheck disable=SC2046
	"$sbin" $(memif_pair_eal server $srv_ip 0) -- "${sargs[@]}" >"$slog" 2>&1 &
	spid=$!
	# the memif client connects once: wait until the server listens on
	# its memif socket, then give it a moment to reach rdma_listen()
	for i in $(seq 200); do
		memif_pair_listening && break
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	sleep 1
	if grep -q 'pv_init: \|no device\|bad devargs' "$slog"; then
		echo "skip: softroce device not available here:"
		cat "$slog"
		exit 77
	fi
	# shellcheck disable=SC2046
	timeout 60 "$cbin" $(memif_pair_eal client 10.99.0.2 1) -- "${cargs[@]}" >"$clog" 2>&1
	crc=$?
	memif_pair_wait_server
	port=$((port + 1))
	if [ "$crc" -eq 0 ] && [ "$src" -eq 0 ] && grep -Eq "$cwant" "$clog" &&
		grep -Eq "$swant" "$slog"; then
		echo "ok: $name"
		grep -E "$cwant" "$clog" | tail -n 2 | cut -c1-100 | sed 's/^/    client: /'
		grep -E "$swant" "$slog" | tail -n 2 | cut -c1-100 | sed 's/^/    server: /'
		return 0
	fi
	fails=$((fails + 1))
	echo "FAIL: $name (client exit $crc, server exit $src)"
	echo "--- server ---"
	tail -n 20 "$slog"
	echo "--- client ---"
	tail -n 20 "$clog"
	return 1
}

# count LOG REGEX N: exactly N lines of LOG match REGEX
count() {
	local n
	n=$(grep -Ec "$2" "$1")
	if [ "$n" -ne "$3" ]; then
		fails=$((fails + 1))
		echo "FAIL: $1: $n lines match /$2/, expected $3"
		return 1
	fi
}

# rping: 10 pings of 4096 bytes, validated by the client (-V exits 1 on a
# mismatch); -v prints each ping's data on both sides: rping's pattern,
# its rotating part starting one character later each ping
if pair rping 'server ping data: rdma-ping-9: JKLM' 'ping data: rdma-ping-9: JKLM' \
	"$rping" -s -v -S 4096 -p PORT -- \
	"$rping" -c -a $srv_ip -p PORT -C 10 -V -v -S 4096; then
	count "$logdir/rping.client" '^ping data: rdma-ping-[0-9]+: ' 10
	count "$logdir/rping.server" '^server ping data: rdma-ping-[0-9]+: ' 10
	count "$logdir/rping.client" '^ping data: rdma-ping-0: ABCDEFGH' 1
fi
# rping's defaults: -S 64, no output but the exit status
pair rping-quiet '^server DISCONNECT EVENT' '' \
	"$rping" -s -p PORT -- "$rping" -c -a $srv_ip -p PORT -C 100 -V

# the RDMA read/write sample: each side prints the other's message
for mode in write read; do
	if [ "$mode" = write ]; then verb=writing; else verb=reading; fi
	if pair "rdma-rw-$mode" '^remote buffer: message from active/client side$' \
		'^remote buffer: message from passive/server side$' \
		"$rw_server" "$mode" PORT -- "$rw_client" "$mode" $srv_ip PORT; then
		count "$logdir/rdma-rw-$mode.client" "^received MSG_MR. $verb message" 1
		count "$logdir/rdma-rw-$mode.server" "^received MSG_MR. $verb message" 1
		count "$logdir/rdma-rw-$mode.client" '^send completed successfully.$' 3
		count "$logdir/rdma-rw-$mode.server" '^send completed successfully.$' 3
		count "$logdir/rdma-rw-$mode.server" '^listening on port [0-9]+.$' 1
	fi
done

# step by step, plain verbs and the rdma_verbs.h helpers
pair rdma-steps '^all steps done$' '^all steps done$' \
	"$steps" -s -p PORT -- "$steps" -c -a $srv_ip -p PORT &&
	count "$logdir/rdma-steps.server" 'received "hello from the active side"' 1 &&
	count "$logdir/rdma-steps.client" 'received "hello from the passive side"' 1
pair rdma-steps-helpers '^all steps done$' '^all steps done$' \
	"$steps" -s -H -p PORT -- "$steps" -c -H -a $srv_ip -p PORT &&
	count "$logdir/rdma-steps-helpers.client" '\(rdma_reg_msgs\)' 1 &&
	count "$logdir/rdma-steps-helpers.client" 'received "hello from the passive side"' 1

# librdmacm's examples: several connections at once, with their data checked
pair cmatose '^disconnected$' '^data transfers complete$' \
	"$cmatose" -p PORT -c 3 -C 20 -S 1000 -V -T 30 -- \
	"$cmatose" -s $srv_ip -p PORT -c 3 -C 20 -S 1000 -V -T 30 &&
	count "$logdir/cmatose.server" '^return status 0$' 1
pair udaddy '^data transfers complete$' '^data transfers complete$' \
	"$udaddy" --port=PORT -c 2 -V -T 30 -- "$udaddy" -s $srv_ip --port=PORT -c 2 -V -T 30 &&
	count "$logdir/udaddy.client" '^udaddy: connection [01]: remote QPN 0x[0-9a-f]+, Q_Key 0x01234567$' 2
pair rdma-sync '^rdma_server: end 0$' '^rdma_client: end 0$' \
	"$sync_server" -p PORT -- "$sync_client" -s $srv_ip -p PORT

echo "$((runs - fails)) of $runs runs passed, $fails failures"
[ "$fails" -eq 0 ]
