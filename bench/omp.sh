#!/bin/sh
# omp.sh BUILD [--quick] [--rounds N] - the same gcc -fopenmp binaries
# (BUILD/bench/omp_*) on three OpenMP runtimes: the system's libgomp, as
# they were linked; LLVM's libomp serving them through its GOMP_*
# entry points (LD_PRELOAD); and asteal's libgomp-compatible layer, found
# first in the library path (LD_LIBRARY_PATH=BUILD/lib/asteal; n/a while
# BUILD/lib/asteal/libgomp.so.1 does not exist).  Then the layer's goals,
# and the construct overheads (omp_overhead, asteal-spawncost).
#
# Each kernel runs alone, serially (--serial, for T1/Ts) and with 1 and 2
# threads on each runtime, in R rounds (--rounds, default 3; --quick: 1
# round and small sizes, a smoke test) that each run every cell once, in
# an order that rotates from round to round, so that a slow spell of the
# host hits all cells alike.  A cell shows the median and the least of
# the times the kernel itself reports (time_s=), and whether it said
# check=ok; the kernel's row also says how quiet the host was over its
# rounds: the share of the CPUs' time the hypervisor stole (steal, from
# /proc/stat, as bench/run.sh) and the share that other processes of
# this machine ran (others: busy time in /proc/stat less this script's
# children's CPU time, as bench/corun).  Either above a few per cent
# makes that row's ratios noise.
# Before its first run on a runtime, each binary is run once with
# LD_DEBUG=bindings to check that its GOMP_* and omp_* calls really
# reach that runtime's library.
#
# A run that exits non-zero or does not print check=ok stops the script
# with exit 1; a cell still running after OMP_BENCH_CELL_LIMIT seconds
# (default 60) is stopped, shown as >LIMIT and not run again.  Unmet goals
# are reported, not fatal.  OMP_BENCH_LIBOMP names libomp (default: the
# libomp.so.5 the dynamic linker's cache knows, Debian's libomp5, else
# /usr/lib/x86_64-linux-gnu/libomp.so.5; a missing one shows n/a).
# OMP_BENCH_RUNTIMES chooses among "gomp libomp layer" (all three by
# default; the others show n/a).  Which are there is decided once, at the
# start.  Progress goes to stderr, the tables to stdout.
set -u
bench_name=omp.sh
. "$(dirname "$0")/lib.sh"

# Print the usage line on stderr and exit 2.
usage() {
	echo "usage: bench/omp.sh BUILD [--quick] [--rounds N]" >&2
	exit 2
}

[ $# -ge 1 ] || usage
build=$1
shift
quick=0
rounds=
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) quick=1 ;;
	--rounds) [ $# -ge 2 ] || usage; rounds=$2; shift ;;
	*) usage ;;
	esac
	shift
done
[ -d "$build" ] || { echo "omp.sh: no build folder $build" >&2; exit 2; }
build=$(cd "$build" && pwd)
if [ -z "$rounds" ]; then
	rounds=3
	[ "$quick" -eq 1 ] && rounds=1
fi
case "$rounds" in
''|*[!0-9]*|0) echo "omp.sh: --rounds must be a positive integer" >&2; exit 2 ;;
esac
limit=${OMP_BENCH_CELL_LIMIT:-60}
case "$limit" in
''|*[!0-9]*|0) echo "omp.sh: OMP_BENCH_CELL_LIMIT must be a positive integer" >&2; exit 2 ;;
esac

# Kernels as NAME:ARGS, the arguments' spaces written as commas.  Full
# sizes take libgomp about 1-3 s at 2 threads (nqueens 15: 3 s; 14: 0.5 s),
# fib the size it finishes in a second or two (its tasks cost libgomp
# microseconds each); the probe arguments are tiny, for the binding check.
if [ "$quick" -eq 1 ]; then
	kernels="fib:20 nqueens:8 uts:T3S cilksort:100000 matmul:128 phases:2,--w1,2000,--w2,1000"
	ovh_reps=3
