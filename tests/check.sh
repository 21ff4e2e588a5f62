#!/bin/sh
# check.sh MAKE JOBS BUILD - make check's tests, once the normal build is
# made in BUILD: the tests of BUILD (tests/run.sh) while the ASan+UBSan
# build compiles into build/asan, then the tests of build/asan while the
# TSan build compiles into build/tsan, then the tests of build/tsan, and
# beside them BUILD's slowest idle tests ($late_tests: run.sh's idle lane
# at SCHED_IDLE, where beside the normal build's tests they were the last
# to end, and the TSan build's leave a CPU idle much of the time).  A
# sanitizer build made beside tests runs at SCHED_IDLE (chrt --idle; nice
# 19 where that is refused), so that it takes only CPU time the tests
# leave unused, with MAKE -jJOBS, its output in build/SAN.log (shown when
# it fails).  Each build's tests run whatever the others' results; the
# exit status is 0 when every build was made and every test passed.
set -u

make=${1:?usage: tests/check.sh MAKE JOBS BUILD}
jobs=${2:?usage: tests/check.sh MAKE JOBS BUILD}
build=${3:?usage: tests/check.sh MAKE JOBS BUILD}
if chrt --idle 0 true 2>/dev/null; then
	idle="chrt --idle 0"
elif nice -n 19 true 2>/dev/null; then
	idle="nice -n 19"
else
	idle=""
fi
status=0
# The tests that use no build of their own (aarch64, deps) run once, in
# the TSan build's idle lane: the normal build's has the most to do.
export ASTEAL_TEST_ONCE_IN=tsan

# start_build SAN: make build/SAN's tests in the background, at idle
# priority; its pid in $built.
start_build() {
	mkdir -p build
	# shellcheck disable=SC2086  # the prefix is split on purpose
	$idle "$make" -j"$jobs" BUILD="build/$1" SAN="$1" OPT=-O1 tests \
		>"build/$1.log" 2>&1 &
	built=$!
}

# finish_build SAN: wait for build/SAN; 0 when it was made, else its log's
# tail and 1.
finish_build() {
	if wait "$built"; then
		return 0
	fi
	echo "the $1 build failed (build/$1.log):"
	tail -n 40 "build/$1.log"
	return 1
}

late_tests="benchidle ombench"
start_build asan
ASTEAL_TEST_SKIP="$late_tests" tests/run.sh "$build" || status=1
asan_made=1
finish_build asan || asan_made=0
start_build tsan
if [ "$asan_made" -eq 1 ]; then
	tests/run.sh build/asan asan || status=1
else
	status=1
fi
# BUILD's late tests: beside the TSan build's tests, their output after.
ASTEAL_TEST_ONLY="$late_tests" tests/run.sh "$build" >build/late-tests.out 2>&1 &
late=$!
if finish_build tsan; then
	tests/run.sh build/tsan tsan || status=1
else
	status=1
fi
wait "$late" || status=1
cat build/late-tests.out
exit "$status"
