#!/bin/sh
# corun.test.sh BUILD - the bound of bench/corun (the best weighted speedup
# and makespan any schedule could reach on 2 CPUs from each job's measured
# rates, and the weighted speedup and unfairness of equal shares) on cases
# worked by hand, the goals of its OpenMP mixes on a sitting made up by
# hand, a run that hangs (killed and counted as never ending), and its
# argument checks.  The benchmark's
# runs themselves are measurements (make bench), not tests
# (tests/benchsmoke.test.sh runs a short one).  Skipped in the sanitizer
# builds: it runs Python and sleep, no program of the build.
set -u

build=${1:?usage: sh tests/corun.test.sh BUILD}
if [ -n "${ASTEAL_TEST_SAN:-}" ]; then
	echo "skip: bench/corun is Python and runs nothing of the $ASTEAL_TEST_SAN build here (checked in the normal build)"
	exit 0
fi
. scripts/lib.sh
test_tmp corun

python3 - <<'PYEOF' || fail "the bound"
import importlib.machinery, importlib.util, sys
loader = importlib.machinery.SourceFileLoader("corun", "bench/corun")
spec = importlib.util.spec_from_loader("corun", loader)
c = importlib.util.module_from_spec(spec)
loader.exec_module(c)
bad = []
def near(what, got, want):
    if abs(got - want) > 1e-6 * max(1, abs(want)):
        bad.append("%s: %.6f, expected %.6f" % (what, got, want))
# Jobs as (best solo time, one-worker time with both CPUs busy).
par = (1.0, 2.0)     # perfectly parallel: 2 s on one worker, 1 s on two
ser = (1.0, 1.0)     # serial: 1 s however many workers
# Two parallel jobs: a CPU each, each at half speed.
near("par+par WS*", c.ws_bound([par, par]), 1.0)
near("par+par makespan*", c.makespan_bound([par, par]), 2.0)
# A serial job beside a parallel one: the serial job's CPU is worth a whole
# run per second to it, half a run to the other: WS* = 1 + 0.5.
near("ser+par WS*", c.ws_bound([ser, par]), 1.5)
# Both done at M: the serial job needs 1/M of a CPU, the parallel one 2/M.
near("ser+par makespan*", c.makespan_bound([ser, par]), 1.5)
# Alone, a job reaches WS 1 and its best solo time.
near("par alone WS*", c.ws_bound([par]), 1.0)
near("ser alone makespan*", c.makespan_bound([ser]), 1.0)
# Two serial jobs run side by side: WS* 2, makespan 1.
near("ser+ser WS*", c.ws_bound([ser, ser]), 2.0)
near("ser+ser makespan*", c.makespan_bound([ser, ser]), 1.0)
# The host's noise from two /proc/stat readings (steal, busy, total ticks)
# with no CPU time of our runs between: 2 of 100 ticks stolen, 10 idle,
# the other 88 busy with other processes.
import resource
st = c.noise((0, 0, 0), (2, 90, 100), resource.getrusage(resource.RUSAGE_CHILDREN))
near("steal", st[0], 0.02)
near("others", st[1], 0.88)
near("idle", st[2], 0.10)
# Four parallel jobs on 2 CPUs: the CPUs are the limit.
near("4 par WS*", c.ws_bound([par] * 4), 1.0)
near("4 par makespan*", c.makespan_bound([par] * 4), 4.0)
# A pair that slows each other (one worker 1.5x slower with both CPUs busy,
# as these VMs' vCPUs do): two serial jobs reach 2 / 1.5.
slow = (1.0, 1.5)
near("slow+slow WS*", c.ws_bound([slow, slow]), 2 / 1.5)
# Superlinear on two workers (1/tbest above twice 1/t1pair): the hull is
# the straight line to (2, 1/tbest), so one CPU is worth half a best run.
sup = (1.0, 3.0)
near("sup+sup WS*", c.ws_bound([sup, sup]), 1.0)
# Equal shares (WS=, what DEQ gives jobs that all ask for their share):
# the serial job and two parallel ones get 2/3 CPU each, 2/3 + 2 x 1/3,
# where WS* gives the serial job a whole CPU, 1 + 0.5.
near("ser+par+par WS*", c.ws_bound([ser, par, par]), 1.5)
near("ser+par+par WS=", c.ws_equal([ser, par, par]), 4 / 3)
near("4 par WS=", c.ws_equal([par] * 4), 1.0)
# Unfairness on equal shares, against the regime's solos (solo, t1pair,
# best): a CPU each, the serial job is not slowed and the parallel one
# doubles; a regime whose parallel solo is 1.25 s shows 0.6 instead.
near("ser+par equal unfair", c.equal_unfair([(1.0, 1.0, 1.0), (1.0, 2.0, 1.0)]), 1.0)
near("ser+par equal unfair, slow solo",
     c.equal_unfair([(1.0, 1.0, 1.0), (1.25, 2.0, 1.0)]), 0.6)
# A job twice as long weighs twice: ws_bound counts best x rate.
near("rate", c.rate(c.segments(2.0, 1.0), 1.0), 0.5)
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PYEOF

