#!/bin/sh
# sim.test.sh BUILD - asteal-sim: the command line (help, bad arguments exit
# 2), one job run (finishes, does exactly its work, deterministic), and a
# small version of every experiment of the paper's section 4, checking the
# direction of each result: who wins and the sign of each trend.
#
# ASTEAL_TEST_SAN (asan or tsan) selects smaller sizes for the slower
# sanitizer builds.  The TSan build runs only what uses more than one
# thread, the pool of job runs (--threads): the rest runs on one thread,
# where TSan has nothing to report, and the normal and ASan builds check
# it.  The first failure prints what it saw and exits 1.
set -u

build=${1:?usage: sh tests/sim.test.sh BUILD}
sim="$build/bin/asteal-sim"
san=${ASTEAL_TEST_SAN:-}
. scripts/lib.sh
test_tmp sim

last=""
fail() {
	echo "FAIL: $*"
	for f in "$tmp/$last.out" "$tmp/$last.err"; do
		[ -s "$f" ] || continue
		echo "--- $(basename "$f")"
		tail -n 15 "$f"
	done
	exit 1
}

[ -x "$sim" ] || fail "$sim is missing (make $sim)"

# The value of key $2 on the last line of file $1.
key() {
	tail -n 1 "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# Check an awk condition on numbers: check "what" "a < b" (a, b numbers).
check() {
	what=$1
	shift
	if ! awk "BEGIN { exit !($*) }" </dev/null; then
		fail "$what: $*"
	fi
	echo "ok: $what ($*)"
}

# Run the simulator into $tmp/NAME.out; stop on a failure.
run() {
	name=$1
	last=$name
	shift
	"$sim" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
	[ "$rc" -eq 0 ] || fail "asteal-sim $* exited $rc"
}

# A bad command line must exit 2 with a message.
bad() {
	"$sim" "$@" >"$tmp/bad.out" 2>"$tmp/bad.err"
	rc=$?
	[ "$rc" -eq 2 ] || fail "asteal-sim $* exited $rc, not 2"
	[ -s "$tmp/bad.err" ] || fail "asteal-sim $* said nothing on stderr"
}

# --- TSan: the pool of job runs, on 1 and 4 threads, the same result
if [ "$san" = tsan ]; then
	o="$tmp/o"
	run time time --quick --jobs 30 --out "$o" --seed 3
	run time4 time --quick --jobs 30 --out "$o" --seed 3 --threads 4
	[ "$(tail -n 1 "$tmp/time.out")" = "$(tail -n 1 "$tmp/time4.out")" ] ||
		fail "time with --threads 4 differs from --threads 1"
	echo "ok: time is the same on 1 and 4 threads (TSan: the rest runs on one thread)"
	exit 0
fi

# --- the command line
run help --help
for c in time waste time-waste utilization run; do
	grep -q "^  $c " "$tmp/help.out" || fail "--help does not list $c"
done
bad
bad frobnicate
bad time --frob
bad time --procs 0
bad time --procs 2000
bad time --delta 1.5
bad time --seed x
bad run --profile bogus
bad run --dag tree
bad run --sched cilk
bad run --spawn sideways
bad run --abp-preempted maybe
bad time extra
bad time --jobs
bad utilization --dist U/X --quick
bad time-waste --procs 16 --mean-avail 30
echo "ok: bad arguments exit 2"

# --- one job: finishes, works exactly T1 cycles, T >= Tinf, deterministic
o="$tmp/o"
for s in asteal abp; do
	run "run-$s" run --sched $s --procs 64 --mean-avail 16 --w1 300 --w2 600 \
		--h 24 --iters 3 --seed 5 --trace "$tmp/trace-$s.csv"
	f="$tmp/run-$s.out"
	check "run $s finished" "$(key "$f" finished) == 1"
	check "run $s work = T1" "$(key "$f" work) == $(key "$f" T1)"
	check "run $s T >= Tinf" "$(key "$f" T) >= $(key "$f" Tinf)"
	head -n 1 "$tmp/trace-$s.csv" | grep -q '^quantum,availability,desire' ||
		fail "trace header"
	run "run-$s-again" run --sched $s --procs 64 --mean-avail 16 --w1 300 \
		--w2 600 --h 24 --iters 3 --seed 5
	cmp -s "$f" "$tmp/run-$s-again.out" || fail "run $s is not deterministic"
done
# ABP with yieldTo: a thief recovers preempted processes' nodes by yielding
run run-yieldto run --sched abp --abp-preempted yieldto --procs 512 \
	--mean-avail 30 --w1 300 --w2 600 --h 20 --iters 10
f="$tmp/run-yieldto.out"
check "run abp yieldto finished" "$(key "$f" finished) == 1"
check "run abp yieldto work = T1" "$(key "$f" work) == $(key "$f" T1)"
check "run abp yieldto yielded" "$(key "$f" yields) > 0"
run run-stuck run --sched abp --abp-preempted stuck --procs 512 \
	--mean-avail 30 --w1 300 --w2 600 --h 20 --iters 10
check "run abp stuck never yields, and is slower than yieldto" \
	"$(key "$tmp/run-stuck.out" yields) == 0 && $(key "$tmp/run-stuck.out" T) > $(key "$f" T)"
run run-fj run --dag forkjoin --fj-depth 6 --fj-branch 3 --fj-work 50 \
	--fj-spawn 0.9 --procs 32 --profile uniform
check "fork/join run finished" "$(key "$tmp/run-fj.out" finished) == 1"
check "fork/join work = T1" "$(key "$tmp/run-fj.out" work) == $(key "$tmp/run-fj.out" T1)"
for p in uniform smooth; do
	run "run-$p" run --profile $p --procs 128 --h 64
	check "$p profile mean availability in [1, 128]" \
		"$(key "$tmp/run-$p.out" pbar) >= 1 && $(key "$tmp/run-$p.out" pbar) <= 128"
done

# --- --profile-file: a profile written here replays exactly
# the availabilities of the practical profile the runs above saw, replayed
for s in asteal abp; do
	tail -n +2 "$tmp/trace-$s.csv" | cut -d, -f2 >"$tmp/prof-$s.txt"
	run "replay-$s" run --sched $s --procs 64 --w1 300 --w2 600 --h 24 \
		--iters 3 --seed 5 --profile-file "$tmp/prof-$s.txt"
	for k in T work steal mug pbar quanta; do
		[ "$(key "$tmp/run-$s.out" $k)" = "$(key "$tmp/replay-$s.out" $k)" ] ||
			fail "$s replayed from a file: $k differs"
	done
done
echo "ok: a written-out practical profile replays exactly"
# one processor every quantum: A-STEAL runs the job serially, T = T1
printf '# one processor\n1\n' >"$tmp/ones.txt"
run ones run --procs 32 --h 8 --profile-file "$tmp/ones.txt"
check "profile of ones: T = T1, no steals" \
	"$(key "$tmp/ones.out" T) == $(key "$tmp/ones.out" T1) && $(key "$tmp/ones.out" steal) == 0"
# a job that outlives its file goes round it again; values above P are P
printf '2\n 7\t\n# comment\n40\n' >"$tmp/cyc.txt"
run cyc run --sched abp --procs 8 --w1 300 --w2 600 --h 24 --iters 3 \
	--profile-file "$tmp/cyc.txt" --trace "$tmp/cyc.csv"
got=$(tail -n +2 "$tmp/cyc.csv" | head -n 7 | cut -d, -f2 | tr '\n' ' ')
[ "$got" = "2 7 8 2 7 8 2 " ] || fail "profile file cycles and chops: got '$got'"
echo "ok: a profile file goes round again, chopped at P"
# every experiment takes it: a constant profile of 30 gives P-bar 30
yes 30 | head -n 50 >"$tmp/c30.txt"
run twfile time-waste --profile-file "$tmp/c30.txt" --jobs 4 --quick --out "$o"
check "time-waste on a file: its mean" "$(key "$tmp/twfile.out" mean_avail) == 30"
[ "$(tail -n +2 "$o/time-waste.csv" | cut -d, -f11,12 | sort -u)" = "30.000,30.000" ] ||
	fail "time-waste on a constant file: P-bar is not 30 for every run"
run timefile time --profile-file "$tmp/c30.txt" --jobs 12 --quick --out "$o"
[ "$(tail -n +2 "$o/time-runs.csv" | cut -d, -f2 | sort -u)" = "file" ] ||
	fail "time on a file: not every run used it"
run wastefile waste --profile-file "$tmp/c30.txt" --jobs 4 --quick --out "$o"
run utilfile utilization --profile-file "$tmp/c30.txt" --procs 100 --steps 20000 --out "$o"
check "utilization on a file: within [0, 1] of the offered processors" \
	"$(key "$tmp/utilfile.out" asteal_util) <= 1 && $(key "$tmp/utilfile.out" asteal_util) > 0"
# bad files are refused, naming the line
for c in "" 0 -3 +3 3.5 12x abc 1000001; do
	printf '4\n%s\n' "$c" >"$tmp/bad.txt"
	bad run --profile-file "$tmp/bad.txt"
	grep -q "line 2" "$tmp/bad.err" || fail "bad profile line '$c': $(cat "$tmp/bad.err")"
done
printf '# only a comment\n' >"$tmp/none.txt"
bad run --profile-file "$tmp/none.txt"
bad run --profile-file "$tmp/no-such-file"
bad time --profile-file "$tmp/c30.txt" --mean-avail 30
bad run --profile-file "$tmp/c30.txt" --profile uniform
echo "ok: bad profile files exit 2"

if [ -n "$san" ]; then
	tjobs=30 wjobs=8 twjobs=8 usteps=30000 uprocs=300
else
	tjobs=120 wjobs=24 twjobs=16 usteps=100000 uprocs=1000
fi

# --- time: the model fits, with coefficients of the paper's sizes
run time time --quick --jobs $tjobs --out "$o" --seed 3
f="$tmp/time.out"
check "time: c1 (trimmed) near 1" "$(key "$f" c1) > 0.5 && $(key "$f" c1) < 1.5"
check "time: cinf (trimmed) positive" "$(key "$f" cinf) > 0"
check "time: c1 (mean) near 1" "$(key "$f" c1_mean) > 0.7 && $(key "$f" c1_mean) < 1.5"
check "time: cinf (mean) near 1" "$(key "$f" cinf_mean) > 0.5 && $(key "$f" cinf_mean) < 2"
check "time: the mean-availability fit explains T" \
	"$(key "$f" r2_mean) > 0.6 && $(key "$f" rel_rms_mean) < 0.4"
for x in time-runs.csv time-fit.svg time-trim.svg; do
	[ -s "$o/$x" ] || fail "time did not write $x"
done
tail -n 1 "$o/time-fit.svg" | grep -q '</svg>' || fail "time-fit.svg is cut short"
[ "$(wc -l <"$o/time-runs.csv")" -eq $((tjobs + 1)) ] || fail "time-runs.csv rows"
# the thread count does not change the result
run time2 time --quick --jobs $tjobs --out "$o" --seed 3 --threads 2
[ "$(tail -n 1 "$tmp/time.out")" = "$(tail -n 1 "$tmp/time2.out")" ] ||
	fail "time with --threads 2 differs from --threads 1"
echo "ok: time is the same on 1 and 2 threads"

# --- waste: under 10% of work for parallel jobs, falls with parallelism,
# far under the bound, and not very sensitive to delta
run waste waste --quick --jobs $wjobs --out "$o"
f="$tmp/waste.out"
check "waste: waste/work at delta 0.8 under 0.25" "$(key "$f" waste_d0.8) < 0.25"
check "waste: within 0.25 over delta 0.5..1.0" \
	"$(key "$f" waste_max) - $(key "$f" waste_min) < 0.25"
check "waste: under the bound at every delta (1.53 at delta 1)" "$(key "$f" waste_max) < 1.53"
check "waste: falls with parallelism (slope)" "$(key "$f" waste_par_slope) < 0"
check "waste: high-parallelism jobs waste less" \
	"$(key "$f" waste_high_par) < $(key "$f" waste_low_par)"
for x in waste-delta.csv waste-delta.svg waste-parallelism.csv waste-parallelism.svg; do
	[ -s "$o/$x" ] || fail "waste did not write $x"
done

# --- time-waste: on the same profiles A-STEAL wastes a fraction of what
# ABP wastes, more so at P = 512 than at 128; ABP's time relative to
# A-STEAL's grows with P (at 128 ABP is a little faster, as in the paper);
# with ABP's preempted frames stuck, ABP is far slower at P = 512
run tw512 time-waste --procs 512 --mean-avail 30 --jobs $twjobs --seed 1 --out "$o"
run tw128 time-waste --procs 128 --mean-avail 30 --jobs $twjobs --seed 1 --out "$o"
a=$(key "$tmp/tw512.out" abp_time_over_asteal)
b=$(key "$tmp/tw128.out" abp_time_over_asteal)
wa=$(key "$tmp/tw512.out" asteal_waste_over_abp)
wb=$(key "$tmp/tw128.out" asteal_waste_over_abp)
check "time-waste P=512: A-STEAL wastes under 25% of ABP's waste" "$wa < 0.25"
check "time-waste P=128: A-STEAL wastes under half of ABP's waste" "$wb < 0.5"
check "time-waste: A-STEAL's waste advantage grows with P" "$wa < $wb"
check "time-waste: ABP's time relative to A-STEAL's grows with P" "$b < $a"
check "time-waste P=128: ABP a little faster" "$b < 1 && $b > 0.5"
for x in time-waste.csv time-waste.svg; do
	[ -s "$o/$x" ] || fail "time-waste did not write $x"
done
run tw512s time-waste --procs 512 --mean-avail 30 --jobs $twjobs --seed 1 \
	--abp-preempted stuck --out "$o"
check "time-waste P=512, ABP frames stuck: ABP much slower" \
	"$(key "$tmp/tw512s.out" abp_time_over_asteal) > 1.5"

# the granularity axis: ABP's slowdown grows as the phases get shorter
# (more span-critical steals, each a search among P deques), and the
# phase-length ranges are honoured
run twfine time-waste --procs 512 --mean-avail 30 --jobs $twjobs --quick \
	--w1 5 --w2 10 --spawn split --out "$o"
run twcoarse time-waste --procs 512 --mean-avail 30 --jobs $twjobs --quick \
	--w1 1000 --w2 2000 --spawn split --out "$o"
check "time-waste: ABP slower against A-STEAL on fine-grained jobs" \
	"$(key "$tmp/twfine.out" abp_time_over_asteal) > 1.3 && \
	 $(key "$tmp/twfine.out" abp_time_over_asteal) > $(key "$tmp/twcoarse.out" abp_time_over_asteal)"
run range run --w1 10:20 --w2 30:40 --spawn split --h 8
w1=$(head -n 1 "$tmp/range.out" | sed -n 's/.*:w1=\([0-9]*\):.*/\1/p')
w2=$(head -n 1 "$tmp/range.out" | sed -n 's/.*:w2=\([0-9]*\):.*/\1/p')
check "run --w1 10:20 --w2 30:40 samples inside the ranges" \
	"$w1 >= 10 && $w1 <= 20 && $w2 >= 30 && $w2 <= 40"
bad run --w1 20:10
bad run --w2 x:10
bad run --w1 5:
echo "ok: bad phase-length ranges exit 2"

# --- utilization: A-STEAL+DEQ ahead of ABP+EQ after the start
run util utilization --quick --procs $uprocs --steps $usteps --out "$o"
f="$tmp/util.out"
check "utilization: A-STEAL+DEQ higher after the first 10%" \
	"$(key "$f" asteal_util_late) > $(key "$f" abp_util_late)"
check "utilization: A-STEAL+DEQ ahead in most intervals" "$(key "$f" asteal_ahead_frac) > 0.7"
check "utilization: within [0, 1]" "$(key "$f" asteal_util) <= 1 && $(key "$f" abp_util) >= 0"
for x in utilization.csv utilization.svg; do
	[ -s "$o/$x" ] || fail "utilization did not write $x"
done

echo "all sim checks passed"
