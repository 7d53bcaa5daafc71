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
# With --rust DIR, the Rust crates of bindings/rust built against DIR and
# their cargo tests (usertools/pv-test-rust.sh), added to the counts; with
# --rust-asan DIR as well, their tests again against that ASan+UBSan build.
# Usage: pv-test.sh [--valgrind BUILD] [--fuzz BUILD] [--tsan BUILD]
#                   [--rust BUILD [--rust-asan BUILD]] BUILD...
# (the options in any order, before the build directories)
set -uo pipefail
pass=0 fail=0 skip=0 rc=0
failed=()

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
	# meson's result lines: "12/125 pollverbs:suite / name   FAIL   3.2s ...",
	# printed twice (live and in its summary of failures)
	while IFS= read -r line; do
		failed+=("$label: $line")
	done < <(grep -E '^ *[0-9]+/[0-9]+ .* (FAIL|TIMEOUT|UNEXPECTEDPASS|ERROR) ' "$log" |
		sed 's/  */ /g' | awk '!seen[$0]++')
	rm -f "$log"
}

# the options, in any order, before the build directories
vg_build= fuzz_build= tsan_build= rust_build= rust_asan=
while [ $# -gt 0 ]; do
	case $1 in
	--valgrind) vg_build=${2:?--valgrind needs a build directory} ;;
	--fuzz) fuzz_build=${2:?--fuzz needs a build directory} ;;
	--tsan) tsan_build=${2:?--tsan needs a build directory} ;;
	--rust) rust_build=${2:?--rust needs a build directory} ;;
	--rust-asan) rust_asan=${2:?--rust-asan needs a build directory} ;;
	*) break ;;
	esac
	shift 2
done

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

# the Rust crates: cargo test against the given build's libpollverbs.so
if [ -n "$rust_build" ]; then
	echo "=== Rust crates against $rust_build ==="
	log=$(mktemp)
	"$(dirname "$0")/pv-test-rust.sh" "$rust_build" $rust_asan 2>&1 | tee "$log"
	[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
	rp=$(sed -n 's/^rust: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$log" | tail -1)
	rf=$(sed -n 's/^rust: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$log" | tail -1)
	pass=$((pass + ${rp:-0}))
	fail=$((fail + ${rf:-1}))
	while IFS= read -r line; do
		failed+=("rust in $rust_build: $line")
	done < <(grep -E '^test .* \.\.\. FAILED' "$log")
	rm -f "$log"
fi

[ "$fail" -eq 0 ] || rc=1
# the failures again, last, where a truncated log still shows them
for f in "${failed[@]+"${failed[@]}"}"; do
	echo "failed: $f"
done
echo "test: $pass passed, $fail failed, $skip skipped"
exit $rc