# The OpenMP mixes' goals, on a sitting made up by hand: the layer is
# compared with the other OpenMP regimes (never with layer-allot), against
# WS= and against libgomp default's unfairness; the full team against the
# allotment's; two mixes must lead the best other by 1.3x.
python3 - <<'PYEOF' || fail "the OpenMP goals"
import contextlib, importlib.machinery, importlib.util, io, sys
loader = importlib.machinery.SourceFileLoader("corun", "bench/corun")
spec = importlib.util.spec_from_loader("corun", loader)
c = importlib.util.module_from_spec(spec)
loader.exec_module(c)
def reg(ws, unfair, spread=0.02):
    return {"ws": ws, "ws_spread": spread, "slow": [0.5, 0.5], "unfair": unfair,
            "cpu": 1.0, "makespan": 2.0, "steal": 0.0, "others": 0.0, "idle": 0.0}
def mix(layer, allot, unfair):
    return {"omp": True, "waste": False, "jobs": ["a", "b"], "ws_bound": 2.0,
            "ws_equal": 1.6, "makespan_bound": 1.0,
            "regimes": {"gomp": reg(0.8, 0.30), "gomp-dynamic": reg(1.1, 0.10),
                        "libomp-lb": reg(1.0, 0.20), "layer": reg(layer, unfair),
                        "layer-allot": reg(allot, 0.0)}}
res = {"omp:good": mix(1.55, 1.50, 0.10), "omp:fair": mix(1.52, 1.70, 0.50),
       "omp:slow": mix(1.12, 1.10, 0.20)}
out = io.StringIO()
with contextlib.redirect_stdout(out):
    c.report(res, {"rounds": 1, "window": 1})
text = out.getvalue()
want = [
    "met      omp:good: layer not behind the best other (gomp-dynamic)",
    "met      omp:good: layer >= 95% of WS=",
    "met      omp:good: unfairness no worse than gomp's",
    "met      omp:good: the default team (full) not behind allotment's",
    "NOT met  omp:fair: unfairness no worse than gomp's (0.50 vs 0.30",
    "NOT met  omp:fair: the default team (full) not behind allotment's",
    "NOT met  omp:slow: layer >= 95% of WS=",
    "met      omp:slow: layer not behind the best other (gomp-dynamic)",
    "met      two oversubscribed OpenMP mixes with WS >= 1.3 x the best other regime "
    "(omp:good 1.41, omp:fair 1.38, omp:slow 1.02)",
]
bad = [w for w in want if w not in text]
# layer-allot is no "other": a mix where only it is ahead is still led.
if "best other (layer-allot)" in text:
    bad.append("layer-allot counted as another regime")
for b in bad:
    print("missing: %s" % b)
if bad:
    print(text)
sys.exit(1 if bad else 0)
PYEOF

# A run that hangs: killed after HANG_S (1 s here), counted once as a run
# that never ends, and not started again; the other job loops on, in the
# window loop and in the batch (once).
python3 - "$build" "$tmp" <<'PYEOF' || fail "a hung run"
import importlib.machinery, importlib.util, math, sys
loader = importlib.machinery.SourceFileLoader("corun", "bench/corun")
spec = importlib.util.spec_from_loader("corun", loader)
c = importlib.util.module_from_spec(spec)
loader.exec_module(c)
c.HANG_S = 1
b = c.Bench(sys.argv[1], sys.argv[2])
cmds = {"hang": ["sleep", "60"], "quick": ["true"]}
b.command = lambda job, regime, workers=None: (cmds[job.name], dict(b.env))
b.right = lambda job, text: True
jobs = [c.Job("hang", "x", []), c.Job("quick", "x", [])]
bad = []
try:
    for once in (False, True):
        runs, took, _ = b.loop(jobs, "static", 2.0, min_runs=2, once=once)
        hung, quick = runs
        if len(hung) != 1 or not math.isinf(hung[0][0]):
            bad.append("once=%s: the hung job's runs are %r" % (once, hung))
        if len(quick) < (1 if once else 2) or any(math.isinf(w) for w, _ in quick):
            bad.append("once=%s: the other job's runs are %r" % (once, quick))
        if not 0.9 < took < 10:
            bad.append("once=%s: the loop took %.2f s" % (once, took))
finally:
    b.stop()
for x in bad:
    print(x)
sys.exit(1 if bad else 0)
PYEOF

# Bad arguments: a clear message and exit 1 (2 for no arguments), nothing run.
bad() {
	out=$(python3 bench/corun "$build" "$@" 2>&1) && fail "corun $*: succeeded"
	case $out in "corun: $1"*|"corun: unknown"*|"corun: --rounds"*) ;; *) fail "corun $*: $out" ;; esac
}
bad --rounds x
bad --rounds 0
bad --window -1
bad --mix nosuch
bad --regimes nosuch
bad --bogus
bad --custom "nosuch 3"
bad --custom "fib 30 --workers x"
bad --custom ""
bad --regimes layer,nosuch
python3 bench/corun >/dev/null 2>&1
[ $? -eq 2 ] || fail "corun without arguments did not exit 2"
python3 bench/corun "$build" --list | grep '^4-on-2 ' >/dev/null || fail "corun --list"
python3 bench/corun --list | grep '^4-on-2 ' >/dev/null || fail "corun --list without a build"
python3 bench/corun --list | grep '^omp:convert+dgemm  *convert-im6.q16 ' >/dev/null || fail "corun --list: no OpenMP mix"
out=$(cd "$tmp" && python3 "$OLDPWD/bench/corun" --rounds 1 2>&1) && fail "corun without a build: succeeded"
case $out in "corun: the build folder comes first"*) ;; *) fail "corun without a build: $out" ;; esac
[ -z "$(ls -A "$tmp")" ] || fail "corun without a build left files: $(ls -A "$tmp")"
echo ok
