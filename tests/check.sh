#!/bin/sh
# check.sh MAKE JOBS BUILD - make check's tests, once the normal build is
# made in BUILD: the main lane of BUILD's tests (tests/run.sh) while the
# ASan+UBSan build compiles into build/asan, then build/asan's main lane
# while the TSan build compiles into build/tsan, then build/tsan's main
# lane.  Each build's idle lane starts with its main lane and runs on in
# the background, beside the next builds' (its tests take only CPU time
# the others leave); their lines are printed at the end, each build's
# under its name.  A sanitizer build made beside tests runs at SCHED_IDLE
# (chrt --idle; nice 19 where that is refused), so that it takes only CPU
# time the tests leave unused, with MAKE -jJOBS, its output in
# build/SAN.log (shown when it fails).  Each build's tests run whatever
# the others' results; the exit status is 0 when every build was made and
# every test passed.
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

# run_build BUILD [SAN]: BUILD's idle lane in the background (its output
# in BUILD/idle-lane.txt, its pid added to $idle_pids), then its main lane.
idle_pids=""
idle_logs=""
run_build() {
	mkdir -p "$1"
	TEST_LANE=idle tests/run.sh "$@" >"$1/idle-lane.txt" 2>&1 &
	idle_pids="$idle_pids $!"
	idle_logs="$idle_logs $1/idle-lane.txt"
	TEST_LANE=main tests/run.sh "$@" || status=1
}

start_build asan
run_build "$build"
asan_made=1
finish_build asan || asan_made=0
start_build tsan
if [ "$asan_made" -eq 1 ]; then
	run_build build/asan asan
else
	status=1
fi
if finish_build tsan; then
	run_build build/tsan tsan
else
	status=1
fi
for p in $idle_pids; do
	wait "$p" || status=1
done
for f in $idle_logs; do
	cat "$f"
done
exit "$status"
