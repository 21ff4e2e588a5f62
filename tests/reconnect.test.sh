#!/bin/sh
# reconnect.test.sh BUILD - a job's time away from the daemon, against a
# real asteald on a private socket and database:
#  1. a running job whose daemon stopped reconnects as the next daemon
#     binds its socket: within 1 s of the new daemon's "listening" line
#     (both instants from the daemon's own log), after 3.3 s without a
#     daemon (with only the backoff, 0.1 s doubling to 2 s, its next try
#     came about 1.8 s after the daemon listened);
#  2. what it ran meanwhile reaches its history: once it has ended, its
#     row's allotted time is its own (its ASTEAL_STATS summary's work,
#     steal, mug, sleep and preempted time) within 5% or 0.25 s, where
#     its 3.3 s away (a quarter of it) were missing; the daemon's log says
#     what it added.
# Every wait is on a condition with a bound; the 3.3 s without a daemon
# is the scenario, not a wait.
set -u

build=${1:?usage: sh tests/reconnect.test.sh BUILD}
. scripts/lib.sh
test_tmp reconnect
sock="$tmp/asteald.sock"
db="$tmp/history.db"
log="$tmp/daemon.log"


sql() {
	sqlite3 -cmd ".timeout 2000" "$db" "$@"
}


# The instant of the last log line matching $1, in ms of its day (the
# log's lines start "YYYY-MM-DD HH:MM:SS.mmm").
log_ms() {
	grep "$1" "$log" | tail -n 1 |
		awk '{ split($2, t, ":"); printf "%d\n", ((t[1] * 60 + t[2]) * 60 + t[3]) * 1000 }'
}

# ---- 1. a job reconnects as the daemon comes back ----
daemon_start --db "$db" --quantum-ms 10 --log-level info
# One worker (about 6 s of work on one CPU: it outlasts the 3.3 s away and
# the reconnection, and burns one CPU, not all).
ASTEAL_SOCKET="$sock" ASTEAL_STATS=1 ASTEAL_WORKERS=1 \
	"$build/jobs/phases" 1 --w1 1 --w2 4500000 --h 2 >"$tmp/job.out" 2>"$tmp/job.err" &
job=$!
registered() { grep -q "registered: uid [0-9]* pid $job," "$log"; }
wait_for 10 registered || fail "the job did not register"
daemon_stop
sleep 3.3
kill -0 $job 2>/dev/null || fail "the job ended while the daemon was down"
daemon_start --db "$db" --quantum-ms 10 --log-level info
reconnected() { grep -q "'phases' connected: uid [0-9]* pid $job," "$log"; }
wait_for 10 reconnected || fail "the job did not reconnect under its id"
up=$(log_ms 'listening on')
back=$(log_ms "'phases' connected: uid [0-9]* pid $job,")
delay=$((back - up))
[ $delay -lt 0 ] && delay=$((delay + 86400000))    # across midnight
echo "the job reconnected $delay ms after the new daemon listened"
[ $delay -le 1000 ] || fail "the job reconnected $delay ms after the daemon listened, not within 1000 ms"

# ---- 2. its time away reaches its history ----
ended() { ! kill -0 $job 2>/dev/null; }
wait_for 300 ended || fail "the job did not end"
wait $job || fail "the job failed: $(cat "$tmp/job.err")"
row_ended() { [ "$(sql "select count(*) from jobs where pid = $job and end_ns is not null")" -eq 1 ]; }
wait_for 10 row_ended || fail "the job's row did not end"
# Its own allotted time: work + steal + sleep + mug + preempted, in ms.
own=$(sed -n 's/.*work_s=\([0-9.]*\).*(steal \([0-9.]*\) s, sleep \([0-9.]*\) s, mug \([0-9.]*\) s) preempted_s=\([0-9.]*\).*/\1 \2 \3 \4 \5/p' "$tmp/job.err" |
	awk '{ printf "%d\n", ($1 + $2 + $3 + $4 + $5) * 1000 }')
[ -n "$own" ] || fail "no summary from the job: $(cat "$tmp/job.err")"
hist=$(sql "select allotted_ns / 1000000 from jobs where pid = $job")
away=$(sql "select coalesce(sum(allotted_ns), 0) / 1000000 from away")
echo "its allotted time: $own ms by its own count, $hist ms in its history ($away ms of it away)"
grep -q "while no daemon had it, added to its history" "$log" || fail "the daemon did not say what it added"
diff=$((hist - own))
[ $diff -lt 0 ] && diff=$((-diff))
[ $diff -le 250 ] || [ $((diff * 20)) -le "$own" ] ||
	fail "its history has $hist ms allotted, its own count $own ms"
echo ok
