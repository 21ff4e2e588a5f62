#!/bin/sh
# reload.test.sh BUILD - asteald's signals, on a private socket, database
# and config file in a temporary folder:
#  1. SIGHUP reads the config file again (systemctl reload): the live
#     settings change and each says so in the log ("reload: max-jobs 5 ->
#     1"), a setting that waits for a restart says so in one line and
#     stays (share: asteal status still says users first), the daemon
#     keeps running and answers; the lowered max-jobs refuses the next job;
#  2. a config file that does not load is refused on SIGHUP with one
#     error line naming its line, and the daemon runs on with the settings
#     in force;
#  3. SIGTERM and SIGINT stop it with exit 0, its socket removed and, when
#     it confined jobs by a cgroup, its cgroup folder too, even with a job
#     running in it (the job goes on, out of the folder).
# Every wait is on a condition with a bound.
set -u

build=${1:?usage: sh tests/reload.test.sh BUILD}
. scripts/lib.sh
test_tmp reload
sock="$tmp/asteald.sock"
conf="$tmp/asteald.conf"
log="$tmp/daemon.log"
job_pid=""
test_cleanup() {
	[ -n "$job_pid" ] && kill "$job_pid" 2>/dev/null
}
export ASTEAL_SOCKET="$sock"

# The number of lines of the log matching $1.
lines() { grep -c "$1" "$log"; }
alive() { kill -0 "$daemon_pid" 2>/dev/null || fail "asteald is gone: $*"; }
answers() {
	"$build/bin/asteal" status >"$tmp/status" 2>&1 ||
		fail "asteal status after $*: $(cat "$tmp/status")"
}

# ---- 1. a reload ----
printf 'log-level = info\nmax-jobs = 5\nshare = user\n' >"$conf"
daemon_start --db "$tmp/history.db" --config "$conf"
printf '# reloaded\nlog-level = debug\nmax-jobs = 1\nshare = job\n' >"$conf"
kill -HUP "$daemon_pid"
reloaded() { [ "$(lines 'reload: settings read again')" -ge "$1" ]; }
wait_for 10 reloaded 1 || fail "no reload line after SIGHUP"
alive "after SIGHUP"
answers "a reload"
grep -q "reload: max-jobs 5 -> 1" "$log" || fail "the new max-jobs was not logged"
grep -q "reload: log-level info -> debug" "$log" || fail "the new log level was not logged"
[ "$(lines 'reload: share stays user until asteald restarts (the configuration now says job)')" -eq 1 ] ||
	fail "share, which needs a restart, was not said in one line"
grep -q "2 changed live, 1 kept until a restart" "$log" || fail "no summary of the reload"
grep -q "CPUs shared among the users" "$tmp/status" || fail "share changed live: $(cat "$tmp/status")"
echo "SIGHUP: $(grep 'reload: settings read again' "$log" | sed 's/.*reload: //')"

# The lowered limit holds: a second job is not scheduled.
"$build/bin/asteal" run -- sleep 60 >/dev/null 2>&1 &
job_pid=$!
one_job() { "$build/bin/asteal" --json status | grep -q '"jobs":1[,}]'; }
wait_for 10 one_job || fail "the first job did not register"
"$build/bin/asteal" run -- true >/dev/null 2>&1
limited() { grep -q "'true': not scheduled .*at the limit of 1 jobs" "$log"; }
wait_for 10 limited || fail "max-jobs 1 from the reload did not hold"
echo "the reloaded max-jobs 1 held: the second job was not scheduled"

# ---- 2. a bad config file ----
printf 'max-jobs = 7\nmax-jobs = many\n' >"$conf"
kill -HUP "$daemon_pid"
refused() { grep -q "error: reload refused: $conf:2: max-jobs: 'many' is not a whole number" "$log"; }
wait_for 10 refused || fail "a bad config file was not refused with its line"
alive "a bad config file"
answers "a refused reload"
grep -q "reload: max-jobs 1 -> 7" "$log" && fail "a refused file changed a setting"
echo "a bad file: $(grep 'reload refused' "$log" | sed 's/.*error: //')"

# ---- 3. stopping leaves nothing behind ----
folder=$(sed -n 's/.*confinement: .* by cgroup v[12] cpuset \(.*\)$/\1/p' "$log" | head -n 1)
child=$(sed -n "s/.*job [0-9]* 'sleep' launched: uid [0-9]*, child pid \([0-9]*\).*/\1/p" "$log" | head -n 1)
[ -n "$child" ] || fail "no child pid for the sleep job in the log"
if [ -n "$folder" ]; then
	held() { grep -qx "$child" "$folder"/job-*/cgroup.procs 2>/dev/null; }
	wait_for 10 held || fail "the sleep job was not moved into its cgroup folder"
fi
# stop_with SIG: stop the daemon with SIG, then check what it left.
stop_with() {
	kill -"$1" "$daemon_pid"
	wait "$daemon_pid"
	rc=$?
	daemon_pid=""
	[ $rc -eq 0 ] || fail "asteald exited $rc on SIG$1"
	[ ! -e "$sock" ] || fail "asteald left its socket after SIG$1"
	if [ -n "$folder" ] && [ -e "$folder" ]; then
		fail "asteald left its cgroup folder $folder after SIG$1: $(ls "$folder")"
	fi
	echo "SIG$1: exit 0, no socket${folder:+, no cgroup folder ($folder)}"
}
stop_with TERM
kill -0 "$child" 2>/dev/null || fail "the job did not outlive the daemon"
echo "the running job outlived the daemon, out of its folder"
# The job goes, and its asteal run with -9: told of the end, it would try
# the daemon that is gone for a minute (asteal(1), run).
kill "$child" 2>/dev/null
kill -9 "$job_pid" 2>/dev/null
wait "$job_pid" 2>/dev/null
job_pid=""
printf 'log-level = info\n' >"$conf"
daemon_start --db "$tmp/history.db" --config "$conf"
stop_with INT
echo ok