else
	kernels="fib:33 nqueens:15 uts:T1 cilksort:20000000 matmul:1536 phases:20"
	ovh_reps=15
fi

# The runtimes.  Nothing the caller preloaded may sit under libgomp.
unset LD_PRELOAD
libomp=${OMP_BENCH_LIBOMP:-$(/sbin/ldconfig -p 2>/dev/null |
                             awk '$1 == "libomp.so.5" { print $NF; exit }')}
libomp=${libomp:-/usr/lib/x86_64-linux-gnu/libomp.so.5}
layer_dir=$build/lib/asteal
runtimes="gomp libomp layer"
asked=${OMP_BENCH_RUNTIMES:-$runtimes}
for rt in $asked; do
	case " $runtimes " in
	*" $rt "*) ;;
	*) echo "omp.sh: OMP_BENCH_RUNTIMES: no runtime $rt (gomp, libomp, layer)" >&2; exit 2 ;;
	esac
done
# The layer alone, as bench/run.sh measures libasteal: every worker always
# allotted, no daemon (adaptivity has its own benchmarks).  A value the
# caller set is kept, and printed.
export ASTEAL_MODE="${ASTEAL_MODE:-static}"
unset ASTEAL_READY_LIMIT ASTEAL_PROFILE ASTEAL_TRACE ASTEAL_STATS

tmp=$(mktemp -d "${TMPDIR:-/tmp}/asteal-ompbench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# The name runtime $1 goes by in the tables.
rt_label() {
	case "$1" in
	gomp) echo libgomp ;;
	libomp) echo libomp ;;
	layer) echo layer ;;
	esac
}

# Whether runtime $1 was asked for and its library is there (status 0).
rt_usable() {
	case " $asked " in *" $1 "*) ;; *) return 1 ;; esac
	case "$1" in
	gomp) return 0 ;;
	libomp) [ -r "$libomp" ] ;;
	layer) [ -r "$layer_dir/libgomp.so.1" ] ;;
	esac
}

# The runtimes measured, decided once (a layer built during the run
# waits for the next one).
present=
for rt in $runtimes; do
	rt_usable "$rt" && present="$present $rt"
done

# Whether runtime $1 is measured (status 0) or its cells are n/a.
rt_present() {
	case " $present " in *" $1 "*) return 0 ;; esac
	return 1
}

# RT_ENV: the environment assignments that put runtime $1 under a binary.
rt_env() {
	case "$1" in
	gomp) RT_ENV= ;;
	libomp) RT_ENV="LD_PRELOAD=$libomp" ;;
	layer) RT_ENV="LD_LIBRARY_PATH=$layer_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ;;
	esac
}

# check_binding RT BIN ARGS...: run BIN ARGS once on runtime RT with
# LD_DEBUG=bindings and stop the script unless every GOMP_* and omp_*
# symbol BIN binds comes from RT's library (once per binary and runtime).
# LD_BIND_NOW binds them all at start, on one thread, so that no two
# threads' lines mix in the log and symbols the run never calls count too.
check_binding() {
	cb_rt=$1
	shift
	cb_key=$(basename "$1").$cb_rt
	[ -e "$tmp/bound.$cb_key" ] && return 0
	rt_env "$cb_rt"
	rm -f "$tmp"/ld.*
	# shellcheck disable=SC2086  # RT_ENV is split on purpose
	cb_out=$(env $RT_ENV LD_BIND_NOW=1 LD_DEBUG=bindings LD_DEBUG_OUTPUT="$tmp/ld" \
	         timeout "$limit" "$@" 2>&1)
	cb_rc=$?
	[ "$cb_rc" -eq 0 ] || fail "$RT_ENV $* (binding check)" "$cb_rc" "$cb_out"
	cb_libs=$(cat "$tmp"/ld.* 2>/dev/null |
	          sed -n "s#.*binding file [^ ]*/$(basename "$1") \[0\] to \([^ ]*\) \[0\]: normal symbol \`\(GOMP_\|omp_\).*#\1#p" |
	          sort -u)
	case "$cb_rt" in
	gomp) cb_want="a libgomp.so.1 outside $layer_dir" ;;
	libomp) cb_want=$libomp ;;
	layer) cb_want=$layer_dir/libgomp.so.1 ;;
	esac
	cb_bad=
	[ -n "$cb_libs" ] || cb_bad="(no GOMP_ or omp_ binding seen)"
	for cb_lib in $cb_libs; do
		case "$cb_rt" in
		gomp) case "$cb_lib" in
		      "$layer_dir"/*) cb_bad=$cb_lib ;;
		      */libgomp.so.1) ;;
		      *) cb_bad=$cb_lib ;;
		      esac ;;
		*) [ "$cb_lib" = "$cb_want" ] || cb_bad=$cb_lib ;;
		esac
	done
	if [ -n "$cb_bad" ]; then
		fail "$RT_ENV $*: its OpenMP calls bind to $cb_bad, not $cb_want" 1 \
		     "$(printf '%s\n' "$cb_libs")"
	fi
	: >"$tmp/bound.$cb_key"
}

