#!/bin/sh
# supervise.test.sh BUILD - jobs that `asteal run` and `submit` supervise,
# across daemon restarts and the loss of their supervisor, against a real
# daemon on a private socket and database:
#  1. restart: a `wait` running while asteald restarts gets the job's
#     status (0), not 69; a job that ended while asteald was down is
#     reported by its supervisor to the new daemon, and a `wait` asked
#     right after the restart gets that status (3), not "unknown";
#  2. history at once: right after `run` of a program without libasteal,
#     `history --json` names the job;
#  3. a program without libasteal whose supervisor was killed (-9) is
#     still listed by `jobs`, `cancel` signals it, `wait` then says its
#     status is unknown;
#  4. several ids: cancel signals each, wait's exit status is the first
#     failure's in the order given (a missing job counts as 1);
#  5. submit's files: asteal-%j.out in the current folder by default with
#     stderr in it, -o and -e apart with %j and %%, -J names the job, a
#     bad template is a usage error, an unwritable file fails the submit;
#     %x and %u, -D (the job's folder, relative names under it), --wrap;
#  6. wait --timeout exits 124 with the message the man page quotes;
#  7. `asteal run` killed (-9): its job goes with it, as srun's, a program
#     without libasteal and one connected alike, and the history says
#     killed by SIGKILL; with no daemon running too (the child dies with
#     its parent).
# Jobs are held on fifos, not timed: every wait is on a condition.
set -u

build=${1:?usage: sh tests/supervise.test.sh BUILD}
. scripts/lib.sh
test_tmp supervise
day_wait                # its jobs are read back with history's default window (today)
sock="$tmp/asteald.sock"
db="$tmp/history.db"
A="$build/bin/asteal"
orphans=""

test_cleanup() {
	for p in $orphans; do
		kill -9 "$p" 2>/dev/null || true
	done
}


sql() { sqlite3 -cmd ".timeout 2000" "$db" "$@"; }
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

answers() { "$A" status >/dev/null 2>&1; }

# Start the daemon and wait until it answers.
start_daemon() {
	"$build/bin/asteald" --foreground --socket "$sock" --db "$db" --quantum-ms 10 \
		>>"$tmp/daemon.log" 2>&1 &
	daemon_pid=$!
	wait_for 20 answers || fail "daemon did not start"
}

# Stop it and wait until it is gone.
stop_daemon() {
	kill "$daemon_pid"
	wait "$daemon_pid" || fail "daemon exited with $? on SIGTERM"
	daemon_pid=""
}

# Command-line connections at the daemon now (this `status` is one).
clients() { "$A" --json status | json 'd["clients"]'; }
more_clients() { [ "$(clients)" -ge "$1" ]; }
few_clients() { [ "$(clients)" -le "$1" ]; }
# Whether process $1 has exited (gone, or a zombie nobody reaped yet).
gone() { [ ! -e "/proc/$1" ] || grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2>/dev/null; }
supervised_again() { grep -q "job $1 'sh' supervised again" "$tmp/daemon.log"; }

export ASTEAL_SOCKET="$sock"
start_daemon

# ---- 1. restart ----
# A linked job held before it starts (the fifo), so that it runs its
# whole life under the second daemon.
mkfifo "$tmp/gate1" "$tmp/gate2"
id1=$("$A" submit --parsable -o "$tmp/j1.out" -- sh -c \
	"read x <'$tmp/gate1'; exec '$build/jobs/phases' 3") || fail "submit 1"
# A program held until the daemon is down, that exits 3 then.
id2=$("$A" submit --parsable -o "$tmp/j2.out" -- sh -c \
	"read x <'$tmp/gate2'; exit 3") || fail "submit 2"
"$A" wait "$id1" >"$tmp/wait1.out" 2>"$tmp/wait1.err" &
w1=$!
# Two supervisors, the wait and this status.
wait_for 20 more_clients 4 || fail "the wait did not connect ($(clients) clients)"
pid2=$(sql "select pid from jobs where id = $id2")
stop_daemon
echo go >"$tmp/gate2"
wait_for 20 gone "$pid2" || fail "job $id2 did not end while the daemon was down"
start_daemon
expect_rc 3 "$A" wait "$id2"
# The job starts once its supervisor took it back.
wait_for 20 supervised_again "$id1" || fail "job $id1 was not taken back"
echo go >"$tmp/gate1"
wait "$w1"; rc=$?
[ "$rc" -eq 0 ] || fail "the wait across the restart exited $rc: $(cat "$tmp/wait1.err")"
grep -q "check=ok" "$tmp/j1.out" || fail "job $id1: $(cat "$tmp/j1.out")"
expect_rc 0 "$A" wait "$id1"
[ "$(sql "select exit_status from jobs where id = $id1") $(sql "select exit_status from jobs where id = $id2")" = "0 768" ] ||
	fail "exit statuses in the history: $(sql "select id, exit_status from jobs")"
