#!/bin/sh
# cli_query.test.sh BUILD - the command line's queries (asteal jobs,
# status, history) against a private asteald in a temporary folder, with
# two real jobs (qa and qb, phases runs that last until killed):
#  1. status --json: the CPU count (nproc), the quantum; the table agrees;
#  2. jobs: the table's columns and rows, --json's fields (pid, user, name,
#     cpus), a named job, a job that is not running (exit 1), --watch (a
#     frame per interval, exit 0 on SIGTERM; JSON Lines with --json);
#  3. history once both jobs have ended (qb first, then qa alone): table, CSV and JSON give the same
#     records; --jobs lists both; a job id filters; --since/--until (a
#     future --since, an --until before everything, dates, @EPOCH, -1h);
#     an unknown job gives nothing;
#  4. --plot writes well-formed SVG with an area and a desire path per job
#     and, in the whole machine's panel, a band per job;
#  5. usage errors exit 2 (bad times, bad format, bad options), an
#     unreachable daemon exits 69 with one line on stderr; when it goes
#     away under jobs --watch, one line and the watch stays;
#  6. (run before 5) a third job named with a wide character, a byte that
#     is no UTF-8 and an escape sequence: --json is strict UTF-8 with
#     U+FFFD, every *_ns a string; the table aligns by display width and
#     shows '?'; jobs' and history's -u, --name, --state, -S/-E (words
#     and relative times), -o (any case; a bad name lists the valid ones;
#     NAME%N cuts a cell to N columns with '+'; a bad N is exit 2),
#     --noheader, --parsable, --csv, with --json and --watch; history
#     --plot - writes the chart alone on standard output.
# Every wait is on a condition with a bound.
set -eu

build=${1:?usage: sh tests/cli_query.test.sh BUILD}
. scripts/lib.sh
test_tmp cliq
day_wait                # its jobs are read back with history's default window (today)
sock="$tmp/asteald.sock"
asteal="$build/bin/asteal"
job_pids=""
watch_pid=""
test_cleanup() {
	for p in $watch_pid $job_pids $daemon_pid; do
		kill "$p" 2>/dev/null || true
	done
}

# Run python code $1 on standard input (args: sys.argv[1:]).
py() {
	code=$1
	shift
	python3 -c "$code" "$@"
}


export ASTEAL_SOCKET="$sock" ASTEAL_WORKERS=2
P=$(nproc)

# ---- the daemon ----
"$build/bin/asteald" --foreground --socket "$sock" --db "$tmp/history.db" \
	--quantum-ms 10 --log-level info >"$tmp/daemon.log" 2>&1 &
daemon_pid=$!
up() { "$asteal" status >/dev/null 2>&1; }
wait_for 20 up || fail "the daemon did not start"

# ---- 1. status ----
"$asteal" --json status >"$tmp/status.json" || fail "status --json failed"
py '
import json, sys
s = json.load(open(sys.argv[1]))
P = int(sys.argv[2])
for k in ("daemon_version", "protocol_version", "cpus", "quantum_us", "jobs",
          "clients", "ticks", "uptime_ns", "t0_ns", "tick_p50_ns", "tick_p99_ns",
          "tick_max_ns", "offset_us", "skipped_ticks", "quantum",
          "deq_p50_ns", "deq_p99_ns", "deq_max_ns", "wake_p50_ns",
          "wake_p99_ns", "wake_max_ns", "changes_per_tick", "sends_per_tick",
          "feedbacks", "bad_feedbacks", "allots", "silent_jobs",
          "revocations", "revoke_p50_ns", "revoke_p99_ns", "revoke_max_ns",
          "handover", "share", "history_state", "history_pending",
          "history_dropped"):
    assert k in s, "no " + k
assert len(s["cpus"]) == P == s["ncpus"], (s["cpus"], P)
assert s["quantum_us"] == 10000, s["quantum_us"]
assert s["offset_us"] == 1000, s["offset_us"]
assert s["handover"] == "release", s["handover"]
assert s["share"] == "user", s["share"]
assert s["history_state"] == "ok", s["history_state"]
assert s["history_dropped"] == 0, s["history_dropped"]
assert int(s["tick_p50_ns"]) <= int(s["tick_p99_ns"]) <= int(s["tick_max_ns"])
for k, v in s.items():
    assert isinstance(v, str) and v.isdigit() if k.endswith("_ns") else True, (k, v)
