#!/bin/sh
# histdb.test.sh BUILD - the history without a daemon, and one daemon per
# database:
#  1. asteal history --db FILE gives what asteal history gives through the
#     daemon (table, CSV, JSON, --jobs, a job id, --since/--until, --plot),
#     while the daemon writes the file (WAL) and after it stopped; reading
#     changes nothing (the file's bytes, no -wal or -shm left) and never
#     checkpoints (after a kill -9 the -wal stays as it is, and its
#     commits are read); a file of 5000 runs more is read whole, page
#     after page;
#  2. a user who may only read the file (nobody when run as root; else
#     the files and the folder made read-only): read with and without a
#     -wal; a -wal with no -shm and a folder it cannot write: a clear
#     error naming the -shm, exit 1;
#  3. a missing file, a folder, a file that is no SQLite database,
#     another program's database, a newer and an older schema version:
#     exit 1 with one clear line, the file untouched; a file the user may
#     not read (nobody when run as root): exit 77 (permission denied, as
#     README and asteal(1) say); --db without a name: exit 2;
#  4. a second daemon on the same database (by its path and through a
#     symbolic link) exits 75 naming the file and the first daemon's pid;
#     the first goes on; killed -9, it leaves no lock behind;
#  5. a daemon on CPUs another daemon manages warns, naming the CPUs and
#     that daemon (pid and command line), and runs.  Other tests' daemons
#     may hold the same CPUs meanwhile: the checks hold whoever they are.
# Every wait is on a condition with a bound.
set -eu

build=${1:?usage: sh tests/histdb.test.sh BUILD}
. scripts/lib.sh
test_tmp histdb
day_wait                # its jobs are read back with history's default window (today)
sock="$tmp/asteald.sock"
dbdir="$tmp/db"         # made read-only for a while: outputs go in $tmp
db="$dbdir/history.db"
mkdir "$dbdir"
asteal="$build/bin/asteal"
others=""
test_cleanup() {
	for p in $others; do
		kill -9 "$p" 2>/dev/null || true
	done
	chmod -R u+w "$tmp" 2>/dev/null || true
}

# expect_rc (scripts/lib.sh), and a failure says so in a line or two.
expect_brief() {
	expect_rc "$@"
	[ "$rc" -eq 0 ] || [ "$(wc -l <"$tmp/err")" -le 2 ] || fail "$*: more than a line or two: $(cat "$tmp/err")"
}

# The same output through the daemon and from the file, for each query.
same_output() {
	what=$1
	for q in "" "--jobs" "--format csv" "--jobs --format csv" "--json" \
		"--jobs --json" "$job1" "$job2 --json" "--since -1h" \
		"--until @1 --json" "--since -1d --until now --format csv"; do
		# shellcheck disable=SC2086
		"$asteal" history $q >"$tmp/via-daemon" 2>&1 || fail "$what: history $q failed: $(cat "$tmp/via-daemon")"
		# shellcheck disable=SC2086
		"$asteal" history --db "$db" $q >"$tmp/via-file" 2>&1 || fail "$what: history --db $q failed: $(cat "$tmp/via-file")"
		cmp -s "$tmp/via-daemon" "$tmp/via-file" || fail "$what: history $q differs with --db: $(diff "$tmp/via-daemon" "$tmp/via-file" | head -5)"
	done
}

# What a file's bytes are.
digest() { cksum <"$1"; }

export ASTEAL_SOCKET="$sock" ASTEAL_WORKERS=2

start_daemon() {
	: >"$tmp/daemon.log"
	"$build/bin/asteald" --foreground --socket "$sock" --db "$db" \
		--quantum-ms 10 --log-level info >"$tmp/daemon.log" 2>&1 &
	daemon_pid=$!
	up() { grep -q 'listening on' "$tmp/daemon.log"; }
	wait_for 20 up || fail "the daemon did not start"
}