# The arguments of a tiny run of kernel $1, for the binding check.
probe_args() {
	case "$1" in
	fib) echo 5 ;;
	nqueens) echo 7 ;;
	uts) echo T3S ;;
	cilksort) echo 1000 ;;
	matmul) echo 16 ;;
	phases) echo 1 --w1 1 --w2 1 --h 2 ;;
	esac
}

# TICKS becomes the host's CPU time and ours: "TOTAL STEAL BUSY
# CHILDREN", the first three in ticks summed over CPUs (the first line of
# /proc/stat; busy is user, nice, system, irq and softirq), the last the
# CPU time of this script's children so far, in ticks (the second line
# of times, run in this shell: a subshell has children of its own).
cpu_ticks() {
	times >"$tmp/times"
	TICKS=$(awk -v hz="$(getconf CLK_TCK 2>/dev/null || echo 100)" '
		FNR == NR { if (FNR == 2) for (i = 1; i <= 2; i++) {
		            	split($i, p, "m"); kids += p[1] * 60 + p[2] }
		            next }
		$1 == "cpu" { t = 0; for (i = 2; i <= NF; i++) t += $i
		              printf "%s %s %s %.0f\n", t, $9, $2 + $3 + $4 + $7 + $8, kids * hz
		              found = 1; exit }
		END { if (!found) printf "0 0 0 %.0f\n", kids * hz }' "$tmp/times" /proc/stat 2>/dev/null)
	[ -n "$TICKS" ] || TICKS="0 0 0 0"
}

# "STEAL OTHERS" between two cpu_ticks readings, as percentages of the
# CPUs' time (others: the busy time not ours), or "n/a n/a".
noise_pct() {
	# shellcheck disable=SC2086  # each reading is four fields on purpose
	set -- $1 $2
	awk -v t0="$1" -v s0="$2" -v b0="$3" -v k0="$4" \
	    -v t1="$5" -v s1="$6" -v b1="$7" -v k1="$8" 'BEGIN {
		if (t1 <= t0) { print "n/a n/a"; exit }
		o = ((b1 - b0) - (k1 - k0)) / (t1 - t0); if (o < 0) o = 0
		printf "%.0f%% %.0f%%\n", 100 * (s1 - s0) / (t1 - t0), 100 * o }'
}

# The cells of a kernel: serial, then each present runtime at 1 and 2
# threads, as RT.W.
cells() {
	echo serial
	for c_rt in $runtimes; do
		rt_present "$c_rt" && echo "$c_rt.1" && echo "$c_rt.2"
	done
}

