#!/bin/sh
# cli_numbers.test.sh BUILD - the figures the command line shows agree
# with each other across its commands and with their definitions in
# asteal(1), against a private asteald managing two CPUs:
#  1. run --stats: three rigid jobs of one CPU on two CPUs take turns;
#     each one's quanta and mean allotment (--json and the text line) are
#     the history's: its processor-quanta over its quanta;
#  2. history rows: in the table, CSV and JSON, ALLOT is min(DESIRE,
#     AVAIL) and a range of turns shows both as its mean (CPUQ over its
#     quanta); CLASS only where the job reported one (a rigid job: none);
#  3. JSON: one schema across run --stats, wait, history (both forms),
#     jobs, submit and cancel (and status): every *_ns a string of digits,
#     each key one type in all of them, every column's key (CSV's header)
#     in JSON's objects; for one job (killed by SIGKILL, or exit 3) the
#     same end (status_known, wait_status, exit_code, signal, status,
#     timeout, end_ns) in run --stats, wait and history --jobs;
#  4. --stats of a job asteald never scheduled says so (unmanaged, no mean
#     allotment), and a job killed by SIGINT says "killed by SIGINT" as
#     the history's STATUS does.
# Every wait is on a condition with a bound.
set -u

build=${1:?usage: sh tests/cli_numbers.test.sh BUILD}
. scripts/lib.sh
test_tmp clinum
day_wait                # its jobs are read back with history's default window (today)
sock="$tmp/asteald.sock"
A="$build/bin/asteal"
export ASTEAL_SOCKET="$sock"

# Run python code $1 (args: sys.argv[1:]).
py() {
	code=$1
	shift
	python3 -c "$code" "$@"
}

[ "$(nproc)" -ge 2 ] || { echo "skipped: two CPUs needed"; exit 0; }
"$build/bin/asteald" --foreground --socket "$sock" --db "$tmp/history.db" \
	--cpus 0-1 --quantum-ms 10 >"$tmp/daemon.log" 2>&1 &
daemon_pid=$!
up() { "$A" status >/dev/null 2>&1; }
wait_for 20 up || fail "the daemon did not start"

# ---- 1. run --stats: three jobs taking turns on two CPUs ----
# Each holds until all three run (rigid jobs of one CPU: DEQ hands the
# two CPUs round them), then sleeps 1.5 s, turns all along.
hold="while [ ! -e '$tmp/go' ]; do sleep 0.02; done; sleep 1.5"
for n in 1 2; do
	"$A" --json run --stats --cpus 1 -J turns$n -- sh -c "$hold" \
		>"$tmp/stats$n.out" 2>"$tmp/stats$n.err" &
	runs="${runs:-} $!"
done
"$A" run --stats --cpus 1 -J turns3 -- sh -c "$hold" >"$tmp/stats3.out" 2>"$tmp/stats3.err" &
runs="$runs $!"
three() { [ "$("$A" jobs --noheader -o id --name turns1,turns2,turns3 | wc -l)" -eq 3 ]; }
wait_for 20 three || fail "the three jobs did not start: $("$A" jobs)"
touch "$tmp/go"
for p in $runs; do
	wait "$p" || fail "a run in turns exited $?: $(cat "$tmp"/stats*.err)"
done
ids=$("$A" history --jobs --noheader -o id --name turns1,turns2,turns3 | tr -s ' \n' ' ')
[ "$(echo $ids | wc -w)" -eq 3 ] || fail "history --jobs: ids '$ids'"
"$A" --json history $ids >"$tmp/turns.json" || fail "history --json failed"
py '
import json, re, sys
tmp = sys.argv[1]
h = json.load(open(tmp + "/turns.json"))
by = {j["name"]: j["id"] for j in h["jobs"]}
def hist(name):
    recs = [r for r in h["allotments"] if r["job_id"] == by[name]]
    q = sum(r["last_quantum"] - r["first_quantum"] + 1 for r in recs)
    return q, sum(r["cpu_quanta"] for r in recs) / q, recs
turns = 0
for n in (1, 2):
    s = json.loads(open("%s/stats%d.out" % (tmp, n)).read())
    q, mean, recs = hist("turns%d" % n)
    turns += sum(r["cpu_quanta"] % (r["last_quantum"] - r["first_quantum"] + 1) != 0
                 for r in recs)
    assert s["quanta"] == q, ("quanta", s, q)
    assert abs(s["mean_allotment"] - mean) < 0.0051, ("--json mean", s, mean)
    assert 0.3 < mean < 0.95, ("two CPUs for three jobs", mean)