# ---- 1. the same history through the daemon and from the file ----
start_daemon
# fib 36 outlives a tick: a job that ends before the next tick runs on a
# grant alone (docs/asteald.md, "Grants"), which has no allotment rows
"$asteal" run --name one -- "$build/jobs/fib" 36 >/dev/null || fail "a job failed"
"$asteal" run --name two -- "$build/jobs/fib" 35 >/dev/null || fail "a job failed"
# a job's end reaches the history soon after run returns: wait for it
ended() { "$asteal" history --jobs --format csv | awk -F, -v n="$1" '$2 == n && $8 != "" { ok = 1 } END { exit !ok }'; }
wait_for 10 ended one && wait_for 10 ended two || fail "the jobs did not end in the history: $("$asteal" history --jobs)"
job1=$("$asteal" history --jobs --format csv | awk -F, '$2 == "one" { print $1 }')
job2=$("$asteal" history --jobs --format csv | awk -F, '$2 == "two" { print $1 }')
[ -f "$db-wal" ] || fail "the daemon's database has no -wal: not in WAL mode?"
same_output "while the daemon runs"
rows=$("$asteal" history --db "$db" --format csv | tail -n +2 | wc -l)
[ "$rows" -ge 2 ] || fail "history --db shows $rows allotment rows, expected the jobs' runs"
"$asteal" history --db "$db" --plot "$tmp/chart.svg" >/dev/null || fail "--plot with --db failed"
grep -q '<svg' "$tmp/chart.svg" || fail "--plot with --db wrote no SVG"
echo "while the daemon writes: the same output with --db ($rows allotment rows)"

kill "$daemon_pid"; wait "$daemon_pid" || fail "the daemon exited with $? on SIGTERM"
daemon_pid=""
[ ! -e "$db-wal" ] || fail "the stopped daemon left a -wal (nothing to test the clean case with)"
"$asteal" history --db "$db" --format csv >"$tmp/after-stop.csv" || fail "history --db after the daemon stopped failed"
[ "$(tail -n +2 "$tmp/after-stop.csv" | wc -l)" -eq "$rows" ] || fail "after the stop --db shows $(tail -n +2 "$tmp/after-stop.csv" | wc -l) rows, expected $rows"
before=$(digest "$db")
for q in "" "--jobs --json" "$job1 --format csv" "--plot $tmp/chart2.svg"; do
	# shellcheck disable=SC2086
	"$asteal" history --db "$db" $q >/dev/null || fail "history --db $q failed with no daemon"
done
[ "$(digest "$db")" = "$before" ] || fail "reading with --db changed the file"
[ ! -e "$db-wal" ] && [ ! -e "$db-shm" ] || fail "reading with --db left a -wal or -shm: $(ls "$dbdir")"
ls "$db".* 2>/dev/null | grep -v '\.lock$' | grep -q . && fail "reading with --db left files beside it: $(ls "$dbdir")"
echo "no daemon: the same rows, the file unchanged, no -wal or -shm made"

# many runs: read page after page (a page looks at 2048 rows at most)
cp "$db" "$tmp/big.db"
sqlite3 "$tmp/big.db" "with recursive n(i) as (select 1 union all select i + 1 from n where i < 5000)
	insert into allotments(job, first_quantum, last_quantum, start_ns, end_ns, desire,
	availability, allotment, cpus, work_ns, steal_ns, mug_ns, class)
	select $job1, 1000000 + i, 1000000 + i, 1000 * i, 1000 * i + 999, 1 + i % 2, 2, 1, '0', 1, 0, 0, 1 from n"
want=$(sqlite3 "$tmp/big.db" "select count(*) from allotments")
got=$("$asteal" history --db "$tmp/big.db" --since @0 --format csv | tail -n +2 | wc -l)
[ "$got" -eq "$want" ] || fail "history --db read $got of the $want runs of a big file"
got=$("$asteal" history --db "$tmp/big.db" "$job1" --format csv | tail -n +2 | sort -u | wc -l)
[ "$got" -ge 5000 ] || fail "history --db $job1 read $got distinct runs, expected 5000 and more"
echo "a file of $want runs: all read, page after page"

