#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 pollverbs authors
#
# make bench-peers: pollverbs (pv-perf over softroce over a net_memif pair,
# exactly as make demo runs it) against UCX over shared memory
# (UCX_TLS=posix,cma ucx_perftest, UCP active messages), back to back on
# the same two cores (server on CPU 0, client on CPU 1), several rounds.
# Prints one table (pollverbs min/median/max, UCX min/median/max, and the
# ratio pollverbs/UCX within each round: median, min-max) and writes the
# raw figures and PNG plots of bandwidth and latency over message size for
# both.
#
#   send_bw 4 KiB, 64 KiB, 1 MiB   vs ucp_am_bw  (average Gb/s)
#   send_lat 8 B, 4 KiB            vs ucp_am_lat (one-way t_typical vs 50 %ile, usec)
#   write_bw 8 B, post list 32     vs ucp_am_bw -s 8 (message rate, Mpps)
#   write_bw 4 KiB average / peak  (pollverbs only: the warm-start figure)
#
# The machine changes speed by up to 3x for minutes at a time, whatever
# runs. So each round starts and ends with a short UCX probe (ucp_am_lat
# 8 B, 20000 iterations). When the two probes differ by more than PV_BENCH_STEADY,
# the machine changed speed during the round. The ratio column then counts
# only the steady rounds, and says how many there were.
#
# usage: usertools/pv-bench-peers.sh [BUILD_DIR]
#   PV_BENCH_RUNS       rounds (default 3)
#   PV_BENCH_OUT        output directory (default BUILD_DIR/bench-peers)
#   PV_BENCH_BW_SIZES   bandwidth sizes, comma-separated (default
#                       8,256,4096,16384,65536,262144,1048576; must contain
#                       4096, 65536 and 1048576 for the table)
#   PV_BENCH_LAT_SIZES  latency sizes (default 8,256,4096,16384; must
#                       contain 8 and 4096)
#   PV_BENCH_BW_ITERS   iterations per bandwidth size, both peers (5000)
#   PV_BENCH_LAT_ITERS  iterations per latency size, both peers (10000)
#   PV_BENCH_RATE_ITERS messages of the 8 B message-rate run, both (1000000)
#   PV_BENCH_UCX_PORT   TCP port of ucx_perftest (13337)
#   PV_BENCH_STEADY     largest ratio of a round's two UCX probes (1.3)
#   PV_BENCH_REUSE=1    run nothing: the table and plots again from the
#                       raw figures of the last run (PV_BENCH_OUT/raw.tsv)
#   PV_DEMO_*           passed on to usertools/pv-demo.sh (memory, port, MTU)
set -uo pipefail

build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
runs=${PV_BENCH_RUNS:-3}
out=${PV_BENCH_OUT:-$build/bench-peers}
bw_sizes=${PV_BENCH_BW_SIZES:-8,256,4096,16384,65536,262144,1048576}
lat_sizes=${PV_BENCH_LAT_SIZES:-8,256,4096,16384}
bw_iters=${PV_BENCH_BW_ITERS:-5000}
lat_iters=${PV_BENCH_LAT_ITERS:-10000}
rate_iters=${PV_BENCH_RATE_ITERS:-1000000}
uport=${PV_BENCH_UCX_PORT:-13337}
steady=${PV_BENCH_STEADY:-1.3}
probe_iters=20000
hp_sys=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
hp_prev=""
hp_mounted=""
upid=""

say() { printf 'pv-bench-peers: %s\n' "$*"; }

