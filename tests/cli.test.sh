#!/bin/sh
# cli.test.sh BUILD - the `asteal` command line starting and following jobs
# against a real daemon on a private socket and database:
#  1. run: output passes through, the job's exit code comes back (128 + N
#     when signal N killed it, 127 for a missing program), the job claims
#     the id the command line got (same history row, with its exit status
#     and usage), --stats prints a summary (--json: parsed);
#  2. submit: the id at once (--parsable), --output gets the job's output,
#     wait returns the job's exit code, --timeout gives up (124);
#  3. cancel: refused to another uid (77, run with setpriv), done for the
#     owner (through the supervisor, or by the daemon for a job nobody
#     supervises);
#  4. exit codes: 69 with no daemon (one clear line), 77 when the socket's
#     permissions refuse us, 2 for usage errors;
#  5. the global options after the command too (--socket PATH,
#     --socket=PATH, --json), as git and systemctl take them, but never
#     out of a program's arguments (run/submit: after the program or "--")
#     nor as an option's value (-J --json); --socket without a value says
#     the value is missing (exit 2); `asteal plot` points to history --plot.
# Every wait is on a condition with a bound.
set -u

build=${1:?usage: sh tests/cli.test.sh BUILD}
san=${ASTEAL_TEST_SAN:-}
. scripts/lib.sh
test_tmp cli
day_wait                # its jobs are read back with history's default window (today)
chmod 755 "$tmp"                # the second uid must reach the socket
sock="$tmp/asteald.sock"
db="$tmp/history.db"
A="$build/bin/asteal"


sql() { sqlite3 -cmd ".timeout 2000" "$db" "$@"; }
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

listening() { grep -q 'listening on' "$tmp/daemon.log" 2>/dev/null; }
"$build/bin/asteald" --foreground --socket "$sock" --db "$db" --quantum-ms 10 \
	>"$tmp/daemon.log" 2>&1 &
daemon_pid=$!
wait_for 10 listening || fail "daemon did not start"
export ASTEAL_SOCKET="$sock"
if [ -n "$san" ]; then fibn=24; else fibn=32; fi

# ---- 1. run ----
expect_rc 0 "$A" run -- "$build/jobs/fib" $fibn
grep -q "check=ok" "$tmp/out" || fail "run: the job's output did not pass through"
expect_rc 7 "$A" run -- sh -c 'exit 7'
expect_rc 143 "$A" run -- sh -c 'kill -TERM $$'
expect_rc 137 "$A" run -- sh -c 'kill -KILL $$'
expect_rc 127 "$A" run -- "$tmp/no-such-program"
grep -q "no-such-program" "$tmp/err" || fail "run: a missing program is not named"
expect_rc 0 "$A" run --name idprobe -- sh -c 'echo "id=$ASTEAL_JOB_ID name=$ASTEAL_JOB_NAME"'
grep -q "^id=[0-9][0-9]* name=idprobe$" "$tmp/out" || fail "run: the job's environment: $(cat "$tmp/out")"

# phases lasts tens of quanta at any build's speed: allotments to average.
expect_rc 0 "$A" --json run --stats --name statsjob -- "$build/jobs/phases" 3
id=$(grep '^{' "$tmp/out" | json 'd["job_id"]')
mean=$(grep '^{' "$tmp/out" | json 'd["mean_allotment"]')
python3 -c "import sys; sys.exit(0 if 0 < $mean <= $(nproc) else 1)" ||
	fail "run --stats: mean allotment $mean"
# The job claimed the id it was launched under: one row, the program's
# pid, its exit status and usage, and allotment records.
[ "$(sql "select name || ' ' || exit_status || ' ' || (work_ns > 0) || ' ' || (end_ns is not null) from jobs where id = $id")" = "statsjob 0 1 1" ] ||
	fail "run: job $id's row: $(sql "select * from jobs where id = $id")"
[ "$(sql "select count(*) from allotments where job = $id")" -ge 1 ] ||
	fail "run: job $id has no allotment records"
grep -q "job $id 'statsjob' connected" "$tmp/daemon.log" || fail "run: the job did not claim id $id"
expect_rc 0 "$A" run --stats -- "$build/jobs/fib" 20
grep -q "^asteal: job [0-9]* fib: exit 0, .* elapsed, .*, work " "$tmp/err" ||
	fail "run --stats: no summary: $(cat "$tmp/err")"
echo "run: exit codes pass through; job $id claimed its id (mean allotment $mean)"

# ---- 2. submit and wait ----
expect_rc 0 "$A" submit --parsable --output "$tmp/job.out" -- "$build/jobs/fib" $fibn
sid=$(cat "$tmp/out")
case $sid in *[!0-9]* | "") fail "submit --parsable printed '$sid'" ;; esac
expect_rc 0 "$A" wait "$sid"
grep -q "check=ok" "$tmp/job.out" || fail "submit --output: $(cat "$tmp/job.out")"
expect_rc 0 "$A" submit -o "$tmp/%j.out" -- sh -c 'exit 5'
sid=$(sed -n 's/^submitted job \([0-9][0-9]*\)$/\1/p' "$tmp/out")
[ -n "$sid" ] || fail "submit printed: $(cat "$tmp/out")"
expect_rc 5 "$A" wait "$sid"
"$A" wait "$sid"; [ $? -eq 5 ] || fail "wait on a finished job does not give its status again"
expect_rc 0 "$A" submit --parsable -o /dev/null -- sleep 60
long=$(cat "$tmp/out")
expect_rc 124 "$A" wait --timeout 0.2 "$long"
grep -q "still running" "$tmp/err" || fail "wait --timeout: $(cat "$tmp/err")"
echo "submit: ids at once, output to a file, wait returns the job's status"

