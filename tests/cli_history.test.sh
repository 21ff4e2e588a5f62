#!/bin/sh
# cli_history.test.sh BUILD - `asteal history` as sacct users expect it, on
# a history of six jobs written with sqlite3 around local midnight (two
# days and one day before it, one across it, one running from five days
# before it to just after, two after it, the later one with the smaller
# id), read from the file (--db) and through a private asteald:
#  1. the default window is today: the jobs and records that overlap it,
#     no others; -S or -E moves it (-E alone: from the beginning); job ids
#     are shown whatever the window, unless -S or -E is given too;
#  2. rows come oldest first: jobs by start, records by start, whatever
#     their ids;
#  3. --limit N keeps the last N rows (jobs, or records and in JSON the
#     jobs they name); a bad N is a usage error (exit 2);
#  4. ELAPSED follows END among history --jobs' default columns;
#  5. -o NAME%N: a cell wider than N is cut with '+' as its last
#     character, a narrower one padded, in the header too; --parsable and
#     CSV ignore widths; NAME%, NAME%0, NAME%x are usage errors (exit 2);
#  6. a window over many pages (3,000 jobs before it, 5,000 runs in it):
#     every row of it, none before it;
#  7. the daemon answers every query above as the file does.
# Every wait is on a condition with a bound.
set -eu

build=${1:?usage: sh tests/cli_history.test.sh BUILD}
. scripts/lib.sh
test_tmp clihist
asteal="$build/bin/asteal"
db="$tmp/history.db"
sock="$tmp/asteald.sock"
command -v sqlite3 >/dev/null 2>&1 || fail "sqlite3 is missing (scripts/deps.sh installs it)"

# The rows are placed around local midnight: a run of this test that
# begins in the last two minutes of a day waits for the next one.
day_wait
M=$(date -d 'today 00:00' +%s)
S=1000000000
m=$((M * S))

# ---- the history: a daemon makes the file, sqlite3 fills it ----
start_daemon() {
	rm -f "$sock"
	"$build/bin/asteald" --foreground --socket "$sock" --db "$db" \
		--quantum-ms 10 >>"$tmp/daemon.log" 2>&1 &
	daemon_pid=$!
	wait_for 20 "$asteal" --socket "$sock" status >/dev/null 2>&1 ||
		fail "the daemon did not start"
}
stop_daemon() {
	kill -TERM "$daemon_pid"
	wait "$daemon_pid" || fail "the daemon exited with $? on SIGTERM"
	daemon_pid=""
}
start_daemon
stop_daemon
# job ID NAME START END: a job row (ns), ended, exit 0
job() {
	echo "insert into jobs(id, name, uid, pid, command, start_ns, end_ns, exit_status)
		values($1, '$2', $(id -u), $((1000 + $1)), '$2 --now', $3, $4, 0);"
}
# run JOB Q START END: a run of job JOB's, quantum Q
run() {
	echo "insert into allotments(job, first_quantum, last_quantum, start_ns, end_ns,
		desire, availability, allotment, cpus, work_ns, steal_ns, mug_ns, class,
		cpu_quanta) values($1, $2, $2, $3, $4, 2, 1, 1, '0', 1, 0, 0, 1, 1);"
}
{
	echo "begin;"
	job 1 old $((m - 2 * 86400 * S)) $((m - 2 * 86400 * S + 60 * S))
	run 1 10 $((m - 2 * 86400 * S)) $((m - 2 * 86400 * S + 60 * S))
	job 2 yesterday-job $((m - 86400 * S)) $((m - 86400 * S + 100 * S))
	run 2 20 $((m - 86400 * S)) $((m - 86400 * S + 50 * S))
	run 2 21 $((m - 86400 * S + 50 * S)) $((m - 86400 * S + 100 * S))
	job 3 across $((m - 3600 * S)) $((m + 600 * S))
	run 3 30 $((m - 3600 * S)) $((m - 1800 * S))
	run 3 31 $((m - 1800 * S)) $((m + 600 * S))
	job 4 later $((m + 60 * S)) $((m + 120 * S))
	run 4 40 $((m + 60 * S)) $((m + 120 * S))
	job 5 earlier $((m + 30 * S)) $((m + 90 * S))
	run 5 50 $((m + 30 * S)) $((m + 90 * S))
	job 6 long $((m - 5 * 86400 * S)) $((m + 5 * S))
	run 6 60 $((m - 5 * 86400 * S)) $((m - 4 * 86400 * S))
	run 6 61 $((m - 4 * 86400 * S)) $((m - 10 * S))
	run 6 62 $((m - 10 * S)) $((m + 5 * S))
	echo "commit;"
} | sqlite3 "$db" || fail "sqlite3 could not fill the history"

