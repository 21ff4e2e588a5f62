#!/bin/sh
# limit.test.sh BUILD - jobs' time limits (asteal run and submit --time,
# asteald --kill-wait) against a real daemon on a private socket and
# database:
#  1. --time: Slurm's six forms (and 0 and UNLIMITED, none) are the job's
#     limit in the history; any other form is a usage error (exit 2) that
#     names the forms;
#  2. a submitted job that ends on SIGTERM is stopped at its limit, not
#     before: state timeout in history (table, --state, JSON), show, wait
#     (its line, the job's own status 143, JSON timeout), and the
#     supervisor's line in the job's file;
#  3. a job that ignores SIGTERM gets SIGKILL after the daemon's
#     --kill-wait (1 s here), not before: killed by SIGKILL, state timeout;
#  4. run --time: the same in the foreground, its line on standard error,
#     exit 143, run --stats --json's timeout;
#  5. a daemon restart keeps the limit, counted from the job's start: a
#     job whose limit passed while no daemon ran is stopped as its
#     supervisor takes it back, before a limit counted afresh would end.
# The jobs of 2, 3 and 4 run at the same time, each checked as it ends.
# Every wait is on a condition with a bound.
set -u

build=${1:?usage: sh tests/limit.test.sh BUILD}
. scripts/lib.sh
test_tmp limit
day_wait                # its jobs are read back with history's default window (today)
sock="$tmp/asteald.sock"
db="$tmp/history.db"
A="$build/bin/asteal"
NS=1000000000
# asteald's timers run on a coarse clock (libevent's), a few ms early at
# most: a job's elapsed time may fall short of its limit by that much
SLACK=$((NS / 10))

sql() { sqlite3 -cmd ".timeout 2000" "$db" "$@"; }
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
answers() { "$A" status >/dev/null 2>&1; }
ended() { [ -n "$(sql "select end_ns from jobs where id = $1")" ]; }

# Start the daemon and wait until it answers.
start_daemon() {
	"$build/bin/asteald" --foreground --socket "$sock" --db "$db" --quantum-ms 10 \
		--kill-wait 1 >>"$tmp/daemon.log" 2>&1 &
	daemon_pid=$!
	wait_for 20 answers || fail "daemon did not start"
}

# Stop it and wait until it is gone.
stop_daemon() {
	kill "$daemon_pid"
	wait "$daemon_pid" || fail "daemon exited with $? on SIGTERM"
	daemon_pid=""
}

# ---- 1. the forms ----
export ASTEAL_SOCKET=none
for bad in 1:2:3:4 abc 1- -5 5: 1-2-3 "" 1.5 1-2:3:4:5 " 5" 36501-0; do
	expect_rc 2 "$A" submit -t "$bad" -- true
	grep -q -- "--time: '$bad' is not a time limit: MINUTES, MINUTES:SECONDS, HOURS:MINUTES:SECONDS, DAYS-HOURS, DAYS-HOURS:MINUTES or DAYS-HOURS:MINUTES:SECONDS" "$tmp/err" ||
		fail "submit -t '$bad': $(cat "$tmp/err")"
