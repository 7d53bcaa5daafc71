#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Run the unit and integration suites in each given build directory, printing
# every test's output (CUnit run summaries included), then one closing line.
set -uo pipefail
pass=0 fail=0 skip=0 rc=0
for b in "$@"; do
	echo "=== meson test in $b ==="
	log=$(mktemp)
	meson test -C "$b" --suite unit --suite integration --print-errorlogs -v \
		--num-processes 1 2>&1 | tee "$log"
	[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
	ok=$(sed -n 's/^Ok: *\([0-9]*\).*/\1/p' "$log" | tail -1)
	ex=$(sed -n 's/^Expected Fail: *\([0-9]*\).*/\1/p' "$log" | tail -1)
	fl=$(sed -n 's/^Fail: *\([0-9]*\).*/\1/p' "$log" | tail -1)
	up=$(sed -n 's/^Unexpected Pass: *\([0-9]*\).*/\1/p' "$log" | tail -1)
	sk=$(sed -n 's/^Skipped: *\([0-9]*\).*/\1/p' "$log" | tail -1)
	to=$(sed -n 's/^Timeout: *\([0-9]*\).*/\1/p' "$log" | tail -1)
	pass=$((pass + ${ok:-0} + ${ex:-0}))
	fail=$((fail + ${fl:-0} + ${up:-0} + ${to:-0}))
	skip=$((skip + ${sk:-0}))
	rm -f "$log"
done
[ "$fail" -eq 0 ] || rc=1
echo "test: $pass passed, $fail failed, $skip skipped"
exit $rc
