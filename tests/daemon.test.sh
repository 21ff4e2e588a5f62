#!/bin/sh
# daemon.test.sh BUILD - asteald with real jobs, on a private socket and
# database in a temporary folder:
#  1. fib, phases (long serial phases) and nqueens run together under the
#     daemon and finish with correct results, registered in the history;
#  2. every recorded quantum: allotments sum to at most P, and they are a
#     DEQ answer for the recorded desires (sum = min(P, sum of desires),
#     nobody above its desire, no deprived job more than one below anyone),
#     indeed exactly DEQ's: replayed through deq.c (tests/deq_replay.c);
#  3. a job whose desire stays put (ABP: always its worker count), alone
#     for a measured span D of about 2 s, sends only heartbeats: the
#     daemon takes at most 1 + D / 250 ms + 2 Feedbacks from it (the first
#     says its desire, the daemon assuming 1) and at least D / 250 ms - 2
#     (less the time of the ticks the daemon skipped: when nothing ran),
#     and sends it a handful of Allots, not one a quantum;
#  4. two jobs run together with ASTEAL_TRACE: every row of both traces
#     lies on the daemon's grid, clock_ns = t0 + quantum * L (t0 and L from
#     asteal --json status), and a quantum both traces have has the same
#     clock_ns in both;
#  5. a job killed with SIGKILL gives its CPUs back at the next tick: the
#     survivor has all P CPUs from the quantum after the killed job's last
#     recorded one (with CPUs), and that is the first tick after the job
#     was gone (on CLOCK_MONOTONIC, from its pidfd); killed at any moment,
#     and just after it spoke (its last heartbeat reaches the daemon
#     between the same two ticks as its end);
#  6. after a daemon restart the history is intact and the running job has
#     reconnected under its own id (its row stays open, then is taken
#     back); its trace rows lie on the old daemon's grid up to the
#     reconnection, on the new daemon's (its own t0) after it;
#  7. a job started with no daemon runs standalone (its trace on its own
#     grid, of its own quantum length) and joins when one appears: its
#     rows are on the daemon's grid from then on;
#  8. a live daemon's socket is refused, a stale one replaced; bad options
#     exit 2.
# Every wait is on a condition with a bound.  A check the later parts do
# not build on says FAILED at once and the test goes on, failing at its
# end.
set -u

build=${1:?usage: sh tests/daemon.test.sh BUILD}
san=${ASTEAL_TEST_SAN:-}
. scripts/lib.sh
test_tmp daemon
sock="$tmp/asteald.sock"
db="$tmp/history.db"
log="$tmp/daemon.log"

# Start the daemon (scripts/lib.sh's daemon_start: until it listens), and
# stop it.
start_daemon() { daemon_start --db "$db" --quantum-ms 10 --log-level info; }
stop_daemon() { daemon_stop; }

sql() {
	sqlite3 -cmd ".timeout 2000" "$db" "$@"
}

# Run python code $1 (args: sys.argv[1:]).
py() {
	code=$1
	shift
	python3 -c "$code" "$@"
}

# The number $1 of the daemon's asteal --json status (*_ns: in a string).
status() {
	"$build/bin/asteal" --json status | sed -n "s/.*\"$1\":\"\{0,1\}\([0-9]*\).*/\1/p"
}

# A check the later parts do not build on: FAILED now, and the test fails
# at its end.
failures=""
flunk() {
	echo "FAILED: $*"
	failures="$failures
  $*"
}