line = open(tmp + "/stats3.err").read()
m = re.search(r"(\d+) quanta, mean allotment ([0-9.]+) CPUs", line)
assert m, line
q, mean, recs = hist("turns3")
assert int(m.group(1)) == q and abs(float(m.group(2)) - mean) < 0.0051, (line, q, mean)
assert turns > 0, "no range of turns: the test proves nothing"
' "$tmp" || fail "run --stats disagrees with the history: $(cat "$tmp"/stats*.out "$tmp/stats3.err")"
echo "run --stats: three jobs in turns, each its history's mean allotment"

# ---- 2. history rows: ALLOT = min(DESIRE, AVAIL), turns as means ----
cols=job,first,last,desire,avail,allot,cpuq,class
"$A" history -o $cols $ids >"$tmp/rows.txt" || fail "history -o failed"
"$A" history --csv -o $cols $ids >"$tmp/rows.csv" || fail "history --csv failed"
py '
import csv, json, sys
tmp = sys.argv[1]
table = [l.split() for l in open(tmp + "/rows.txt").read().splitlines()[1:]]
c = list(csv.DictReader(open(tmp + "/rows.csv", newline="")))
a = json.load(open(tmp + "/turns.json"))["allotments"]
assert len(table) == len(c) == len(a) > 0, (len(table), len(c), len(a))
turns = 0
for t, s, j in zip(table, c, a):
    n = j["last_quantum"] - j["first_quantum"] + 1
    mean = j["cpu_quanta"] / n
    turns += j["cpu_quanta"] % n != 0
    for form, d, av, al, cl in (
            ("table", int(t[3]), float(t[4]), float(t[5]), t[7]),
            ("csv", int(s["desire"]), float(s["availability"]),
             float(s["allotment"]), s["quantum_class"] or "-"),
            ("json", j["desire"], j["availability"], j["allotment"],
             j["quantum_class"] or "-")):
        prec = 0.0051 if form == "table" else 0.00006
        assert abs(al - mean) < prec, (form, "ALLOT is not the mean", t, s, j)
        assert abs(al - min(d, av)) < prec, (form, "ALLOT != min(DESIRE, AVAIL)", t, s, j)
        assert cl == "-", (form, "a class for a rigid job, which reports none", t, s, j)
    if j["cpu_quanta"] % n != 0:
        assert "." in t[4] and t[4] == t[5], ("turns: AVAIL and ALLOT both the mean", t)
assert turns > 0, "no range of turns"
' "$tmp" || fail "history rows disagree with asteal(1): $(cat "$tmp/rows.txt")"
echo "history: ALLOT = min(DESIRE, AVAIL) in every form, turns as means"

# ---- 3. JSON: one schema, one job's end the same everywhere ----
# Job k is killed by SIGKILL, job e exits 3; x runs while jobs and status
# are asked, then is cancelled.
"$A" --json run --stats --cpus 1 -J killed -- sh -c 'kill -KILL $$' >"$tmp/k.stats" 2>"$tmp/k.err"
[ $? -eq 137 ] || fail "run of a SIGKILLed job: $(cat "$tmp/k.err")"
"$A" --json run --stats --cpus 1 -J three -- sh -c 'exit 3' >"$tmp/e.stats" 2>"$tmp/e.err"
[ $? -eq 3 ] || fail "run of exit 3: $(cat "$tmp/e.err")"
k=$(py 'import json,sys; print(json.load(open(sys.argv[1]))["job_id"])' "$tmp/k.stats")
e=$(py 'import json,sys; print(json.load(open(sys.argv[1]))["job_id"])' "$tmp/e.stats")
"$A" --json wait "$k" "$e" >"$tmp/wait.json"
[ $? -eq 137 ] || fail "wait: exit $?"
"$A" --json history --jobs "$k" "$e" >"$tmp/hjobs.json" || fail "history --jobs failed"
"$A" --json history >"$tmp/hist.json" || fail "history failed"
"$A" --json submit -o /dev/null --cpus 1 -- sleep 300 >"$tmp/submit.json" || fail "submit failed"
x=$(py 'import json,sys; print(json.load(open(sys.argv[1]))["job_id"])' "$tmp/submit.json")
listed() { [ "$("$A" jobs --noheader -o id "$x" 2>/dev/null)" = "$x" ]; }
wait_for 20 listed || fail "job $x is not listed"
"$A" --json jobs >"$tmp/jobs.json" || fail "jobs failed"
"$A" jobs --csv >"$tmp/jobs.csv" || fail "jobs --csv failed"
"$A" history --csv >"$tmp/hist.csv" || fail "history --csv failed"
"$A" history --jobs --csv >"$tmp/hjobs.csv" || fail "history --jobs --csv failed"
"$A" --json status >"$tmp/status.json" || fail "status failed"
"$A" --json cancel "$x" >"$tmp/cancel.json" || fail "cancel failed"
"$A" --json wait "$x" >"$tmp/wait2.json"
py '
import json, sys
tmp, k, e = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def lines(f):
    return [json.loads(l) for l in open(tmp + "/" + f).read().splitlines() if l]
