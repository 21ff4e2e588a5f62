#!/bin/sh
# adapt.test.sh BUILD - A-STEAL in libasteal, driven through the real jobs
# and their traces (ASTEAL_TRACE):
#  1. every job, in the asteal, abp and static modes, under a fast uniform
#     random availability profile (1 ms quanta, 4 workers): check=ok and
#     the same result in every mode; in every trace row the allotment is
#     min(desire, availability);
#  2. desire rises to the worker count on a highly parallel job (fib);
#  3. on phases with long serial phases, desire falls to 1 during the
#     serial phases and rises again in the parallel ones.
# ASTEAL_TEST_SAN (asan or tsan) selects smaller sizes.
set -u

build=${1:?usage: sh tests/adapt.test.sh BUILD}
san=${ASTEAL_TEST_SAN:-}
. scripts/lib.sh
test_tmp adapt

# Arguments of each job's run under a random profile.
args() {
	if [ -n "$san" ]; then
		case $1 in
		fib) echo 22 ;;
		nqueens) echo 8 ;;
		cilksort) echo 100000 ;;
		matmul) echo 96 ;;
		uts) echo T3S ;;
		phases) echo 3 --w1 3000 --w2 1000 --h 8 ;;
		esac
	else
		case $1 in
		fib) echo 30 ;;
		nqueens) echo 11 ;;
		cilksort) echo 2000000 ;;
		matmul) echo 256 ;;
		uts) echo T1S ;;
		phases) echo 4 --w1 10000 --w2 3000 --h 8 ;;
		esac
	fi
}

# Every trace row: allotment (col 6) = min(desire (3), availability (5)),
# allotted (10) = work + steal + mug (7, 8, 9); quanta (1) rise from 1
# (a boundary the link thread was late for is skipped, not queued), and
# each row's clock time (12) is the start of its quantum on the grid:
# the first row's plus L for each quantum since.
check_trace() {
	[ -s "$1" ] || fail "no trace $1"
	head -1 "$1" | grep -q '^quantum,time_ns,desire,desire_real,availability,allotment,work_ns,steal_ns,mug_ns,allotted_ns,class,clock_ns$' ||
		fail "bad trace header in $1"
	awk -F, -v L="${2:-1000000}" 'NR > 1 {
		m = ($3 < $5) ? $3 : $5
		if ($6 != m) { print "row " $1 ": allotment " $6 " != min(" $3 ", " $5 ")"; bad = 1 }
		if ($10 != $7 + $8 + $9) { print "row " $1 ": allotted != work+steal+mug"; bad = 1 }
		if (NR == 2 && $1 != 1) { print "first quantum " $1; bad = 1 }
		if (NR > 2 && $1 <= q) { print "row " NR ": quantum " $1 " after " q; bad = 1 }
		if (NR == 2) { c0 = $12; q0 = $1 }
		else if ($12 - c0 != ($1 - q0) * L) { print "row " NR ": clock " $12 " off the grid"; bad = 1 }
		if (NR > 2) skipped += $1 - q - 1
		q = $1
	} END { if (skipped) print skipped " boundaries skipped"; exit bad }' "$1" || fail "trace $1"
}

"$build/bin/asteal-profile" uniform --max 4 --quanta 100000 --seed 7 >"$tmp/uniform" ||
	fail "asteal-profile"

# 1. Every job, every mode, under the random profile.
for job in fib nqueens cilksort matmul uts phases; do
	a=$(args $job)
	want=""
	for mode in asteal abp static; do
		trace="$tmp/$job.$mode.csv"
		# shellcheck disable=SC2086
		out=$(ASTEAL_MODE=$mode ASTEAL_WORKERS=4 ASTEAL_QUANTUM_MS=1 \
		      ASTEAL_PROFILE="$tmp/uniform" ASTEAL_TRACE="$trace" \
		      "$build/jobs/$job" $a) || fail "$mode $job $a: exit $?"
		echo "$mode: $out"
		case $out in *check=ok*) ;; *) fail "$mode $job $a: $out" ;; esac
		res=$(echo "$out" | sed -n 's/.* result=\([^ ]*\) .*/\1/p')
		[ -z "$want" ] && want=$res
		[ "$res" = "$want" ] || fail "$job: $mode gave $res, asteal gave $want"
		if [ "$mode" = static ]; then
			[ -e "$trace" ] && [ "$(wc -l <"$trace")" -gt 1 ] &&
				fail "static mode wrote quanta"
		else
			check_trace "$trace"
		fi
	done
done

# 2. Desire rises to the worker count on fib (all processors available),
# on a fib large enough to last 20 quanta on this build.
n=24
while :; do
	ASTEAL_WORKERS=4 ASTEAL_QUANTUM_MS=1 ASTEAL_TRACE="$tmp/fib.csv" \
		"$build/jobs/fib" $n >/dev/null || fail "fib $n"
	[ "$(wc -l <"$tmp/fib.csv")" -gt 20 ] || [ $n -ge 38 ] && break
	n=$((n + 2))
done
check_trace "$tmp/fib.csv"
max=$(awk -F, 'NR > 1 && $3 > m { m = $3 } END { print m + 0 }' "$tmp/fib.csv")
echo "fib $n: $(($(wc -l <"$tmp/fib.csv") - 1)) quanta, highest desire $max"
[ "$max" -eq 4 ] || fail "desire on fib rose only to $max of 4"

# 3. phases: 40 ms serial phases between 8-way parallel ones (long enough
# that a stall of a few quanta under load does not hide a swing); desire falls
# to 1 in each serial phase and climbs back to 4 in the parallel ones.
ASTEAL_WORKERS=4 ASTEAL_QUANTUM_MS=1 ASTEAL_TRACE="$tmp/phases.csv" \
	"$build/jobs/phases" 4 --w1 40000 --w2 20000 --h 8 >/dev/null || fail "phases"
check_trace "$tmp/phases.csv"
swings=$(awk -F, 'NR > 1 {
	if ($3 >= 4 && !high) { high = 1; rises++ }
	if ($3 == 1 && high) { high = 0; falls++ }
} END { print rises + 0, falls + 0 }' "$tmp/phases.csv")
echo "phases: desire rose to 4 and fell to 1 (rises falls): $swings"
set -- $swings
[ "$1" -ge 3 ] && [ "$2" -ge 3 ] || fail "desire did not follow the phases: $swings"
echo ok
