#!/bin/sh
# run.sh BUILD [SAN] - run every test of one build folder and print the
# closing line "N passed, N failed".
#
# A test is an executable BUILD/tests/test_* (cmocka unit tests) or a
# script tests/*.test.sh, which gets BUILD as its argument.  Each test's
# output goes to BUILD/test-logs/NAME.log and is shown when it fails.
set -u

build=${1:?usage: tests/run.sh BUILD [SAN]}
san=${2:-}
logs="$build/test-logs"
mkdir -p "$logs"

# Sanitizer settings: any report is a failure.
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:${TSAN_OPTIONS:-}"
if [ -n "$san" ]; then
	export ASTEAL_TEST_SAN="$san"
else
	unset ASTEAL_TEST_SAN
fi
TEST_TIMEOUT=${TEST_TIMEOUT:-300}
# Tests never talk to a system daemon by accident; the daemon tests point
# ASTEAL_SOCKET at their own.  They find the binaries through this.
export ASTEAL_SOCKET=none ASTEAL_TEST_BUILD="$build"

passed=0
failed=0
failures=""

run_one() {
	name=$1
	shift
	start=$(date +%s%N)
	# A hang is a failure, not a stuck CI: every test gets a deadline.
	if timeout --signal=ABRT --kill-after=10 "$TEST_TIMEOUT" "$@" \
	    >"$logs/$name.log" 2>&1; then
		passed=$((passed + 1))
		ms=$((($(date +%s%N) - start) / 1000000))
		printf '  ok    %-28s %4d.%02ds\n' "$name" $((ms / 1000)) $((ms % 1000 / 10))
	else
		rc=$?
		failed=$((failed + 1))
		failures="$failures $name"
		if [ "$rc" -ge 124 ] && [ "$rc" -le 137 ]; then
			printf '  FAIL  %-28s (exit %d: timed out after %ss or killed)\n' "$name" "$rc" "$TEST_TIMEOUT"
		else
			printf '  FAIL  %-28s (exit %d)\n' "$name" "$rc"
		fi
		sed 's/^/        | /' "$logs/$name.log" | tail -n 40
	fi
}

echo "tests in $build${san:+ ($san)}:"
for t in "$build"/tests/test_*; do
	[ -x "$t" ] || continue
	run_one "$(basename "$t")" "$t"
done
for t in tests/*.test.sh; do
	[ -f "$t" ] || continue
	run_one "$(basename "$t" .test.sh)" sh "$t" "$build"
done

[ -n "$failures" ] && echo "failed:$failures"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