# kill -9: the -wal holds the last commits; reading them changes nothing
start_daemon
"$asteal" run --name three -- "$build/jobs/fib" 25 >/dev/null || fail "a job failed"
# its end is committed once a query sees it (a query writes what waits)
wait_for 10 ended three || fail "job three never ended in the history"
kill -9 "$daemon_pid"; wait "$daemon_pid" 2>/dev/null || true
daemon_pid=""
[ -s "$db-wal" ] || fail "the killed daemon left no -wal to test with"
before=$(digest "$db")
wal_before=$(digest "$db-wal")
"$asteal" history --db "$db" --jobs --format csv >"$tmp/killed.csv" || fail "history --db after kill -9 failed: $(cat "$tmp/killed.csv")"
grep -q ',three,' "$tmp/killed.csv" || fail "history --db does not see the commits in the -wal: $(cat "$tmp/killed.csv")"
[ "$(digest "$db")" = "$before" ] && [ "$(digest "$db-wal")" = "$wal_before" ] ||
	fail "reading with --db checkpointed or wrote the file"
echo "after kill -9: the -wal's commits read, file and -wal unchanged"

# ---- 2. a user who may only read the file ----
if [ "$(id -u)" -eq 0 ]; then
	if ! command -v setpriv >/dev/null; then
		echo "skip: read-only user (root without setpriv)"
		ro=""
	else
		# nobody may read the folder and the files, write neither
		chmod 755 "$tmp" "$dbdir"
		chmod 644 "$db" "$db-wal" "$db-shm"
		ro="setpriv --reuid=65534 --regid=65534 --clear-groups"
	fi
else
	chmod 444 "$db" "$db-wal" "$db-shm"
	chmod 555 "$dbdir"
	ro="env"
fi
if [ -n "$ro" ]; then
	# shellcheck disable=SC2086
	$ro "$asteal" history --db "$db" --jobs --format csv >"$tmp/ro.csv" 2>&1 ||
		fail "a read-only user cannot read the file with its -wal and -shm: $(cat "$tmp/ro.csv")"
	grep -q ',three,' "$tmp/ro.csv" || fail "a read-only user does not see the -wal's commits: $(cat "$tmp/ro.csv")"
	# no -shm and a folder it cannot write: a clear error
	chmod u+w "$dbdir"
	mv "$db-shm" "$tmp/shm.aside"
	[ "$(id -u)" -eq 0 ] || chmod 555 "$dbdir"
	set +e
	# shellcheck disable=SC2086
	$ro "$asteal" history --db "$db" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	set -e
	[ "$rc" -eq 1 ] || fail "no -shm and no right to make it: exit $rc, expected 1: $(cat "$tmp/err")"
	grep -q -- "-shm" "$tmp/err" || fail "the error does not say the -shm is needed: $(cat "$tmp/err")"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "more than one line: $(cat "$tmp/err")"
	chmod u+w "$dbdir"
	mv "$tmp/shm.aside" "$db-shm"
	echo "read-only user, with a -wal: read; without a -shm it may make: $(cat "$tmp/err")"
	# no -wal at all (a clean stop): read as it is
	chmod u+w "$dbdir" "$db" "$db-wal" "$db-shm"
	start_daemon
	kill "$daemon_pid"; wait "$daemon_pid" || fail "the daemon exited with $? on SIGTERM"
	daemon_pid=""
	[ ! -e "$db-wal" ] || fail "the stopped daemon left a -wal"
	if [ "$(id -u)" -ne 0 ]; then chmod 444 "$db"; chmod 555 "$dbdir"; else chmod 644 "$db"; fi
	# shellcheck disable=SC2086
	$ro "$asteal" history --db "$db" --jobs --format csv >"$tmp/ro2.csv" 2>&1 ||
		fail "a read-only user cannot read the file without a daemon: $(cat "$tmp/ro2.csv")"
	grep -q ',three,' "$tmp/ro2.csv" || fail "read-only, no -wal: job three missing: $(cat "$tmp/ro2.csv")"
	[ ! -e "$db-wal" ] && [ ! -e "$db-shm" ] || fail "the read-only read left a -wal or -shm"
	chmod u+w "$dbdir" "$db"
	echo "read-only user, no -wal: read as it is, nothing made"
