#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Run the libFuzzer targets of test/fuzz for SECONDS each and print, per
# target, the executions, the coverage (libFuzzer's cov: edges, ft:
# features) and the findings. Seeds come from test/fuzz/pv-fuzz-seeds.py
# (RoCE frames and CM MADs of ../shared/data/rxe when it is there,
# synthetic ones always; NVMe-oF command sequences synthetic only); the
# corpus grows in BUILD/test/fuzz/corpus/<target>, findings go
# to BUILD/test/fuzz/crashes/<target>-* (once fixed, keep the reproducer
# in test/fuzz/regress/<kind>/: it is run first on every run). Exit status 1 on any finding.
#
# usage: usertools/pv-fuzz.sh BUILD_DIR [SECONDS] [TARGET...]
#        (targets: fuzz_sroce_parse fuzz_sroce_resp fuzz_sroce_req fuzz_cm_mad
#         fuzz_nvmf_capsule)
set -uo pipefail

build=${1:?usage: pv-fuzz.sh BUILD_DIR [SECONDS] [TARGET...]}
secs=${2:-60}
shift $(( $# >= 2 ? 2 : 1 ))
targets=("$@")
[ ${#targets[@]} -gt 0 ] ||
	targets=(fuzz_sroce_parse fuzz_sroce_resp fuzz_sroce_req fuzz_cm_mad fuzz_nvmf_capsule)
src=$(cd "$(dirname "$0")/.." && pwd)
fdir="$build/test/fuzz"
data="$src/../shared/data/rxe"

if [ ! -x "$fdir/${targets[0]}" ]; then
	echo "pv-fuzz: $fdir/${targets[0]} not built: the fuzz targets need clang with" \
		"libFuzzer (make build-clang; see the meson log of test/fuzz)" >&2
	exit 77
fi
mkdir -p "$fdir/crashes" "$fdir/seeds"
python3 "$src/test/fuzz/pv-fuzz-seeds.py" "$data" "$fdir/seeds" >/dev/null || exit 1

rc=0
for t in "${targets[@]}"; do
	# seed and regress directory: parse, resp, req, cm_mad, nvmf_capsule
	kind=${t#fuzz_}
	kind=${kind#sroce_}
	corpus="$fdir/corpus/$t"
	log="$fdir/$t.log"
	mkdir -p "$corpus"
	# reproducers of fixed findings (test/fuzz/regress/<kind>) run first, every time
	regress=()
	[ -d "$src/test/fuzz/regress/$kind" ] && regress=("$src/test/fuzz/regress/$kind")
	start=$(date +%s)
	# -seed fixed: the short `make test` runs are reproducible
	"$fdir/$t" -max_total_time="$secs" -seed=20261123 -timeout=10 -rss_limit_mb=3072 \
		-print_final_stats=1 -artifact_prefix="$fdir/crashes/$t-" \
		"$corpus" "$fdir/seeds/$kind" "${regress[@]}" >"$log" 2>&1
	ret=$?
	end=$(date +%s)
	stat=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE).*cov:' "$log" | tail -1)
	execs=$(sed -n "s/^stat::number_of_executed_units: *//p" "$log" | tail -1)
	cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$stat")
	ft=$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<<"$stat")
	corp=$(sed -n 's/.*corp: \([0-9]*\).*/\1/p' <<<"$stat")
	found=$(grep -cE '^==[0-9]+==ERROR|^SUMMARY: (Address|Undefined|Leak)|deadly signal|runtime error' "$log")
	printf '%s: %s s, %s executions, cov %s, ft %s, corpus %s, findings %s\n' \
		"$t" "$((end - start))" "${execs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$found"
	if [ "$ret" -ne 0 ] || [ "$found" -ne 0 ]; then
		rc=1
		grep -E 'ERROR|SUMMARY|runtime error|Test unit written|deadly' "$log" | head -20
		echo "pv-fuzz: $t: finding, full log $log" >&2
	fi
done
exit $rc
