#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 pollverbs authors
#
# pv-perf --loopback over the mlx5 device model: write_bw, read_bw,
# send_bw, write_lat, send_lat and read_lat with --verify at 8 B, 4 KiB,
# 64 KiB and 1 MiB, the model polling on lcore 1 beside the test loops on
# lcore 0. Every run must exit 0, check every byte and say "device model"
# in its banner and after its table. Then the --model shorthand (built-in
# EAL arguments), and --loopback on a device that cannot loop back (a
# softroce device): it must fail with a message that says so.
#
# usage: test_perf_model.sh PV_PERF [softroce]   (softroce: it is built)
set -uo pipefail

perf=$1
with_softroce=${2:-}
tag=pvit-model-$$
logdir=$(mktemp -d /tmp/$tag.XXXXXX)
fails=0
runs=0

cleanup() {
	[ "$fails" -eq 0 ] && rm -rf "$logdir"
}
trap cleanup EXIT

eal="-l 0,1 --no-huge --no-pci -m 256 --file-prefix=$tag --log-level=*:warning"

# run NAME EXPECT_RC REGEX... -- ARGS...: every REGEX must be in the output
run() {
	local name=$1 want_rc=$2 log=$logdir/$1.log rc re ok=1
	local -a res=()
	shift 2
	while [ "$1" != "--" ]; do
		res+=("$1")
		shift
	done
	shift
	runs=$((runs + 1))
	timeout 120 "$@" >"$log" 2>&1
	rc=$?
	if grep -q "pv_init: \|device .* not found\|no device" "$log" && [ "$want_rc" -eq 0 ]; then
		echo "skip: mlx5_model not available here:"
		tail -n 5 "$log"
		exit 77
	fi
	[ "$rc" -eq "$want_rc" ] || ok=0
	for re in "${res[@]}"; do
		grep -Eq -- "$re" "$log" || ok=0
	done
	if [ "$ok" -eq 1 ]; then
		echo "ok: $name"
		grep -E '^ [0-9]+ ' "$log" | sed 's/^/    /'
		return
	fi
	fails=$((fails + 1))
	echo "FAIL: $name (exit $rc, expected $want_rc)"
	tail -n 30 "$log"
}

model_re='Device +: mlx5_model0 \(device model, not hardware\)'
note_re='^ Device model: mlx5_model0 is a software model of the device'
ok_re='every byte checked, all correct'
sizes=--sizes=8,4k,64k,1m
for t in write_bw read_bw send_bw write_lat send_lat read_lat; do
	# shellcheck disable=SC2086
	run "$t" 0 "$model_re" "$note_re" "$ok_re" '^ 1048576 ' -- \
		"$perf" $eal --pv-dev=mlx5_model -- "$t" --loopback --verify "$sizes" -n 200
done
# post lists and CQ moderation on the same pair of QPs
# shellcheck disable=SC2086
run write_bw-l16 0 "$model_re" "$ok_re" -- \
	"$perf" $eal --pv-dev=mlx5_model -- write_bw --loopback --verify -s 64 -l 16 -n 2000
# --slots=1: every WR from and into one buffer, every byte still checked;
# --slots out of range refused
# shellcheck disable=SC2086
run write_bw-slots1 0 "$model_re" "$ok_re" -- \
	"$perf" $eal --pv-dev=mlx5_model -- write_bw --loopback --verify --slots=1 -s 65536 -n 200
# shellcheck disable=SC2086
run write_bw-slots0 1 "--slots" -- \
	"$perf" $eal --pv-dev=mlx5_model -- write_bw --loopback --slots=0
# the shorthand: built-in EAL arguments
run model-shorthand 0 "built-in EAL args: .*--pv-dev=mlx5_model" "$model_re" "$ok_re" -- \
	"$perf" send_lat --model --verify -s 4096 -n 200
# --model is its own EAL arguments
# shellcheck disable=SC2086
run model-with-eal 1 "--model brings its own EAL arguments" -- \
	"$perf" $eal --pv-dev=mlx5_model -- write_bw --model
# softroce connects two of its own QPs through its loopback path (no frame
# reaches the port), as rxe does: every byte checked
# shellcheck disable=SC2086
[ "$with_softroce" = softroce ] && run softroce-loopback 0 "$ok_re" -- \
	"$perf" -l 0 --no-huge --no-pci -m 256 --file-prefix=$tag-sr --log-level=*:warning \
	--vdev=net_ring0 --pv-dev=softroce:port=net_ring0,ip=10.99.0.1 -- \
	write_bw --loopback --verify -x 1 -s 4096 -n 100

echo "$((runs - fails)) of $runs runs passed"
[ "$fails" -eq 0 ]
