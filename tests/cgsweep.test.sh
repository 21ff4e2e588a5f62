#!/bin/sh
# cgsweep.test.sh BUILD - a daemon killed with -9 leaves no cgroup folder
# for good (issue 42, item 9; daemon/confine/cpuset.c, "Folders of dead
# daemons"), with real daemons confining by cgroup cpuset on CPUs 0-1:
#  1. daemon A lives through the test; daemon B confines a linked fib and
#     is killed with -9 while it runs: B's folder stays, the fib in its
#     job folder;
#  2. daemon C starts while that fib still runs: B's folder is kept (a
#     process is still in it), and so is A's;
#  3. the fib ends, C stops, daemon D starts: B's folder is gone (its job
#     folder first), A's is still there, and so is D's own.
# Where cgroup confinement is not available (no cpuset controller to
# manage: not root, no cgroup v2 delegation, no v1 cpuset) a line says so
# and the test passes; tests/test_confine.c checks the same sweep on
# folders it makes by hand.  Every wait is on a condition with a bound.
set -u

build=${1:?usage: sh tests/cgsweep.test.sh BUILD}
. scripts/lib.sh
test_tmp cgsweep
[ "$(nproc)" -ge 2 ] || { echo "skip: need 2 CPUs, this machine has $(nproc)"; exit 0; }

a_pid=""
fib_pid=""
# At exit (lib.sh kills $daemon_pid): the daemon A and the fib too, and the
# folders this test's dead daemons may have left.
test_cleanup() {
	[ -n "$fib_pid" ] && kill -9 "$fib_pid" 2>/dev/null
	[ -n "$a_pid" ] && kill "$a_pid" 2>/dev/null
	for f in ${folder_b:-}; do
		for j in "$f"/job-*; do [ -d "$j" ] && rmdir "$j" 2>/dev/null; done
		rmdir "$f" 2>/dev/null
	done
	return 0
}

# start NAME: a daemon on $tmp/NAME.sock confining every job by cgroup;
# its pid in $pid, its folder in $folder; status 3 when it refused to
# start (its log in $tmp/NAME.log).
start() {
	"$build/bin/asteald" --foreground --socket "$tmp/$1.sock" --db "$tmp/$1.db" \
		--cpus 0-1 --quantum-ms 10 --confine all --confine-with cgroup \
		--log-level info >"$tmp/$1.log" 2>&1 &
	pid=$!
	end=$(($(date +%s) + 20))
	until grep -q 'listening on' "$tmp/$1.log" 2>/dev/null &&
	      grep -q 'confinement: ' "$tmp/$1.log"; do
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid" 2>/dev/null
			return 3
		fi
		[ "$(date +%s)" -ge "$end" ] && fail "daemon $1 did not start: $(cat "$tmp/$1.log")"
		sleep 0.05
	done
	folder=$(sed -n 's/.*confinement: all jobs, by cgroup v[12] cpuset //p' "$tmp/$1.log" | head -1)
	[ -d "$folder" ] || fail "daemon $1: no folder '$folder': $(cat "$tmp/$1.log")"
}

# holds FOLDER PID: PID is in one of FOLDER's job folders.
holds() {
	cat "$1"/job-*/cgroup.procs 2>/dev/null | grep -qx "$2"
}

# ---- 1. A lives; B is killed with -9 while its job runs ----
if ! start a; then
	echo "skip: cgroup confinement: $(sed -n 's/.*confine[a-z]*: //p' "$tmp/a.log" | tail -1)"
	exit 0
fi
a_pid=$pid
folder_a=$folder
start b || fail "daemon b did not start: $(cat "$tmp/b.log")"
daemon_pid=$pid
folder_b=$folder
[ "$folder_b" != "$folder_a" ] || fail "a and b share the folder $folder_a"
[ "$(dirname "$folder_b")" = "$(dirname "$folder_a")" ] ||
	fail "the folders are not side by side: $folder_a, $folder_b"
ASTEAL_SOCKET="$tmp/b.sock" "$build/jobs/fib" 60 >"$tmp/fib.out" 2>&1 &
fib_pid=$!
wait_for 10 holds "$folder_b" "$fib_pid" ||
	fail "the fib ($fib_pid) never joined a job folder of $folder_b: $(ls "$folder_b")"
kill -9 "$daemon_pid"
wait "$daemon_pid" 2>/dev/null
daemon_pid=""
[ -d "$folder_b" ] || fail "b's folder went with b"
holds "$folder_b" "$fib_pid" || fail "the fib left b's job folder when b died"
echo "1. b killed with -9; its folder $folder_b holds the fib still"

# ---- 2. C starts while the fib runs in B's folder: both kept ----
start c || fail "daemon c did not start: $(cat "$tmp/c.log")"
daemon_pid=$pid
[ -d "$folder_b" ] || fail "c removed b's folder while the fib ran in it"
holds "$folder_b" "$fib_pid" || fail "the fib left b's job folder when c started"
[ -d "$folder_a" ] || fail "c removed a's folder, whose daemon lives"
echo "2. c kept b's folder (the fib in it) and a's (a lives)"

# ---- 3. the fib ends, C stops, D starts: B's folder is gone ----
kill -9 "$fib_pid"
wait "$fib_pid" 2>/dev/null
fib_pid=""
kill "$daemon_pid"
wait "$daemon_pid" 2>/dev/null
daemon_pid=""
start d || fail "daemon d did not start: $(cat "$tmp/d.log")"
daemon_pid=$pid
folder_d=$folder
[ ! -e "$folder_b" ] || fail "d left b's folder: $(ls "$folder_b")"
[ -d "$folder_a" ] || fail "d removed a's folder, whose daemon lives"
[ -d "$folder_d" ] || fail "d has no folder"
kill -0 "$a_pid" 2>/dev/null || fail "daemon a died: $(cat "$tmp/a.log")"
echo "3. d removed b's folder, kept a's and its own ($(sed -n 's/.*confine: //p' "$tmp/d.log" | head -1))"
echo ok
