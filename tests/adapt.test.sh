#!/bin/sh
# adapt.test.sh BUILD - A-STEAL in libasteal, driven through the real jobs
# and their traces (ASTEAL_TRACE):
#  1. every job, in the asteal, abp and static modes, under a fast uniform
#     random availability profile (1 ms quanta, 4 workers): check=ok and
#     the same result in every mode; in every trace row the allotment is
#     min(desire, availability);
#  2. desire rises to the worker count on a highly parallel job (fib),
#     unless its threads were preempted;
#  3. on phases with long serial phases, desire falls to 1 within
#     log_rho(workers) quanta of each serial phase and rises to the worker
#     count within as many of each parallel one;
#  4. a job whose CPU a hog shares is inefficient and asks for less.
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
# allotted (10) = work + steal + mug + sleep + preempted (7, 8, 9, 13, 14),
# the judged usage and allotted time (16, 17) within work + mug and allotted;
# quanta (1) rise from 1
# (a boundary the link thread was late for is skipped, not queued), and
# each row's clock time (12) is the start of its quantum on the grid:
# the first row's plus L for each quantum since.
check_trace() {
	[ -s "$1" ] || fail "no trace $1"
	head -1 "$1" | grep -q '^quantum,time_ns,desire,desire_real,availability,allotment,work_ns,steal_ns,mug_ns,allotted_ns,class,clock_ns,sleep_ns,preempted_ns,leave_ns,judged_usage_ns,judged_allotted_ns$' ||
		fail "bad trace header in $1"
	awk -F, -v L="${2:-1000000}" 'NR > 1 {
		m = ($3 < $5) ? $3 : $5
		if ($6 != m) { print "row " $1 ": allotment " $6 " != min(" $3 ", " $5 ")"; bad = 1 }
		if ($10 != $7 + $8 + $9 + $13 + $14) { print "row " $1 ": allotted != work+steal+mug+sleep+preempted"; bad = 1 }
		if ($16 > $7 + $9 || $17 > $10) { print "row " $1 ": judged beyond its usage or allotted time"; bad = 1 }
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

# The worker count for parts 2 to 4: usage is measured on the threads' CPU
# clocks, so more workers than CPUs could never look efficient.
W=$(nproc)
[ "$W" -le 4 ] || W=4
[ "$W" -ge 2 ] || { echo "skip: parts 2-4 need 2 CPUs"; echo ok; exit 0; }
echo "$W" >"$tmp/all"

# check_rows TRACE KIND [PHASE_LOG]: the estimator's reaction in the trace
# of a run with W workers, all available (ASTEAL_PROFILE all), rho 1.5:
#   fib     the job is never inefficient but when preempted (10% of its
#           allotted time or more, or as much as its usage falls short of
#           efficiency, counted W - 1 times: a worker preempted while it
#           holds the work leaves the others stealing), in a quantum cut
#           short (half of it
#           allotted or less) or in its first or last two (or, among its
#           last five, one in which a worker slept: no work anywhere, its
#           last joins), and its desire
#           reaches W unless preemption kept it from k = ceil(log_rho W)
#           efficient quanta in a row;
#   phases  in each parallel phase the reported desire is W within k
#           estimates from the phase's first full quantum (a skipped
#           boundary is one estimate), plus the quanta it was excused
#           (inefficient while preempted; any quantum cut short, with a
#           worker leaving, or late); in each serial phase it is 1 within
#           k estimates, plus those cut short, leaving or late;
#   hog     (a CPU hog shares one of the job's CPUs) some quantum at
#           allotment W is inefficient with a fifth of its allotted time
#           preempted, the desire falls after it, in a tenth of the quanta
#           or more the desire is below W (its real value: rounded up it
#           stays W unless two such quanta come in a row, as the kernel's
#           time slices may or may not fall), and the CPU clocks counted some of
#           the allotted time as usage (5% or more: a clock that counted
#           nothing would make every quantum look preempted);
#   every row, in all three: its class follows from its judged usage and
#           allotted time (those of the workers allotted at its end),
#           allotment and desire, and the next row's desire from its class
#           (Fig. 1), so the trace is what the estimator saw; and the
#           judged figures are within the quantum's.
# Excused from "never inefficient" and from the phases' deadlines: quanta
# preempted, cut short, with a worker leaving, or longer than 1.5 L (the
# link thread ran late).
check_rows() {
	python3 - "$@" "$W" <<'EOF' || fail "$2: $1"
import math, sys
trace, kind = sys.argv[1], sys.argv[2]
log = sys.argv[3] if len(sys.argv) > 4 else None
W = int(sys.argv[-1])
k = math.ceil(math.log(W) / math.log(1.5))
L = 1000000
rows, every = [], []
for line in open(trace).read().split("\n")[1:]:
    f = line.split(",")
    if len(f) < 17:
        continue
    r = dict(q=int(f[0]), d=int(f[2]), dr=float(f[3]), a=int(f[5]),
             use=int(f[6]) + int(f[8]), al=int(f[9]), cls=f[10],
             clk=int(f[11]), sl=int(f[12]), pre=int(f[13]), lv=int(f[14]),
             juse=int(f[15]), jal=int(f[16]))
    r["line"] = line
    every.append(r)
    if r["cls"] != "idle":
        rows.append(r)
def preempted(r):
    # 10% of its allotted time taken by the host, or enough to explain
    # the shortfall: a worker preempted while it holds the work leaves
    # each of the W - 1 others looking for some, so the host's time
    # (pre) may cost up to (W - 1) x pre of usage (a loaded host, as
    # under the sanitizers beside other work).
    return r["al"] > 0 and (r["pre"] >= 0.1 * r["al"] or
                            r["juse"] + (W - 1) * r["pre"] >= 0.8 * r["jal"])
def partial(r):  # the job's first quantum, or one cut short by a wake-up
    return r["al"] < 0.5 * r["a"] * L
def odd(r):      # a leaving worker held work, or the link thread was late
    return r["lv"] > 0 or r["al"] > 1.5 * r["a"] * L
def excused(r):
    return r["cls"] == "inefficient" and (preempted(r) or partial(r) or odd(r))
bad = []
# Every row, whatever the load: its class follows from its figures, and the
# next row's desire from its class (Fig. 1, delta 0.8, rho 1.5, in [1, W]).
for r, n in zip(every, every[1:]):
    if r["cls"] == "idle" or n["cls"] == "idle":
        continue
    cls = ("inefficient" if r["juse"] < 0.8 * r["jal"] else
           "satisfied" if r["a"] == r["d"] else "deprived")
    d = {"inefficient": r["dr"] / 1.5, "satisfied": r["dr"] * 1.5,
         "deprived": r["dr"]}[cls]
    d = min(max(d, 1.0), W)
    if r["juse"] > r["use"] or r["jal"] > r["al"]:
        bad.append("quantum %d: judged %d of %d ns, beyond its usage %d of %d"
                   % (r["q"], r["juse"], r["jal"], r["use"], r["al"]))
    if cls != r["cls"] or abs(n["dr"] - d) > 1e-3 * d:
        bad.append("quantum %d: %s with usage %d of %d ns, allotment %d of %d, "
                   "then desire %.4f (expected %s, %.4f)"
                   % (r["q"], r["cls"], r["juse"], r["jal"], r["a"], r["d"],
                      n["dr"], cls, d))
if kind == "fib":
    run = best = 0
    tail = rows[-5:]
    for r in rows[1:-2]:
        # near its end, a quantum in which a worker slept found no work
        # anywhere: fib's last joins, which under a sanitizer's slowness
        # span more than the last two 1-ms quanta
        if r["cls"] == "inefficient" and not excused(r) and \
           not (r["sl"] > 0 and r in tail):
            bad.append("quantum %d inefficient: %s" % (r["q"], r["line"]))
        run = run + 1 if r["cls"] != "inefficient" else 0
        best = max(best, run)
    top = max(r["d"] for r in rows)
    print("fib: %d quanta, highest desire %d of %d, %d efficient in a row"
          % (len(rows), top, W, best))
    if top < W and best > k:
        bad.append("desire rose only to %d of %d" % (top, W))
elif kind == "phases":
    marks = [l.split() for l in open(log).read().split("\n") if l]
    checked = [0, 0]
    for (what, t), (_, t_end) in zip(marks, marks[1:]):
        t, t_end = int(t), int(t_end)
        inside = [r for r in rows if r["clk"] >= t and r["clk"] + L <= t_end]
        if len(inside) < k + 3:
            continue
        # Row i of the phase runs with the desire of i estimates since the
        # phase's first full quantum (a skipped boundary is one estimate).
        want = W if what == "parallel" else 1
        steps, hit = k, False
        for i, r in enumerate(inside):
            if i > steps:
                break
            if r["d"] == want:
                hit = True
                break
            if (what == "parallel" and excused(r)) or odd(r) or partial(r):
                steps += 1
        checked[what == "parallel"] += 1
        if not hit:
            bad.append("%s phase from quantum %d: desire not %d within %d estimates: %s"
                       % (what, inside[0]["q"], want, steps,
                          [(r["q"], r["d"], r["cls"], r["pre"], r["al"])
                           for r in inside[:steps + 1]]))
    print("phases: %d serial and %d parallel phases checked (k = %d)"
          % (checked[0], checked[1], k))
    if checked[0] < 2 or checked[1] < 2:
        bad.append("too few phases long enough to check")
else:
    hits = [i for i, r in enumerate(rows[:-3])
            if r["a"] == W and r["cls"] == "inefficient" and r["pre"] >= 0.2 * r["al"]
            and rows[i + 1]["dr"] < r["dr"]]
    less = sum(1 for r in rows if r["dr"] < W - 1e-9)
    ran = sum(r["use"] for r in rows) / max(1, sum(r["al"] for r in rows))
    print("hog: %d quanta, %d inefficient while preempted then lower, %d with desire"
          " below %d; usage %.2f of the allotted time" % (len(rows), len(hits),
          less, W, ran))
    if not hits or less * 10 < len(rows):
        bad.append("the preempted job did not ask for less")
    if ran < 0.05:
        bad.append("usage %.2f of the allotted time: the CPU clocks did not count"
                   " what the job ran" % ran)
for b in bad[:5]:
    print(b)
sys.exit(1 if bad else 0)
EOF
}

# 2. Desire rises to the worker count on fib (all processors available),
# on a fib large enough to last 20 quanta on this build.
n=24
while :; do
	ASTEAL_WORKERS=$W ASTEAL_QUANTUM_MS=1 ASTEAL_PROFILE="$tmp/all" \
		ASTEAL_TRACE="$tmp/fib.csv" "$build/jobs/fib" $n >/dev/null || fail "fib $n"
	[ "$(wc -l <"$tmp/fib.csv")" -gt 20 ] || [ $n -ge 38 ] && break
	n=$((n + 2))
done
check_trace "$tmp/fib.csv"
check_rows "$tmp/fib.csv" fib

# 3. phases: 40 ms serial phases between 8-way parallel ones, on a scripted
# profile (all W available); the desire follows each phase within
# log_rho(W) quanta (check_rows).
ASTEAL_WORKERS=$W ASTEAL_QUANTUM_MS=1 ASTEAL_PROFILE="$tmp/all" \
	ASTEAL_TRACE="$tmp/phases.csv" "$build/jobs/phases" 4 --w1 40000 \
	--w2 20000 --h 8 --phase-log "$tmp/phases.log" >/dev/null || fail "phases"
check_trace "$tmp/phases.csv"
check_rows "$tmp/phases.csv" phases "$tmp/phases.log"

# 4. A CPU hog on the second of two CPUs the job may run on: the preempted
# job is inefficient and asks for less (check_rows).  The fib is sized to
# last 100 quanta or more beside the hog (a sanitizer build runs a given
# size in a few quanta, too few to judge), starting from part 2's size.
set -- $(python3 -c 'import os; c = sorted(os.sched_getaffinity(0)); print(c[0], c[1])')
taskset -c "$2" sh -c 'while :; do :; done' &
hog=$!
echo 2 >"$tmp/two"
n=$((n + 4))
while :; do
	ASTEAL_WORKERS=2 ASTEAL_QUANTUM_MS=1 ASTEAL_PROFILE="$tmp/two" \
		ASTEAL_TRACE="$tmp/hog.csv" timeout 300 taskset -c "$1,$2" \
		"$build/jobs/fib" $n >/dev/null
	rc=$?
	[ $rc -eq 0 ] || break
	[ "$(wc -l <"$tmp/hog.csv")" -gt 100 ] || [ $n -ge 40 ] && break
	n=$((n + 2))
done
kill $hog
wait $hog 2>/dev/null
[ $rc -ne 124 ] || fail "fib $n beside a hog did not end in 300 s"
[ $rc -eq 0 ] || fail "fib $n beside a hog: exit $rc"
check_trace "$tmp/hog.csv"
W=2 check_rows "$tmp/hog.csv" hog
echo ok