echo "restart: the running wait got 0, a job that ended while asteald was down 3"

# ---- 2. history at once ----
expect_rc 0 "$A" run -J at-once -- true
expect_rc 0 "$A" --json history
[ "$(json '[j["name"] for j in d["jobs"]].count("at-once")' <"$tmp/out")" = 1 ] ||
	fail "history right after run: $(cat "$tmp/out")"
echo "history: names a job without runs at once"

# ---- 3. supervisor killed ----
id3=$("$A" submit --parsable -o /dev/null -- sleep 300) || fail "submit 3"
pid3=$(sql "select pid from jobs where id = $id3")
orphans="$orphans $pid3"
sup3=$(awk '{print $4}' "/proc/$pid3/stat")
kill -9 "$sup3"
wait_for 20 gone "$sup3" || fail "the supervisor $sup3 did not die"
# Its connection closed: only this status is left.
wait_for 20 few_clients 1 || fail "the killed supervisor is still connected"
expect_rc 0 "$A" --json jobs
[ "$(json "[j['id'] for j in d].count($id3)" <"$tmp/out")" = 1 ] ||
	fail "job $id3 without its supervisor is not listed: $(cat "$tmp/out")"
expect_rc 0 "$A" cancel "$id3"
wait_for 20 gone "$pid3" || fail "cancel did not end the orphaned job $id3"
expect_rc 1 "$A" wait "$id3"
grep -q "unknown" "$tmp/err" || fail "wait on the orphaned job: $(cat "$tmp/err")"
echo "supervisor killed: job $id3 listed, cancelled, its status unknown"

# ---- 4. several ids ----
a=$("$A" submit --parsable -o /dev/null -- sleep 300) || fail "submit a"
b=$("$A" submit --parsable -o /dev/null -- sleep 300) || fail "submit b"
expect_rc 0 "$A" cancel "$a" "$b"
expect_rc 143 "$A" wait "$a" "$b"
ok=$("$A" submit --parsable -o /dev/null -- true) || fail "submit ok"
three=$("$A" submit --parsable -o /dev/null -- sh -c 'exit 3') || fail "submit 3"
five=$("$A" submit --parsable -o /dev/null -- sh -c 'exit 5') || fail "submit 5"
expect_rc 3 "$A" wait "$ok" "$three" "$five"
grep -q "job $five: exit 5" "$tmp/err" || fail "wait: the second failure is not said: $(cat "$tmp/err")"
expect_rc 5 "$A" wait "$five" "$three"
expect_rc 1 "$A" wait "$ok" 999999 "$three"
expect_rc 0 "$A" --json wait "$ok" "$ok"
[ "$(wc -l <"$tmp/out")" -eq 2 ] || fail "wait --json: a line a job: $(cat "$tmp/out")"
c=$("$A" submit --parsable -o /dev/null -- sleep 300) || fail "submit c"
expect_rc 1 "$A" cancel 999999 "$c"
expect_rc 143 "$A" wait "$c"
echo "several ids: cancel each, wait's status the first failure's"

# ---- 5. submit's files ----
mkdir "$tmp/cwd"
abs_A=$(cd "$(dirname "$A")" && pwd)/asteal
s1=$(cd "$tmp/cwd" && "$abs_A" submit --parsable -- sh -c 'echo out; echo err >&2') ||
	fail "submit with the default output"