# trace_grids FILE GRID...: the complete rows of an ASTEAL_TRACE file
# fall, in order, into one run of rows per GRID, none empty, each row on
# its run's grid: clock_ns = t0 + quantum * L for GRID "T0:L" (ns), or for
# "own:L" with the t0 the run's first row implies; the quanta rise within
# a run.  Prints the runs' lengths, or what is wrong.
trace_grids() {
	py '
import sys
head = ("quantum,time_ns,desire,desire_real,availability,allotment,work_ns,"
        "steal_ns,mug_ns,allotted_ns,class,clock_ns,sleep_ns,preempted_ns,"
        "leave_ns,judged_usage_ns,judged_allotted_ns")
lines = open(sys.argv[1]).read().split("\n")[:-1]  # the last is not complete
if not lines or lines[0] != head:
    sys.exit("%s: no trace header" % sys.argv[1])
rows = [(int(r[0]), int(r[11])) for r in (l.split(",") for l in lines[1:])]
grids = [[None if t0 == "own" else int(t0), int(L)]
         for t0, L in (g.split(":") for g in sys.argv[2:])]
runs = [0] * len(grids)
k, last = 0, -1
for n, (q, c) in enumerate(rows, 1):
    while True:
        t0, L = grids[k]
        if t0 is None and runs[k] == 0:
            t0 = grids[k][0] = c - q * L
        if c == t0 + q * L and q > last:
            runs[k] += 1
            last = q
            break
        if runs[k] == 0 or k + 1 == len(grids):
            sys.exit("row %d: quantum %d, clock_ns %d: not on grid %d of %s "
                     "(rows per grid so far: %s)" % (n, q, c, k + 1,
                     " ".join("%s:%d" % tuple(g) for g in grids), runs))
        k, last = k + 1, -1
if 0 in runs:
    sys.exit("%d rows; none on grid %d" % (len(rows), runs.index(0) + 1))
print(" ".join(str(r) for r in runs))' "$@"
}

# kill9 PID [T0 L OFFSET]: send SIGKILL to job PID; print when it went and
# when the job was gone, its files closed (its pidfd readable), in ns on
# CLOCK_MONOTONIC.  With the daemon's grid (ns), kill it just after it
# spoke: stopped for 300 ms, a heartbeat is due; it goes on 0.5 ms after
# a tick and at once its link thread sends it; 1.5 ms later the SIGKILL,
# which leaves it most of the quantum to be gone before the next tick.
kill9() {
	py '
import os, select, signal, sys, time
def now():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)
def until(t):
    while now() < t:
        time.sleep(max(t - now(), 0) / 1e9)
pid = int(sys.argv[1])
fd = os.pidfd_open(pid)
if len(sys.argv) > 2:
    t0, L, off = (int(a) for a in sys.argv[2:5])
    os.kill(pid, signal.SIGSTOP)
    time.sleep(0.3)
    tick = t0 + ((now() - t0) // L + 1) * L + off
    until(tick + 500000)
    os.kill(pid, signal.SIGCONT)
    until(tick + 2000000)
t = now()
os.kill(pid, signal.SIGKILL)
select.select([fd], [], [], 10)
print(t, now())' "$@"
}

P=$(nproc)
[ "$P" -gt 64 ] && P=64
export ASTEAL_SOCKET="$sock" ASTEAL_WORKERS=$P

if [ -n "$san" ]; then fibn=27; nq=9; ph=3; ph2=2; else fibn=36; nq=12; ph=4; ph2=5; fi

# ---- 1. three jobs together ----
start_daemon
# The scheduler runs real-time where it may (--rt-priority, default 1):
# its start-up line says which, and the kernel agrees.
started() { grep -q 'scheduling .*, history' "$tmp/daemon.log"; }
wait_for 10 started || fail "no start-up line: $(cat "$tmp/daemon.log")"
policy=$(awk '/^policy/ { print $3 }' "/proc/$daemon_pid/sched")
if chrt -f 1 true 2>/dev/null; then
	grep -q 'scheduling fifo 1, history' "$tmp/daemon.log" && [ "$policy" = 1 ] ||
		fail "asteald may run real-time but runs with policy $policy: $(grep scheduling "$tmp/daemon.log")"
else
	grep -q 'scheduling ordinary (fifo 1 refused' "$tmp/daemon.log" ||
		fail "asteald does not say it runs without real-time: $(grep scheduling "$tmp/daemon.log")"
