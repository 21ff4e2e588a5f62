#!/bin/sh
# run.sh BUILD [--quick | --targets] - the benchmark table: fib, nqueens,
# uts and cilksort, serial and on libasteal (default and eager spawning),
# OpenMP and oneTBB with 1 and 2 workers, then the performance targets.
# --targets measures only what the targets need (libasteal on fib, nqueens
# and uts), so that more rounds fit in the same time.
#
# Every time is the best of R runs (R = $BENCH_RUNS, default 3; 1 with
# --quick, which also uses small sizes for a smoke test), taken in R rounds
# that each run every cell of a kernel once.  Each kernel's line also says
# how quiet the host was over its rounds, the best guide to whether the
# ratios mean anything:
#   steal    the share of this virtual machine's CPU time that the
#            hypervisor gave to others (/proc/stat);
#   hostvar  how much the CPUs' speed varied (asteal-probe, a fixed
#            recursion timed on each CPU alone and on both at once before
#            each round: the slowest over the fastest of its times, less
#            one);
#   cap      the T1/T2 a perfect runtime could reach on this machine:
#            2 x Tserial / Tpair, where Tpair is the best time of two
#            copies of the serial kernel run at once, one per CPU (each
#            round runs such a pair; the harmonic mean of the two).
# All cells come from this one invocation, so compare ratios within a
# table, not across machines or runs.  A run that exits non-zero or does
# not print check=ok stops the script with exit 1; a binary that is
# missing shows n/a.  Unmet targets are reported, not fatal.
set -u
bench_name=bench
. "$(dirname "$0")/lib.sh"

usage() {
	echo "usage: bench/run.sh BUILD [--quick | --targets]" >&2
	exit 2
}

[ $# -ge 1 ] || usage
build=$1
quick=0
targets=0
if [ $# -ge 2 ]; then
	case "$2" in
	--quick) quick=1 ;;
	--targets) targets=1 ;;
	*) usage ;;
	esac
fi
[ $# -le 2 ] || usage
[ -d "$build" ] || { echo "bench: no build folder $build" >&2; exit 2; }

if [ "$quick" -eq 1 ]; then
	runs=${BENCH_RUNS:-1}
	kernels="fib:30 nqueens:10 uts:T1 cilksort:1000000"
else
	runs=${BENCH_RUNS:-3}
	kernels="fib:42 nqueens:13 uts:T3L cilksort:10000000"
fi
[ "$targets" -eq 1 ] && kernels="fib:42 nqueens:13 uts:T3L"
case "$runs" in
''|*[!0-9]*|0) echo "bench: BENCH_RUNS must be a positive integer" >&2; exit 2 ;;
esac

# A cell that runs longer than this many seconds is stopped and shown as
# ">LIMIT" (OpenMP on fine-grained kernels can take minutes); it is not run
# again in later rounds.
limit=${BENCH_CELL_LIMIT:-60}
case "$limit" in
''|*[!0-9]*|0) echo "bench: BENCH_CELL_LIMIT must be a positive integer" >&2; exit 2 ;;
esac

# "asteal" is the runtime's default lazy spawning, whatever the caller set.
unset ASTEAL_READY_LIMIT ASTEAL_PROFILE ASTEAL_TRACE
# The runtime alone: every worker always allotted (adaptivity has its own
# benchmark, bench/adapt.sh).
export ASTEAL_MODE=static
runtimes="asteal asteal-eager omp tbb"
[ "$targets" -eq 1 ] && runtimes="asteal"

# The outputs of run_pair's two copies go here.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/asteal-bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# The least of two times, either of which may be n/a.
# shellcheck disable=SC2317  # called through eval
least() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a == "n/a" || a ~ /^>/) print b;
		else if (b != "n/a" && b !~ /^>/ && b + 0 < a + 0) print b; else print a }'
}

