#!/bin/sh
# run.sh BUILD [SAN] - run every test of one build folder and print the
# closing line "N passed, N failed".
#
# A test is an executable BUILD/tests/test_* (cmocka unit tests) or a
# script tests/*.test.sh, which gets BUILD as its argument.  Each test's
# output goes to BUILD/test-logs/NAME.log and is shown when it fails.
#
# Two lanes, each running its tests one at a time.  The idle lane holds
# the tests named in $idle_tests: they judge no time, start no daemon and
# no job under one, and build nothing another test uses; they run at
# SCHED_IDLE (chrt --idle; nice 19 where that is refused), so that they
# take only CPU time the main lane leaves unused.  Every other test runs
# in the main lane at the caller's priority, as if alone.  The idle lane's
# results are printed after the main lane's.
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

# The idle lane's tests (see above), and how it lowers their priority.
idle_tests="aarch64 benchidle completion deps fuzz jobs man ombench replay sim test_program"
# The tests the TSan build does not run: what they drive is the command
# line and the daemon's one loop, code with no thread of its own, whose
# threads (the history's reader, the confinement watcher) their own tests
# drive (test_daemon_histread, test_confine); and rigid, whose OpenMP
# program runs the system's libgomp, which ThreadSanitizer cannot follow,
# so that it reports nothing there (report_bugs=0).  The normal and ASan
# builds run them all.
not_in_tsan="cli_history cli_numbers cli_query histdb limit rigid table watch"
# ASTEAL_TEST_SKIP names tests this run leaves out, ASTEAL_TEST_ONLY the
# only ones it runs (tests/check.sh runs the normal build's slowest idle
# tests later, beside the TSan build's).
skip_tests=${ASTEAL_TEST_SKIP:-}
only_tests=${ASTEAL_TEST_ONLY:-}
if chrt --idle 0 true 2>/dev/null; then
	idle="chrt --idle 0"
elif nice -n 19 true 2>/dev/null; then
	idle="nice -n 19"
else
	idle=""
fi

passed=0
failed=0
failures=""

# run_one NAME COMMAND...: run one test under its deadline (stdin
# /dev/null), print its line (and its log's tail when it fails), count it.
run_one() {
	name=$1
	shift
	start=$(date +%s%N)
	# A hang is a failure, not a stuck CI: every test gets a deadline.
	if timeout --signal=ABRT --kill-after=10 "$TEST_TIMEOUT" "$@" \
	    </dev/null >"$logs/$name.log" 2>&1; then
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

# in_list NAME LIST: whether NAME is a word of LIST.
in_list() {
	case " $2 " in *" $1 "*) return 0 ;; esac
	return 1
}

# lane_tests LANE: the names of the tests of LANE (main or idle), in the
# order they run: the unit tests, then the scripts.
lane_tests() {
	for t in "$build"/tests/test_* tests/*.test.sh; do
		case $t in
		*.test.sh) [ -f "$t" ] || continue; n=$(basename "$t" .test.sh) ;;
		*) [ -x "$t" ] || continue; n=$(basename "$t") ;;
		esac
		in_list "$n" "$skip_tests" && continue
		[ -z "$only_tests" ] || in_list "$n" "$only_tests" || continue
		if in_list "$n" "$idle_tests"; then l=idle; else l=main; fi
		[ "$l" = "$1" ] && echo "$n"
	done
}

# run_test NAME [PREFIX...]: run test NAME (a unit test or a script),
# its command after PREFIX.
run_test() {
	n=$1
	shift
	if [ "$san" = tsan ] && in_list "$n" "$not_in_tsan"; then
		printf '  skip  %-28s (not in the TSan build: run.sh, not_in_tsan)\n' "$n"
		return
	fi
	case $n in
	test_*) run_one "$n" "$@" "$build/tests/$n" ;;
	*) run_one "$n" "$@" sh "tests/$n.test.sh" "$build" ;;
	esac
}

echo "tests in $build${san:+ ($san)}:"
# The idle lane, in the background: its lines and its counts go to files.
idle_out="$logs/idle-lane.out"
rm -f "$idle_out" "$idle_out.counts"
(
	for n in $(lane_tests idle); do
		# shellcheck disable=SC2086  # the prefix is split on purpose
		run_test "$n" $idle
		echo "$passed $failed$failures" >"$idle_out.counts"
	done
) >"$idle_out" 2>&1 &
idle_pid=$!
for n in $(lane_tests main); do
	run_test "$n"
done
wait "$idle_pid"
echo "beside them, in the idle lane${idle:+ ($idle)}:"
cat "$idle_out"
if [ -s "$idle_out.counts" ]; then
	read -r p f rest <"$idle_out.counts"
	passed=$((passed + p))
	failed=$((failed + f))
	failures="$failures${rest:+ $rest}"
fi

[ -n "$failures" ] && echo "failed:$failures"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
