#!/bin/sh
# adapt.sh BUILD [--quick] - the adaptivity benchmarks of libasteal:
#  1. waste (steal + mug time) as a fraction of work on phases, A-STEAL
#     against ABP, under one uniform random availability profile between 1
#     and the worker count (2 and 4 workers);
#  2. revocation latency (allotment loss to the last leaver parked) on fib
#     under the same kind of profile;
#  3. accounting overhead: fib T1 in asteal mode against static mode and
#     against the runtime before adaptivity (commit $BASE, built here from
#     git when the history is there);
#  4. a trace of one phases run plotted as SVG (desire, availability and
#     allotment over time) into BUILD/bench/adapt-phases.svg.
# Times are best of R (BENCH_RUNS, default 3) interleaved runs; compare
# ratios within one table.  --quick: small sizes, one run, and no build of
# the base (3. shows n/a): a smoke test.
set -u

build=${1:?usage: bench/adapt.sh BUILD [--quick]}
quick=0
[ "${2:-}" = "--quick" ] && quick=1
runs=${BENCH_RUNS:-3}
[ $quick -eq 1 ] && runs=1
BASE=31c5f59        # the end of the runtime issue: no quanta, no link
out="$build/bench"
mkdir -p "$out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/asteal-bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"; git worktree remove --force "$tmp/base" 2>/dev/null' EXIT
unset ASTEAL_READY_LIMIT ASTEAL_TRACE ASTEAL_PROFILE ASTEAL_MODE ASTEAL_QUANTUM_MS

if [ $quick -eq 1 ]; then
	phases="4"; fibn=36; fib1=36
else
	phases="12"; fibn=42; fib1=42
fi

# The summary line of one run (ASTEAL_STATS=1), its fields as key=value.
summary() {
	ASTEAL_STATS=1 "$@" 2>&1 >/dev/null | grep '^asteal: mode=' | sed 's/^asteal: //'
}
field() {
	echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | tr -d '%'
}

echo "## 1. Waste on phases $phases (defaults: 40 ms serial, 16 x 8 ms parallel), uniform availability 1..W, L = 10 ms"
echo
printf '| W | mode | time s | mean allotment | work s | waste / work |\n|---|---|---|---|---|---|\n'
for W in 2 4; do
	"$build/bin/asteal-profile" uniform --max $W --quanta 1000000 --seed 11 >"$tmp/u$W"
	for mode in asteal abp; do
		best=""
		for r in $(seq $runs); do
			s=$(ASTEAL_MODE=$mode ASTEAL_WORKERS=$W ASTEAL_PROFILE="$tmp/u$W" \
			    summary "$build/jobs/phases" $phases)
			t=$(ASTEAL_MODE=$mode ASTEAL_WORKERS=$W ASTEAL_PROFILE="$tmp/u$W" \
			    "$build/jobs/phases" $phases | sed -n 's/.*time_s=\([0-9.]*\).*/\1/p')
			w=$(field "$s" waste)
			if [ -z "$best" ] || awk "BEGIN{exit !($w < $best)}"; then
				best=$w; bs=$s; bt=$t
			fi
		done
		printf '| %d | %s | %s | %s | %s | %s%% |\n' $W $mode "$bt" \
		    "$(field "$bs" mean_allotment)" "$(field "$bs" work_s)" "$best"
		echo "$W $mode $best" >>"$tmp/waste"
	done
done
echo
awk '{w[$1" "$2]=$3} END {
	for (W = 2; W <= 4; W += 2)
		printf "W=%d: asteal waste %.1f%% vs abp %.1f%%: %s; asteal <= 20%%: %s\n", W,
		    w[W" asteal"], w[W" abp"], (w[W" asteal"] < w[W" abp"]) ? "asteal wastes less" : "NOT LESS",
		    (w[W" asteal"] <= 20) ? "met" : "NOT MET"
}' "$tmp/waste"

