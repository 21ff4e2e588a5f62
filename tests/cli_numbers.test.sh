#!/bin/sh
# cli_numbers.test.sh BUILD - the figures the command line shows agree
# with each other across its commands and with their definitions in
# asteal(1), against a private asteald managing two CPUs:
#  1. run --stats: three rigid jobs of one CPU on two CPUs take turns;
#     each one's quanta and mean allotment (--json and the text line) are
#     the history's: its processor-quanta over its quanta;
#  2. history rows: in the table, CSV and JSON, ALLOT is min(DESIRE,
#     AVAIL) and a range of turns shows both as its mean (CPUQ over its
#     quanta); CLASS only where the job reported one (a rigid job: none).
# Every wait is on a condition with a bound.
set -u

build=${1:?usage: sh tests/cli_numbers.test.sh BUILD}
. scripts/lib.sh
test_tmp clinum
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

kill "$daemon_pid"
wait "$daemon_pid" || fail "daemon exited with $? on SIGTERM"
daemon_pid=""
echo ok