# ids [--daemon] ARGS...: the first column (JOB or ID) of `history -n -P
# ARGS`, on one line; from the file, or with --daemon through asteald.
ids() {
	if [ "$1" = --daemon ]; then
		shift
		set -- --socket "$sock" "$@"
	else
		set -- --db "$db" "$@"
	fi
	"$asteal" history -n -P "$@" | cut -d'|' -f1 | tr '\n' ' ' | sed 's/ $//'
}
# same WANT ARGS...: ids ARGS is WANT
same() {
	want=$1
	shift
	got=$(ids "$@") || fail "history $*: exit $?"
	[ "$got" = "$want" ] || fail "history $*: '$got', expected '$want'"
}

# ---- 1 and 2. the window, and time's order ----
same "6 3 5 4" --jobs -o id
same "3 6 5 4" -o job
same "1" --jobs -o id 1
same "2 2" -o job 2
same "1 2" --jobs -o id 2 1
same "" --jobs -o id 1 -S today
same "6 1 2 3 5 4" --jobs -o id -S @0
same "6 1 2" --jobs -o id -E @$((M - 86400 + 50))
same "6 6 1" -o job -E @$((M - 2 * 86400 + 30))
same "6 2 3" --jobs -o id -S @$((M - 86400)) -E @$((M - 1800))
# records across the window's beginning: the run that holds it, none before
starts=$("$asteal" history --db "$db" --csv -n -o start_ns --name across,long | tr -d '\r' | tr '\n' ' ')
[ "$starts" = "$((m - 1800 * S)) $((m - 10 * S)) " ] || fail "history --name across,long: runs starting at $starts"
echo "the window is today by default, -S/-E move it, job ids pass it; oldest first"

# ---- 3. --limit ----
same "5 4" --jobs -o id --limit 2
same "6 3 5 4" --jobs -o id --limit 9
same "4" -o job --limit 1
same "6 5 4" -o job --limit 3
same "2 3 5 4" --jobs -o id -S @0 --limit 4
"$asteal" --json history --db "$db" --limit 2 >"$tmp/limit.json" || fail "history --json --limit failed"
python3 - "$tmp/limit.json" <<'EOF' || fail "history --json --limit 2: $(cat "$tmp/limit.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert [r["job_id"] for r in d["allotments"]] == [5, 4], d["allotments"]
assert [j["id"] for j in d["jobs"]] == [5, 4], d["jobs"]
EOF
for bad in 0 -1 x 2x "" 1000000001; do
	expect_rc 2 "$asteal" history --db "$db" --limit "$bad"
	grep -q -- "--limit '$bad'" "$tmp/err" || fail "--limit '$bad': $(cat "$tmp/err")"
done
echo "--limit keeps the last rows"

# ---- 4. ELAPSED ----
"$asteal" history --db "$db" --jobs >"$tmp/jobs.txt" || fail "history --jobs failed"
head -n 1 "$tmp/jobs.txt" | grep -q "^ID  *NAME  *USER  *PID  *START  *END  *ELAPSED  *STATUS  *WORK " ||
	fail "history --jobs: no ELAPSED after END: $(head -n 1 "$tmp/jobs.txt")"
grep -q "^ *5  *earlier .*  1m00s  *exit 0 " "$tmp/jobs.txt" ||
	fail "history --jobs: job 5 did not last 1m00s: $(cat "$tmp/jobs.txt")"
echo "ELAPSED is a default column"

# ---- 5. -o NAME%N ----
"$asteal" history --db "$db" --jobs -S @0 -o id,name%7,pid%2 >"$tmp/w.txt" || fail "history -o name%7 failed"
# the columns as printed (ID and PID right-aligned): compare them cell by cell
python3 - "$tmp/w.txt" <<'EOF' || fail "history -o id,name%7,pid%2: $(cat "$tmp/w.txt")"
import sys
lines = open(sys.argv[1]).read().splitlines()
want = [("ID", "NAME   ", "P+"), (" 6", "long   ", "1+"), (" 1", "old    ", "1+"),
        (" 2", "yester+", "1+"), (" 3", "across ", "1+"), (" 5", "earlier", "1+"),
        (" 4", "later  ", "1+")]
assert len(lines) == len(want), lines
for l, (i, n, p) in zip(lines, want):
    assert l == i + "  " + n + "  " + p, (l, i + "  " + n + "  " + p)
