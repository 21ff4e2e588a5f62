#!/bin/sh
# demo.sh BUILD - two-level scheduling at work, in under a minute: start
# asteald on a private socket and database (BUILD/demo/), run three jobs of
# different parallelism together with `asteal run`, show them running,
# print their allotment history, what each asked for and got (from that
# history, as the chart's panels say it) and write a plot of it, stop the
# daemon, then the co-run verdicts.  DEMO_QUICK=1 runs smaller jobs and no
# verdicts (tests/demo.test.sh: the printed figures, the chart and the
# history agree).
set -eu

. scripts/lib.sh                 # wait_for

build=${1:-build}
dir="$build/demo"
sock="$dir/asteald.sock"
db="$dir/history.db"
plot="$dir/allotments.svg"
A="$build/bin/asteal"
daemon_pid=""

cleanup() {
	if [ -n "$daemon_pid" ]; then
		kill "$daemon_pid" 2>/dev/null || true
		wait "$daemon_pid" 2>/dev/null || true
	fi
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

die() {
	echo "demo: $*" >&2
	[ -f "$dir/asteald.log" ] && tail -5 "$dir/asteald.log" >&2
	exit 1
}


mkdir -p "$dir"
rm -f "$sock" "$db" "$db-wal" "$db-shm" "$plot" "$dir"/*.out "$dir"/*.rc
# The history is read from when the demo began: its default window is
# today, which a demo run across midnight would cut.
since=$(date +%Y-%m-%dT%H:%M:%S)
cpus=$(nproc)

cat <<EOF

asteal demo: two-level adaptive scheduling on this machine's $cpus CPUs.

  asteald (the job scheduler) gives every job, every 10 ms quantum, an
  equal share of the CPUs but never more than the job asks for (DEQ).
  libasteal (in each job) measures how well it used its CPUs and asks for
  more or fewer (A-STEAL): wide jobs ask for many, serial phases for one.

Starting asteald on $sock ...
EOF
# As the service does (Nice=-10), keep the scheduler ahead of the jobs it
# schedules, which keep every CPU busy; only root may raise a priority.
nice=""
[ "$(id -u)" -eq 0 ] && nice="nice -n -10"
$nice "$build/bin/asteald" --foreground --socket "$sock" --db "$db" --quantum-ms 10 \
	>"$dir/asteald.log" 2>&1 &
daemon_pid=$!
listening() { [ -S "$sock" ] && grep -q 'listening on' "$dir/asteald.log"; }
wait_for 10 listening || die "asteald did not start"
export ASTEAL_SOCKET="$sock"

# Three jobs: one always wide, one alternating serial and parallel
# phases, one serial throughout.
run() {
	name=$1
	shift
	( "$A" run --stats --name "$name" -- "$@" >"$dir/$name.out" 2>&1
	  echo $? >"$dir/$name.rc" ) &
}
cat <<EOF

Running three jobs together with 'asteal run':
  wide     fib 44                        parallel all the way
  phases   phases 24 (100 ms serial, then 4 x 50 ms parallel, repeated)
  serial   phases 50 --h 1               one task at a time
EOF
if [ -n "${DEMO_QUICK:-}" ]; then
	run wide "$build/jobs/fib" 38
	run phases "$build/jobs/phases" 4 --w1 100000 --w2 50000 --h 4
	run serial "$build/jobs/phases" 8 --w1 100000 --w2 0 --h 1
else
	run wide "$build/jobs/fib" 44
	run phases "$build/jobs/phases" 24 --w1 100000 --w2 50000 --h 4
	run serial "$build/jobs/phases" 50 --w1 100000 --w2 0 --h 1
fi
three() { [ "$("$A" --json jobs | grep -o '"id"' | wc -l)" -ge 3 ]; }
if wait_for 10 three; then
	sleep 1      # let the desires settle for the snapshot (display only)
	printf '\nasteal jobs, a second later (DESIRE: what the job asks for now, ALLOT:\n'
	printf 'what it holds now; a job that could not use a quantum, in a serial\n'
	printf 'phase or waiting for its CPU, asks for less the next):\n\n'
	"$A" jobs | sed 's/^/  /'
fi
for j in wide phases serial; do
	wait_for 120 test -s "$dir/$j.rc" || die "job $j did not finish"
done
printf '\nThe jobs finished:\n'
status=0
for j in wide phases serial; do
	sed "s/^/  [$j] /" "$dir/$j.out"
	[ "$(cat "$dir/$j.rc")" -eq 0 ] || { echo "  [$j] FAILED with status $(cat "$dir/$j.rc")"; status=1; }
done

printf '\nasteal history -S %s --jobs:\n\n' "$since"
"$A" history -S "$since" --jobs | sed 's/^/  /'
rows=$("$A" --json history -S "$since" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["allotments"]))' 2>/dev/null || echo 0)
printf '\nasteal history: %s allotment changes (one row per change; the first 25):\n\n' "$rows"
"$A" history -S "$since" | head -n 26 | sed 's/^/  /'
[ "$rows" -gt 25 ] && echo "  ... (all of them: $A --socket $sock history -S $since)"
"$A" history -S "$since" --plot "$plot" >/dev/null || die "the plot failed"
# What each job asked for and got, from the history: time-weighted means
# over its rows, as each panel of the chart says them.
"$A" --json history -S "$since" >"$dir/history.json" || die "history --json failed"
python3 - "$dir/history.json" "$cpus" >"$dir/means.txt" <<'PY' || die "the means failed"
import json, sys
rows = json.load(open(sys.argv[1]))["allotments"]
P = int(sys.argv[2])
jobs = {}
span = (max(int(r["end_ns"]) for r in rows) - min(int(r["start_ns"]) for r in rows)
        if rows else 1)
for r in rows:
    d = int(r["duration_ns"])
    j = jobs.setdefault(r["name"], [0, 0.0, 0.0])
    j[0] += d
    j[1] += d * r["allotment"]
    j[2] += d * r["desire"]
print("  %-8s %12s %15s" % ("JOB", "MEAN DESIRE", "MEAN ALLOTMENT"))
for name in ("wide", "phases", "serial"):
    t, a, w = jobs.get(name, [0, 0, 0])
    if t:
        print("  %-8s %12.2f %15.2f" % (name, w / t, a / t))
together = sum(j[2] for j in jobs.values()) / max(span, 1)
print("together the jobs asked for %.1f CPUs on average while they ran, of "
      "the %d there are" % (together, P))
PY
printf '\nWhat each job asked for and got, over its whole run (from the history,\n'
printf 'as the chart says it; CPUs):\n\n'
sed '$d' "$dir/means.txt"
asked=$(tail -n 1 "$dir/means.txt")
printf '\nasteal status:\n\n'
"$A" status | sed 's/^/  /'

kill "$daemon_pid"
wait "$daemon_pid" || die "asteald did not stop cleanly"
daemon_pid=""
cat <<EOF

What happened: $asked.
Whenever they asked for more than that, DEQ shared the CPUs out equally,
the jobs taking turns for the odd one (each job's total stays within one
CPU-quantum of the others').  When a job finished, the others got its
share; a job that cannot use what it gets (a serial phase, or a quantum
spent waiting for its CPU) is found inefficient by A-STEAL and asks for
less, so that a mean desire is below what the job could use at best.

The plot of desire and allotment over time: $plot
The history database (SQLite): $db   The daemon's log: $dir/asteald.log

EOF
[ -n "${DEMO_QUICK:-}" ] && exit $status
cat <<EOF

What it buys here: the same three kinds of job looped together for 4 s,
unmanaged (every job's workers on every CPU) and under a fresh asteald,
twice each, interleaved (bench/corun --verdict; the full benchmark is
bench/corun):
EOF
python3 bench/corun "$build" --verdict --window 4 --out "$dir/corun" \
	>"$dir/verdict.txt" || die "the co-run verdict failed"
sed 's/^/  /' "$dir/verdict.txt"

cat <<EOF

And for OpenMP programs as users run them today (gcc -fopenmp, unmodified,
each asking for every CPU): three of them (nqueens with tasks, a matrix
product with a parallel loop, phases of serial and parallel regions)
looped together for 3 s, unmanaged on the system's libgomp (whose threads
spin while they wait) and under a fresh asteald on the libgomp layer
(asteal run), twice each, interleaved (bench/corun --verdict-omp; the
OpenMP mixes of bench/corun measure more):
EOF
python3 bench/corun "$build" --verdict-omp --window 3 --out "$dir/corun-omp" \
	>"$dir/verdict-omp.txt" || die "the OpenMP verdict failed"
sed 's/^/  /' "$dir/verdict-omp.txt"
exit $status