fi
"$build/jobs/fib" $fibn >"$tmp/fib.out" 2>&1 &
p1=$!
"$build/jobs/phases" $ph --w1 60000 --w2 20000 --h 8 >"$tmp/phases.out" 2>&1 &
p2=$!
"$build/jobs/nqueens" $nq >"$tmp/nq.out" 2>&1 &
p3=$!
for p in $p1 $p2 $p3; do wait $p || fail "a job failed: $(cat "$tmp"/*.out)"; done
for f in fib phases nq; do
	grep -q "check=ok" "$tmp/$f.out" || fail "$f: $(cat "$tmp/$f.out")"
	echo "$(cat "$tmp/$f.out")"
done
wait_for 5 sh -c "[ \$(sqlite3 '$db' 'select count(*) from jobs where end_ns is not null') -ge 3 ]" ||
	fail "the three jobs are not closed in the history"
n=$(sql "select count(*) from jobs where name in ('fib','phases','nqueens')")
[ "$n" -eq 3 ] || fail "history has $n of the 3 jobs"

# ---- 2. every recorded quantum is a DEQ answer ----
# (A run of turns, whose allotment went round between two values, holds
# the lower and its processor-quanta in all: in its quanta only the sum's
# bounds are checked here, and deq_replay checks the rest.)
sql "select job, first_quantum, last_quantum, desire, allotment,
            cpu_quanta != allotment * (last_quantum - first_quantum + 1) from allotments" |
awk -F'|' -v P="$P" '
{ for (q = $2; q <= $3; q++) { d[q] = d[q] " " $4; a[q] = a[q] " " $5; t[q] += $6 } }
END {
	nq = 0
	for (q in d) {
		nq++
		n = split(d[q], D, " "); split(a[q], A, " ")
		if (t[q] > 0) {
			sa = 0; sd = 0
			for (i = 1; i <= n; i++) { sa += A[i]; sd += (D[i] > P) ? P : D[i] }
			want = (sd < P) ? sd : P
			if (sa > P || sa + t[q] < want) { print "quantum " q ": turns from " sa " to " sa + t[q] ", DEQ gives " want; bad = 1 }
			continue
		}
		sd = 0; sa = 0; minDep = 1e9; maxA = 0
		for (i = 1; i <= n; i++) {
			dd = (D[i] > P) ? P : D[i]
			sd += dd; sa += A[i]
			if (A[i] > D[i]) { print "quantum " q ": allotment " A[i] " above desire " D[i]; bad = 1 }
			if (A[i] < dd && A[i] < minDep) minDep = A[i]
			if (A[i] > maxA) maxA = A[i]
		}
		want = (sd < P) ? sd : P
		if (sa > P) { print "quantum " q ": allotments sum to " sa " > P = " P; bad = 1 }
		if (sa != want) { print "quantum " q ": sum " sa ", DEQ gives " want; bad = 1 }
		if (minDep < 1e9 && maxA > minDep + 1) { print "quantum " q ": a deprived job got " minDep ", another " maxA; bad = 1 }
	}
	print nq " quanta checked"
	exit bad
}' || flunk "allotments are not DEQ's"
# ... and exactly the answer DEQ gives: replayed through the same module.
cpus=$(taskset -pc $$ | sed 's/.*: *//')
"$build/tests/deq_replay" "$db" "$cpus" || flunk "the recorded allotments are not DEQ's answers"

# ---- 2b. more jobs than CPUs: turns cost no rows ----
# 3P jobs that all want every CPU: DEQ hands the leftovers round them
# every quantum, and each job's allotment takes turns; its rows follow
# changes of its desire, not the turns (history.h, "runs of turns").
before=$(sql "select coalesce(max(id), 0) from jobs")
# Long enough for a hundred quanta or so (40 are needed), sanitized or
# not: fib 42 ran 266-331 quanta in the plain build, fib 38 267-320 in the
# ASan build and 1446-1825 in the TSan build (make check at a3fd427), whose
# fib is about five times slower; fib 35 there is a quarter of that.  Two
# sizes less is 2.6 times less work: about 100 quanta (500 under TSan).
case $san in
tsan) manyn=33 ;;
asan) manyn=36 ;;
*) manyn=40 ;;
esac
pids=""
for i in $(seq $((3 * P))); do
	"$build/jobs/fib" $manyn >"$tmp/many$i.out" 2>&1 &
	pids="$pids $!"