docs = {f: lines(f) for f in ("k.stats", "e.stats", "wait.json", "submit.json",
                              "cancel.json", "wait2.json")}
for f in ("hjobs.json", "hist.json", "jobs.json"):
    docs[f] = [json.load(open(tmp + "/" + f))]
def kind(v):
    return "number" if type(v) in (int, float) else type(v).__name__
def walk(where, v, types):
    if isinstance(v, list):
        for x in v:
            walk(where, x, types)
    elif isinstance(v, dict):
        for key, x in v.items():
            if key.endswith("_ns"):
                assert isinstance(x, str) and x.isdigit(), (where, key, x)
            if x is not None:
                assert types.setdefault(key, kind(x)) == kind(x), (where, key, x, types[key])
            walk(where, x, types)
# what the commands say of jobs and records: one type per key among them
types = {}
for f, d in docs.items():
    walk(f, d, types)
# status: the figures of the daemon itself (its "jobs" is a count)
walk("status.json", json.load(open(tmp + "/status.json")), {})
# every column (CSV has them all) is a key of the JSON objects
for csv_, objs in (("jobs.csv", docs["jobs.json"][0]),
                   ("hist.csv", docs["hist.json"][0]["allotments"]),
                   ("hjobs.csv", docs["hjobs.json"][0]["jobs"])):
    cols = open(tmp + "/" + csv_).readline().strip().split(",")
    assert objs, csv_
    for o in objs:
        assert set(cols) <= set(o), (csv_, set(cols) - set(o))
end = ("status_known", "wait_status", "exit_code", "signal", "status", "timeout", "end_ns", "end")
hj = {j["id"]: j for j in docs["hjobs.json"][0]["jobs"]}
waits = {w["job_id"]: w for w in docs["wait.json"]}
for id_, stats in ((k, docs["k.stats"][0]), (e, docs["e.stats"][0])):
    for key in end:
        assert stats[key] == waits[id_][key] == hj[id_][key], \
            (id_, key, stats.get(key), waits[id_].get(key), hj[id_].get(key))
assert (hj[k]["exit_code"], hj[k]["signal"], hj[k]["status"]) == (None, 9, "killed by SIGKILL"), hj[k]
assert (hj[e]["exit_code"], hj[e]["signal"], hj[e]["status"]) == (3, None, "exit 3"), hj[e]
assert docs["wait2.json"][0]["signal"] == 15, docs["wait2.json"]
' "$tmp" "$k" "$e" || fail "JSON differs between commands: $(cat "$tmp/k.stats" "$tmp/wait.json" "$tmp/hjobs.json")"
echo "JSON: *_ns strings and one type per key in every command; one end for a job"

# ---- 4. unmanaged, and a job killed by SIGINT ----
# In static mode libasteal never joins the daemon: it schedules nothing.
ASTEAL_MODE=static "$A" run --stats -J static -- "$build/jobs/fib" 20 >"$tmp/u.out" 2>"$tmp/u.err" ||
	fail "run of a static job: $(cat "$tmp/u.err")"
grep -q "unmanaged" "$tmp/u.err" || fail "--stats of an unmanaged job: $(cat "$tmp/u.err")"
! grep -q "mean allotment" "$tmp/u.err" || fail "an unmanaged job with a mean allotment: $(cat "$tmp/u.err")"
ASTEAL_MODE=static "$A" --json run --stats -- "$build/jobs/fib" 20 >"$tmp/u.json" 2>/dev/null ||
	fail "run --json of a static job"
py '
import json, sys
d = json.loads(open(sys.argv[1]).read().splitlines()[-1])
assert d["managed"] is False and d["mean_allotment"] is None and d["quanta"] == 0, d
' "$tmp/u.json" || fail "--stats --json of an unmanaged job: $(cat "$tmp/u.json")"
"$A" run --stats --cpus 1 -J interrupted -- sh -c 'kill -INT $$' >"$tmp/i.out" 2>"$tmp/i.err"
[ $? -eq 130 ] || fail "run of a job killed by SIGINT: $(cat "$tmp/i.err")"
i=$("$A" history --jobs --noheader -o id --name interrupted | tr -d ' ')
st=$("$A" history --jobs --noheader -o status "$i" | sed 's/ *$//')
[ "$st" = "killed by SIGINT" ] || fail "history --jobs: status '$st'"
grep -q "job $i interrupted: $st," "$tmp/i.err" || fail "--stats of a job killed by SIGINT: $(cat "$tmp/i.err")"
echo "run --stats: an unmanaged job says so; killed by SIGINT as in the history"

kill "$daemon_pid"
wait "$daemon_pid" || fail "daemon exited with $? on SIGTERM"
daemon_pid=""
echo ok