# ---- 3. cancel ----
if command -v setpriv >/dev/null && [ "$(id -u)" -eq 0 ]; then
	expect_rc 77 setpriv --reuid=65534 --regid=65534 --clear-groups "$A" cancel "$long"
	grep -q "permission denied" "$tmp/err" || fail "non-owner cancel: $(cat "$tmp/err")"
	kill -0 "$(sql "select pid from jobs where id = $long")" 2>/dev/null ||
		fail "a refused cancel killed the job"
	echo "cancel: refused to uid 65534 (exit 77)"
else
	echo "cancel: not root: the second-uid check needs root and setpriv"
fi
expect_rc 0 "$A" cancel "$long"
expect_rc 143 "$A" wait "$long"
expect_rc 0 "$A" submit --parsable -o /dev/null -- "$build/jobs/phases" 200
lid=$(cat "$tmp/out")
connected() { grep -q "job $lid 'phases' connected" "$tmp/daemon.log"; }
wait_for 20 connected || fail "the submitted libasteal job did not connect"
expect_rc 0 "$A" cancel --signal KILL "$lid"
expect_rc 137 "$A" wait "$lid"
# A job nobody supervises: the daemon signals it; its status is unknown.
"$build/jobs/phases" 200 >/dev/null 2>&1 &
upid=$!
registered() { [ -n "$(sql "select id from jobs where pid = $upid")" ]; }
wait_for 20 registered || fail "the unsupervised job did not register"
uid_=$(sql "select id from jobs where pid = $upid")
expect_rc 0 "$A" cancel --signal SIGTERM "$uid_"
expect_rc 1 "$A" wait "$uid_"
grep -q "unknown" "$tmp/err" || fail "wait on an unsupervised job: $(cat "$tmp/err")"
wait $upid; st=$?
[ $st -eq 143 ] || fail "the unsupervised job exited $st, not by SIGTERM"
expect_rc 1 "$A" cancel "$uid_"
expect_rc 1 "$A" wait 999999
echo "cancel: through the supervisor (143, 137) and by the daemon (SIGTERM)"

# ---- 4. exit codes ----
expect_rc 69 "$A" --socket "$tmp/nowhere.sock" status
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "no daemon: not one line: $(cat "$tmp/err")"
grep -q "nowhere.sock" "$tmp/err" || fail "no daemon: the socket is not named"
expect_rc 69 "$A" --socket "$tmp/nowhere.sock" run -- true
ASTEAL_SOCKET="$tmp/nowhere.sock" "$A" wait 1 2>/dev/null; [ $? -eq 69 ] || fail "ASTEAL_SOCKET is not the default socket"
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	chmod 600 "$sock"
	expect_rc 77 setpriv --reuid=65534 --regid=65534 --clear-groups "$A" status
	grep -q "permission denied" "$tmp/err" || fail "EACCES: $(cat "$tmp/err")"
	chmod 666 "$sock"
fi
expect_rc 2 "$A" bogus
expect_rc 2 "$A" run
expect_rc 2 "$A" run --bogus -- true
expect_rc 2 "$A" wait abc
expect_rc 2 "$A" wait 0
expect_rc 2 "$A" cancel --signal NOPE 1
expect_rc 2 "$A" --bogus status
expect_rc 0 "$A" status --json
[ "$(json 'd["quantum_us"]' <"$tmp/out")" = 10000 ] || fail "status --json after the command: $(cat "$tmp/out")"
expect_rc 0 "$A" help run
grep -q "Usage: asteal run" "$tmp/out" || fail "help run"
expect_rc 0 "$A" --version
echo "exit codes: 69 no daemon, 77 refused, 2 usage"

# ---- 5. global options after the command ----
unset ASTEAL_SOCKET
expect_rc 0 "$A" status --socket "$sock" --json
[ "$(json 'd["quantum_us"]' <"$tmp/out")" = 10000 ] || fail "status --socket PATH --json: $(cat "$tmp/out")"
expect_rc 0 "$A" history --jobs --socket="$sock" --json
json 'd["jobs"][0]["id"]' <"$tmp/out" >/dev/null || fail "history --socket=PATH --json: $(cat "$tmp/out")"
expect_rc 0 "$A" wait "$id" --socket "$sock"
expect_rc 0 "$A" run --socket "$sock" -- sh -c 'echo "$*"' sh --json --socket x
[ "$(cat "$tmp/out")" = "--json --socket x" ] || fail "run took the program's arguments: $(cat "$tmp/out")"
expect_rc 0 "$A" run --socket "$sock" sh -c 'echo "$*"' sh --json
[ "$(cat "$tmp/out")" = "--json" ] || fail "run without -- took the program's --json: $(cat "$tmp/out")"
expect_rc 0 "$A" run --socket "$sock" -J --json -- sh -c 'echo "$ASTEAL_JOB_NAME"'
[ "$(cat "$tmp/out")" = "--json" ] || fail "run took the value of -J: $(cat "$tmp/out")"
expect_rc 2 "$A" --socket
grep -q "option '--socket' needs a value" "$tmp/err" || fail "--socket without a value: $(cat "$tmp/err")"
expect_rc 2 "$A" status --socket
grep -q "option '--socket' needs a value" "$tmp/err" || fail "status --socket without a value: $(cat "$tmp/err")"
expect_rc 2 "$A" plot
grep -q "history --plot" "$tmp/err" || fail "asteal plot does not point to history --plot: $(cat "$tmp/err")"
export ASTEAL_SOCKET="$sock"
echo "global options after the command: --socket, --socket=, --json; a program's own arguments left alone"

kill "$daemon_pid"
wait "$daemon_pid" || fail "daemon exited with $? on SIGTERM"
echo ok