# run_cell KERNEL ARGS CELL: run one cell once and add its time to
# $tmp/KERNEL.CELL (a cell over the limit is marked and skipped after).
run_cell() {
	rc_bin=$build/bench/omp_$1
	[ -e "$tmp/$1.$3.over" ] && return 0
	if [ "$3" = serial ]; then
		RT_ENV=
		rc_args="$2 --serial"
	else
		# shellcheck disable=SC2046  # the arguments are split on purpose
		check_binding "${3%.*}" "$rc_bin" $(probe_args "$1")
		rt_env "${3%.*}"
		rc_args="$2 --workers ${3#*.}"
	fi
	# shellcheck disable=SC2086  # ENV and the arguments are split on purpose
	rc_out=$(env $RT_ENV timeout "$limit" "$rc_bin" $rc_args 2>&1)
	job_time "$rc_out" $? "${RT_ENV:+$RT_ENV }$rc_bin $rc_args"
	case "$TIME" in
	">"*) : >"$tmp/$1.$3.over" ;;
	*) echo "$TIME" >>"$tmp/$1.$3" ;;
	esac
}

# "MEDIAN MIN" of cell $2 of kernel $1 (seconds, 4 decimals; 6 under
# 0.1 s), ">LIMIT
# >LIMIT" for a cell stopped, "n/a n/a" for one never run.
cell_stats() {
	if [ -e "$tmp/$1.$2.over" ]; then
		echo ">$limit >$limit"
	elif [ -s "$tmp/$1.$2" ]; then
		sort -n "$tmp/$1.$2" | awk '{ v[NR] = $1 } END {
			m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%s %s\n", secs(m), secs(v[1]) }
			function secs(t) { return sprintf(t < 0.1 ? "%.6f" : "%.4f", t) }'
	else
		echo "n/a n/a"
	fi
}

# a / b with 2 decimals, or n/a; a time stopped at the limit (">L") over
# a number gives ">R", a number over it "<R".
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a == "n/a" || b == "n/a" || (a ~ /^>/ && b ~ /^>/)) print "n/a";
		else if (a ~ /^>/) { a = substr(a, 2); print (b + 0 > 0) ? sprintf(">%.2f", a / b) : "n/a" }
		else if (b ~ /^>/) printf "<%.2f\n", a / substr(b, 2);
		else if (b + 0 == 0) print "n/a";
		else printf "%.2f\n", a / b }'
}

# A kernel table row, aligned.
row() {
	printf '%-9s %-11s %8s  %-8s %8s %8s %8s %8s %6s %6s %5s %6s %6s\n' "$@"
}

# Measure kernel $1 with arguments $2: $rounds rounds of every cell, in an
# order that rotates, then one row per runtime.  The medians are kept in
# med_KERNEL_CELL (the cell's dot an underscore) for the goals.
bench_kernel() {
	bk_cells=$(cells)
	bk_n=$(printf '%s\n' "$bk_cells" | wc -l)
	cpu_ticks
	bk_ticks=$TICKS
	bk_r=0
	while [ "$bk_r" -lt "$rounds" ]; do
		echo "omp.sh: $1 $2, round $((bk_r + 1)) of $rounds" >&2
		bk_i=0
		while [ "$bk_i" -lt "$bk_n" ]; do
			bk_cell=$(printf '%s\n' "$bk_cells" |
			          sed -n "$(((bk_i + bk_r) % bk_n + 1))p")
			run_cell "$1" "$2" "$bk_cell"
			bk_i=$((bk_i + 1))
		done
		bk_r=$((bk_r + 1))
	done
	cpu_ticks
	bk_noise=$(noise_pct "$bk_ticks" "$TICKS")
	# shellcheck disable=SC2046  # two fields, split on purpose
	set -- "$1" "$2" $(cell_stats "$1" serial)
	bk_ts=$3
	for bk_rt in $runtimes; do
		# shellcheck disable=SC2046  # four fields, split on purpose
		set -- "$1" "$2" "$bk_ts" $(cell_stats "$1" "$bk_rt.1") \
		       $(cell_stats "$1" "$bk_rt.2")
		eval "med_$1_${bk_rt}_1=\$4 med_$1_${bk_rt}_2=\$6"
		bk_ok=ok
		rt_present "$bk_rt" || bk_ok=n/a
		# shellcheck disable=SC2086  # steal and others, split on purpose
		row "$1" "$2" "$3" "$(rt_label "$bk_rt")" \
		    "$4" "$5" "$6" "$7" "$(ratio "$4" "$3")" "$(ratio "$4" "$6")" \
		    "$bk_ok" ${bk_noise}
	done
	eval "med_$1_serial=\$bk_ts"
}

