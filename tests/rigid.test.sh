#!/bin/sh
# rigid.test.sh BUILD - rigid jobs and confinement, against a real daemon
# on a private socket managing CPUs 0-1, by one mechanism: in the normal
# build the first this machine has (a cgroup cpuset, else
# sched_setaffinity; a line saying what is missing where one is not
# there), in the ASan build sched_setaffinity, which every machine has
# (the TSan build does not run it: tests/run.sh, not_in_tsan):
#  1. an OpenMP program (libgomp) run with `asteal submit --omp system
#     --cpus 2` (the system's libgomp: on the OpenMP layer it would be
#     adaptive, runomp.test.sh), then a linked fib beside it: every
#     thread of each is allowed only the CPUs the daemon allots its job
#     (Cpus_allowed_list of /proc/PID/task/*/status, read back every
#     quantum or so while the allotments hold still), both results right,
#     the history holds both (the rigid one with desire 2);
#  2. a linked job that spins two threads of its own while reporting
#     desire 1 (tests/greedy.c) is held to one CPU: its threads allowed
#     that CPU only, its process using at most about one CPU; under
#     `--confine off` its own threads are allowed every CPU (so the check
#     can fail);
#  2c. a job holding no CPU (desire 0, its main thread spinning outside
#     the runtime) is held to the CPUs no job holds: both, then the one a
#     one-worker fib that joins after it does not take;
#  3. a daemon restart re-confines a job that outlives it;
#  4. --cpus: the environment the runtimes read, the listing (CAP, HELD),
#     bad values, more than the daemon's CPUs refused, a linked
#     program's desire capped;
#  5. status: a process outside any job spinning on CPU 1 shows as the
#     other use of CPU 1.
# Every wait is on a condition with a bound.
set -u

build=${1:?usage: sh tests/rigid.test.sh BUILD}
san=${ASTEAL_TEST_SAN:-}
. scripts/lib.sh
test_tmp rigid
A="$build/bin/asteal"
omp="$build/bench/omp_phases"
# fib's sizes, in CPU time about the same in every build.  fibn (1.8 s of
# CPU) runs to its end: case 1 watches it beside the OpenMP job,
# which started first and outlasts it, until it ends (20 samples of both
# running are needed, a fifth of a second's worth; fib 45, 1.6 times
# longer, gave 326-388).  fib_long (6-8 s of CPU) is cancelled once
# case 2c, then case 4 (its cap, at least 5 samples), have seen what they
# want.
case $san in
asan) fibn=41 fib_long=43 ;;
*) fibn=44 fib_long=47 ;;
esac

ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || { echo "skip: rigid jobs: need 2 CPUs, this machine has $ncpu"; exit 0; }

json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
listening() { grep -q 'listening on' "$tmp/daemon.log" 2>/dev/null; }

# start_daemon NAME ARGS...: a daemon on $tmp/NAME.sock; status 3 (with
# its message in $tmp/daemon.log) when it refuses to start.
start_daemon() {
	name=$1
	shift
	sock="$tmp/$name.sock"
	: >"$tmp/daemon.log"
	"$build/bin/asteald" --foreground --socket "$sock" --db "$tmp/$name.db" \
		--cpus 0-1 --quantum-ms 10 "$@" >"$tmp/daemon.log" 2>&1 &
	daemon_pid=$!
	export ASTEAL_SOCKET="$sock"
	end=$(($(date +%s) + 20))
	until listening; do
		if ! kill -0 "$daemon_pid" 2>/dev/null; then
			wait "$daemon_pid" 2>/dev/null
			daemon_pid=""
			return 3
		fi
		[ "$(date +%s)" -ge "$end" ] && fail "daemon $name did not start"
		sleep 0.05
	done
}

stop_daemon() {
	kill "$daemon_pid" 2>/dev/null
	wait "$daemon_pid" 2>/dev/null
	daemon_pid=""
}

