#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Build the Rust crates of bindings/rust (pollverbs-sys, pollverbs) offline
# from Debian's packaged crates against the meson build directory BUILD,
# run `cargo test` (unit tests, the harness=false tests that start their own
# EAL, the examples as processes, doc tests) and build the docs with
# warnings as errors. With ASAN_BUILD (an -fsanitize=address,undefined
# build, `make build-asan`), build the tests again against its
# libpollverbs.so and run them with libasan and libubsan preloaded (a cargo
# runner), LeakSanitizer on: a sanitizer report fails the test.
# Prints every test line and, last, one line
#   rust: N passed, M failed
# that usertools/pv-test.sh adds to its counts; failing tests are listed as
#   test NAME ... FAILED
# Debian's toolchain is used by its paths (/usr/bin/cargo, rustc, rustdoc),
# whatever else is first on PATH. The cargo target directory is BUILD/rust.
# Usage: pv-test-rust.sh BUILD [ASAN_BUILD]
set -uo pipefail
build=${1:?usage: pv-test-rust.sh BUILD [ASAN_BUILD]}
asan_build=${2:-}
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$build" && pwd) || exit 1
if [ -n "$asan_build" ]; then
	asan_build=$(cd "$asan_build" && pwd) || exit 1
fi

for t in /usr/bin/cargo /usr/bin/rustc /usr/bin/rustdoc; do
	if [ ! -x "$t" ]; then
		echo "pv-test-rust: $t missing: run usertools/pv-install-deps.sh (Debian packages" \
			"rustc, cargo, librust-*-dev)" >&2
		echo "rust: 0 passed, 1 failed"
		exit 1
	fi
done
export RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc CARGO=/usr/bin/cargo
# no colours, no progress bars: the log is read by people and by sed
export CARGO_TERM_COLOR=never CARGO_TERM_PROGRESS_WHEN=never
unset PV_EAL_ARGS PV_GID_INDEX
cd "$top/bindings/rust" || exit 1

log=$(mktemp)
trap 'rm -f "$log"' EXIT
rc=0 pass=0 fail=0

# cargo_pass LABEL BUILD CARGO-TEST-ARGS...: one cargo test run against
# BUILD (target dir BUILD/rust, a cargo home there too: works without HOME,
# ignores a user's ~/.cargo), added to the counts
cargo_pass() {
	local label=$1 b=$2 p f
	shift 2
	echo "=== cargo test against $b ($label) ==="
	PV_BUILD_DIR=$b CARGO_TARGET_DIR=$b/rust CARGO_HOME=$b/rust/cargo-home \
		/usr/bin/cargo test --workspace --no-fail-fast "$@" 2>&1 | tee "$log"
	local crc=${PIPESTATUS[0]}
	# libtest and tests/common print "test result: ok. N passed; M failed..."
	p=$(sed -n 's/^test result: [A-Za-z]*\. \([0-9]*\) passed; \([0-9]*\) failed.*/\1/p' "$log" |
		awk '{ s += $1 } END { print s + 0 }')
	f=$(sed -n 's/^test result: [A-Za-z]*\. \([0-9]*\) passed; \([0-9]*\) failed.*/\2/p' "$log" |
		awk '{ s += $1 } END { print s + 0 }')
	if [ "$crc" -ne 0 ] && [ "$f" -eq 0 ]; then
		# cargo failed before any test could, or a test binary died
		echo "test cargo-$label ... FAILED"
		f=1
	fi
	[ "$crc" -eq 0 ] || rc=1
	pass=$((pass + p))
	fail=$((fail + f))
}

cargo_pass release "$build"
# the crate guide and every public item's doc comment build without warnings
if PV_BUILD_DIR=$build CARGO_TARGET_DIR=$build/rust CARGO_HOME=$build/rust/cargo-home \
	RUSTDOCFLAGS="-D warnings" /usr/bin/cargo doc --workspace --no-deps 2>&1 | tail -n 3; then
	echo "test rustdoc ... ok"
	pass=$((pass + 1))
else
	echo "test rustdoc ... FAILED"
	fail=$((fail + 1))
	rc=1
fi

if [ -n "$asan_build" ]; then
	# Rust code is not instrumented; the C library is: preload its runtimes
	libs="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)"
	export CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER="env LD_PRELOAD=$libs"
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	# the examples, which tests/examples.rs runs as processes: built as
	# programs (cargo test builds them only when it runs every target)
	if ! PV_BUILD_DIR=$asan_build CARGO_TARGET_DIR=$asan_build/rust \
		CARGO_HOME=$asan_build/rust/cargo-home /usr/bin/cargo build --workspace --examples; then
		echo "test cargo-asan-examples ... FAILED"
		fail=$((fail + 1))
		rc=1
	fi
	# doc tests are left out: rustdoc runs them without the runner
	cargo_pass asan "$asan_build" --lib --bins --tests
	unset CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER ASAN_OPTIONS UBSAN_OPTIONS
fi
echo "rust: $pass passed, $fail failed"
exit $rc