fi

# ---- 3. files that are no history ----
cp "$db" "$tmp/copy.db"
expect_brief 1 "$asteal" history --db "$tmp/missing.db"
grep -q "missing.db.*No such file" "$tmp/err" || fail "missing file: $(cat "$tmp/err")"
[ ! -e "$tmp/missing.db" ] || fail "reading a missing file created it"
expect_brief 1 "$asteal" history --db "$tmp"
grep -q "not a regular file" "$tmp/err" || fail "a folder: $(cat "$tmp/err")"
printf 'no database here, just text of some length to fill a page or so\n' >"$tmp/text.db"
before=$(digest "$tmp/text.db")
expect_brief 1 "$asteal" history --db "$tmp/text.db"
grep -q "not an SQLite database" "$tmp/err" || fail "a text file: $(cat "$tmp/err")"
[ "$(digest "$tmp/text.db")" = "$before" ] || fail "reading a text file changed it"
ls "$tmp" | grep -q 'text.db.corrupt' && fail "reading a text file moved it aside"
sqlite3 "$tmp/other.db" "create table t(x); insert into t values(1);"
expect_brief 1 "$asteal" history --db "$tmp/other.db"
grep -q "not an asteal history" "$tmp/err" || fail "another program's database: $(cat "$tmp/err")"
sqlite3 "$tmp/copy.db" "pragma user_version = 99"
before=$(digest "$tmp/copy.db")
expect_brief 1 "$asteal" history --db "$tmp/copy.db"
grep -q "schema version 99 is newer" "$tmp/err" || fail "a newer schema: $(cat "$tmp/err")"
version=$(sqlite3 "$db" "pragma user_version")
sqlite3 "$tmp/copy.db" "pragma user_version = $((version - 2))"
before=$(digest "$tmp/copy.db")
expect_brief 1 "$asteal" history --db "$tmp/copy.db"
grep -q "schema version $((version - 2)) is older.*never upgrades" "$tmp/err" || fail "an older schema: $(cat "$tmp/err")"
[ "$(digest "$tmp/copy.db")" = "$before" ] || fail "reading an older schema changed the file"
[ "$(sqlite3 "$tmp/copy.db" "pragma user_version")" -eq $((version - 2)) ] || fail "reading upgraded the file"
# A file of the version before (version 7, before the jobs' time limits)
# is read as is, its jobs without a limit.
sqlite3 "$tmp/copy.db" "alter table jobs drop column time_limit_ns;
	alter table jobs drop column timed_out; pragma user_version = $((version - 1))"
before=$(digest "$tmp/copy.db")
expect_brief 0 "$asteal" history --db "$tmp/copy.db"
expect_brief 0 "$asteal" --json history --jobs --db "$tmp/copy.db"
python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["jobs"] and all(j["time_limit_ns"] == "0" and not j["timeout"] for j in d["jobs"]), d' <"$tmp/out" ||
	fail "the jobs of a version $((version - 1)) file: $(cat "$tmp/out")"
[ "$(digest "$tmp/copy.db")" = "$before" ] || fail "reading a version $((version - 1)) file changed it"
[ "$(sqlite3 "$tmp/copy.db" "pragma user_version")" -eq $((version - 1)) ] ||
	fail "reading upgraded a version $((version - 1)) file"
cp "$db" "$tmp/secret.db"
chmod 600 "$tmp/secret.db"
if [ "$(id -u)" -eq 0 ]; then
	chmod 755 "$tmp"
	noread="setpriv --reuid=65534 --regid=65534 --clear-groups"
else
	chmod 000 "$tmp/secret.db"
	noread="env"
