#!/bin/sh
# slurm.test.sh BUILD - asteal under Slurm, on a one-node Slurm cluster
# brought up here from Debian's packages (docs/cluster.md):
#  1. asteald confined to one CPU (taskset, as Slurm or a container would
#     confine it) manages just that CPU by default: `asteal status` says
#     so;
#  2. munged (as the munge user, with a key of its own in the temporary
#     folder, on a socket there), `slurmctld -D` and `slurmd -D` with a
#     slurm.conf generated here (ports free on this machine, the node's
#     CPUs shared: select/cons_tres, CR_CPU, OverSubscribe=FORCE) and a
#     plugstack.conf that loads the freshly built SPANK plugin with
#     socket= the test's asteald; sbatch --help lists --asteal, and a bad
#     value is refused; a bad plugin argument is named in one line;
#  3. two `sbatch --oversubscribe -c 2` jobs, each a libasteal job (phases),
#     run at once (each waits, with a bound, until both have started) and
#     finish with exit 0 (scontrol show job, and each job's output);
#     each was given ASTEAL_SOCKET, ASTEAL_JOB_NAME slurm-JOBID.batch and
#     ASTEAL_WORKERS its 2 CPUs (the second had ASTEAL_WORKERS=64 in its
#     submitting environment, which the plugin replaces); a third job
#     with --asteal=off meanwhile keeps its environment as submitted;
#     an array task is named slurm-ARRAYID_7.batch;
#     an srun step of 2 tasks of 1 CPU each names each task slurm-JOBID.0
#     with ASTEAL_WORKERS=1;
#  4. asteald's history holds exactly the two jobs, named
#     slurm-JOBID.batch, whose lives overlap; in every quantum their
#     allotments sum to at most the node's CPUs, no job's allotment is
#     above its desire nor its desire above its 2 workers, and the
#     allotments are DEQ's (tests/deq_replay);
#  5. with asteald stopped (no socket), a job keeps its environment.
# Every wait is on a condition with a bound.  The test stops every daemon
# it started (munged, slurmctld, slurmd, asteald; jobs still running are
# cancelled first) and leaves no file outside its temporary folder.
#
# Skipped, with the one line "slurm.test: skipped: WHAT" and exit 0, when
# Slurm cannot run here: not root, a Slurm or munge program missing
# (scripts/deps.sh check installs them), no munge user, no SPANK header
# (the plugin is not built), or munged, slurmctld or slurmd not starting.
# Only in the normal build: the jobs and daemons are the plain build's
# (slurmstepd cannot load a sanitized plugin, and the jobs here check how
# the pieces fit, not their code, which the sanitizer builds test).
set -u

build=${1:?usage: sh tests/slurm.test.sh BUILD}
if [ -n "${ASTEAL_TEST_SAN:-}" ]; then
	echo "slurm: checked in the normal build only"
	exit 0
fi
. scripts/lib.sh
test_tmp slurm

asteal="$build/bin/asteal"
abs_build=$(cd "$build" && pwd)
plugin="$build/lib/slurm/asteal_spank.so"
sock="$tmp/asteald.sock"
db="$tmp/history.db"
munged_pid=""
ctld_pid=""
slurmd_pid=""
jobs=""

# Print the skip line and stop (test_exit cleans up).
skip() {
	echo "slurm.test: skipped: $*"
	exit 0
}

# Fail with the tails of every daemon's log.
flunk() {
	for f in munged.log slurmctld.log slurmd.log; do
		[ -f "$tmp/$f" ] && tail -n 15 "$tmp/$f" | sed "s/^/  $f| /"
	done
	fail "$@"
}

# Stop pid $1 with SIGTERM and wait for it (at most 20 s, then SIGKILL).
stop_pid() {
	kill "$1" 2>/dev/null || return 0
	gone() { ! kill -0 "$1" 2>/dev/null; }
	wait_for 20 gone "$1" || kill -9 "$1" 2>/dev/null
	wait "$1" 2>/dev/null || true
}