assert s["clients"] >= 1 and s["protocol_version"] == 4
' "$tmp/status.json" "$P" || fail "status --json: $(cat "$tmp/status.json")"
"$asteal" status >"$tmp/status.txt" || fail "status failed"
grep -q "^quantum: *10 ms$" "$tmp/status.txt" || fail "status: $(cat "$tmp/status.txt")"
grep -q "^cpus: .*($P)$" "$tmp/status.txt" || fail "status: $(cat "$tmp/status.txt")"
grep -q "^tick time: " "$tmp/status.txt" || fail "status: no tick time"
grep -q "^history: *ok; [0-9]* waiting, 0 lost$" "$tmp/status.txt" ||
	fail "status: no history line: $(cat "$tmp/status.txt")"

# ---- 2. two running jobs ----
ASTEAL_JOB_NAME=qa "$build/jobs/phases" 1000000 --w1 3000 --w2 1000 --h 4 \
	>"$tmp/qa.out" 2>&1 &
pa=$!
ASTEAL_JOB_NAME=qb "$build/jobs/phases" 1000000 --w1 3000 --w2 1000 --h 4 \
	>"$tmp/qb.out" 2>&1 &
pb=$!
job_pids="$pa $pb"
# both connected, fed back, and one has held a CPU
both_running() {
	"$asteal" --json jobs 2>/dev/null | py '
import json, sys
js = {j["name"]: j for j in json.load(sys.stdin)}
ok = all(n in js and not js[n]["unmanaged"] and js[n]["desire"] >= 1
         for n in ("qa", "qb"))
sys.exit(0 if ok and any(int(js[n]["allotted_ns"]) > 0 for n in ("qa", "qb")) else 1)'
}
wait_for 60 both_running || fail "the jobs did not show up: $(cat "$tmp"/q?.out)"

"$asteal" --json jobs >"$tmp/jobs.json" || fail "jobs --json failed"
"$asteal" jobs >"$tmp/jobs.txt" || fail "jobs failed"
py '
import json, sys
js = json.load(open(sys.argv[1]))
want = {"qa": int(sys.argv[2]), "qb": int(sys.argv[3])}
keys = ("id", "name", "uid", "user", "pid", "command", "start_ns", "start",
        "desire", "allotment", "availability", "cpus", "efficiency", "work_ns",
        "steal_ns", "mug_ns", "sleep_ns", "preempted_ns", "workers",
        "allotted_ns", "quantum_class",
        "unmanaged")
assert len(js) == 2, js
for j in js:
    for k in keys:
        assert k in j, "no " + k
    assert j["pid"] == want[j["name"]], j
    assert j["uid"] == int(sys.argv[4]) and j["user"] == sys.argv[5], j
    assert j["workers"] == 2 and isinstance(j["cpus"], list)
    assert len(j["cpus"]) == j["allotment"] <= int(sys.argv[6]), j
    assert j["start"].endswith("Z") and "phases" in j["command"]
' "$tmp/jobs.json" "$pa" "$pb" "$(id -u)" "$(id -un)" "$P" ||
	fail "jobs --json: $(cat "$tmp/jobs.json")"
ida=$(py 'import json,sys; print([j["id"] for j in json.load(open(sys.argv[1])) if j["name"] == "qa"][0])' "$tmp/jobs.json")
idb=$(py 'import json,sys; print([j["id"] for j in json.load(open(sys.argv[1])) if j["name"] == "qb"][0])' "$tmp/jobs.json")
# the table: header, then a row per job (EFF a percentage once allotted)
py '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines[0].split() == ["ID", "NAME", "USER", "PID", "DESIRE", "ALLOT",
                            "CPUS", "CAP", "HELD", "AGE", "EFF"], lines[0]
assert len(lines) == 3, lines
js = {j["id"]: j for j in json.load(open(sys.argv[2]))}
for row in lines[1:]:
    c = row.split()
    j = js[int(c[0])]
    assert c[1] == j["name"] and c[2] == j["user"] and int(c[3]) == j["pid"], row
    assert c[4].isdigit() and c[5].isdigit(), row
    if int(j["allotted_ns"]) > 0:
        assert c[10].endswith("%") and c[10][:-1].isdigit(), row
    assert c[7] == "-" and c[8] == j["confinement"], row
' "$tmp/jobs.txt" "$tmp/jobs.json" || fail "jobs table: $(cat "$tmp/jobs.txt")"
"$asteal" jobs "$ida" >"$tmp/one.txt" || fail "jobs $ida failed"
[ "$(wc -l <"$tmp/one.txt")" -eq 2 ] && grep -q " qa " "$tmp/one.txt" ||
	fail "jobs $ida: $(cat "$tmp/one.txt")"