fi
# shellcheck disable=SC2086
expect_brief 77 $noread "$asteal" history --db "$tmp/secret.db"
grep -q "secret.db: Permission denied" "$tmp/err" || fail "an unreadable file: $(cat "$tmp/err")"
expect_brief 2 "$asteal" history --db
expect_brief 2 "$asteal" history --db ""
echo "no history: one clear line each, exit 1; unreadable: exit 77; --db without a name: exit 2"

# ---- 4. one daemon per database ----
start_daemon
first=$daemon_pid
expect_brief 75 "$build/bin/asteald" --foreground --socket "$tmp/second.sock" --db "$db"
grep -q "history database $db is in use by another asteald (pid $first" "$tmp/err" ||
	fail "the second daemon does not name the file and the first's pid: $(cat "$tmp/err")"
[ ! -e "$tmp/second.sock" ] || fail "the refused daemon made its socket"
ln -s "$db" "$tmp/link.db"
expect_brief 75 "$build/bin/asteald" --foreground --socket "$tmp/second.sock" --db "$tmp/link.db"
grep -q "pid $first" "$tmp/err" || fail "through a symbolic link: $(cat "$tmp/err")"
"$asteal" status >/dev/null || fail "the first daemon stopped serving"
kill -9 "$first"; wait "$first" 2>/dev/null || true
daemon_pid=""
start_daemon
grep -q "in use" "$tmp/daemon.log" && fail "a killed daemon's lock outlived it: $(cat "$tmp/daemon.log")"
"$asteal" status >/dev/null || fail "the daemon after a kill -9 does not serve"
echo "a second daemon on the database: exit 75 naming pid $first; none after a kill -9"

# ---- 5. two daemons on the same CPUs ----
# the daemon above manages every CPU; one more on CPU 0 hears of a holder
"$build/bin/asteald" --foreground --socket "$tmp/b.sock" --db "$tmp/b.db" \
	--cpus 0 --log-level info >"$tmp/b.log" 2>&1 &
b=$!
others="$b"
b_up() { grep -q 'listening on' "$tmp/b.log"; }
wait_for 20 b_up || fail "the second daemon did not start: $(cat "$tmp/b.log")"
if ! grep 'warning:' "$tmp/daemon.log" | grep -q "CPU 0 is\|CPUs 0"; then
	# the first daemon holds CPU 0's name (no other daemon had it): it
	# is the one named, and it holds it until it stops
	grep -q "warning: CPU 0 is managed by another asteald too (pid $daemon_pid, uid [0-9]*: .*asteald.* --socket $sock " "$tmp/b.log" ||
		fail "no warning naming CPU 0 and the first daemon (pid $daemon_pid, $sock): $(cat "$tmp/b.log")"
else
	# another test's daemon had CPU 0 first, and may be gone by now:
	# what is named must be an asteald, or unknown
	holder=$(sed -n 's/.*CPU 0 is managed by another asteald too (pid \([0-9]*\).*/\1/p' "$tmp/b.log" | head -1)
	if [ -n "$holder" ] && [ -d "/proc/$holder" ]; then
		[ "$(cat /proc/"$holder"/comm 2>/dev/null)" = asteald ] || fail "the named holder $holder is no asteald"
	fi
	echo "CPU 0 was another test's daemon's first: the strict check skipped"
fi
grep 'warning:' "$tmp/b.log" | grep -q "CPU 1 is\|CPUs [0-9]" && fail "the daemon on CPU 0 warns about other CPUs: $(cat "$tmp/b.log")"
kill -0 "$b" || fail "the daemon that warned did not go on"
"$asteal" --socket "$tmp/b.sock" status >/dev/null || fail "the daemon that warned does not serve"
kill "$b"; wait "$b" || fail "the second daemon exited with $? on SIGTERM"
others=""
echo "a daemon on a CPU another manages: $(sed -n 's/.*warning: //p' "$tmp/b.log" | head -1)"

kill "$daemon_pid"; wait "$daemon_pid" || fail "the daemon exited with $? on SIGTERM"
daemon_pid=""
echo ok