# a / b with $3 decimals (default 2), or n/a.
ratio() {
	awk -v a="$1" -v b="$2" -v d="${3:-2}" 'BEGIN {
		if (a == "n/a" || b == "n/a" || a ~ /^>/ || b ~ /^>/ || b + 0 == 0) print "n/a";
		else printf "%.*f\n", d, a / b }'
}

# run_once ENV BIN ARGS...: run BIN ARGS once, with the environment
# assignments ENV (possibly empty); TIME is its time_s, n/a when BIN does
# not exist.
run_once() {
	ro_env=$1
	shift
	TIME=n/a
	[ -x "$1" ] || return 0
	# shellcheck disable=SC2086  # ENV is split on purpose
	ro_out=$(env $ro_env timeout "$limit" "$@" 2>&1)
	job_time "$ro_out" $? "${ro_env:+$ro_env }$*"
}

# run_pair BIN ARGS...: run two copies of BIN ARGS at once (the kernel
# puts them on two CPUs); TIME is the time one copy would take if both
# CPUs kept that pace, the harmonic mean of the two (n/a when BIN does
# not exist, >LIMIT when either was stopped).
run_pair() {
	TIME=n/a
	[ -x "$1" ] || return 0
	timeout "$limit" "$@" >"$tmp/a" 2>&1 &
	rp_a=$!
	timeout "$limit" "$@" >"$tmp/b" 2>&1 &
	rp_b=$!
	wait "$rp_a"
	rp_ra=$?
	wait "$rp_b"
	rp_rb=$?
	job_time "$(cat "$tmp/a")" "$rp_ra" "$* (one of a pair)"
	rp_ta=$TIME
	job_time "$(cat "$tmp/b")" "$rp_rb" "$* (one of a pair)"
	TIME=$(awk -v a="$rp_ta" -v b="$TIME" -v l="$limit" 'BEGIN {
		if (a ~ /^>/ || b ~ /^>/) print ">" l;
		else if (a + 0 <= 0 || b + 0 <= 0) print "n/a";
		else print 2 / (1 / a + 1 / b) }')
}

# The binary and environment of runtime $1 for kernel $2.
runtime_cmd() {
	case "$1" in
	asteal) RT_ENV= ; RT_BIN=$build/jobs/$2 ;;
	asteal-eager) RT_ENV=ASTEAL_READY_LIMIT=0 ; RT_BIN=$build/jobs/$2 ;;
	omp) RT_ENV= ; RT_BIN=$build/bench/omp_$2 ;;
	tbb) RT_ENV= ; RT_BIN=$build/bench/tbb_$2 ;;
	esac
}

# A table row, aligned.
row() {
	printf '%-9s %-9s %9s  %-13s %9s %9s %7s %7s %6s %7s %5s\n' "$@"
}

# One probe of the first two CPUs (asteal-probe): the fastest and slowest
# nanoseconds per call, alone or together, folded into the kernel's running
# bounds bk_lo and bk_hi; nothing when asteal-probe is not built.
probe_host() {
	[ -x "$build/bench/asteal-probe" ] || return 0
	ph_line=$("$build/bench/asteal-probe" --cpus 2 2>/dev/null) || return 0
	# shellcheck disable=SC2046  # two numbers, split on purpose
	set -- $(printf '%s\n' "$ph_line" | awk '{
		for (i = 2; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] != "alone" && kv[1] != "together") continue
			n = split(kv[2], v, ",")
			for (j = 1; j <= n; j++) {
				if (!seen || v[j] + 0 < lo) lo = v[j] + 0
				if (!seen || v[j] + 0 > hi) hi = v[j] + 0
				seen = 1
			}
		}
		if (seen) print lo, hi }')
	[ $# -eq 2 ] || return 0
	bk_lo=$(awk -v a="$bk_lo" -v b="$1" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }')
	bk_hi=$(awk -v a="$bk_hi" -v b="$2" 'BEGIN { print (a == "" || b + 0 > a + 0) ? b : a }')
}