goals_met=0
goals_missed=0
goals_na=0

# goal LABEL FIGURE VERDICT: one goal's line, counted (VERDICT met,
# missed or n/a, perhaps followed by a note).
goal() {
	printf '  %-34s %-44s %s\n' "$1" "$2" "$3"
	case "$3" in
	met*) goals_met=$((goals_met + 1)) ;;
	missed*) goals_missed=$((goals_missed + 1)) ;;
	*) goals_na=$((goals_na + 1)) ;;
	esac
}

# verdict A OP B: met when A OP B holds (OP <= or >=), n/a when either is
# not a number; a time stopped at the limit (">L") counts as more than
# any number, a ratio under one ("<R") as less.
verdict() {
	awk -v a="$1" -v op="$2" -v b="$3" 'BEGIN {
		if (a ~ /^>/) a = 1e300; else if (a ~ /^</) a = -1e300
		if (b ~ /^>/) b = 1e300; else if (b ~ /^</) b = -1e300
		if (a !~ /^-?[0-9.e+]+$/ || b !~ /^-?[0-9.e+]+$/) print "n/a";
		else if (op == "<=") print (a + 0 <= b + 0) ? "met" : "missed";
		else print (a + 0 >= b + 0) ? "met" : "missed" }'
}

# The cell value $1, or n/a when the variable is unset.
val() {
	eval "echo \"\${$1:-n/a}\""
}

# Goal (a) for kernel $1 at $2 threads: the layer no slower than the
# better of libgomp and libomp (medians).
goal_never_slower() {
	gn_layer=$(val "med_$1_layer_$2")
	gn_gomp=$(val "med_$1_gomp_$2")
	gn_omp=$(val "med_$1_libomp_$2")
	gn_best=$gn_gomp
	gn_who=libgomp
	if [ "$(verdict "$gn_omp" "<=" "$gn_gomp")" = met ] ||
	   [ "$(verdict "$gn_gomp" ">=" 0)" != met ]; then
		gn_best=$gn_omp
		gn_who=libomp
	fi
	goal "(a) $1 T$2 layer <= best" \
	     "$gn_layer s vs $gn_best s ($gn_who)" "$(verdict "$gn_layer" "<=" "$gn_best")"
}

# Goal (b) for kernel $1: the layer at least 3x faster than libgomp at 2 threads.
goal_faster() {
	gf_r=$(ratio "$(val "med_$1_gomp_2")" "$(val "med_$1_layer_2")")
	goal "(b) $1 T2 libgomp/layer >= 3" "$gf_r ($(val "med_$1_gomp_2") s / $(val "med_$1_layer_2") s)" \
	     "$(verdict "$gf_r" ">=" 3)"
}

# Goal (c) for kernel $1: the layer's T1/Ts at most 1.1.
goal_t1ts() {
	gt_r=$(ratio "$(val "med_$1_layer_1")" "$(val "med_$1_serial")")
	goal "(c) $1 layer T1/Ts <= 1.1" "$gt_r ($(val "med_$1_layer_1") s / $(val "med_$1_serial") s)" \
	     "$(verdict "$gt_r" "<=" 1.1)"
}

# Field $2 (construct, median_us, spread_us...) of the "overhead" line of
# construct $3 in the output file $1, or n/a.
ovh_field() {
	[ -s "$1" ] || { echo n/a; return 0; }
	awk -v f="$2" -v c="$3" '$1 == "overhead" {
		delete kv
		for (i = 2; i <= NF; i++) { split($i, p, "="); kv[p[1]] = p[2] }
		if (kv["construct"] == c && (f in kv)) v[n++] = kv[f] + 0 }
		END {
			if (n == 0) { print "n/a"; exit }
			# the median over the rounds (insertion sort: a few values)
			for (i = 1; i < n; i++)
				for (j = i; j > 0 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
			printf "%.4f\n", (n % 2) ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2 }' "$1"
}