test_cleanup() {
	if [ -n "$jobs" ] && [ -n "$ctld_pid" ]; then
		# shellcheck disable=SC2086
		scancel $jobs 2>/dev/null
		none_left() { [ -z "$(squeue -h -o %i 2>/dev/null)" ]; }
		wait_for 20 none_left
	fi
	for p in $slurmd_pid $ctld_pid $daemon_pid $munged_pid; do
		stop_pid "$p"
	done
	daemon_pid=""
}

# ---- 1. asteald's default CPUs are the ones it may run on ----
first=$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')
taskset -c "$first" "$build/bin/asteald" --foreground --socket "$sock" \
	--db "$tmp/confined.db" >"$tmp/daemon.log" 2>&1 &
daemon_pid=$!
up() { "$asteal" --socket "$sock" status >"$tmp/status" 2>&1; }
wait_for 20 up || fail "asteald under taskset -c $first did not answer: $(cat "$tmp/status")"
grep -qx "cpus: *$first (1)" "$tmp/status" ||
	fail "asteald confined to CPU $first manages: $(grep '^cpus:' "$tmp/status")"
stop_pid "$daemon_pid"
daemon_pid=""

# ---- 2. a one-node Slurm ----
[ "$(id -u)" -eq 0 ] || skip "not root (slurmd and munged must start as root and munge)"
missing=""
for prog in munged mungekey slurmctld slurmd sbatch srun scontrol squeue sinfo scancel sqlite3 setpriv; do
	command -v "$prog" >/dev/null 2>&1 || missing="$missing $prog"
done
[ -z "$missing" ] || skip "missing programs:$missing (Debian: munge slurmctld slurmd slurm-client sqlite3)"
id munge >/dev/null 2>&1 || skip "no munge user (Debian's munge package makes it)"
[ -f /usr/include/slurm/spank.h ] || skip "no /usr/include/slurm/spank.h (libslurm-dev): the SPANK plugin is not built"
[ -f "$plugin" ] || fail "$plugin was not built, though libslurm-dev is installed"
node=$(hostname -s)
[ -n "$node" ] || skip "hostname -s names no host"
P=$(nproc)
c=2
[ "$P" -ge 2 ] || c=1

# Everything Slurm reads comes from here, not from a job or cluster the
# test may run in.
for v in $(env | sed -n 's/^\(SLURM_[A-Za-z0-9_]*\)=.*/\1/p'); do
	unset "$v"
done
unset ASTEAL_JOB_NAME ASTEAL_WORKERS
export ASTEAL_SOCKET=none SLURM_CONF="$tmp/slurm.conf"

# munged as the munge user, its key, socket, seed and log in $tmp/munge.
chmod 0755 "$tmp"
mkdir "$tmp/munge" "$tmp/state" "$tmp/spool" "$tmp/out"
chown munge:munge "$tmp/munge"
setpriv --reuid=munge --regid=munge --init-groups \
	mungekey --create --keyfile="$tmp/munge/munge.key" >"$tmp/munged.log" 2>&1 ||
	skip "mungekey could not make a key: $(tail -n 1 "$tmp/munged.log")"
setpriv --reuid=munge --regid=munge --init-groups \
	munged --foreground --socket="$tmp/munge/munge.sock" \
	--key-file="$tmp/munge/munge.key" --pid-file="$tmp/munge/munged.pid" \
	--seed-file="$tmp/munge/seed" --log-file="$tmp/munged.log" \
	>>"$tmp/munged.log" 2>&1 &
munged_pid=$!
munge_up() {
	kill -0 "$munged_pid" 2>/dev/null || return 2
	[ -S "$tmp/munge/munge.sock" ]
}
wait_for 20 munge_up || skip "munged did not start: $(grep -i error "$tmp/munged.log" | tail -n 1)"

