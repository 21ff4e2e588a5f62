#!/bin/sh
# daemon.test.sh BUILD - asteald with real jobs, on a private socket and
# database in a temporary folder:
#  1. fib, phases (long serial phases) and nqueens run together under the
#     daemon and finish with correct results, registered in the history;
#  2. every recorded quantum: allotments sum to at most P, and they are a
#     DEQ answer for the recorded desires (sum = min(P, sum of desires),
#     nobody above its desire, no deprived job more than one below anyone),
#     indeed exactly DEQ's: replayed through deq.c (tests/deq_replay.c);
#  3. a job killed with SIGKILL gives its CPUs back within a quantum or two:
#     the survivor's allotment grows right after;
#  4. after a daemon restart the history is intact and the running job has
#     reconnected under its own id (its row stays open, then is taken back);
#  5. a job started with no daemon runs standalone and joins when one
#     appears;
#  6. a live daemon's socket is refused, a stale one replaced; bad options
#     exit 2.
# Every wait is on a condition with a bound.
set -u

build=${1:?usage: sh tests/daemon.test.sh BUILD}
san=${ASTEAL_TEST_SAN:-}
. scripts/lib.sh
test_tmp daemon
sock="$tmp/asteald.sock"
db="$tmp/history.db"

# Start the daemon and wait until it listens (its n-th "listening" line).
starts=0
listening() { [ "$(grep -c 'listening on' "$tmp/daemon.log" 2>/dev/null)" -ge "$starts" ]; }
start_daemon() {
	starts=$((starts + 1))
	"$build/bin/asteald" --foreground --socket "$sock" --db "$db" \
		--quantum-ms 10 --log-level info >>"$tmp/daemon.log" 2>&1 &
	daemon_pid=$!
	wait_for 10 listening || fail "daemon did not start"
}

stop_daemon() {
	kill "$daemon_pid"
	wait "$daemon_pid" || fail "daemon exited with $? on SIGTERM"
	daemon_pid=""
}

sql() {
	sqlite3 -cmd ".timeout 2000" "$db" "$@"
}

P=$(nproc)
[ "$P" -gt 64 ] && P=64
export ASTEAL_SOCKET="$sock" ASTEAL_WORKERS=$P

if [ -n "$san" ]; then fibn=27; nq=9; ph=3; else fibn=36; nq=12; ph=4; fi

# ---- 1. three jobs together ----
start_daemon
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
sql "select job, first_quantum, last_quantum, desire, allotment from allotments" |
awk -F'|' -v P="$P" '
{ for (q = $2; q <= $3; q++) { d[q] = d[q] " " $4; a[q] = a[q] " " $5 } }
END {
	nq = 0
	for (q in d) {
		nq++
		n = split(d[q], D, " "); split(a[q], A, " ")
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
}' || fail "allotments are not DEQ's"
# ... and exactly the answer DEQ gives: replayed through the same module.
cpus=$(taskset -pc $$ | sed 's/.*: *//')
"$build/tests/deq_replay" "$db" "$cpus" || fail "the recorded allotments are not DEQ's answers"

# ---- 3. SIGKILL gives the CPUs back ----
if [ "$P" -ge 2 ]; then
	"$build/jobs/phases" 1 --w1 1 --w2 3000000 --h 64 >/dev/null 2>&1 &
	victim=$!
	"$build/jobs/phases" 1 --w1 1 --w2 3000000 --h 64 >/dev/null 2>&1 &
	survivor=$!
	both_in() { [ "$(sql "select count(*) from jobs where pid in ($victim, $survivor) and end_ns is null")" -eq 2 ]; }
	wait_for 10 both_in || fail "the two jobs did not register"
	sleep 0.5       # let their desires rise and the split settle
	kill -9 $victim
	t=$(($(date +%s%N)))
	wait $victim 2>/dev/null
	gone() { [ -n "$(sql "select end_ns from jobs where pid = $victim and end_ns is not null")" ]; }
	wait_for 5 gone || fail "the killed job's row was not closed"
	sv=$(sql "select id from jobs where pid = $survivor")
	grown() { [ -n "$(sql "select first_quantum from allotments where job = $sv and allotment = $P and start_ns >= (select end_ns from jobs where pid = $victim) - 20000000 limit 1")" ]; }
	wait_for 10 grown || { kill $survivor; fail "the survivor never got all $P CPUs"; }
	kq=$(sql "select max(last_quantum) from allotments where job = (select id from jobs where pid = $victim)")
	gq=$(sql "select min(first_quantum) from allotments where job = $sv and allotment = $P and first_quantum > $kq")
	echo "killed job's last quantum $kq; survivor has all $P CPUs from quantum $gq"
	[ -n "$gq" ] && [ $((gq - kq)) -le 2 ] || { kill $survivor; fail "CPUs came back after $((gq - kq)) quanta"; }
	kill $survivor; wait $survivor 2>/dev/null
fi

# ---- 4. restart: history intact, the running job reconnects ----
before=$(sql "select count(*) from jobs")
"$build/jobs/phases" 1 --w1 1 --w2 6000000 --h 8 >/dev/null 2>&1 &
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
# It claims its id again: the same row, taken back (no second row).
reclaimed() { grep -q "job [0-9]* 'phases' connected: uid [0-9]* pid $long" "$tmp/daemon.log"; }
wait_for 10 reclaimed || fail "the job did not reconnect under its id after the restart"
[ "$(sql "select count(*) from jobs where pid = $long")" -eq 1 ] ||
	fail "the reconnected job got a second history row"
echo "job $long reconnected under its id after the daemon restart; history kept $after jobs"
kill $long; wait $long 2>/dev/null

# ---- 5. standalone, then joins ----
stop_daemon
"$build/jobs/phases" 1 --w1 1 --w2 6000000 --h 8 >/dev/null 2>&1 &
solo=$!
sleep 0.2
kill -0 $solo 2>/dev/null || fail "the job did not run without a daemon"
start_daemon
joined() { [ "$(sql "select count(*) from jobs where pid = $solo")" -ge 1 ]; }
wait_for 10 joined || fail "the standalone job did not join the new daemon"
echo "job $solo ran standalone and joined the daemon"
kill $solo; wait $solo 2>/dev/null

# ---- 6. sockets and options ----
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
echo ok