expect_rc 0 "$A" wait "$s1"
[ "$(cat "$tmp/cwd/asteal-$s1.out")" = "out
err" ] || fail "the default output file: $(ls "$tmp/cwd"; cat "$tmp/cwd/asteal-$s1.out")"
s2=$("$A" submit --parsable -J named -o "$tmp/o-%j.txt" -e "$tmp/e-%j-100%%.txt" -- \
	sh -c 'echo out; echo err >&2') || fail "submit -o -e"
expect_rc 0 "$A" wait "$s2"
[ "$(cat "$tmp/o-$s2.txt")" = out ] || fail "-o: $(cat "$tmp/o-$s2.txt")"
[ "$(cat "$tmp/e-$s2-100%.txt")" = err ] || fail "-e: $(ls "$tmp")"
[ "$(sql "select name from jobs where id = $s2")" = named ] || fail "-J: $(sql "select name from jobs where id = $s2")"
expect_rc 2 "$A" submit -o "$tmp/x%q" -- true
expect_rc 2 "$A" submit -e "" -- true
expect_rc 1 "$A" submit -o "$tmp/no/such/dir/%j.out" -- true
grep -q "no/such/dir/[0-9]*.out" "$tmp/err" || fail "an unwritable output is not named: $(cat "$tmp/err")"
# %x (the name) and %u (the user), -D (its folder, relative names
# under it), --wrap (sh -c, named wrap), a bad folder said
mkdir "$tmp/dd"
s3=$("$A" submit --parsable -D "$tmp/dd" -o "%x-%u-%j.out" --wrap 'pwd; echo $0') ||
	fail "submit -D --wrap"
expect_rc 0 "$A" wait "$s3"
[ "$(cat "$tmp/dd/wrap-$(id -un)-$s3.out")" = "$tmp/dd
sh" ] || fail "-D, %x, %u, --wrap: $(ls "$tmp/dd"; cat "$tmp/dd"/*)"
expect_rc 2 "$A" submit --wrap true -- true
expect_rc 1 "$A" submit -D "$tmp/no/such" -o /dev/null -- true
grep -q "chdir $tmp/no/such" "$tmp/err" || fail "a bad -D is not said: $(cat "$tmp/err")"
out=$("$A" run -D "$tmp/dd" -- pwd) || fail "run -D"
[ "$out" = "$tmp/dd" ] || fail "run -D ran in $out"
echo "submit: asteal-%j.out by default, -o/-e with %j, %x, %u and %%, -J, -D, --wrap"

# ---- 6. wait --timeout ----
t=$("$A" submit --parsable -o /dev/null -- sleep 300) || fail "submit t"
expect_rc 124 "$A" wait --timeout 0.1 "$t"
msg="job $t: still running after 0.1 s"
grep -qx "asteal: $msg" "$tmp/err" || fail "wait --timeout said: $(cat "$tmp/err")"
grep -q 'still running after' man/asteal.1 || fail "the man page does not quote the timeout message"
grep -q '^\.B 124' man/asteal.1 || fail "the man page does not list exit status 124"
expect_rc 124 "$A" wait -t 0 "$t" "$ok"
expect_rc 0 "$A" cancel "$t"
echo "wait --timeout: 124"

# ---- 7. run killed ----
# The child of run $1, once it runs its program ($2): its pid.
run_child() { p=$(pgrep -P "$1") && [ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$2" ] && echo "$p"; }
runs() { run_child "$1" "$2" >/dev/null; }
connected() { grep -q "job $1 'fib' connected" "$tmp/daemon.log"; }
for prog in sleep fib; do
	case $prog in
	sleep) "$A" run -c 1 -- sleep 300 >/dev/null 2>&1 & ;;
	fib) "$A" run -- "$build/jobs/fib" 60 >/dev/null 2>&1 & ;;
	esac
	run7=$!
	wait_for 20 runs "$run7" "$prog" || fail "run $prog did not start its program"
	pid7=$(run_child "$run7" "$prog")
	orphans="$orphans $pid7"
	id7=$(sql "select id from jobs where pid = $pid7")
	[ "$prog" = sleep ] || wait_for 20 connected "$id7" || fail "job $id7 did not connect"
	kill -9 "$run7"
	wait "$run7" 2>/dev/null
	wait_for 20 gone "$pid7" || fail "job $id7 ($prog) outlived its killed asteal run"
	expect_rc 137 "$A" wait "$id7"
	expect_rc 0 "$A" --json history --jobs "$id7"
	[ "$(json 'd["jobs"][0]["state"], d["jobs"][0]["status_known"], d["jobs"][0]["signal"]' <"$tmp/out")" = \
		"killed True 9" ] || fail "job $id7 ($prog) in the history: $(cat "$tmp/out")"
done
# No daemon when run is killed: the kernel kills the child with it.
"$A" run -c 1 -- sleep 300 >/dev/null 2>&1 &
run7=$!
wait_for 20 runs "$run7" sleep || fail "run sleep did not start its program"
pid7=$(run_child "$run7" sleep)
orphans="$orphans $pid7"
stop_daemon
kill -9 "$run7"
wait "$run7" 2>/dev/null
wait_for 20 gone "$pid7" || fail "a job outlived its killed asteal run while no daemon ran"
start_daemon
echo "run killed: its job goes with it, killed by SIGKILL in the history"

stop_daemon
echo ok