# Two ports nothing listens on (a system Slurm's 6817/6818 are left alone).
listening=$(awk '$4 == "0A" { split($2, a, ":"); print a[2] }' /proc/net/tcp /proc/net/tcp6 2>/dev/null)
port=$((20000 + $$ % 20000))
free_port() {
	while printf '%s\n' "$listening" | grep -qix "$(printf '%04X' "$port")"; do
		port=$((port + 1))
	done
}
free_port
ctld_port=$port
port=$((port + 1))
free_port
slurmd_port=$port

cat >"$tmp/plugstack.conf" <<EOF
optional $(cd "$(dirname "$plugin")" && pwd)/asteal_spank.so socket=$sock
EOF
cat >"$tmp/slurm.conf" <<EOF
ClusterName=astealtest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$tmp/munge/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
SlurmdDebug=debug
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
MinJobAge=300
MailProg=/bin/true
PlugStackConfig=$tmp/plugstack.conf
NodeName=$node NodeAddr=127.0.0.1 CPUs=$P State=UNKNOWN
PartitionName=asteal Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE
EOF

slurmctld -D >"$tmp/slurmctld.out" 2>&1 &
ctld_pid=$!
ctld_up() {
	kill -0 "$ctld_pid" 2>/dev/null || return 2
	scontrol ping 2>/dev/null | grep -q 'is UP'
}
wait_for 30 ctld_up || skip "slurmctld did not answer within 30 s: $(grep -i -e error -e fatal "$tmp/slurmctld.log" | tail -n 1)"
slurmd -D >"$tmp/slurmd.out" 2>&1 &
slurmd_pid=$!
node_idle() {
	kill -0 "$slurmd_pid" 2>/dev/null || return 2
	[ "$(sinfo -h -n "$node" -o %T 2>/dev/null)" = idle ]
}
if ! wait_for 30 node_idle; then
	kill -0 "$slurmd_pid" 2>/dev/null ||
		skip "slurmd did not start: $(grep -i -e error -e fatal "$tmp/slurmd.log" | grep -v -i pmix | tail -n 1)"
	flunk "the node $node is not idle after 30 s: $(sinfo -h -o '%T %E' 2>&1)"
fi

# The option, as SPANK shows and checks it in sbatch.
sbatch --help 2>&1 | grep -q -- '--asteal=off|on' || flunk "sbatch --help does not list --asteal"
if sbatch --asteal=maybe --wrap true >"$tmp/out.txt" 2>"$tmp/err"; then
	flunk "sbatch --asteal=maybe was accepted: $(cat "$tmp/out.txt")"
fi
grep -q -- '--asteal=maybe: expected off or on' "$tmp/err" ||
	flunk "sbatch --asteal=maybe: $(cat "$tmp/err")"
# A bad plugstack.conf argument is named, and the rest goes on.
sed 's|socket=|sockets=|' "$tmp/plugstack.conf" >"$tmp/plugstack-bad.conf"
sed "s|^PlugStackConfig=.*|PlugStackConfig=$tmp/plugstack-bad.conf|" "$tmp/slurm.conf" >"$tmp/slurm-bad.conf"
SLURM_CONF="$tmp/slurm-bad.conf" sbatch --help >"$tmp/out.txt" 2>"$tmp/err" ||
	flunk "sbatch --help with a bad plugstack.conf argument: $(cat "$tmp/err")"
grep -q "plugstack.conf argument 'sockets=$sock' ignored" "$tmp/err" &&
	grep -q -- '--asteal=off|on' "$tmp/out.txt" ||
	flunk "sbatch --help with a bad plugstack.conf argument: $(cat "$tmp/err")"

# ---- 3. two jobs sharing the node through asteald, and one without ----
"$build/bin/asteald" --foreground --socket "$sock" --db "$db" \
	--quantum-ms 10 >"$tmp/daemon.log" 2>&1 &
daemon_pid=$!
wait_for 20 up || flunk "asteald did not start: $(cat "$tmp/status")"

