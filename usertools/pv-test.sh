#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Run the unit and integration suites in each given build directory, then,
# with --valgrind DIR, the unit suites of DIR under valgrind memcheck (meson
# test setup 'valgrind', test/meson.build), printing every test's output
# (CUnit run summaries and valgrind error summaries included), then one
# closing line counting every pass.
# With --fuzz DIR, the fuzz suite of DIR (test/fuzz, a clang build).
# With --tsan DIR, the threading tests (suite 'threads') of DIR, a
# -fsanitize=thread build: a data race report fails them (TSAN_OPTIONS).
# Usage: pv-test.sh [--valgrind BUILD] [--fuzz BUILD] [--tsan BUILD] BUILD...
set -uo pipefail
pass=0 fail=0 skip=0 rc=0

# run_pass LABEL MESON-TEST-ARGS...: one meson test run, added to the counts
run_pass() {
	local label=$1 log ok ex fl up sk to
	shift
	echo "=== $label ==="
	log=$(mktemp)
	meson test "$@" --print-errorlogs -v --num-processes 1 2>&1 | tee "$log"
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
}

vg_build=
if [ "${1:-}" = "--valgrind" ]; then
	vg_build=${2:?--valgrind needs a build directory}
	shift 2
fi
fuzz_build=
if [ "${1:-}" = "--fuzz" ]; then
	fuzz_build=${2:?--fuzz needs a build directory}
	shift 2
fi
tsan_build=
if [ "${1:-}" = "--tsan" ]; then
	tsan_build=${2:?--tsan needs a build directory}
	shift 2
fi

for b in "$@"; do
	run_pass "meson test in $b" -C "$b" --suite unit --suite integration
done

if [ -n "$vg_build" ]; then
	if meson test -C "$vg_build" --setup valgrind --list >/dev/null 2>&1; then
		# --no-suite: meson's --suite overrides the setup's exclude_suites
		run_pass "meson test in $vg_build under valgrind" -C "$vg_build" \
			--setup valgrind --suite unit --no-suite novalgrind
	else
		# the setup exists only if meson found valgrind at configure time
		echo "pv-test: no 'valgrind' test setup in $vg_build: install valgrind" \
			"(usertools/pv-install-deps.sh), then: meson setup --reconfigure $vg_build" >&2
		fail=$((fail + 1))
	fi
fi

# the libFuzzer targets, a few seconds each (test/fuzz: clang builds only)
if [ -n "$fuzz_build" ]; then
	if meson test -C "$fuzz_build" --suite fuzz --list >/dev/null 2>&1; then
		run_pass "fuzz targets in $fuzz_build" -C "$fuzz_build" --suite fuzz
	else
		echo "pv-test: no fuzz targets in $fuzz_build (not clang with libFuzzer:" \
			"see test/fuzz in its meson log)"
	fi
fi

# the threading tests under ThreadSanitizer (built by make build-tsan alone)
if [ -n "$tsan_build" ]; then
	TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1" \
		run_pass "threading tests in $tsan_build (ThreadSanitizer)" -C "$tsan_build" \
		--no-rebuild --suite threads
fi

[ "$fail" -eq 0 ] || rc=1
echo "test: $pass passed, $fail failed, $skip skipped"
exit $rc
