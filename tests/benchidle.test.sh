#!/bin/sh
# benchidle.test.sh BUILD - the benchmarks that start no daemon keep
# working: the shortest run of each exits 0 and prints its table with the
# rows and columns it should, each cell a figure of the right kind.  No
# figure is judged (it runs in run.sh's idle lane, beside other tests):
#   bench/run.sh --quick      libasteal (default and eager spawning), the
#                             OpenMP and oneTBB kernels, asteal-probe's
#                             hostvar, the targets
#   bench/adapt.sh --quick    waste, revocation latency, accounting, the
#                             traced run and its plot
#   asteal-dequebench         one round of 1,000 pairs
# The benchmarks that start asteald are smoked by benchsmoke.test.sh,
# bench/daemon.sh by daemonbench.test.sh, bench/omp.sh by ombench.test.sh.
# oneTBB's rows are n/a (said here) where make tests built no tbb_*
# kernel, for want of libtbb-dev.  Skipped in the sanitizer builds, which
# build no benchmark programs.
set -u

build=${1:?usage: sh tests/benchidle.test.sh BUILD}
if [ -n "${ASTEAL_TEST_SAN:-}" ]; then
	echo "skip: the benchmarks measure the normal build (sanitizer build $ASTEAL_TEST_SAN)"
	exit 0
fi
. scripts/lib.sh
test_tmp benchidle
for b in bin/asteal-profile bin/asteal-plot jobs/fib jobs/nqueens jobs/uts jobs/cilksort \
         jobs/phases bench/asteal-probe bench/asteal-dequebench bench/omp_fib; do
	[ -x "$build/$b" ] || fail "no $build/$b (make tests builds it)"
done
# No deadline of its own but run.sh's (TEST_TIMEOUT): at SCHED_IDLE beside
# a busy main lane and a CPU hog it may wait minutes for a CPU, so a
# bench/run.sh cell gets 240 s (its default 60 s would show >60, no
# figure) and a hang is still caught.
export BENCH_CELL_LIMIT=240

# rows WHAT N ERE: the output ($tmp/out) has exactly N lines matching ERE.
rows() {
	n=$(grep -Ec "$3" "$tmp/out")
	[ "$n" -eq "$2" ] || fail "$1: $n rows like '$3', not $2: $(cat "$tmp/out")"
}

num='[0-9]+(\.[0-9]+)?'

# 1. run.sh --quick: a row per kernel and runtime, the targets' tally.
tbb=1
[ -x "$build/bench/tbb_fib" ] || {
	tbb=0
	echo "note: no $build/bench/tbb_* (libtbb-dev missing): oneTBB's rows must be n/a"
}
expect_rc 0 sh bench/run.sh "$build" --quick
rows "run.sh header" 1 '^kernel +size +Tserial +runtime +T1 +T2 +T1/Ts +T1/T2 +steal +hostvar +cap$'
for k in fib nqueens uts cilksort; do
	for rt in asteal asteal-eager omp tbb; do
		if [ "$rt" = tbb ] && [ "$tbb" -eq 0 ]; then
			rows "run.sh $k $rt" 1 "^$k +[^ ]+ +$num +$rt +n/a +n/a +n/a +n/a +"
		else
			rows "run.sh $k $rt" 1 "^$k +[^ ]+ +$num +$rt +$num +$num +$num +$num +$num% +$num% +$num$"
		fi
	done
done
rows "run.sh targets" 6 "^  [a-z]+ T1/(Tserial|T2) +$num +\(target [<>]= $num\) +(met|NOT met)$"
rows "run.sh tally" 1 '^[0-9]+ met, [0-9]+ not met'
echo "run.sh: 4 kernels x 4 runtimes$([ "$tbb" -eq 0 ] && echo ' (oneTBB n/a)'), 6 targets"

# 2. adapt.sh --quick: its four sections.
expect_rc 0 sh bench/adapt.sh "$build" --quick
for w in 2 4; do
	for m in asteal abp; do
		rows "adapt waste $w $m" 1 "^\| $w \| $m \| $num \| $num \| $num \| $num% \|$"
	done
	rows "adapt verdict $w" 1 "^W=$w: asteal waste $num% vs abp $num%: .*; asteal <= 20%: (met|NOT MET)$"
done
rows "adapt revocations" 1 "^\| 1 \| [0-9]+ \| ($num)? \| ($num)? \| ($num)? \|$"
for m in static asteal; do
	rows "adapt accounting $m" 1 "^\| now, $m mode \| $num \| "
done
rows "adapt plot" 1 "^plot: $build/bench/adapt-phases.svg "
[ -s "$build/bench/adapt-phases.svg" ] || fail "adapt.sh drew no $build/bench/adapt-phases.svg"
echo "adapt.sh: waste, revocations, accounting, plot"

# 3. asteal-dequebench: both entries.
expect_rc 0 "$build/bench/asteal-dequebench" --pairs 1000 --rounds 1
rows "dequebench" 1 "^\| public \(fenced pop\) \| $num \| 1.00 \|$"
rows "dequebench" 1 "^\| private \(no fence\) \| $num \| $num \|$"
echo "asteal-dequebench: both rows"
echo ok