expect_rc 1 "$asteal" jobs 999999
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "jobs 999999: $(cat "$tmp/err")"

# --watch: frames until SIGTERM (exit 0); JSON Lines with --json
frames() { [ "$(grep -c "$2" "$1" 2>/dev/null || :)" -ge 3 ] 2>/dev/null; }
"$asteal" jobs --watch --interval 0.1 </dev/null >"$tmp/watch.txt" 2>&1 &
watch_pid=$!
wait_for 30 frames "$tmp/watch.txt" "^ID  *NAME" || fail "jobs --watch: $(cat "$tmp/watch.txt")"
kill -TERM $watch_pid
rc=0; wait $watch_pid || rc=$?
watch_pid=""
[ $rc -eq 0 ] || fail "jobs --watch: exit $rc on SIGTERM"
grep -q "^asteald: $P CPU" "$tmp/watch.txt" || fail "jobs --watch: no header line"
"$asteal" --json jobs --watch --interval 0.1 </dev/null >"$tmp/watch.jsonl" 2>&1 &
watch_pid=$!
wait_for 30 frames "$tmp/watch.jsonl" '"qb"' || fail "jobs --watch --json: $(cat "$tmp/watch.jsonl")"
kill -TERM $watch_pid
rc=0; wait $watch_pid || rc=$?
watch_pid=""
[ $rc -eq 0 ] || fail "jobs --watch --json: exit $rc on SIGTERM"
py '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) >= 3
for l in lines:
    assert len(json.loads(l)) == 2, l
' "$tmp/watch.jsonl" || fail "jobs --watch --json: not JSON Lines: $(head -c 600 "$tmp/watch.jsonl")"

# history for both; qb ends, qa goes on alone (its availability changes
# with qb's end: a record of its own after that, more when its desire
# follows its phases, which a loaded host's preemption may keep at 1), then
# qa ends
has_records() {
	[ "$("$asteal" history "$1" --format csv 2>/dev/null | wc -l)" -gt "$2" ]
}
wait_for 60 has_records "$ida" 1 || fail "no history for job $ida"
wait_for 60 has_records "$idb" 1 || fail "no history for job $idb"
kill -TERM $pb
wait $pb 2>/dev/null || true
job_pids=$pa
only_qa() { [ "$("$asteal" --json jobs 2>/dev/null | py 'import json,sys; print(" ".join(j["name"] for j in json.load(sys.stdin)))')" = qa ]; }
wait_for 30 only_qa || fail "qb is still listed after its end"
wait_for 60 has_records "$ida" 2 || fail "job $ida alone made no history"
kill -TERM $pa
wait $pa 2>/dev/null || true
job_pids=""
no_jobs() { [ "$("$asteal" --json jobs 2>/dev/null)" = "[]" ]; }
wait_for 30 no_jobs || fail "the killed jobs are still listed"