done
for p in $pids; do wait $p || fail "a job failed: $(cat "$tmp"/many*.out)"; done
wait_for 5 sh -c "[ \$(sqlite3 '$db' 'select count(*) from jobs where id > $before and end_ns is not null') -ge $((3 * P)) ]" ||
	fail "the $((3 * P)) jobs are not closed in the history"
q=$(sql "select max(last_quantum) - min(first_quantum) + 1 from allotments a join jobs j on j.id = a.job where j.id > $before")
rows=$(sql "select count(*) from allotments where job > $before")
turned=$(sql "select count(*) from allotments where job > $before and
                 cpu_quanta != allotment * (last_quantum - first_quantum + 1)")
echo "$((3 * P)) jobs on $P CPUs: $rows rows over $q quanta, $turned of them runs of turns"
[ "$turned" -gt 0 ] || flunk "$((3 * P)) jobs on $P CPUs took no turns"
[ "$q" -ge 40 ] || flunk "the $((3 * P)) jobs ran $q quanta only: too short to tell"
# Without turns each deprived job changes every quantum or two: about
# 2P rows a quantum in all; the desires' own changes (which A-STEAL
# makes often under turns, more so sanitized) stay well below P.
[ "$rows" -le $((P * q)) ] ||
	flunk "$rows rows for $((3 * P)) jobs over $q quanta: the turns cost rows"
"$build/tests/deq_replay" "$db" "$cpus" || flunk "the recorded turns are not DEQ's answers"

L=$(($(status quantum_us) * 1000))
[ "$L" -eq 10000000 ] || fail "the daemon's quantum is $L ns, not 10 ms"

# ---- 3. a steady desire: heartbeats only (a job that sends messages) ----
# Alone under the daemon: the counts are the job's.
idle() { [ "$(status jobs)" = 0 ]; }
wait_for 10 idle || fail "jobs are still connected: $(status jobs)"
w0=$(date +%s%N)
f0=$(status feedbacks)
a0=$(status allots)
ASTEAL_NO_PAGE=1 ASTEAL_MODE=abp "$build/jobs/phases" 1000000 --w1 3000 --w2 1000 --h 4 >/dev/null 2>&1 &
steady=$!
connected() { [ "$(status jobs)" = 1 ]; }
wait_for 10 connected || fail "the ABP job did not connect"
w1=$(date +%s%N)
k0=$(status skipped_ticks)
sleep 2         # the span measured: heartbeats come every 250 ms
w2=$(date +%s%N)
f1=$(status feedbacks)
a1=$(status allots)
k1=$(status skipped_ticks)
w3=$(date +%s%N)
connected || fail "the ABP job left early"
kill $steady; wait $steady 2>/dev/null
# It was connected through [w1, w2] at least, within [w0, w3] at most;
# the time the daemon's ticks were skipped (nothing ran: a machine too
# loaded) does not count for heartbeats.
most=$((1 + (w3 - w0) / 250000000 + 2))
least=$(((w2 - w1 - (k1 - k0) * L) / 250000000 - 2))
echo "steady desire: $((f1 - f0)) Feedbacks, $((a1 - a0)) Allots in" \
	"$(((w2 - w1) / 1000000))..$(((w3 - w0) / 1000000)) ms, $((k1 - k0)) ticks skipped" \
	"(Feedbacks allowed: $least..$most)"
[ $((f1 - f0)) -le $most ] ||
	flunk "a job whose desire never changes sent $((f1 - f0)) Feedbacks in $(((w3 - w0) / 1000000)) ms (at most $most)"
[ $((f1 - f0)) -ge $least ] ||
	flunk "a job connected for $(((w2 - w1) / 1000000)) ms sent $((f1 - f0)) Feedbacks: missing heartbeats (at least $least)"
[ $((a1 - a0)) -ge 1 ] && [ $((a1 - a0)) -le 4 ] ||
	flunk "a job whose desire never changes got $((a1 - a0)) Allots (1 to 4 expected)"

# ---- 3b. the same job through its page: no messages, its page read ----
wait_for 10 idle || fail "jobs are still connected: $(status jobs)"
f0=$(status feedbacks)
r0=$(status pages_read)
ASTEAL_MODE=abp "$build/jobs/phases" 1000000 --w1 3000 --w2 1000 --h 4 >/dev/null 2>&1 &
steady=$!
wait_for 10 connected || fail "the ABP job did not connect"
[ "$(status page_jobs)" = 1 ] || flunk "a job with a page: page_jobs $(status page_jobs), not 1"
w1=$(date +%s%N)
read_more() { [ $(($(status pages_read) - r0)) -ge 20 ]; }
wait_for 10 read_more || flunk "its page read $(($(status pages_read) - r0)) times in 10 s"
w2=$(date +%s%N)
f1=$(status feedbacks)
connected || fail "the ABP job left early"
kill $steady; wait $steady 2>/dev/null
echo "through its page: $((f1 - f0)) Feedback messages, page read" \
	"$(($(status pages_read) - r0)) times in $(((w2 - w1) / 1000000)) ms"
[ $((f1 - f0)) -le 1 ] ||
	flunk "a job with a page and a steady desire sent $((f1 - f0)) Feedback messages (1 at most)"

# ---- 3c. allotments through the page: written there, revoked with no
# message, and a job that refuses the page still served by messages ----
wait_for 10 idle || fail "jobs are still connected: $(status jobs)"
pw0=$(status pages_written)
rv0=$(status revocations)
# Three jobs on 2 CPUs: DEQ takes CPUs from one to give another.
"$build/jobs/fib" 45 >/dev/null 2>&1 &
pa=$!
"$build/jobs/fib" 45 >/dev/null 2>&1 &
pb=$!
"$build/jobs/fib" 45 >/dev/null 2>&1 &
pc=$!
three() { [ "$(status jobs)" = 3 ]; }
wait_for 10 three || fail "three fib jobs did not connect"
[ "$(status page_allot_jobs)" = 3 ] ||
	flunk "three jobs that read their allotments in the page: page_allot_jobs $(status page_allot_jobs), not 3"
revoked() { [ $(($(status revocations) - rv0)) -ge 3 ]; }
wait_for 10 revoked || flunk "three fib jobs on 2 CPUs: $(($(status revocations) - rv0)) revocations in 10 s"
pw1=$(status pages_written)
[ $((pw1 - pw0)) -ge 3 ] || flunk "$((pw1 - pw0)) allotments written into pages"
[ "$(status futex_wakes)" -ge 1 ] || flunk "no futex wake of a slot allotted"
kill $pa $pb $pc; wait $pa $pb $pc 2>/dev/null
echo "through the page: $((pw1 - pw0)) allotments written," \
	"$(($(status revocations) - rv0)) revocations reported there"
wait_for 10 idle || fail "the fib jobs did not leave"
ASTEAL_NO_PAGE=1 "$build/jobs/fib" 30 >"$tmp/nopage.out" 2>&1 ||
	flunk "a job without a page failed: $(cat "$tmp/nopage.out")"
grep -q "check=ok" "$tmp/nopage.out" || flunk "a job without a page: $(cat "$tmp/nopage.out")"
[ "$(status page_allot_jobs)" = 0 ] || flunk "page_allot_jobs $(status page_allot_jobs) after they left"

# ---- 4. two jobs' traces: one grid ----
t0=$(status t0_ns)
# The second job's own quantum (7 ms) gives way to the daemon's.
ASTEAL_TRACE="$tmp/ta.csv" "$build/jobs/phases" $ph2 --w1 40000 --w2 20000 --h 8 \
	>"$tmp/ta.out" 2>&1 &
pa=$!
ASTEAL_TRACE="$tmp/tb.csv" ASTEAL_QUANTUM_MS=7 "$build/jobs/phases" $ph2 --w1 30000 --w2 30000 --h 8 \
	>"$tmp/tb.out" 2>&1 &
pb=$!
for p in $pa $pb; do wait $p || fail "a traced job failed: $(cat "$tmp"/t?.out)"; done
grep -q "check=ok" "$tmp/ta.out" && grep -q "check=ok" "$tmp/tb.out" ||
	fail "traced jobs: $(cat "$tmp"/t?.out)"
for f in ta tb; do
	trace_grids "$tmp/$f.csv" "$t0:$L" >/dev/null ||
		flunk "$f.csv: its rows are not on the daemon's grid (t0 $t0, L $L)"
done
py '
import sys
def rows(f):
    return {int(r[0]): int(r[11]) for r in
            (l.split(",") for l in open(f).read().splitlines()[1:])}
a, b = rows(sys.argv[1]), rows(sys.argv[2])
both = sorted(set(a) & set(b))
bad = [q for q in both if a[q] != b[q]]
for q in bad[:5]:
    print("quantum %d: clock_ns %d in one trace, %d in the other" % (q, a[q], b[q]))
print("two traces: %d and %d rows, %d quanta in both" % (len(a), len(b), len(both)))
sys.exit(1 if bad or len(both) < 10 else 0)' "$tmp/ta.csv" "$tmp/tb.csv" ||
	flunk "the two jobs' traces do not share the grid"

# ---- 5. SIGKILL gives the CPUs back at the next tick ----
# Two jobs share the CPUs (each holds some, and wants more: ABP mode, whose
# desire no preemption by other processes lowers); one is killed,
# at any moment, then (another) just after it spoke: its last message and
# its end reach the daemon between the same two ticks.
both_in() { [ "$(sql "select count(*) from jobs where pid in ($victim, $survivor) and end_ns is null")" -eq 2 ]; }
split() {
	"$build/bin/asteal" --json jobs 2>/dev/null | py '
import json, sys
js = {j["pid"]: j for j in json.load(sys.stdin)}
sys.exit(0 if all(p in js and js[p]["desire"] >= 2 and js[p]["allotment"] >= 1
                  for p in map(int, sys.argv[1:])) else 1)' $victim $survivor
}
gone() { [ -n "$(sql "select end_ns from jobs where pid = $victim and end_ns is not null")" ]; }
grown() { [ -n "$(sql "select first_quantum from allotments where job = $sv and allotment = $P and last_quantum > $kq limit 1")" ]; }
# kill_check WHAT [spoke]: start a job beside $survivor, kill it when they
# share the CPUs (kill9, just after it spoke with "spoke"), and check when
# the survivor has them all.  Status 2 when the killed job held no CPUs
# any more: the daemon had found it silent (a machine so loaded that
# nothing ran for a second), and there was nothing to give back.
kill_check() {
	what=$1
	ASTEAL_MODE=abp "$build/jobs/phases" 1 --w1 1 --w2 3000000 --h 64 >/dev/null 2>&1 &
	victim=$!
	wait_for 10 both_in || fail "the two jobs did not register"
	wait_for 10 split || fail "the two jobs did not come to share the CPUs: $("$build/bin/asteal" jobs)"
	t0=$(status t0_ns)
	offset=$(($(status offset_us) * 1000))
	skipped=$(status skipped_ticks)
	if [ $# -gt 1 ]; then
		kill9 $victim "$t0" "$L" "$offset" >"$tmp/kill.out"
	else
		kill9 $victim >"$tmp/kill.out"
	fi || fail "could not kill the job"
	read -r tkill tgone <"$tmp/kill.out"
	wait $victim 2>/dev/null
	# Quanta on the daemon's grid: the one the kill came in, and the
	# first tick after the job was gone (its socket closed).
	killq=$(((tkill - t0) / L))
	tickq=$(((tgone - t0 - offset + L - 1) / L))
	wait_for 5 gone || fail "the killed job's row was not closed"
	# The last quantum it held CPUs in: the one before the tick that saw
	# it gone, at least the one before the kill.
	kq=$(sql "select max(last_quantum) from allotments where allotment > 0 and job = (select id from jobs where pid = $victim)")
	if [ "${kq:-0}" -lt $((killq - 1)) ]; then
		echo "$what: it held no CPUs after quantum ${kq:-0} (killed in $killq): found silent"
		return 2
	fi
	wait_for 10 grown || fail "the survivor never got all $P CPUs"
	skipped=$(($(status skipped_ticks) - skipped))
	gq=$(sql "select min(first_quantum) from allotments where job = $sv and allotment = $P and last_quantum > $kq")
	echo "$what: killed in quantum $killq, gone by the tick of $tickq ($(((tgone - tkill) / 1000)) us later);" \
		"its last recorded quantum $kq; the survivor has all $P CPUs from quantum $gq"
	[ "$gq" -le $((tickq + skipped)) ] ||
		flunk "$what: the survivor got its CPUs at quantum $gq, not at the first tick after it was gone ($tickq; $skipped ticks skipped)"
	[ "$gq" -gt "$kq" ] ||
		flunk "$what: the history has it holding CPUs in quantum $kq, where the survivor already has all $P (from quantum $gq): that quantum's allotments sum above P"
	[ "$gq" -le $((kq + 1 + skipped)) ] ||
		flunk "$what: its CPUs came back $((gq - kq)) quanta after its last one ($skipped ticks skipped)"
}
if [ "$P" -ge 2 ]; then
	ASTEAL_MODE=abp "$build/jobs/phases" 1 --w1 1 --w2 3000000 --h 64 >/dev/null 2>&1 &
	survivor=$!
	in_history() { [ "$(sql "select count(*) from jobs where pid = $survivor")" -eq 1 ]; }
	wait_for 10 in_history || fail "the job to survive did not register"
	sv=$(sql "select id from jobs where pid = $survivor")
	for how in "" spoke; do
		for attempt in 1 2 3; do
			kill_check "a job killed${how:+ just after it spoke}" $how && break
			[ $attempt -lt 3 ] || fail "three times, the job to kill held no CPUs when killed"
		done
	done
	kill $survivor; wait $survivor 2>/dev/null
fi

# ---- 6. restart: history intact, the running job reconnects ----
before=$(sql "select count(*) from jobs")
t0_old=$(status t0_ns)
# (one worker: it only has to run and be traced, and burns one CPU, not all)
ASTEAL_WORKERS=1 ASTEAL_TRACE="$tmp/long.csv" "$build/jobs/phases" 1 --w1 1 --w2 6000000 --h 8 >/dev/null 2>&1 &
long=$!
registered() { [ "$(sql "select count(*) from jobs where pid = $long")" -ge "$1" ]; }
wait_for 10 registered 1 || fail "the long job did not register"
stop_daemon
kill -0 $long 2>/dev/null || fail "the job died with the daemon"
after=$(sql "select count(*) from jobs")
[ "$after" -eq $((before + 1)) ] || fail "history has $after jobs, expected $((before + 1))"
open_rows=$(sql "select count(*) from jobs where pid = $long and end_ns is null")
[ "$open_rows" -eq 1 ] || fail "the running job's row was closed when the daemon stopped"
start_daemon
t0_new=$(status t0_ns)
[ "$t0_new" -gt "$t0_old" ] || fail "the new daemon's t0 $t0_new is not after the old one's $t0_old"
# It claims its id again: the same row, taken back (no second row).
reclaimed() { grep -q "job [0-9]* 'phases' connected: uid [0-9]* pid $long" "$tmp/daemon.log"; }
wait_for 10 reclaimed || fail "the job did not reconnect under its id after the restart"
[ "$(sql "select count(*) from jobs where pid = $long")" -eq 1 ] ||
	fail "the reconnected job got a second history row"
echo "job $long reconnected under its id after the daemon restart; history kept $after jobs"
# Its trace: the old daemon's grid, then the new one's (rows reach the
# file a few kilobytes at a time).
regridded() { trace_grids "$tmp/long.csv" "$t0_old:$L" "$t0_new:$L" >"$tmp/grids" 2>&1; }
if wait_for 20 regridded; then
	echo "its trace rows: $(cut -d' ' -f1 "$tmp/grids") on the old grid, then $(cut -d' ' -f2 "$tmp/grids") on the new"
else
	flunk "the reconnected job's trace is not on the old grid then the new: $(cat "$tmp/grids")"
fi
kill $long; wait $long 2>/dev/null

# ---- 7. standalone, then joins ----
stop_daemon
ASTEAL_WORKERS=1 ASTEAL_TRACE="$tmp/solo.csv" ASTEAL_QUANTUM_MS=7 \
	"$build/jobs/phases" 1 --w1 1 --w2 6000000 --h 8 >/dev/null 2>&1 &
solo=$!
standalone() { trace_grids "$tmp/solo.csv" own:7000000 >"$tmp/grids" 2>&1; }
wait_for 10 standalone ||
	fail "the job wrote no trace on its own grid (7 ms) without a daemon: $(cat "$tmp/grids")"
kill -0 $solo 2>/dev/null || fail "the job did not run without a daemon"
start_daemon
t0=$(status t0_ns)
joined() { [ "$(sql "select count(*) from jobs where pid = $solo")" -ge 1 ]; }
wait_for 10 joined || fail "the standalone job did not join the new daemon"
echo "job $solo ran standalone and joined the daemon"
rejoined() { trace_grids "$tmp/solo.csv" own:7000000 "$t0:$L" >"$tmp/grids" 2>&1; }
if wait_for 20 rejoined; then
	echo "its trace rows: $(cut -d' ' -f1 "$tmp/grids") on its own grid, then $(cut -d' ' -f2 "$tmp/grids") on the daemon's"
else
	flunk "the joined job's trace is not on its own grid then the daemon's: $(cat "$tmp/grids")"
fi
kill $solo; wait $solo 2>/dev/null

# ---- 8. sockets and options ----
if "$build/bin/asteald" --foreground --socket "$sock" --db "$tmp/other.db" >"$tmp/second.log" 2>&1; then
	fail "a second daemon took a live socket"
fi
grep -q "in use" "$tmp/second.log" || fail "no clear message for a live socket: $(cat "$tmp/second.log")"
stop_daemon
# a stale socket file (its daemon killed) is replaced
start_daemon
kill -9 "$daemon_pid"; wait "$daemon_pid" 2>/dev/null; daemon_pid=""
[ -S "$sock" ] || fail "no stale socket left to test with"
start_daemon
grep -q "stale" "$tmp/daemon.log" || fail "the stale socket was not reported as replaced"
stop_daemon
for bad in "--quantum-ms 0" "--cpus 9999" "--bogus" "--log-level loud" "extra"; do
	# shellcheck disable=SC2086
	"$build/bin/asteald" --socket "$tmp/x.sock" --db "$tmp/x.db" $bad >"$tmp/bad.log" 2>&1
	rc=$?
	[ $rc -eq 2 ] || fail "asteald $bad: exit $rc, expected 2"
	[ "$(wc -l <"$tmp/bad.log")" -le 3 ] || fail "asteald $bad: not a short message"
done
[ -z "$failures" ] || fail "$(echo "$failures" | grep -c .) of the checks above failed:$failures"
echo ok