# A job: its environment, then, once both jobs run (60 s at most), a
# libasteal job of a few seconds; its exit status last.
cat >"$tmp/job.sh" <<EOF
#!/bin/sh
echo "env \${ASTEAL_SOCKET-unset} \${ASTEAL_JOB_NAME-unset} \${ASTEAL_WORKERS-unset}"
: >"$tmp/out/started.\$SLURM_JOB_ID"
n=0
while [ "\$(ls "$tmp/out" | grep -c '^started\.')" -lt 2 ] && [ "\$n" -lt 1200 ]; do
	sleep 0.05
	n=\$((n + 1))
done
"$abs_build/jobs/phases" 12
rc=\$?
echo "exit \$rc"
exit \$rc
EOF
cat >"$tmp/env.sh" <<EOF
#!/bin/sh
echo "env \${ASTEAL_SOCKET-unset} \${ASTEAL_JOB_NAME-unset} \${ASTEAL_WORKERS-unset}"
EOF
submit() {
	id=$(sbatch --parsable --oversubscribe -c "$c" --chdir="$tmp" \
		-o "$tmp/out/%j.out" "$@" 2>"$tmp/err") ||
		flunk "sbatch $*: $(cat "$tmp/err")"
	jobs="$jobs $id"
}
submit "$tmp/job.sh"
j1=$id
export ASTEAL_WORKERS=64
submit "$tmp/job.sh"
unset ASTEAL_WORKERS
j2=$id
submit --asteal=off "$tmp/env.sh"
j3=$id
submit --array=7 -o "$tmp/out/array-%A_%a.out" "$tmp/env.sh"
ja=$id

# The jobs' ends: JobState stays shown for MinJobAge (no sacct without
# slurmdbd).
state() { scontrol -o show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'; }
ended() {
	for j; do
		case $(state "$j") in
		PENDING|CONFIGURING|RUNNING|COMPLETING|SUSPENDED|"") return 1 ;;
		esac
	done
}
wait_for 90 ended $j1 $j2 $j3 $ja ||
	flunk "jobs not done after 90 s: $(squeue 2>&1); $(cat "$tmp"/out/*.out 2>/dev/null)"
for j in $j1 $j2 $j3; do
	info=$(scontrol -o show job "$j")
	case $info in
	*JobState=COMPLETED*ExitCode=0:0*) ;;
	*) flunk "job $j: $(printf '%s' "$info" | grep -o -e 'JobState=[^ ]*' -e 'ExitCode=[^ ]*' | tr '\n' ' '): $(cat "$tmp/out/$j.out" 2>&1)" ;;
	esac
done
for j in $j1 $j2; do
	out=$(cat "$tmp/out/$j.out")
	want="env $sock slurm-$j.batch $c"
	printf '%s\n' "$out" | grep -qxF "$want" ||
		flunk "job $j's environment is not '$want': $out"
	printf '%s\n' "$out" | grep -q "^job=phases .* workers=$c .*check=ok" ||
		flunk "job $j's phases: $out"
	printf '%s\n' "$out" | grep -qx 'exit 0' || flunk "job $j: $out"
done
grep -qxF "env none unset unset" "$tmp/out/$j3.out" ||
	flunk "the --asteal=off job $j3's environment was changed: $(cat "$tmp/out/$j3.out")"
want="env $sock slurm-${ja}_7.batch $c"
grep -qxF "$want" "$tmp/out/array-${ja}_7.out" ||
	flunk "array task ${ja}_7's environment is not '$want': $(cat "$tmp/out/array-${ja}_7.out" 2>&1)"
echo "jobs $j1 and $j2 ran as slurm-$j1.batch and slurm-$j2.batch with $c workers; $j3 (--asteal=off) was left alone; array task ${ja}_7 is slurm-${ja}_7.batch"

# A step of several tasks: each task is a job of its own, named after the
# step, with its share of the step's CPUs.
timeout 60 srun -n "$c" -c 1 --oversubscribe --chdir="$tmp" sh -c \
	'echo "$ASTEAL_JOB_NAME $ASTEAL_WORKERS"' >"$tmp/srun.out" 2>"$tmp/err" ||
	flunk "srun -n $c -c 1: $(cat "$tmp/err")"