# The cell "MEDIAN (SPREAD)" of construct $2 in output file $1, or n/a.
ovh_cell() {
	oc_m=$(ovh_field "$1" median_us "$2")
	if [ "$oc_m" = n/a ]; then
		echo n/a
	else
		echo "$oc_m ($(ovh_field "$1" spread_us "$2"))"
	fi
}

# run_overhead RT C: omp_overhead --only C at 2 threads on runtime RT,
# its line appended to $tmp/ovh.RT (nothing when RT is missing).
run_overhead() {
	rt_present "$1" || return 0
	ro_bin=$build/bench/omp_overhead
	[ -f "$tmp/ovh.$1" ] || check_binding "$1" "$ro_bin" --only parallel --reps 1
	rt_env "$1"
	echo "omp.sh: omp_overhead $2 on $(rt_label "$1")" >&2
	# shellcheck disable=SC2086  # ENV is split on purpose
	ro_out=$(env $RT_ENV timeout "$limit" "$ro_bin" --threads 2 --reps "$ovh_reps" --only "$2" 2>&1)
	ro_rc=$?
	[ "$ro_rc" -eq 0 ] || fail "${RT_ENV:+$RT_ENV }$ro_bin --threads 2 --reps $ovh_reps --only $2" "$ro_rc" "$ro_out"
	printf '%s\n' "$ro_out" | grep '^overhead ' >>"$tmp/ovh.$1"
}

echo "OpenMP runtimes on the same binaries: $build/bench/omp_*, median (min) of $rounds round(s)$([ "$quick" -eq 1 ] && echo ', quick sizes')"
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
for rt in $runtimes; do
	case "$rt" in
	gomp) rt_where=$(ldd "$build/bench/omp_fib" 2>/dev/null | awk '$1 == "libgomp.so.1" { print $3 }') ;;
	libomp) rt_where=$libomp ;;
	layer) rt_where=$layer_dir/libgomp.so.1 ;;
	esac
	if rt_present "$rt"; then
		rt_state=
	elif rt_usable "$rt"; then
		rt_state=" (not measured: n/a)"
	elif case " $asked " in *" $rt "*) false ;; *) true ;; esac; then
		rt_state=" (not in OMP_BENCH_RUNTIMES: n/a)"
	else
		rt_state=" (missing: n/a)"
	fi
	rt_env "$rt"
	printf '  %-8s %s%s%s\n' "$(rt_label "$rt")" "$rt_where" "$rt_state" "${RT_ENV:+  [$RT_ENV]}"