# The host's speed variation over a kernel's probes, as a percentage, or
# n/a when there were none.
host_var() {
	awk -v lo="$1" -v hi="$2" 'BEGIN {
		if (lo == "" || lo + 0 <= 0) print "n/a"; else printf "%.0f%%\n", 100 * (hi / lo - 1) }'
}

# The host's CPU time counters: "TOTAL STEAL" in ticks, summed over CPUs
# (the first line of /proc/stat; "0 0" where there is none).
cpu_ticks() {
	awk '$1 == "cpu" { t = 0; for (i = 2; i <= NF; i++) t += $i;
	                   print t, $9; found = 1; exit }
	     END { if (!found) print 0, 0 }' /proc/stat 2>/dev/null || echo 0 0
}

# Steal between two cpu_ticks readings, as a percentage, or n/a.
steal_pct() {
	# shellcheck disable=SC2086  # each reading is two fields on purpose
	set -- $1 $2
	awk -v t0="$1" -v s0="$2" -v t1="$3" -v s1="$4" 'BEGIN {
		if (t1 <= t0) print "n/a"; else printf "%.0f%%\n", 100 * (s1 - s0) / (t1 - t0) }'
}

# One time for a cell: seconds with three decimals, or n/a.
secs() {
	awk -v t="$1" 'BEGIN { if (t == "n/a" || t ~ /^>/) print t; else printf "%.4f\n", t }'
}

# cell I KERNEL SIZE: set CELL_ENV, CELL_BIN and CELL_ARGS for cell I of
# a kernel's table: 0 is serial, then each runtime with 1 and 2 workers.
cell() {
	if [ "$1" -eq 0 ]; then
		CELL_ENV=
		CELL_BIN=$build/jobs/$2
		CELL_ARGS="$3 --serial"
		return
	fi
	# shellcheck disable=SC2086  # the list is split on purpose
	cl_rt=$(echo $runtimes | cut -d' ' -f$((($1 + 1) / 2)))
	runtime_cmd "$cl_rt" "$2"
	CELL_ENV=$RT_ENV
	CELL_BIN=$RT_BIN
	CELL_ARGS="$3 --workers $((2 - $1 % 2))"
}

# Measure kernel $1 at size $2: $runs rounds, each running every cell once
# (so that a slow spell of the machine hits all cells alike), keeping each
# cell's best time in best_I; then print the serial time and one row per
# runtime.  The default runtime's ratios (three decimals) are kept in
# t1s_KERNEL and t12_KERNEL for the targets.
bench_kernel() {
	bk_cells=$((2 * $(echo "$runtimes" | wc -w)))
	bk_i=0
	while [ "$bk_i" -le "$bk_cells" ]; do
		eval "best_$bk_i=n/a"
		bk_i=$((bk_i + 1))
	done
	bk_ticks=$(cpu_ticks)
	bk_lo=
	bk_hi=
	best_pair=n/a
	bk_r=0
	while [ "$bk_r" -lt "$runs" ]; do
		bk_r=$((bk_r + 1))
		echo "bench: $1 $2, round $bk_r of $runs" >&2
		probe_host
		# shellcheck disable=SC2086  # the arguments are split on purpose
		run_pair "$build/jobs/$1" $2 --serial
		best_pair=$(least "$best_pair" "$TIME")
		bk_i=0
		while [ "$bk_i" -le "$bk_cells" ]; do
			bk_prev=
			eval "bk_prev=\$best_$bk_i"
			case "$bk_prev" in
			">"*) bk_i=$((bk_i + 1)); continue ;;   # over the limit already
			esac
			cell "$bk_i" "$1" "$2"
			# shellcheck disable=SC2086  # the arguments are split on purpose
			run_once "$CELL_ENV" "$CELL_BIN" $CELL_ARGS
			eval "best_$bk_i=\$(least \"\$best_$bk_i\" \"\$TIME\")"
			bk_i=$((bk_i + 1))
		done
	done
	bk_steal=$(steal_pct "$bk_ticks" "$(cpu_ticks)")
	bk_ts=n/a
	eval "bk_ts=\$best_0"
	bk_cap=$(awk -v t="$bk_ts" -v p="$best_pair" 'BEGIN {
		if (t == "n/a" || p == "n/a" || t ~ /^>/ || p ~ /^>/ || p + 0 <= 0) print "n/a";
		else printf "%.2f\n", 2 * t / p }')
	bk_i=1
	for bk_rt in $runtimes; do
		bk_t1=n/a
		bk_t2=n/a
		eval "bk_t1=\$best_$bk_i bk_t2=\$best_$((bk_i + 1))"
		bk_r1=$(ratio "$bk_t1" "$bk_ts")
		bk_r2=$(ratio "$bk_t1" "$bk_t2")
		row "$1" "$2" "$(secs "$bk_ts")" "$bk_rt" "$(secs "$bk_t1")" \
		    "$(secs "$bk_t2")" "$bk_r1" "$bk_r2" "$bk_steal" \
		    "$(host_var "$bk_lo" "$bk_hi")" "$bk_cap"
		if [ "$bk_rt" = asteal ]; then
			eval "t1s_$1=\$(ratio \"\$bk_t1\" \"\$bk_ts\" 3)"
			eval "t12_$1=\$(ratio \"\$bk_t1\" \"\$bk_t2\" 3)"
		fi
		bk_i=$((bk_i + 2))
	done
}