j5=$(sed -n 's/^slurm-\([0-9]*\)\.0 1$/\1/p' "$tmp/srun.out" | sort -u)
[ "$(grep -c . "$tmp/srun.out")" -eq "$c" ] && [ -n "$j5" ] &&
	[ "$(grep -c "^slurm-$j5\.0 1\$" "$tmp/srun.out")" -eq "$c" ] ||
	flunk "srun -n $c -c 1's tasks were given: $(cat "$tmp/srun.out")"
echo "srun -n $c -c 1: each task is slurm-$j5.0 with 1 worker"

# ---- 4. the history ----
closed() { [ "$(sqlite3 -cmd '.timeout 2000' "$db" 'select count(*) from jobs where end_ns is not null')" -ge 2 ]; }
wait_for 20 closed || flunk "the two jobs are not closed in the history"
stop_pid "$daemon_pid"
daemon_pid=""
names=$("$asteal" history --db "$db" --jobs -o name -n | sed 's/ *$//' | sort | tr '\n' ' ')
want=$(printf '%s\n' "slurm-$j1.batch" "slurm-$j2.batch" | sort | tr '\n' ' ')
[ "$names" = "$want" ] || flunk "the history's jobs are '$names', expected '$want'"
sql() { sqlite3 -cmd '.timeout 2000' "$db" "$@"; }
overlap=$(sql "select count(*) from jobs a, jobs b where a.id < b.id and a.start_ns < b.end_ns and b.start_ns < a.end_ns")
[ "$overlap" -eq 1 ] || flunk "the two jobs did not run at once: $(sql 'select name, start_ns, end_ns from jobs')"
sql "select job, first_quantum, last_quantum, desire, allotment,
            cpu_quanta != allotment * (last_quantum - first_quantum + 1) from allotments" |
awk -F'|' -v P="$P" -v W="$c" '
{
	if ($4 > W) { print "job " $1 " desired " $4 " > its " W " workers"; bad = 1 }
	if ($5 > $4) { print "job " $1 " allotted " $5 " > its desire " $4; bad = 1 }
	for (q = $2; q <= $3; q++) { a[q] += $5; t[q] += $6; n[q]++ }
}
END {
	for (q in a) {
		nq++
		if (n[q] > 1) both++
		# A run of turns holds its lower allotment: the sum is then
		# checked by deq_replay, below.
		if (t[q] == 0 && a[q] > P) { print "quantum " q ": allotments sum to " a[q] " > " P; bad = 1 }
	}
	print nq " quanta, " both " with both jobs"
	if (both == 0) { print "no quantum had both jobs"; bad = 1 }
	exit bad
}' >"$tmp/sums" || flunk "allotments: $(cat "$tmp/sums")"
cpus=$(taskset -pc $$ | sed 's/.*: *//')
"$build/tests/deq_replay" "$db" "$cpus" >"$tmp/replay" 2>&1 ||
	flunk "the recorded allotments are not DEQ's: $(tail -n 5 "$tmp/replay")"
echo "history: $(cat "$tmp/sums"), allotments at most $P CPUs and DEQ's"

# ---- 5. no asteald on the node: the job is left alone ----
[ ! -e "$sock" ] || flunk "asteald left its socket $sock"
submit "$tmp/env.sh"
j4=$id
wait_for 60 ended "$j4" || flunk "job $j4 not done after 60 s: $(squeue 2>&1)"
grep -qxF "env none unset unset" "$tmp/out/$j4.out" ||
	flunk "job $j4, without asteald, had its environment changed: $(cat "$tmp/out/$j4.out")"
grep -q "asteal: no asteald socket at $sock" "$tmp/slurmd.log" ||
	flunk "slurmd's log has no debug line from the plugin for job $j4"
echo "without asteald, job $j4 was left alone"
echo ok