done
rt_vars=$(env | grep -E '^(OMP_|GOMP_|KMP_)' | tr '\n' ' ')
echo "environment: ASTEAL_MODE=$ASTEAL_MODE${rt_vars:+ $rt_vars}"
echo "Ts: --serial; T1, T2: 1 and 2 threads, median and min; ratios of medians; >$limit: stopped"
echo "steal, others: CPU time the hypervisor stole and other processes ran over the kernel's rounds (a few per cent: noise)"
echo
row kernel size Ts runtime "T1 med" "T1 min" "T2 med" "T2 min" T1/Ts T1/T2 check steal others
for kv in $kernels; do
	k=${kv%%:*}
	if [ ! -x "$build/bench/omp_$k" ]; then
		echo "omp.sh: no $build/bench/omp_$k (make bench-bins)" >&2
		exit 1
	fi
	bench_kernel "$k" "$(echo "${kv#*:}" | tr , ' ')"
done

echo
echo "goals (the layer; medians):"
for kv in $kernels; do
	goal_never_slower "${kv%%:*}" 1
	goal_never_slower "${kv%%:*}" 2
done
for k in fib nqueens uts cilksort; do
	goal_faster "$k"
done
for k in nqueens uts; do
	goal_t1ts "$k"
done

echo
echo "construct overheads at 2 threads (omp_overhead; us per construct: the median over $rounds round(s) of each run's median (interquartile range) of $ovh_reps reps; runtimes interleaved construct by construct):"
# Each construct on every runtime back to back, the runtimes' order
# rotating from round to round: the host's slow spells (its vCPUs placed
# apart) then hit the runtimes alike, as they do the kernels' cells.
ovh_constructs="parallel barrier single critical dynamic task task_all"
r=0
while [ "$r" -lt "$rounds" ]; do
	order=$(echo $runtimes | awk -v k="$r" '{ for (i = 0; i < NF; i++) printf "%s ", $(1 + (i + k) % NF) }')
	for c in $ovh_constructs; do
		for rt in $order; do
			run_overhead "$rt" "$c"
		done
	done
	r=$((r + 1))
done
if [ -x "$build/bench/asteal-spawncost" ]; then
	echo "omp.sh: asteal-spawncost" >&2
	sc_out=$(timeout "$limit" "$build/bench/asteal-spawncost" --workers 2 --reps "$ovh_reps" 2>&1)
	sc_rc=$?
	[ "$sc_rc" -eq 0 ] || fail "$build/bench/asteal-spawncost --workers 2 --reps $ovh_reps" "$sc_rc" "$sc_out"
	printf '%s\n' "$sc_out" >"$tmp/ovh.spawn"
fi
printf '  %-10s %-18s %-18s %-18s\n' construct libgomp libomp layer
constructs=$ovh_constructs
for c in $constructs; do
	printf '  %-10s %-18s %-18s %-18s\n' "$c" "$(ovh_cell "$tmp/ovh.gomp" "$c")" \
	       "$(ovh_cell "$tmp/ovh.libomp" "$c")" "$(ovh_cell "$tmp/ovh.layer" "$c")"
done
spawn=$(ovh_field "$tmp/ovh.spawn" median_us spawn)
echo "  libasteal asteal_spawn + asteal_sync (asteal-spawncost, 2 workers): $(ovh_cell "$tmp/ovh.spawn" spawn) us"
for rt in gomp libomp; do
	echo "  $(rt_label "$rt") task / spawn: $(ratio "$(ovh_field "$tmp/ovh.$rt" median_us task)" "$spawn")"
done

echo
echo "overhead goals (the layer; medians):"
for c in $constructs; do
	og_layer=$(ovh_field "$tmp/ovh.layer" median_us "$c")
	og_gomp=$(ovh_field "$tmp/ovh.gomp" median_us "$c")
	og_v=$(verdict "$og_layer" "<=" "$og_gomp")
	if [ "$og_v" = missed ]; then
		og_slack=$(awk -v a="$og_layer" -v b="$og_gomp" \
		               -v s="$(ovh_field "$tmp/ovh.layer" spread_us "$c")" \
		               -v t="$(ovh_field "$tmp/ovh.gomp" spread_us "$c")" 'BEGIN {
			m = (s + 0 > t + 0) ? s : t; print (a - b <= m) ? "yes" : "no" }')
		[ "$og_slack" = yes ] && og_v="missed (within the spread)"
	fi
	goal "(d) $c layer <= libgomp" "$og_layer us vs $og_gomp us" "$og_v"
done
og_task=$(ovh_field "$tmp/ovh.layer" median_us task)
goal "(e) task layer <= 2 x spawn" "$(ratio "$og_task" "$spawn") ($og_task us / $spawn us)" \
     "$(verdict "$(ratio "$og_task" "$spawn")" "<=" 2)"

echo
echo "$goals_met met, $goals_missed missed, $goals_na n/a$(rt_present layer || echo ' (no layer measured)')$([ "$quick" -eq 1 ] && echo '; quick sizes: indicative only')"
exit 0