cleanup() {
	if [ -n "$upid" ] && kill -0 "$upid" 2>/dev/null; then
		kill "$upid" 2>/dev/null
		wait "$upid" 2>/dev/null
	fi
	if [ -n "$hp_mounted" ]; then
		umount "$hp_mounted" 2>/dev/null
	fi
	if [ -n "$hp_prev" ]; then
		echo "$hp_prev" > "$hp_sys" 2>/dev/null
		say "released the hugepages reserved for the benchmark"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
	say "PV_BENCH_RUNS must be a positive number (got '$runs')"
	exit 1
fi
if [ ! -x "$build/apps/pv-perf" ]; then
	say "$build/apps/pv-perf not found: build first (make build)"
	exit 1
fi
for s in 4096 65536 1048576; do
	[[ ",$bw_sizes," == *",$s,"* ]] ||
		{ say "PV_BENCH_BW_SIZES must contain $s"; exit 1; }
done
for s in 8 4096; do
	[[ ",$lat_sizes," == *",$s,"* ]] ||
		{ say "PV_BENCH_LAT_SIZES must contain $s"; exit 1; }
done

# the peer and the plotter, from Debian
need=()
command -v ucx_perftest >/dev/null 2>&1 || need+=(ucx-utils)
command -v gnuplot >/dev/null 2>&1 || need+=(gnuplot-nox)
if [ "${#need[@]}" -gt 0 ]; then
	if [ "$(id -u)" != 0 ]; then
		say "missing ${need[*]}: apt-get install -y ${need[*]} (as root)"
		exit 1
	fi
	say "installing ${need[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y "${need[@]}" >/dev/null ||
		{ say "apt-get install ${need[*]} failed"; exit 1; }
fi
command -v ucx_perftest >/dev/null 2>&1 || { say "no ucx_perftest"; exit 1; }

# Reserve the hugepages once for every round (pv-demo.sh then finds them
# reserved instead of reserving and releasing them per run).
hp_free_kb() {
	awk '/^HugePages_Free:/ { f = $2 } /^Hugepagesize:/ { s = $2 } END { print f * s }' \
		/proc/meminfo
}
if [ "${PV_DEMO_NO_HUGE:-0}" != 1 ] && [ "$(id -u)" = 0 ] && [ -w "$hp_sys" ] &&
	[ "$(hp_free_kb)" -lt $((1024 * 1024)) ]; then
	hp_prev=$(cat "$hp_sys")
	echo $((hp_prev + 512)) > "$hp_sys" 2>/dev/null
	if ! grep -q ' hugetlbfs ' /proc/mounts; then
		mkdir -p /dev/hugepages &&
			mount -t hugetlbfs -o pagesize=2M nodev /dev/hugepages 2>/dev/null &&
			hp_mounted=/dev/hugepages
	fi
fi

mkdir -p "$out" || exit 1
raw=$out/raw.tsv
reuse=${PV_BENCH_REUSE:-0}
if [ "$reuse" = 1 ]; then
	[ -s "$raw" ] || { say "PV_BENCH_REUSE=1: no $raw"; exit 1; }
	runs=$(cut -f1 "$raw" | sort -u | wc -l)
	# the derived rows are written again below
	sed -i '/\twarm\t/d' "$raw"
else
	: > "$raw"
fi
logdir=$out/logs
mkdir -p "$logdir"

# record PEER FIGURE SIZE VALUE
record() { printf '%s\t%s\t%s\t%s\t%s\n' "$round" "$1" "$2" "$3" "$4" >> "$raw"; }

# pollverbs: one pv-demo.sh run per round, parsed from its tables
pv_round() {
	local log=$logdir/pv-round$round.log
	PV_DEMO_ONLY="write_bw send_bw send_lat write_rate" \
		PV_DEMO_SIZES=$bw_sizes PV_DEMO_ITERS=$bw_iters \
		PV_DEMO_LAT_SIZES=$lat_sizes PV_DEMO_LAT_ITERS=$lat_iters \
		PV_DEMO_RATE_ITERS=$rate_iters \
		"$here/pv-demo.sh" "$build" > "$log" 2>&1
	local rc=$?
	[ "$rc" -ne 0 ] && say "round $round: pv-demo.sh failed (exit $rc), see $log"
	# sections start with "pv-demo: pv-perf TEST ..."; rows with a number
	awk -v round="$round" '
		/^pv-demo: pv-perf / { t = $3; if (t == "write_bw" && $0 ~ /-l 32/) t = "write_rate"; next }
		/#bytes/ { next }
		t != "" && $1 ~ /^[0-9]+$/ && NF >= 5 {
			if (t == "send_lat")
				print round "\tpv\tlat\t" $1 "\t" $5
			else if (t == "send_bw")
				print round "\tpv\tbw\t" $1 "\t" $4
			else if (t == "write_bw") {
				print round "\tpv\twbw\t" $1 "\t" $4
				print round "\tpv\twbw_peak\t" $1 "\t" $3
			} else if (t == "write_rate")
				print round "\tpv\trate\t" $1 "\t" $5
		}' "$log" >> "$raw"
}

# UCX: one ucx_perftest pair; prints its "Final:" line's fields
ucx_pair() {
	local log=$logdir/ucx-round$round-$1-$2.log i
	UCX_TLS=posix,cma ucx_perftest -c 0 -p "$uport" > "$log.server" 2>&1 &
	upid=$!
	# the client retries nothing: wait until the server listens
	for i in $(seq 100); do
		ss -ltn 2>/dev/null | grep -q ":$uport " && break
		kill -0 "$upid" 2>/dev/null || break
		sleep 0.05
	done
	UCX_TLS=posix,cma timeout 120 ucx_perftest -c 1 -p "$uport" -t "$1" -s "$2" \
		-n "$3" 127.0.0.1 > "$log" 2>&1
	local rc=$?
	wait "$upid" 2>/dev/null
	upid=""
	[ "$rc" -ne 0 ] && say "round $round: ucx_perftest -t $1 -s $2 failed (exit $rc), see $log"
	awk '/^Final:/ { print $3, $4, $5, $6, $7, $8, $9 }' "$log"
}

ucx_round() {
	local s f
	for s in ${bw_sizes//,/ }; do
		# fields: lat50 lat_avg lat_all MB/s(avg) MB/s(all) msg/s(avg) msg/s(all)
		f=$(ucx_pair ucp_am_bw "$s" "$bw_iters")
		[ -n "$f" ] && record ucx bw "$s" "$(awk '{ printf "%.2f", $5 * 1048576 * 8 / 1e9 }' <<< "$f")"
	done
	for s in ${lat_sizes//,/ }; do
		f=$(ucx_pair ucp_am_lat "$s" "$lat_iters")
		[ -n "$f" ] && record ucx lat "$s" "$(awk '{ printf "%.3f", $1 }' <<< "$f")"
	done
	f=$(ucx_pair ucp_am_bw 8 "$rate_iters")
	[ -n "$f" ] && record ucx rate 8 "$(awk '{ printf "%.6f", $7 / 1e6 }' <<< "$f")"
}

# PROBE WHEN: the speed of the machine now, as UCX's 8 B latency (usec)
probe() {
	local f
	f=$(ucx_pair ucp_am_lat 8 "$probe_iters")
	[ -n "$f" ] && record ucx "probe_$1" 8 "$(awk '{ printf "%.3f", $1 }' <<< "$f")"
}

say "$runs rounds; server CPU 0, client CPU 1; pollverbs = usertools/pv-demo.sh" \
	"(softroce mtu=9000 over net_memif bsize=4352), UCX = UCX_TLS=posix,cma ucx_perftest"
say "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s)
[ "$reuse" = 1 ] && say "PV_BENCH_REUSE=1: the figures of the last run"
for round in $( [ "$reuse" = 1 ] || seq "$runs"); do
	say "round $round/$runs: UCX probe, pollverbs"
	probe start
	pv_round
	say "round $round/$runs: UCX, UCX probe"
	ucx_round
	probe end
done
say "load average after: $(cut -d' ' -f1-3 /proc/loadavg) ($(( $(date +%s) - start )) s)"

# STATS PEER FIGURE SIZE: "min median max" of the rounds, or "- - -"
stats() {
	awk -F'\t' -v p="$1" -v f="$2" -v s="$3" '
		$2 == p && $3 == f && $4 == s { v[n++] = $5 }
		END {
			if (!n) { print "- - -"; exit }
			for (i = 0; i < n; i++) for (j = i + 1; j < n; j++)
				if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
			m = n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2
			print v[0], m, v[n - 1]
		}' "$raw"
}

# the rounds whose two UCX probes agree within $steady, one per line
steady_rounds() {
	awk -F'\t' -v k="$steady" '
		$2 == "ucx" && $3 == "probe_start" { a[$1] = $5 }
		$2 == "ucx" && $3 == "probe_end" { b[$1] = $5 }
		END {
			for (r in a)
				if ((r in b) && a[r] > 0 && b[r] > 0 &&
				    a[r] / b[r] <= k && b[r] / a[r] <= k)
					print r
		}' "$raw"
}

# RATIOS FIGURE SIZE UCXFIGURE: pollverbs / UCX within each steady round
# (the machine changes speed, both peers with it), as "median (min-max),
# K/N steady"; with no steady round, over all rounds, said so
ratios() {
	awk -F'\t' -v f="$1" -v s="$2" -v uf="$3" -v ok="$steady_list" '
		BEGIN { k = split(ok, l, " "); for (i = 1; i <= k; i++) st[l[i]] = 1 }
		$2 == "pv" && $3 == f && $4 == s { p[$1] = $5 }
		$2 == "ucx" && $3 == uf && $4 == s { u[$1] = $5 }
		END {
			for (r in p) if ((r in u) && u[r] + 0 > 0) {
				all++
				if (k == 0 || (r in st)) v[n++] = p[r] / u[r]
			}
			if (!n) { print "-"; exit }
			for (i = 0; i < n; i++) for (j = i + 1; j < n; j++)
				if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
			m = n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2
			printf "%.2fx (%.2f-%.2f), %s\n", m, v[0], v[n - 1],
				k == 0 ? "no steady round: all " all : n "/" all " steady"
		}' "$raw"
}

table=$out/table.txt
steady_list=$(steady_rounds | tr '\n' ' ')
{
	printf '%-32s | %-26s | %-26s | %s\n' "figure" \
		"pollverbs min/median/max" "UCX min/median/max" "pv/UCX per round: median (min-max)"
	printf -- '-%.0s' $(seq 100); echo
	row() { # LABEL FIGURE SIZE UCXFIGURE FMT
		local p u
		read -r p1 p2 p3 <<< "$(stats pv "$2" "$3")"
		read -r u1 u2 u3 <<< "$(stats ucx "$4" "$3")"
		p=$(printf "$5 / $5 / $5" "$p1" "$p2" "$p3" 2>/dev/null)
		u=$(printf "$5 / $5 / $5" "$u1" "$u2" "$u3" 2>/dev/null)
		[ "$p1" = - ] && p="-"
		[ "$u1" = - ] && u="-"
		printf '%-32s | %-26s | %-26s | %s\n' "$1" "$p" "$u" "$(ratios "$2" "$3" "$4")"
	}
	row "send_bw 4 KiB, Gb/s" bw 4096 bw %.2f
	row "send_bw 64 KiB, Gb/s" bw 65536 bw %.2f
	row "send_bw 1 MiB, Gb/s" bw 1048576 bw %.2f
	row "send_lat 8 B one-way, usec" lat 8 lat %.3f
	row "send_lat 4 KiB one-way, usec" lat 4096 lat %.3f
	row "msg rate 8 B (pv: -l 32), Mpps" rate 8 rate %.2f
	row "write_bw 4 KiB average, Gb/s" wbw 4096 none %.2f
	row "write_bw 4 KiB peak, Gb/s" wbw_peak 4096 none %.2f
	# average / peak per round, then min/median/max of that ratio
	awk -F'\t' '$2 == "pv" && $4 == 4096 && $3 == "wbw" { a[$1] = $5 }
		$2 == "pv" && $4 == 4096 && $3 == "wbw_peak" { p[$1] = $5 }
		END { for (r in a) if (p[r] > 0) print r "\tpv\twarm\t4096\t" 100 * a[r] / p[r] }' \
		"$raw" >> "$raw"
	row "write_bw 4 KiB average/peak, %" warm 4096 none %.0f
	echo
	echo "$runs rounds; load average at the end $(cut -d' ' -f1-3 /proc/loadavg);" \
		"$(nproc) CPUs shared with other work"
	echo "bandwidth: average Gb/s (pv-perf BW average; ucx_perftest MB/s x 2^20 x 8)"
	echo "latency: pv-perf send_lat t_typical vs ucx_perftest ucp_am_lat 50.0%ile (both half a round trip)"
	echo "pv/UCX: the ratio within each round (back to back on the same CPUs), median and range over the"
	echo "  steady rounds: those whose UCX probes (ucp_am_lat 8 B, before and after) agree within ${steady}x"
	awk -F'\t' '$2 == "ucx" && $3 ~ /^probe_/ { v[$1, $3] = $5; r[$1] = 1 }
		END { for (i in r) print i, v[i, "probe_start"], v[i, "probe_end"] }' "$raw" |
		sort -n | while read -r r a b; do
			st=changed
			[[ " $steady_list" == *" $r "* ]] && st=steady
			echo "  round $r: UCX probe ${a:--} -> ${b:--} usec, $st"
		done
} > "$table"
echo
cat "$table"

# plots: median of the rounds per size
for f in bw lat; do
	for p in pv ucx; do
		for s in $( [ "$f" = bw ] && echo "${bw_sizes//,/ }" || echo "${lat_sizes//,/ }"); do
			read -r a m b <<< "$(stats "$p" "$f" "$s")"
			[ "$m" != - ] && echo "$s $a $m $b"
		done > "$out/$f-$p.dat"
	done
done
if command -v gnuplot >/dev/null 2>&1; then
	gnuplot <<-EOF 2>"$out/gnuplot.log" || say "gnuplot failed, see $out/gnuplot.log"
		set terminal png size 900,600 noenhanced
		set logscale x 2
		set format x "%.0b%B"
		set grid
		set key top left
		set xlabel "message size (bytes)"
		set output "$out/bandwidth.png"
		set title "send bandwidth, median of $runs (bars: min..max)"
		set ylabel "Gb/s"
		plot "$out/bw-pv.dat" using 1:3:2:4 with yerrorlines title "pollverbs send_bw (softroce/memif)", \
		     "$out/bw-ucx.dat" using 1:3:2:4 with yerrorlines title "UCX ucp_am_bw (posix,cma)"
		set output "$out/latency.png"
		set title "one-way latency, median of $runs (bars: min..max)"
		set ylabel "usec"
		set key top left
		plot "$out/lat-pv.dat" using 1:3:2:4 with yerrorlines title "pollverbs send_lat t_typical", \
		     "$out/lat-ucx.dat" using 1:3:2:4 with yerrorlines title "UCX ucp_am_lat 50%ile"
	EOF
fi
say "table: $table; raw figures: $raw; plots: $out/bandwidth.png $out/latency.png"