done
expect_rc 2 "$A" run --time 1:2:3:4 -- true
export ASTEAL_SOCKET="$sock"
start_daemon
for form in 5=300 5:30=330 1:02:03=3723 90:90=5490 2-3=183600 2-3:04=183840 \
	2-3:04:05=183845 0=0 UNLIMITED=0 infinite=0; do
	id=$("$A" submit --parsable -c 1 -t "${form%=*}" -o /dev/null -- true) ||
		fail "submit -t ${form%=*}: refused"
	got=$(sql "select time_limit_ns from jobs where id = $id")
	[ "$got" = $((${form#*=} * NS)) ] || fail "submit -t ${form%=*}: a limit of $got ns"
done
expect_rc 0 "$A" --json history --jobs "$id"
[ "$(json 'd["jobs"][0]["time_limit_ns"]' <"$tmp/out")" = 0 ] ||
	fail "no limit in JSON: $(cat "$tmp/out")"
echo "forms: Slurm's six, 0 and UNLIMITED kept; others refused (exit 2)"

# ---- 2, 3 and 4 start together ----
id2=$("$A" submit --parsable -c 1 -t 0:02 -o "$tmp/t2.out" -- sleep 300) || fail "submit 2"
id3=$("$A" submit --parsable -c 1 -t 0:02 -o "$tmp/t3.out" --wrap 'trap "" TERM; exec sleep 300') ||
	fail "submit 3"
"$A" --json run --stats -c 1 -t 0:01 -- sleep 300 >"$tmp/out4" 2>"$tmp/err4" &
run4=$!

# ---- 2. stopped at its limit ----
expect_rc 143 "$A" wait "$id2"
grep -qx "asteal: job $id2: timeout: stopped at its time limit (killed by SIGTERM)" "$tmp/err" ||
	fail "wait on a timed-out job said: $(cat "$tmp/err")"
grep -qx "asteal: job $id2: time limit (00:00:02) reached: SIGTERM" "$tmp/t2.out" ||
	fail "the job's file: $(cat "$tmp/t2.out")"
[ $(($(sql "select end_ns - start_ns from jobs where id = $id2") >= 2 * NS - SLACK)) = 1 ] ||
	fail "job $id2 stopped before its limit: $(sql "select end_ns - start_ns from jobs where id = $id2") ns"
expect_rc 0 "$A" history --jobs -n -o id,state,status,timelimit "$id2"
[ "$(tr -s ' ' <"$tmp/out" | sed 's/^ //')" = "$id2 timeout killed by SIGTERM 2.0s" ] ||
	fail "history --jobs: $(cat "$tmp/out")"
expect_rc 0 "$A" history --jobs -n -o id --state timeout
# job 2, and no job but those that time out here (4 has ended already)
run4_id=$(sql "select id from jobs where time_limit_ns = $NS")
tr -d ' ' <"$tmp/out" | grep -qx "$id2" &&
	! tr -d ' ' <"$tmp/out" | grep -vqx -e "$id2" -e "$id3" -e "$run4_id" ||
	fail "history --state timeout: $(cat "$tmp/out")"
expect_rc 0 "$A" --json history --jobs "$id2"
[ "$(json 'd["jobs"][0]["state"], d["jobs"][0]["timeout"], d["jobs"][0]["time_limit_ns"], d["jobs"][0]["signal"]' <"$tmp/out")" = \
	"timeout True 2000000000 15" ] || fail "history --json: $(cat "$tmp/out")"
expect_rc 143 "$A" --json wait "$id2"
[ "$(json 'd["timed_out"], d["timeout"], d["signal"]' <"$tmp/out")" = "False True 15" ] ||
	fail "wait --json: $(cat "$tmp/out")"
expect_rc 0 "$A" show "$id2"
grep -q '^  STATE  *timeout$' "$tmp/out" && grep -q '^  TIMELIMIT  *2.0s$' "$tmp/out" ||
	fail "show: $(cat "$tmp/out")"
expect_rc 0 "$A" --json show "$id2"
[ "$(json 'd[0]["history"]["state"], d[0]["history"]["timeout"]' <"$tmp/out")" = "timeout True" ] ||
	fail "show --json: $(cat "$tmp/out")"
echo "submit --time: job $id2 stopped at 2 s, state timeout in history, show and wait"

# ---- 3. SIGKILL after the kill-wait ----
expect_rc 137 "$A" wait "$id3"
grep -qx "asteal: job $id3: timeout: stopped at its time limit (killed by SIGKILL)" "$tmp/err" ||
	fail "wait on a job killed at its limit said: $(cat "$tmp/err")"
grep -qx "asteal: job $id3: time limit (00:00:02) reached: SIGTERM" "$tmp/t3.out" &&
	grep -qx "asteal: job $id3: still running after its time limit (00:00:02): SIGKILL" "$tmp/t3.out" ||
	fail "the job's file: $(cat "$tmp/t3.out")"
[ $(($(sql "select end_ns - start_ns from jobs where id = $id3") >= 3 * NS - SLACK)) = 1 ] ||
	fail "job $id3 was killed before the kill-wait: $(sql "select end_ns - start_ns from jobs where id = $id3") ns"
[ "$(sql "select timed_out, exit_status from jobs where id = $id3")" = "1|9" ] ||
	fail "job $id3's row: $(sql "select timed_out, exit_status from jobs where id = $id3")"
echo "kill-wait: job $id3 ignored SIGTERM, got SIGKILL 1 s later"

# ---- 4. run --time ----
wait "$run4"
rc=$?
[ "$rc" -eq 143 ] || fail "run --time 0:01: exit $rc, expected 143: $(cat "$tmp/err4")"
id4=$(json 'd["job_id"]' <"$tmp/out4")
grep -qx "asteal: job $id4: time limit (00:00:01) reached: SIGTERM" "$tmp/err4" ||
	fail "run --time said: $(cat "$tmp/err4")"
[ "$(json 'd["timeout"], d["signal"]' <"$tmp/out4")" = "True 15" ] ||
	fail "run --stats --json: $(cat "$tmp/out4")"
[ $(($(sql "select end_ns - start_ns from jobs where id = $id4") >= NS - SLACK)) = 1 ] ||
	fail "job $id4 stopped before its limit: $(sql "select end_ns - start_ns from jobs where id = $id4") ns"
[ "$(sql "select timed_out from jobs where id = $id4")" = 1 ] || fail "job $id4 not timed out"
echo "run --time: job $id4 stopped at 1 s, exit 143"

# ---- 5. across a restart ----
id5=$("$A" submit --parsable -c 1 -t 0:03 -o /dev/null -- sleep 300) || fail "submit 5"
start5=$(sql "select start_ns from jobs where id = $id5")
stop_daemon
[ -z "$(sql "select end_ns from jobs where id = $id5")" ] ||
	fail "job $id5 ended before the daemon stopped: nothing left to test"
overdue() { [ "$(date +%s%N)" -gt $((start5 + 3 * NS)) ]; }
wait_for 20 overdue || fail "the clock did not pass job $id5's limit"
restart=$(date +%s%N)
start_daemon
wait_for 20 ended "$id5" || fail "job $id5, overdue, was not stopped after the restart"
[ "$(sql "select timed_out, exit_status from jobs where id = $id5")" = "1|15" ] ||
	fail "job $id5's row: $(sql "select timed_out, exit_status from jobs where id = $id5")"
end5=$(sql "select end_ns from jobs where id = $id5")
[ $((end5 < restart + 3 * NS)) = 1 ] ||
	fail "job $id5's limit was counted afresh after the restart (ended $(((end5 - restart) / 1000000)) ms after it)"
echo "restart: job $id5's limit kept from its start, stopped as it was taken back"

stop_daemon
echo ok
