#!/bin/sh
# benchsmoke.test.sh BUILD - the benchmarks that start asteald keep
# working: the shortest run of each exits 0 and prints its table with the
# rows and columns it should, each cell a figure of the right kind (a
# benchmark that stops working or prints garbage fails here).  No figure is
# judged: bench/README.md has them, from full runs.
#   bench/handover.sh     one round of fib 30..35 (HANDOVER_FIB=30)
#   bench/histread.sh     2,000 runs (asteal-histbench), one round, 0.3 s
#                         idle (HISTREAD_IDLE)
#   bench/histsize.sh     half a second per workload
#   bench/omp_team.sh     --quick
#   bench/memflood        16 peers, --quick
#   bench/corun           one made-up mix of fib and nqueens, static and
#                         asteal, 0.5 s windows (--solo-window 0.2)
#   bench/pagehostile.sh  one round of 0.5 s calm, 0.5 s attacked
# bench/daemon.sh has its own (tests/daemonbench.test.sh), bench/omp.sh
# too (tests/ombench.test.sh); those that start no daemon are smoked in the
# idle lane (tests/benchidle.test.sh).  Skipped in the sanitizer builds,
# which build no benchmark programs.
set -u

build=${1:?usage: sh tests/benchsmoke.test.sh BUILD}
if [ -n "${ASTEAL_TEST_SAN:-}" ]; then
	echo "skip: the benchmarks measure the normal build (sanitizer build $ASTEAL_TEST_SAN)"
	exit 0
fi
. scripts/lib.sh
test_tmp benchsmoke
for b in bin/asteald bin/asteal bin/asteal-profile jobs/fib jobs/nqueens jobs/phases \
         bench/asteal-histbench bench/omp_fib bench/omp_phases lib/asteal/libgomp.so.1 \
         tests/pageattack; do
	[ -e "$build/$b" ] || fail "no $build/$b (make tests builds it)"
done
# Each benchmark's own deadline, far above what it takes (a second or two):
# a hang fails here, not at run.sh's.
T=120

# rows WHAT N ERE: the output ($tmp/out) has exactly N lines matching ERE.
rows() {
	n=$(grep -Ec "$3" "$tmp/out")
	[ "$n" -eq "$2" ] || fail "$1: $n rows like '$3', not $2: $(cat "$tmp/out")"
}

num='[0-9]+(\.[0-9]+)?'

# 1. handover.sh: a row per handover order, every latency in µs.
expect_rc 0 env HANDOVER_FIB=30 timeout $T sh bench/handover.sh "$build" 1
cell="$num µs"
for mode in immediate release; do
	rows "handover $mode" 1 "^\| 1 \| $mode \| [0-9]+ \| $cell \| $cell \| $cell \| $cell \| $cell \| $cell \| $num s \| $num% \|$"
done
rows handover 4 '^\|'
echo "handover.sh: $(grep -c '^| 1 ' "$tmp/out") rows"

# 2. histread.sh: the idle phase and the paging phase.
expect_rc 0 env HISTREAD_IDLE=0.3 timeout $T sh bench/histread.sh "$build" 2000 1
ms="$num ms \[$num-$num\]"
for phase in idle paging; do
	rows "histread $phase" 1 "^\| $phase \| $num s \| $ms \| $ms \| $ms \| [0-9]+ \| $ms \|$"
done
rows histread 1 "^host steal over the sitting: $num%$"
echo "histread.sh: both phases"

# 3. histsize.sh: the three workloads, each with rows written.
expect_rc 0 timeout $T sh bench/histsize.sh "$build" 0.5
for w in fib abp mixed; do
	rows "histsize $w" 1 "^$w +[1-9][0-9]* +$num( +[0-9]+){4} +-?[0-9]+ +-?$num +(met|NOT) +$num%$"
done
echo "histsize.sh: three workloads"

# 4. omp_team.sh --quick: three settings, each with its two kernels.
expect_rc 0 timeout $T sh bench/omp_team.sh "$build" --quick
for s in profile alone daemon; do
	rows "omp_team $s" 1 "^$s +kernel +full_s +allot_s +allot/full +steal$"
done
for k in fib phases; do
	rows "omp_team $k" 3 "^ +$k +$num +$num +$num +$num%$"
done
echo "omp_team.sh: three settings"

# 5. memflood --quick: the daemon's memory before, during, after.
expect_rc 0 timeout $T python3 bench/memflood "$build" 16 --quick
rows memflood 1 "^\| $num MB \| $num MB \| $num MB \|$"
echo "memflood: one row"

# 6. corun: a made-up mix in two regimes, the tables, the goals, the chart.
expect_rc 0 timeout $T python3 bench/corun "$build" --quick --window 0.5 --solo-window 0.2 \
	--custom "fib 30;nqueens 9" --regimes static,asteal --out "$tmp/corun"
for r in static asteal; do
	rows "corun $r" 1 "^\| custom \| $r \| $num \| $num \| fib [-+][0-9]+% nqueens [-+][0-9]+% \| $num \| $num \| $num s \| $num% \| $num% \| $num% \|$"
done
rows "corun bound" 1 "^\| custom \(asteal\) \| $num \| $num% \| $num \| $num% \| $num s \| $num% \| [a-z]+ $num \| $num \| $num \|$"
rows "corun goals" 1 "^  [0-9]+ of [0-9]+ goals met$"
for f in results.json corun.svg history.svg; do
	[ -s "$tmp/corun/$f" ] || fail "corun wrote no $f"
done
echo "corun: both regimes, the bound, the goals, the charts"

# 7. pagehostile.sh: a calm row and an attacked one, every figure a figure.
expect_rc 0 timeout $T sh bench/pagehostile.sh "$build" 0.5 1
cell="$num µs"
rows "pagehostile calm" 1 "^\| 1 \| calm \| [0-9]+ \([0-9]+\) \| $cell \| $cell \| $cell \| [0-9]+ \| $cell \| $cell \| $cell \| $num% \| [0-9]+ \| - \| $num% \|$"
rows "pagehostile attack" 1 "^\| 1 \| attack \| [0-9]+ \([0-9]+\) \| $cell \| $cell \| $cell \| [0-9]+ \| $cell \| $cell \| $cell \| $num% \| [0-9]+ \| [0-9]+ jobs, [0-9]+ dropped, steady connected \| $num% \|$"
echo "pagehostile.sh: calm and attacked"
echo ok