# The checker: python3 tests the threads' CPUs against the allotments.
cat >"$tmp/check.py" <<'EOF'
"""check.py CMD ARGS: confinement checks, each printing one line and
exiting 1 when it fails.
  held A SECONDS ID...   every SECONDS-long watch (until the jobs end):
                         every thread of each job allowed only its CPUs
  cpu A ID SECONDS       the CPU-seconds per second job ID's process used
  set A ID CPUS SECONDS  wait until every thread of ID is allowed CPUS
  within A ID CPUS SECONDS
                         wait until every thread of ID is allowed only
                         CPUS, and its main thread all of them (a thread
                         that pinned itself keeps its pin where the set
                         still holds it, as Linux 6.2 on keeps it)"""
import json, os, subprocess, sys, time

def jobs(a):
    r = subprocess.run([a, "--json", "jobs"], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    return {j["id"]: j for j in json.loads(r.stdout)}

def cpus_of(text):
    out = set()
    for part in text.strip().split(","):
        if "-" in part:
            a, b = part.split("-")
            out |= set(range(int(a), int(b) + 1))
        elif part:
            out.add(int(part))
    return out

def allowed(pid):
    """{tid: set of CPUs} of every thread of pid's process tree."""
    res, todo = {}, [pid]
    while todo:
        p = todo.pop()
        try:
            tids = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for t in tids:
            try:
                with open(f"/proc/{p}/task/{t}/status") as f:
                    for line in f:
                        if line.startswith("Cpus_allowed_list:"):
                            res[(p, int(t))] = cpus_of(line.split(":")[1])
                with open(f"/proc/{p}/task/{t}/children") as f:
                    todo += [int(c) for c in f.read().split()]
            except OSError:
                pass
    return res

def held(a, seconds, ids):
    end = time.monotonic() + seconds
    checked = bad = 0
    while time.monotonic() < end:
        j1 = jobs(a)
        if j1 is None or not all(i in j1 for i in ids):
            break
        seen = {i: allowed(j1[i]["pid"]) for i in ids}
        j2 = jobs(a)
        if j2 is None or not all(i in j2 for i in ids):
            break
        for i in ids:
            c1, c2 = set(j1[i]["cpus"]), set(j2[i]["cpus"])
            if c1 != c2 or not c1:
                continue        # it moved meanwhile: no verdict
            checked += 1
            for (p, t), cp in seen[i].items():
                if not cp <= c1:
                    bad += 1
                    print(f"job {i} thread {p}/{t} allowed {sorted(cp)}, "
                          f"allotted {sorted(c1)}")
        time.sleep(0.01)
    print(f"held: {checked} job samples, {bad} threads outside their allotment")
    sys.exit(1 if bad or checked < 20 else 0)

def ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        s = f.read()
    v = s[s.rindex(")") + 2:].split()
    return int(v[11]) + int(v[12])

def cpu(a, i, seconds):
    pid = jobs(a)[i]["pid"]
    hz = os.sysconf("SC_CLK_TCK")
    t0, c0 = time.monotonic(), ticks(pid)
    time.sleep(seconds)
    t1, c1 = time.monotonic(), ticks(pid)
    print(f"{(c1 - c0) / hz / (t1 - t0):.3f}")

def cpuset(a, i, want, seconds, within=False):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        j = jobs(a)
        if j is not None and i in j:
            want_set = set(j[i]["cpus"]) if want == "allotted" else cpus_of(want)
            pid = j[i]["pid"]
            seen = allowed(pid)
            if within:
                ok = all(c <= want_set for c in seen.values()) and \
                    seen.get((pid, pid)) == want_set
            else:
                ok = all(c == want_set for c in seen.values())
            if seen and want_set and ok:
                print(f"job {i}: {len(seen)} threads allowed "
                      f"{'within ' if within else ''}{sorted(want_set)}")
                return
        time.sleep(0.02)
    print(f"job {i}: threads not all allowed {want}: "
          f"{allowed(jobs(a)[i]['pid']) if jobs(a) and i in jobs(a) else 'gone'}")
    sys.exit(1)

cmd = sys.argv[1]
if cmd == "held":
    held(sys.argv[2], float(sys.argv[3]), [int(x) for x in sys.argv[4:]])
elif cmd == "cpu":
    cpu(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
elif cmd in ("set", "within"):
    cpuset(sys.argv[2], int(sys.argv[3]), sys.argv[4], float(sys.argv[5]),
           cmd == "within")
EOF
check() { python3 "$tmp/check.py" "$@"; }

# running A ID: job ID is listed with CPUs.
running() { "$A" --json jobs "$2" 2>/dev/null | json 'len(d[0]["cpus"])' 2>/dev/null | grep -q '^[1-9]'; }

tested=""
# The sanitizer builds hold jobs by the mechanism every machine has; the
# plain build by the first this machine has (test_confine covers both
# mechanisms' code in every build).
mechanisms="cgroup affinity"
[ -n "$san" ] && mechanisms=affinity
for how in $mechanisms; do
	[ -n "$tested" ] && break
	start_daemon "$how" --confine all --confine-with "$how"
	rc=$?
	if [ "$rc" -eq 3 ]; then
		[ "$how" = affinity ] && fail "asteald --confine-with affinity refused to start: $(cat "$tmp/daemon.log")"
		echo "skip: $how confinement: $(sed -n 's/.*confinement: //p' "$tmp/daemon.log" | head -1)"
		continue
	fi
	"$A" status >"$tmp/status" || fail "$how: status"
	grep -q "^confined jobs: *all, by " "$tmp/status" || fail "$how: status: $(cat "$tmp/status")"

	# ---- 1. an OpenMP program, rigid, and a linked fib beside it ----
	# The OpenMP job (500 iterations: 2.5 s on two CPUs, 4 s on one)
	# outlasts fib, which joins it; held watches both until fib ends.
	ompid=$("$A" submit --parsable --omp system --cpus 2 --output "$tmp/omp.out" -- \
		"$omp" 500 --w1 1000 --w2 2000 --h 4) || fail "$how: submit omp"
	wait_for 20 running "$A" "$ompid" || fail "$how: the OpenMP job never allotted"
	"$A" --json jobs "$ompid" >"$tmp/ompjob" || fail "$how: jobs"
	fib=$("$A" submit --parsable --output "$tmp/fib.out" -- "$build/jobs/fib" $fibn) ||
		fail "$how: submit fib"
	wait_for 20 running "$A" "$fib" || fail "$how: fib never allotted"
	check held "$A" 30 "$fib" "$ompid" >"$tmp/held" 2>&1 || fail "$how: $(tail -5 "$tmp/held")"
	echo "$how: $(tail -1 "$tmp/held")"
	[ "$(json 'd[0]["rigid"]' <"$tmp/ompjob")" = True ] || fail "$how: not rigid: $(cat "$tmp/ompjob")"
	[ "$(json 'd[0]["desire"]' <"$tmp/ompjob")" = 2 ] || fail "$how: rigid desire: $(cat "$tmp/ompjob")"
	[ "$(json 'd[0]["confinement"]' <"$tmp/ompjob")" = "$how" ] ||
		fail "$how: confinement: $(cat "$tmp/ompjob")"
	"$A" wait "$fib" || fail "$how: fib exited $?"
	"$A" wait "$ompid" || fail "$how: the OpenMP job exited $?: $(cat "$tmp/omp.out")"
	grep -q "check=ok" "$tmp/fib.out" || fail "$how: fib: $(cat "$tmp/fib.out")"
	grep -q "check=ok" "$tmp/omp.out" || fail "$how: omp: $(cat "$tmp/omp.out")"
	grep -q "workers=2 " "$tmp/omp.out" || fail "$how: OMP_NUM_THREADS=2 not followed: $(cat "$tmp/omp.out")"
	"$A" --json history "$fib" "$ompid" >"$tmp/hist" || fail "$how: history"
	python3 - "$tmp/hist" "$fib" "$ompid" <<'EOF' || fail "$how: history: $(head -c 600 "$tmp/hist")"
import json, sys
d = json.load(open(sys.argv[1]))
fib, omp = int(sys.argv[2]), int(sys.argv[3])
jobs = {j["id"]: j for j in d["jobs"]}
assert fib in jobs and omp in jobs, "both jobs in the history"
recs = {i: [r for r in d["allotments"] if r["job_id"] == i] for i in (fib, omp)}
assert recs[fib] and recs[omp], "both have allotment records"
assert all(r["desire"] == 2 for r in recs[omp]), "the rigid job's desire is 2"
assert any(r["allotment"] >= 1 and r["cpus"] for r in recs[omp]), "it had CPUs"
assert int(jobs[omp].get("work_ns", 0)) > 0, "its CPU time is its work"
EOF

	# ---- 2. a greedy linked job is held to its one CPU ----
	g=$(ASTEAL_WORKERS=1 "$A" submit --parsable --output "$tmp/greedy.out" -- \
		"$build/tests/greedy" 30) || fail "$how: submit greedy"
	wait_for 20 running "$A" "$g" || fail "$how: greedy never allotted"
	gpid=$("$A" --json jobs "$g" | json 'd[0]["pid"]') || fail "$how: greedy's pid"
	check set "$A" "$g" allotted 10 >"$tmp/set" || fail "$how: greedy: $(cat "$tmp/set")"
	use=$(check cpu "$A" "$g" 1) || fail "$how: greedy's CPU use"
	echo "$how: greedy (desire 1, 3 spinning threads) used $use CPUs"
	awk -v u="$use" 'BEGIN { exit !(u <= 1.15) }' || fail "$how: greedy used $use CPUs, held to 1"
	tested="$tested $how"

	# ---- 3. a daemon restart re-confines it ----
	if [ "$how" = affinity ]; then
		stop_daemon
		# Released: its threads may run anywhere again.
		released() { ! grep -h Cpus_allowed_list /proc/"$gpid"/task/*/status | grep -qv '0-1$'; }
		wait_for 10 released || fail "affinity: greedy not released when the daemon stopped"
		start_daemon "$how" --confine all --confine-with "$how" || fail "restart"
		wait_for 30 running "$A" "$g" || fail "greedy did not come back to the new daemon"
		check set "$A" "$g" allotted 10 >"$tmp/set" || fail "after a restart: $(cat "$tmp/set")"
		echo "affinity: after a restart, $(cat "$tmp/set")"
	fi
	"$A" cancel "$g" >/dev/null 2>&1
	wait_for 20 sh -c "! kill -0 $gpid 2>/dev/null" || fail "$how: greedy did not end"

	# ---- 2c. a job holding no CPU runs on the free ones ----
	# Its serial part (the main thread, no root task: desire 0) is held
	# to the CPUs no job holds, not to the CPU it was granted as it
	# joined, which the next job to join is granted in turn.
	sj=$("$A" submit --parsable --output "$tmp/serial.out" -- \
		"$build/tests/greedy" --serial 60) || fail "$how: submit greedy --serial"
	holds_none() { "$A" --json jobs "$sj" 2>/dev/null | json 'd[0]["desire"] == 0 and not d[0]["cpus"]' 2>/dev/null | grep -q True; }
	wait_for 20 holds_none || fail "$how: the serial job never came to hold none: $("$A" jobs)"
	check within "$A" "$sj" 0-1 10 >"$tmp/set" || fail "$how: serial job, both CPUs free: $(cat "$tmp/set")"
	f1=$(ASTEAL_WORKERS=1 "$A" submit --parsable -o /dev/null -- "$build/jobs/fib" $fib_long) ||
		fail "$how: submit a one-worker fib"
	wait_for 20 running "$A" "$f1" || fail "$how: the one-worker fib never allotted"
	fc=$("$A" --json jobs "$f1" | json '",".join(map(str, d[0]["cpus"]))')
	case $fc in
	0) free=1 ;;
	1) free=0 ;;
	*) fail "$how: a one-worker fib holds CPUs '$fc'" ;;
	esac
	check within "$A" "$sj" "$free" 10 >"$tmp/set" ||
		fail "$how: the serial job is not held to the free CPU $free (fib has $fc): $(cat "$tmp/set")"
	echo "$how: a job holding none, beside fib on CPU $fc: $(cat "$tmp/set")"
	"$A" cancel "$f1" "$sj" >/dev/null 2>&1
	"$A" wait "$f1" "$sj" >/dev/null 2>&1
	stop_daemon
done
[ -n "$tested" ] || fail "no confinement was tested"
case $san$tested in
asan* | tsan*) [ "$tested" = " affinity" ] || fail "affinity confinement was not tested" ;;
esac

# ---- 2b. the same greedy job unconfined takes more than one CPU ----
start_daemon off --confine off || fail "--confine off"
g=$(ASTEAL_WORKERS=1 "$A" submit --parsable -o /dev/null -- "$build/tests/greedy" 30) || fail "submit greedy"
wait_for 20 running "$A" "$g" || fail "greedy never allotted"
use=$(check cpu "$A" "$g" 1) || fail "greedy's CPU use"
# Its own two threads may run anywhere: what the confined runs above
# checked could fail.  (Its CPU use, which other load can lower, is shown.)
check set "$A" "$g" allotted 1 >"$tmp/set" && fail "unconfined greedy held: $(cat "$tmp/set")"
echo "off: greedy's threads not held to its CPU; it used $use CPUs"
[ "$("$A" --json jobs "$g" | json 'd[0]["confinement"]')" = off ] || fail "confinement not off"
"$A" cancel "$g" >/dev/null

# ---- 4. --cpus ----
out=$("$A" run -c 2 -- sh -c 'echo "$OMP_NUM_THREADS $MKL_NUM_THREADS $ASTEAL_CPUS"') || fail "run -c 2"
[ "$out" = "2 2 2" ] || fail "run -c 2: environment '$out'"
# More CPUs than the daemon shares: refused, saying how many it has.
for cmd in run submit; do
	"$A" $cmd --cpus 3 -- true >/dev/null 2>"$tmp/err"
	[ $? -eq 2 ] || fail "$cmd --cpus 3 of 2 CPUs was not a usage error"
	grep -q "asteald shares 2 CPUs" "$tmp/err" || fail "$cmd --cpus 3: $(cat "$tmp/err")"
done
out=$(OMP_NUM_THREADS=9 "$A" run --cpus=1 -- sh -c 'echo "$OMP_NUM_THREADS"') || fail "run --cpus=1"
[ "$out" = 1 ] || fail "--cpus 1 left OMP_NUM_THREADS at '$out'"
for bad in 0 -1 abc 1x 65537 ""; do
	"$A" run --cpus "$bad" -- true >/dev/null 2>"$tmp/err"
	[ $? -eq 2 ] || fail "run --cpus '$bad' was not a usage error"
	grep -q "cpus" "$tmp/err" || fail "run --cpus '$bad': $(cat "$tmp/err")"
done
id=$("$A" submit --parsable -o /dev/null -c 2 -- sleep 30) || fail "submit -c 2"
wait_for 20 running "$A" "$id" || fail "rigid sleep never allotted"
"$A" jobs "$id" >"$tmp/jobs" || fail "jobs"
grep -q "CAP *HELD" "$tmp/jobs" || fail "jobs: no CAP and HELD columns: $(cat "$tmp/jobs")"
grep -q "2 rigid *off" "$tmp/jobs" || fail "jobs: the rigid job: $(cat "$tmp/jobs")"
# Stopped (SIGSTOP) it shows as stopped, and --state finds it; continued,
# no longer.
pid=$("$A" --json jobs "$id" | json 'd[0]["pid"]')
state() { "$A" --json jobs "$id" | json 'd[0]["state"]'; }
is_state() { [ "$(state)" = "$1" ]; }
kill -STOP "$pid"
wait_for 10 is_state stopped || fail "a SIGSTOPped job shows as $(state)"
"$A" jobs --state stopped | grep -q " $pid " || fail "jobs --state stopped: $("$A" jobs --state stopped)"
kill -CONT "$pid"
wait_for 10 is_state running || fail "a continued job shows as $(state)"
# cancel by name, user and state, as scancel: only the jobs that pass
xa=$("$A" submit --parsable -o /dev/null -J cx-a -- sleep 30) || fail "submit cx-a"
xb=$("$A" submit --parsable -o /dev/null -J cx-b -- sleep 30) || fail "submit cx-b"
expect_rc 0 "$A" cancel --name cx-a
"$A" wait "$xa"
[ $? -eq 143 ] || fail "cancel --name cx-a: cx-a's status"
"$A" jobs "$xb" >/dev/null || fail "cancel --name cx-a took cx-b too"
expect_rc 0 "$A" cancel --name nosuch
grep -q "no running job passes" "$tmp/err" || fail "cancel --name nosuch: $(cat "$tmp/err")"
expect_rc 2 "$A" cancel --state gone
expect_rc 0 "$A" cancel -u "$(id -un)" --name cx-b,cx-c --state running,waiting,idle,unmanaged "$xb"
"$A" wait "$xb"
[ $? -eq 143 ] || fail "cancel -u --name --state JOB: cx-b's status"
"$A" cancel "$id" >/dev/null || fail "cancel a rigid job"
"$A" wait "$id"
[ $? -eq 143 ] || fail "a cancelled rigid job's status"

# A linked program started with --cpus 1 connects: no longer rigid, its
# desire capped at 1 while fib alone would ask for 2.
f=$("$A" submit --parsable -o /dev/null -c 1 -- "$build/jobs/fib" $fib_long) || fail "submit -c 1 fib"
connected() { "$A" --json jobs "$f" 2>/dev/null | json 'd[0]["rigid"] is False and d[0]["workers"] > 1' 2>/dev/null | grep -q True; }
wait_for 20 connected || fail "fib -c 1 never connected: $("$A" --json jobs "$f")"
n=0
while [ $n -lt 20 ] && "$A" --json jobs "$f" >"$tmp/capped" 2>/dev/null; do
	# its runtime gone, the program ending: unmanaged until it exits
	json 'd[0]["unmanaged"]' <"$tmp/capped" | grep -q True && break
	json 'd[0]["cpus_cap"] == 1 and d[0]["desire"] <= 1 and d[0]["allotment"] <= 1' <"$tmp/capped" |
		grep -q True || fail "fib -c 1 not capped: $(cat "$tmp/capped")"
	n=$((n + 1))
	sleep 0.05
done
[ $n -ge 5 ] || fail "fib -c 1 ended before its cap was seen"
# Seen: its end is not waited for (cancelled, or ended meanwhile).
"$A" cancel "$f" >/dev/null 2>&1
"$A" wait "$f"
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 143 ] || fail "fib -c 1 exited $rc"

# ---- 5. another process's use of a CPU ----
taskset -c 1 sh -c 'while :; do :; done' &
hog=$!
others() { "$A" --json status | json '"%.2f" % d["cpu_others"][1] if len(d["cpu_others"]) == 2 else "0"' | awk '{ exit !($1 >= 0.8) }'; }
wait_for 15 others || { kill "$hog"; fail "CPU 1's other use: $("$A" --json status)"; }
"$A" status | grep -q "^other use: *cpu0 [0-9]*%, cpu1 [0-9]*%" || { kill "$hog"; fail "status: $("$A" status)"; }
kill "$hog"
stop_daemon
echo "rigid: ok (confined by:$tested)"