# target LABEL VALUE OP LIMIT: one line saying whether VALUE OP LIMIT holds.
target() {
	tg_met=$(awk -v v="$2" -v op="$3" -v l="$4" 'BEGIN {
		if (v == "n/a") print "n/a";
		else if (op == "<=") print (v + 0 <= l + 0) ? "met" : "NOT met";
		else print (v + 0 >= l + 0) ? "met" : "NOT met" }')
	printf '  %-28s %6s  (target %s %s)  %s\n' "$1" "$2" "$3" "$4" "$tg_met"
	case "$tg_met" in
	met) targets_met=$((targets_met + 1)) ;;
	"NOT met") targets_missed=$((targets_missed + 1)) ;;
	esac
}

echo "asteal benchmarks: $build, best of $runs run(s)$([ "$quick" -eq 1 ] && echo ', quick sizes')$([ "$targets" -eq 1 ] && echo ', targets only')"
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "T1, T2: 1 and 2 workers; T1/Ts = T1/Tserial (overhead); T1/T2 = speedup; >$limit: stopped after $limit s"
echo "steal: the host's steal time over the kernel's rounds (above a few per cent, the ratios are noise)"
echo "hostvar: how much the CPUs' speed varied over those rounds (bench/probe.c; tens of per cent: noise)"
echo "cap: the T1/T2 a perfect runtime could reach here, 2 x Tserial / Tpair (Tpair: two serial copies run at once)"
echo
row kernel size Tserial runtime T1 T2 T1/Ts T1/T2 steal hostvar cap
for kv in $kernels; do
	bench_kernel "${kv%%:*}" "${kv#*:}"
done

targets_met=0
targets_missed=0
echo
echo "targets (libasteal, default spawning):"
target "fib T1/Tserial" "${t1s_fib:-n/a}" "<=" 2.0
target "nqueens T1/Tserial" "${t1s_nqueens:-n/a}" "<=" 1.05
target "uts T1/Tserial" "${t1s_uts:-n/a}" "<=" 1.05
target "fib T1/T2" "${t12_fib:-n/a}" ">=" 1.9
target "nqueens T1/T2" "${t12_nqueens:-n/a}" ">=" 1.9
target "uts T1/T2" "${t12_uts:-n/a}" ">=" 1.9
echo "$targets_met met, $targets_missed not met$([ "$quick" -eq 1 ] && echo ' (quick sizes: indicative only)')"
exit 0