# ---- 3. history: every format tells the same ----
"$asteal" history >"$tmp/h.txt" || fail "history failed"
"$asteal" history --format csv >"$tmp/h.csv" || fail "history --format csv failed"
"$asteal" history --format json >"$tmp/h.json" || fail "history --format json failed"
"$asteal" --json history >"$tmp/h2.json" || fail "--json history failed"
cmp -s "$tmp/h.json" "$tmp/h2.json" || fail "--json and --format json differ"
n=$(py '
import csv, json, sys
rows = open(sys.argv[1]).read().splitlines()
assert rows[0].split() == ["JOB", "NAME", "FIRST", "LAST", "START", "DURATION",
    "DESIRE", "AVAIL", "ALLOT", "CPUS", "WORK", "STEAL", "SLEEP", "PREEMPTED",
    "CLASS"], rows[0]
c = list(csv.DictReader(open(sys.argv[2], newline="")))
j = json.load(open(sys.argv[3]))
a = j["allotments"]
assert len(rows) - 1 == len(c) == len(a), (len(rows) - 1, len(c), len(a))
assert {r["name"] for r in a} == {"qa", "qb"}, {r["name"] for r in a}
assert sorted(x["id"] for x in j["jobs"]) == sorted(int(x) for x in sys.argv[4:])
for r, s in zip(a, c):
    assert str(r["job_id"]) == s["job_id"] and str(r["start_ns"]) == s["start_ns"]
    assert str(r["allotment"]) == s["allotment"] and r["quantum_class"] == (s["quantum_class"] or None)
    assert r["first_quantum"] <= r["last_quantum"] and int(r["start_ns"]) < int(r["end_ns"])
    assert r["allotment"] <= r["desire"] and len(r["cpus"]) == r["allotment"]
    assert r["quantum_class"] in (None, "inefficient", "satisfied", "deprived")
    for k in ("work_ns", "steal_ns", "mug_ns", "sleep_ns", "preempted_ns",
              "allotted_ns"):
        assert str(r[k]) == s[k], (k, r, s)
print(len(a))
' "$tmp/h.txt" "$tmp/h.csv" "$tmp/h.json" "$ida" "$idb") ||
	fail "history formats disagree"
echo "history: $n records in the table, CSV and JSON"

# --jobs: both, ended, in every format
"$asteal" history --jobs >"$tmp/hj.txt" || fail "history --jobs failed"
"$asteal" history --jobs --format csv >"$tmp/hj.csv" || fail "history --jobs csv failed"
"$asteal" history --jobs --format json >"$tmp/hj.json" || fail "history --jobs json failed"
py '
import csv, json, sys
rows = open(sys.argv[1]).read().splitlines()
assert rows[0].split() == ["ID", "NAME", "USER", "PID", "START", "END", "ELAPSED",
                           "STATUS", "WORK", "STEAL", "MUG", "SLEEP", "PREEMPTED"], rows[0]
c = list(csv.DictReader(open(sys.argv[2], newline="")))
j = json.load(open(sys.argv[3]))
assert len(rows) - 1 == len(c) == len(j["jobs"]) == 2 and j["allotments"] == []
for x in j["jobs"]:
    assert x["name"] in ("qa", "qb") and not x["running"] and int(x["end_ns"]) > int(x["start_ns"])
    assert int(x["work_ns"]) > 0
    # stored since schema 2: the worker count and the allotted time
    assert x["workers"] >= 1 and int(x["allotted_ns"]) > 0, x
assert all(r["end_ns"] for r in c)
' "$tmp/hj.txt" "$tmp/hj.csv" "$tmp/hj.json" || fail "history --jobs: $(cat "$tmp/hj.txt")"

# a job id: only its records; an unknown one: none (exit 0)
"$asteal" history "$ida" --format json >"$tmp/ha.json" || fail "history $ida failed"
py '
import json, sys
a = json.load(open(sys.argv[1]))["allotments"]
all_ = json.load(open(sys.argv[2]))["allotments"]
ida = int(sys.argv[3])
assert a and all(r["job_id"] == ida for r in a)
assert len(a) == sum(1 for r in all_ if r["job_id"] == ida)
' "$tmp/ha.json" "$tmp/h.json" "$ida" || fail "history $ida is not job $ida's records"
expect_rc 0 "$asteal" history 999999
[ "$(wc -l <"$tmp/out")" -eq 1 ] || fail "history 999999: $(cat "$tmp/out")"
expect_rc 0 "$asteal" history 999999 --format json
py 'import json,sys; d=json.load(open(sys.argv[1])); assert d == {"jobs": [], "allotments": []}, d' \
	"$tmp/out" || fail "history 999999 --format json: $(cat "$tmp/out")"

# --since/--until
count() { "$asteal" history --format csv "$@" | tail -n +2 | wc -l; }
now=$(date +%s)
[ "$(count --since @$((now + 3600)))" -eq 0 ] || fail "a future --since gave records"
[ "$(count --since now --until now)" -eq 0 ] || fail "--since now gave records"
[ "$(count --until @1)" -eq 0 ] || fail "--until 1970 gave records"
[ "$(count --since -1h)" -eq "$n" ] || fail "--since -1h lost records"
[ "$(count --since 2000-01-01)" -eq "$n" ] || fail "--since 2000-01-01 lost records"
[ "$(count --since "2000-01-01 00:00" --until @$((now + 60)).5)" -eq "$n" ] ||
	fail "--since '2000-01-01 00:00' --until @EPOCH.5 lost records"
[ "$(count --since 2000-01-01T00:00:00 --until now)" -eq "$n" ] ||
	fail "--since 2000-01-01T00:00:00 lost records"
# a moment in the middle: some records before it drop out
mid=$(py '
import json, sys
a = sorted(int(r["end_ns"]) for r in json.load(open(sys.argv[1]))["allotments"])
print("@%d.%09d" % divmod(a[len(a) // 2], 10**9))' "$tmp/h.json")
m=$(count --since "$mid")
[ "$m" -gt 0 ] && [ "$m" -lt "$n" ] || fail "--since $mid: $m of $n records"

# ---- 4. --plot ----
"$asteal" history --plot "$tmp/h.svg" >"$tmp/plot.out" || fail "history --plot failed"
[ "$(cat "$tmp/plot.out")" = "plot: $tmp/h.svg" ] || fail "--plot said: $(cat "$tmp/plot.out")"
py '
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
assert root.tag == ns + "svg"
paths = list(root.iter(ns + "path"))
areas = [p for p in paths if p.get("fill-opacity") and not p.get("data-job")]
lines = [p for p in paths if p.get("stroke-dasharray")]
bands = [p.get("data-job") for p in paths if p.get("data-job")]
assert len(areas) == 2 and len(lines) == 2, (len(areas), len(lines))
assert sorted(bands) == sorted([sys.argv[2], sys.argv[3]]), bands
assert all(p.get("d", "").startswith("M") for p in areas + lines)
text = " ".join(root.itertext())
for w in ("asteal allotment history", "qa", "qb", "job " + sys.argv[2]):
    assert w in text, w
' "$tmp/h.svg" "$ida" "$idb" || fail "the plot is not what it should be"
"$asteal" history --plot "$tmp/h2.svg" --format csv >"$tmp/plot.csv" 2>"$tmp/plot.err" ||
	fail "history --plot --format csv failed"
[ "$(tail -n +2 "$tmp/plot.csv" | wc -l)" -eq "$n" ] && grep -q "^plot: " "$tmp/plot.err" ||
	fail "--plot with --format csv: $(cat "$tmp/plot.err")"
expect_rc 1 "$asteal" history --plot "$tmp/no/such/dir/h.svg"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "an unwritable plot: $(cat "$tmp/err")"
# an empty history is still a well-formed chart
"$asteal" history 999999 --plot "$tmp/empty.svg" >/dev/null || fail "empty --plot failed"
py 'import sys, xml.etree.ElementTree as ET; ET.parse(sys.argv[1])' "$tmp/empty.svg" ||
	fail "the empty plot is not XML"

# ---- 6. Slurm's filters and columns, and valid output whatever the name ----
# a job whose name has a wide character, a byte that is no UTF-8 and an
# escape sequence
wname=$(printf 'gr\303\266\303\237e-\346\227\245\346\234\254\377\033[31m')
ASTEAL_JOB_NAME="$wname" "$build/jobs/phases" 1000000 --w1 3000 --w2 1000 --h 4 \
	>"$tmp/w.out" 2>&1 &
pw=$!
job_pids=$pw
w_running() {
	"$asteal" --json jobs 2>/dev/null | py '
import json, sys
js = json.load(sys.stdin)
sys.exit(0 if len(js) == 1 and int(js[0]["allotted_ns"]) > 0 else 1)'
}
wait_for 60 w_running || fail "the third job did not show up: $(cat "$tmp/w.out")"
"$asteal" --json jobs >"$tmp/w.json" || fail "jobs --json failed"
idw=$(py '
import json, sys
raw = open(sys.argv[1], "rb").read()
js = json.loads(raw.decode("utf-8"))    # strict: invalid UTF-8 fails here
j = js[0]
assert j["name"] == "größe-日本\ufffd\x1b[31m", repr(j["name"])
assert j["pid"] == int(sys.argv[2]) and j["state"] in ("running", "waiting", "idle")
for k, v in j.items():
    if k.endswith("_ns"):
        assert isinstance(v, str) and v.isdigit(), (k, v)
    elif k in ("id", "uid", "pid", "desire", "allotment", "availability", "workers"):
        assert type(v) is int, (k, v)
assert int(j["start_ns"]) > 2**53
print(j["id"])' "$tmp/w.json" "$pw") || fail "jobs --json with a hostile name: $(cat "$tmp/w.json")"

# show: a running job's two sections, an ended one's record, JSON, none
"$asteal" show "$idw" >"$tmp/show.txt" || fail "show $idw failed"
grep -q "^job $idw, running (asteal jobs):" "$tmp/show.txt" &&
	grep -q "^job $idw, in the history" "$tmp/show.txt" &&
	grep -Eq "^  STATE +(running|waiting|idle)$" "$tmp/show.txt" &&
	grep -q "^  END  *running$" "$tmp/show.txt" ||
	fail "show of a running job: $(cat "$tmp/show.txt")"
grep -q "$(printf '\033')" "$tmp/show.txt" && fail "show printed the name's escape"
"$asteal" show "$ida" >"$tmp/show.txt" || fail "show $ida failed"
grep -q "^job $ida, in the history" "$tmp/show.txt" &&
	! grep -q "running (asteal jobs)" "$tmp/show.txt" &&
	grep -q "^  NAME  *qa$" "$tmp/show.txt" &&
	grep -Eq "^  END +20[0-9][0-9]-" "$tmp/show.txt" ||
	fail "show of an ended job: $(cat "$tmp/show.txt")"
"$asteal" --json show "$ida" "$idw" >"$tmp/show.json" || fail "show --json failed"
py '
import json, sys
a = json.load(open(sys.argv[1]))
assert [o["id"] for o in a] == [int(sys.argv[2]), int(sys.argv[3])], a
assert a[0]["running"] is None and a[0]["history"]["name"] == "qa", a[0]
assert a[1]["running"]["id"] == int(sys.argv[3]) and a[1]["history"]["running"], a[1]
' "$tmp/show.json" "$ida" "$idw" || fail "show --json: $(cat "$tmp/show.json")"
expect_rc 1 "$asteal" show 999999
grep -q "job 999999: no such job" "$tmp/err" || fail "show 999999: $(cat "$tmp/err")"
expect_rc 2 "$asteal" show

# the table aligns by display width (日 takes two columns) and shows
# what does not print as '?'
LC_ALL=C.UTF-8 "$asteal" jobs -o id,name,user,pid >"$tmp/w.txt" || fail "jobs -o failed"
py '
import sys, unicodedata
def width(s):
    return sum(0 if unicodedata.combining(c) else
               2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
assert "\x1b" not in "".join(lines), lines
assert lines[0].split() == ["ID", "NAME", "USER", "PID"], lines[0]
assert "größe-日本??[31m" in lines[1], lines[1]
starts = [width(l[:l.index(w)]) for l, w in zip(lines, ("USER", sys.argv[2]))]
assert starts[0] == starts[1], (starts, lines)
' "$tmp/w.txt" "$(id -un)" || fail "jobs: columns not aligned: $(cat "$tmp/w.txt")"
# -o NAME%N: the name cut to 8 columns with '+' (日 takes two), padded
LC_ALL=C.UTF-8 "$asteal" jobs -n -o name%8,id >"$tmp/w8.txt" || fail "jobs -o name%8 failed"
[ "$(cat "$tmp/w8.txt")" = "größe-+   $idw" ] || fail "jobs -o name%8,id: $(cat "$tmp/w8.txt")"
for w in name% name%0 name%x; do
	expect_rc 2 "$asteal" jobs -o "id,$w"
	grep -q "bad column width in '$w'" "$tmp/err" || fail "jobs -o id,$w: $(cat "$tmp/err")"
done

# filters: a count of rows for each
rows() { "$asteal" jobs --noheader -o id "$@" | wc -l; }
[ "$(rows)" -eq 1 ] || fail "jobs --noheader: $(rows) rows"
[ "$(rows --name "$wname")" -eq 1 ] || fail "jobs --name: no job"
[ "$(rows --name qa,qb)" -eq 0 ] || fail "jobs --name qa,qb: a job"
[ "$(rows -u "$(id -un)")" -eq 1 ] && [ "$(rows --user "$(id -u)")" -eq 1 ] ||
	fail "jobs -u: the job is not ours"
[ "$(rows -u 4242424)" -eq 0 ] || fail "jobs -u 4242424: a job"
[ "$(rows --state unmanaged)" -eq 0 ] || fail "jobs --state unmanaged: a job"
[ "$(rows --state RUNNING,waiting,Idle)" -eq 1 ] || fail "jobs --state: no job"
[ "$(rows --since yesterday --until now)" -eq 1 ] || fail "jobs -S yesterday: no job"
[ "$(rows -S -1h -E -0s)" -eq 1 ] || fail "jobs -S -1h: no job"
[ "$(rows --until yesterday)" -eq 0 ] || fail "jobs -E yesterday: a job"
# times as people write them: date -d's words, now-N, our own JSON's
[ "$(rows -S '1 hour ago')" -eq 1 ] || fail "jobs -S '1 hour ago': no job"
[ "$(rows -S now-1h -E now+1h)" -eq 1 ] || fail "jobs -S now-1h -E now+1h: no job"
[ "$(rows -S now+1h)" -eq 0 ] || fail "jobs -S now+1h: a job"
started=$("$asteal" --json jobs | py 'import json, sys; print(json.load(sys.stdin)[0]["start"])')
[ "$(rows -S "$started")" -eq 1 ] || fail "jobs -S $started (its own start): no job"
expect_rc 2 "$asteal" jobs -S 'no such time'
grep -q "date -d reads" "$tmp/err" || fail "a bad time: $(cat "$tmp/err")"
# columns, parsable, CSV
LC_ALL=C.UTF-8 "$asteal" jobs -o Id,NAME,pid,state -P >"$tmp/w.psv" || fail "jobs -P failed"
py '
import sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
assert lines[0] == "ID|NAME|PID|STATE", lines
c = lines[1].split("|")
assert c[:3] == [sys.argv[2], "größe-日本??[31m", sys.argv[3]], lines
assert c[3] in ("running", "waiting", "idle") and len(lines) == 2, lines
' "$tmp/w.psv" "$idw" "$pw" || fail "jobs -P: $(cat "$tmp/w.psv")"
"$asteal" jobs --csv >"$tmp/w.csv" || fail "jobs --csv failed"
py '
import csv, json, sys
r = list(csv.DictReader(open(sys.argv[1], newline="", encoding="utf-8",
                             errors="surrogateescape")))
j = json.load(open(sys.argv[2]))[0]
assert len(r) == 1
for k in ("id", "pid", "uid", "workers", "cpus_cap", "start_ns", "command"):
    assert r[0][k] == (str(j[k]) if j[k] != 0 or k != "cpus_cap" else ""), (k, r[0][k], j[k])
assert r[0]["state"] in ("running", "waiting", "idle")
assert list(r[0])[:5] == ["id", "name", "user", "uid", "pid"], list(r[0])
' "$tmp/w.csv" "$tmp/w.json" || fail "jobs --csv: $(cat "$tmp/w.csv")"
expect_rc 2 "$asteal" jobs -o id,bogus
grep -q "no column 'bogus'" "$tmp/err" && grep -q "ID,NAME,USER" "$tmp/err" ||
	fail "jobs -o bogus: $(cat "$tmp/err")"
expect_rc 2 "$asteal" --json jobs -o id
expect_rc 2 "$asteal" jobs --json --noheader
expect_rc 2 "$asteal" jobs --state gone
grep -q "running, waiting, idle, unmanaged" "$tmp/err" || fail "jobs --state gone: $(cat "$tmp/err")"
expect_rc 2 "$asteal" jobs -u no-such-user-here
# --watch keeps the filters: no unmanaged job, frame after frame
"$asteal" --json jobs --watch --interval 0.1 --state unmanaged </dev/null >"$tmp/watch3.jsonl" 2>&1 &
watch_pid=$!
wait_for 30 frames "$tmp/watch3.jsonl" '^\[\]$' || fail "jobs --watch --state: $(head -c 600 "$tmp/watch3.jsonl")"
kill -TERM $watch_pid
wait $watch_pid || fail "jobs --watch --state: exit $?"
watch_pid=""
[ "$(grep -vc '^\[\]$' "$tmp/watch3.jsonl")" -eq 0 ] || fail "jobs --watch --state: $(head -c 600 "$tmp/watch3.jsonl")"

kill -TERM $pw
wait $pw 2>/dev/null || true
job_pids=""
wait_for 30 no_jobs || fail "the third job is still listed"
# history: the same filters over jobs and records
"$asteal" --json history --jobs --name "$wname" >"$tmp/hw.json" || fail "history --name failed"
py '
import json, sys
d = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
assert [j["id"] for j in d["jobs"]] == [int(sys.argv[2])], d
j = d["jobs"][0]
assert j["state"] == "unknown" and j["name"].endswith("\ufffd\x1b[31m"), j
assert isinstance(j["end_ns"], str) and int(j["end_ns"]) > int(j["start_ns"]), j
' "$tmp/hw.json" "$idw" || fail "history --jobs --name: $(cat "$tmp/hw.json")"
hrows() { "$asteal" history --noheader "$@" | wc -l; }
[ "$("$asteal" history --jobs -n -o id --state unknown | sort -n | tr '\n' ' ')" = \
  "$(printf '%s\n' "$ida" "$idb" "$idw" | sort -n | tr '\n' ' ')" ] ||
	fail "history --state unknown: $("$asteal" history --jobs -o id,state)"
[ "$(hrows --jobs --state completed,failed,killed,running)" -eq 0 ] ||
	fail "history --state: jobs that did not end so"
[ "$(hrows --jobs -u "$(id -un)")" -eq 3 ] || fail "history -u: not our 3 jobs"
[ "$(hrows -u 4242424)" -eq 0 ] || fail "history -u 4242424: records"
[ "$("$asteal" history -n --name qa -o job -P | sort -u)" = "$ida" ] || fail "history --name qa: other jobs"
[ "$(hrows --name qa)" -eq "$(py 'import json,sys; print(sum(r["name"] == "qa" for r in json.load(open(sys.argv[1]))["allotments"]))' "$tmp/h.json")" ] ||
	fail "history --name qa lost records"
[ "$(hrows -S yesterday)" -ge "$n" ] || fail "history -S yesterday lost records"
"$asteal" history --jobs -o id,STATE,elapsed,end_ns -P -n >"$tmp/hj.psv" || fail "history -o -P failed"
grep -q "^$ida|unknown|[0-9.]*[a-z]*|[0-9: -]*\$" "$tmp/hj.psv" || fail "history -o -P: $(cat "$tmp/hj.psv")"
"$asteal" history --jobs --csv -o ID,end_ns,state >"$tmp/hj2.csv" || fail "history --csv -o failed"
[ "$(head -n 1 "$tmp/hj2.csv")" = "$(printf 'id,end_ns,state\r')" ] || fail "history --csv -o: $(cat "$tmp/hj2.csv")"
expect_rc 2 "$asteal" history -o job,nope
grep -q "JOB,NAME,USER,FIRST,LAST" "$tmp/err" || fail "history -o nope: $(cat "$tmp/err")"
expect_rc 2 "$asteal" history --jobs --state waiting
# the chart on standard output, alone
"$asteal" history --plot - >"$tmp/out.svg" 2>"$tmp/err" || fail "history --plot - failed"
[ ! -s "$tmp/err" ] || fail "history --plot -: $(cat "$tmp/err")"
py '
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
text = " ".join(root.itertext())
assert "CPUs held, averaged over" in text and "of CPU allotted" in text, text[:300]
paths = list(root.iter("{http://www.w3.org/2000/svg}path"))
assert len([p for p in paths if p.get("fill-opacity") and not p.get("data-job")]) == 3
assert len([p for p in paths if p.get("data-job")]) == 3
' "$tmp/out.svg" || fail "history --plot -: not the chart"
expect_rc 2 "$asteal" history --plot - --csv
expect_rc 2 "$asteal" --json history --plot -

# ---- 5. usage errors and an unreachable daemon ----
for t in 2026-02-31 -5x @abc "" "2026-01-01 25:00" "next blue moon"; do
	expect_rc 2 "$asteal" history --since "$t"
	grep -q "'$t'" "$tmp/err" || fail "bad time '$t': $(cat "$tmp/err")"
done
# what date -d reads is a time: tomorrow has no rows yet
expect_rc 0 "$asteal" history --since tomorrow --csv
[ "$(wc -l <"$tmp/out")" -eq 1 ] || fail "history --since tomorrow: $(cat "$tmp/out")"
expect_rc 2 "$asteal" history --until Yesterdayz
expect_rc 2 "$asteal" history --format xml
grep -q "xml" "$tmp/err" || fail "bad format: $(cat "$tmp/err")"
expect_rc 2 "$asteal" history --since now --until -1h
expect_rc 2 "$asteal" history --bogus
expect_rc 2 "$asteal" history abc
expect_rc 2 "$asteal" history --since
expect_rc 2 "$asteal" jobs --interval 0.01 --watch
expect_rc 2 "$asteal" jobs --interval 1
expect_rc 2 "$asteal" status extra
for cmd in status jobs history; do
	expect_rc 69 "$asteal" --socket "$tmp/nonexistent" $cmd
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$cmd, no daemon: $(cat "$tmp/err")"
	[ ! -s "$tmp/out" ] || fail "$cmd, no daemon: printed $(cat "$tmp/out")"
done

# the daemon goes away under jobs --watch: one line, and it waits for the
# next (watch.test.sh sees it come back); SIGTERM ends it, exit 0
"$asteal" jobs --watch --interval 0.1 </dev/null >"$tmp/watch2.txt" 2>"$tmp/watch2.err" &
watch_pid=$!
wait_for 30 frames "$tmp/watch2.txt" "^ID  *NAME" || fail "jobs --watch did not start"
kill -TERM "$daemon_pid"
wait "$daemon_pid" || fail "the daemon exited with $? on SIGTERM"
daemon_pid=""
went() { grep -q "^asteal: asteald at $sock went away; connecting again$" "$tmp/watch2.err"; }
wait_for 30 went || fail "jobs --watch did not say the daemon went away: $(cat "$tmp/watch2.err")"
kill -0 $watch_pid 2>/dev/null || fail "jobs --watch ended when the daemon went away"
kill -TERM $watch_pid
rc=0; wait $watch_pid || rc=$?
watch_pid=""
[ $rc -eq 0 ] || fail "jobs --watch: exit $rc on SIGTERM without a daemon"
[ "$(wc -l <"$tmp/watch2.err")" -eq 1 ] || fail "jobs --watch: $(cat "$tmp/watch2.err")"
echo ok