echo
echo "## 2. Revocation latency on fib $fibn, 2 workers, uniform availability 1..2, L = 10 ms"
echo
printf '| run | revocations | p50 us | p99 us | max us |\n|---|---|---|---|---|\n'
for r in $(seq $runs); do
	s=$(ASTEAL_WORKERS=2 ASTEAL_PROFILE="$tmp/u2" summary "$build/jobs/fib" $fibn)
	printf '| %d | %s | %s | %s | %s |\n' $r "$(field "$s" revocations)" \
	    "$(echo "$s" | sed -n 's/.*p50=\([0-9.]*\).*/\1/p')" \
	    "$(echo "$s" | sed -n 's/.*p99=\([0-9.]*\).*/\1/p')" \
	    "$(echo "$s" | sed -n 's/.*max=\([0-9.]*\).*/\1/p')"
done

echo
echo "## 3. Accounting overhead: fib $fib1, 1 worker (best of $runs)"
echo
base=""
if [ $quick -eq 0 ] &&
   git -C "$(dirname "$0")/.." worktree add --detach "$tmp/base" $BASE >/dev/null 2>&1 &&
   make -s -C "$tmp/base" BUILD="$tmp/base/build" "$tmp/base/build/jobs/fib" >/dev/null 2>&1; then
	base="$tmp/base/build/jobs/fib"
fi
best() { sort -g | head -1; }
: >"$tmp/t.asteal"; : >"$tmp/t.static"; : >"$tmp/t.base"
for r in $(seq $runs); do
	ASTEAL_WORKERS=1 "$build/jobs/fib" $fib1 | sed -n 's/.*time_s=\([0-9.]*\).*/\1/p' >>"$tmp/t.asteal"
	ASTEAL_MODE=static ASTEAL_WORKERS=1 "$build/jobs/fib" $fib1 | sed -n 's/.*time_s=\([0-9.]*\).*/\1/p' >>"$tmp/t.static"
	[ -n "$base" ] && ASTEAL_WORKERS=1 "$base" $fib1 | sed -n 's/.*time_s=\([0-9.]*\).*/\1/p' >>"$tmp/t.base"
done
ta=$(best <"$tmp/t.asteal"); ts=$(best <"$tmp/t.static"); tb=$(best <"$tmp/t.base")
printf '| build | T1 s | vs runtime issue |\n|---|---|---|\n'
if [ -n "$tb" ]; then
	printf '| runtime issue (%s) | %s | 1.000 |\n' $BASE "$tb"
	printf '| now, static mode | %s | %s |\n' "$ts" "$(awk "BEGIN{printf \"%.3f\", $ts/$tb}")"
	printf '| now, asteal mode | %s | %s |\n' "$ta" "$(awk "BEGIN{printf \"%.3f\", $ta/$tb}")"
	awk "BEGIN{r=$ta/$tb; printf \"\\naccounting overhead on fib T1: %+.1f%% (target <= 3%%): %s\\n\", 100*(r-1), r <= 1.03 ? \"met\" : \"NOT MET\"}"
else
	printf '| now, static mode | %s | n/a (no base built) |\n| now, asteal mode | %s | |\n' "$ts" "$ta"
fi

echo
echo "## 4. One phases run, traced"
ASTEAL_WORKERS=4 ASTEAL_PROFILE="$tmp/u4" ASTEAL_TRACE="$out/adapt-phases.csv" \
	"$build/jobs/phases" 6 >/dev/null
if [ -x "$build/bin/asteal-plot" ]; then
	"$build/bin/asteal-plot" --title "phases 6 on 4 workers, uniform availability 1..4" \
	    "$out/adapt-phases.csv" "$out/adapt-phases.svg" &&
	echo "plot: $out/adapt-phases.svg (trace $out/adapt-phases.csv)"
else
	echo "trace: $out/adapt-phases.csv (no asteal-plot built)"
fi
