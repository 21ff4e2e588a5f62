#!/bin/sh
# jobs.test.sh BUILD - run every job of BUILD/jobs at a small size with
# --serial and with 1, 2 and 4 workers: each run must exit 0 and print
# exactly one result line with check=ok, and every mode must give the same
# result.  Then bad arguments (no size, a non-number, a size out of range,
# an unknown flag, a bad --workers) must exit 2.
#
# ASTEAL_TEST_SAN (asan or tsan) selects smaller sizes for the slower
# sanitizer builds.  The first failure prints the command and exits 1.
set -u

build=${1:?usage: sh tests/jobs.test.sh BUILD}
san=${ASTEAL_TEST_SAN:-}
. scripts/lib.sh
test_tmp jobs

JOBS="fib nqueens cilksort matmul uts phases"

# The arguments of the small run of job $1.
small_args() {
	if [ -n "$san" ]; then
		case $1 in
		fib) echo 18 ;;
		nqueens) echo 6 --cutoff 2 ;;
		cilksort) echo 20000 ;;
		matmul) echo 96 ;;
		uts) echo T3S ;;
		phases) echo 2 --w1 200 --w2 50 --h 4 ;;
		esac
	else
		case $1 in
		fib) echo 20 ;;
		nqueens) echo 8 --cutoff 3 ;;
		cilksort) echo 100000 ;;
		matmul) echo 128 ;;
		uts) echo T1S ;;
		phases) echo 3 --w1 2000 --w2 500 --h 8 ;;
		esac
	fi
}

# Sizes of job $1 that are out of range (too small and too big).
bad_sizes() {
	case $1 in
	fib) echo -1 93 ;;
	nqueens) echo 0 17 ;;
	cilksort) echo 0 268435457 ;;
	matmul) echo 0 8193 ;;
	uts) echo T0 t1s ;;
	phases) echo 0 1000001 ;;
	esac
}

# Print the failed command and what it said on stderr, then stop.
fail() {
	reason=$1
	shift
	{
		echo "FAIL ($reason): $*"
		for f in "$tmp/out" "$tmp/err"; do
			[ -s "$f" ] && sed 's/^/    /' "$f"
		done
	} >&2
	exit 1
}

# Run a job that must succeed; prints its result= value.
run_ok() {
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 0 ] || fail "exit $rc" "$@"
	[ "$(wc -l <"$tmp/out")" -eq 1 ] || fail "not one line on stdout" "$@"
	grep -q '^job=.* check=ok$' "$tmp/out" || fail "no check=ok" "$@"
	sed -n 's/.* result=\([^ ]*\) .*/\1/p' "$tmp/out"
}

# Run a job that must reject its arguments with exit status 2.
run_usage() {
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 2 ] || fail "exit $rc, want 2" "$@"
}

for job in $JOBS; do
	bin="$build/jobs/$job"
	: >"$tmp/out"
	: >"$tmp/err"
	[ -x "$bin" ] || fail "missing binary" "$bin"
	# shellcheck disable=SC2046  # the job's arguments are split on purpose
	set -- $(small_args "$job")
	want=$(run_ok "$bin" "$@" --serial) || exit 1
	for w in 1 2 4; do
		got=$(run_ok "$bin" "$@" --workers "$w") || exit 1
		[ "$got" = "$want" ] ||
			fail "result $got, serial gave $want" "$bin" "$@" --workers "$w"
	done
	echo "ok  $job $* (result $want; serial, 1, 2, 4 workers)"

	size=$1
	run_usage "$bin"
	run_usage "$bin" abc
	run_usage "$bin" 12x
	run_usage "$bin" ""
	for s in $(bad_sizes "$job"); do
		run_usage "$bin" "$s"
	done
	run_usage "$bin" "$size" --bogus
	run_usage "$bin" "$size" "$size"
	run_usage "$bin" "$size" --workers
	run_usage "$bin" "$size" --workers 0
	run_usage "$bin" "$size" --workers x
	if [ "$job" = phases ]; then
		run_usage "$bin" "$size" --h 0
		run_usage "$bin" "$size" --h
		run_usage "$bin" "$size" --w1 -1
		run_usage "$bin" "$size" --w2 10000001
		run_usage "$bin" --w1 10
	fi
	if [ "$job" = nqueens ]; then
		run_usage "$bin" "$size" --cutoff
		run_usage "$bin" "$size" --cutoff -1
		run_usage "$bin" "$size" --cutoff 9
	fi
	echo "ok  $job rejects bad arguments"
done
echo "all jobs ok"