EOF
"$asteal" history --db "$db" --jobs -S @0 -n -o name%3,id%9 >"$tmp/w2.txt" || fail "history -o name%3,id%9 failed"
[ "$(sed -n 1p "$tmp/w2.txt")" = "lo+          6" ] && [ "$(sed -n 2p "$tmp/w2.txt")" = "old          1" ] ||
	fail "history -o name%3,id%9: $(cat "$tmp/w2.txt")"
[ "$(ids --jobs -S @0 -o name%3 -n)" = "long old yesterday-job across earlier later" ] ||
	fail "history -P -o name%3 cut the names"
"$asteal" history --db "$db" --jobs -S @0 --csv -o id,name%3 >"$tmp/w.csv" || fail "history --csv -o name%3 failed"
grep -q "^2,yesterday-job" "$tmp/w.csv" || fail "history --csv -o name%3 cut the names: $(cat "$tmp/w.csv")"
for bad in 'name%' 'name%0' 'name%x' 'name%-3' 'name%1001'; do
	expect_rc 2 "$asteal" history --db "$db" -o "user,$bad"
	grep -q "bad column width in '$bad'" "$tmp/err" || fail "history -o $bad: $(cat "$tmp/err")"
done
echo "-o NAME%N cuts with '+' and pads; bad widths are usage errors"

# ---- 6. many pages: 3,000 jobs before the window, 5,000 runs in it ----
sqlite3 "$db" "begin;
	with recursive n(i) as (select 100 union all select i + 1 from n where i < 3099)
	insert into jobs(id, name, uid, pid, command, start_ns, end_ns, exit_status)
	select i, 'before', $(id -u), i, 'before', $((m - 2 * 86400 * S)) + i, $((m - 86400 * S)) + i, 0 from n;
	with recursive n(i) as (select 100 union all select i + 1 from n where i < 3099)
	insert into allotments(job, first_quantum, last_quantum, start_ns, end_ns, desire,
		availability, allotment, cpus, work_ns, steal_ns, mug_ns, class, cpu_quanta)
	select i, 1000 + i, 1000 + i, $((m - 2 * 86400 * S)) + i, $((m - 86400 * S)) + i,
		1, 1, 1, '0', 1, 0, 0, 1, 1 from n;
	insert into jobs(id, name, uid, pid, command, start_ns, end_ns, exit_status)
		values(7, 'many', $(id -u), 7, 'many', $((m + 200 * S)), $((m + 300 * S)), 0);
	with recursive n(i) as (select 0 union all select i + 1 from n where i < 4999)
	insert into allotments(job, first_quantum, last_quantum, start_ns, end_ns, desire,
		availability, allotment, cpus, work_ns, steal_ns, mug_ns, class, cpu_quanta)
	select 7, 10000 + i, 10000 + i, $((m + 200 * S)) + i * 1000000, $((m + 200 * S)) + (i + 1) * 1000000,
		1 + i % 2, 2, 1 + i % 2, '0', 1, 0, 0, 1, 1 + i % 2 from n;
	commit;" || fail "sqlite3 could not add the many rows"
# count [--daemon] ARGS...: the rows of history ARGS
count() { ids "$@" | wc -w; }
[ "$(count -o job)" -eq 5004 ] || fail "history read $(count -o job) of today's 5004 records"
[ "$(count --jobs -o id)" -eq 5 ] || fail "history --jobs read $(count --jobs -o id) of today's 5 jobs"
[ "$(count --jobs -o id -S @0)" -eq 3007 ] || fail "history --jobs -S @0 read $(count --jobs -o id -S @0) of 3007 jobs"
[ "$(count -o job -S @0)" -eq 8010 ] || fail "history -S @0 read $(count -o job -S @0) of 8010 records"
[ "$(ids --jobs -o id --limit 2)" = "4 7" ] || fail "history --jobs --limit 2: $(ids --jobs -o id --limit 2)"
echo "a window over many pages: every row of it, none before"

# ---- 7. the daemon answers as the file does ----
start_daemon
for q in "--jobs -o id" "-o job" "--jobs -o id 1" "--jobs -o id -S @0" \
	"--jobs -o id -E @$((M - 86400 + 50))" "--jobs -o id --limit 2" "-o job --limit 3" \
	"-o job -S @0"; do
	# shellcheck disable=SC2086
	[ "$(ids --daemon $q)" = "$(ids $q)" ] || fail "history $q: the daemon says '$(ids --daemon $q)', the file '$(ids $q)'"
done
stop_daemon
echo "the daemon answers as the file does"
echo ok
