#!/bin/sh
# journal.test.sh BUILD - asteald's log under systemd, without systemd:
# systemd hands a service JOURNAL_STREAM=DEVICE:INODE of its stderr, so the
# test sets it to its log file's device and inode (stat -c %d:%i).
#  1. a daemon that cannot open its history database logs its error as
#     "<3>error: ... history database ..." (journalctl -p err finds it) and
#     exits 1; every line it writes carries a priority;
#  2. a daemon that starts logs "<6>info: ... listening on ...", without a
#     timestamp even with --foreground (the journal stamps lines itself),
#     and stops cleanly;
#  3. JOURNAL_STREAM inherited but naming another file (stderr redirected,
#     as for a job or a shell under a service): plain lines, "error: ...",
#     and timestamps with --foreground.
set -u

build=${1:?usage: sh tests/journal.test.sh BUILD}
. scripts/lib.sh
test_tmp journal

# devino FILE: "DEVICE:INODE" of FILE, as systemd writes JOURNAL_STREAM.
devino() {
	stat -c '%d:%i' "$1"
}

# ---- 1. an error, to the journal ----
log="$tmp/err.log"
: >"$log"
rc=0
JOURNAL_STREAM=$(devino "$log") "$build/bin/asteald" --socket "$tmp/a.sock" \
	--db "$tmp/no/such/dir/history.db" >/dev/null 2>>"$log" || rc=$?
[ "$rc" -eq 1 ] || fail "asteald with a database it cannot open exited $rc, not 1: $(cat "$log")"
grep -q '^<3>error: .*history database ' "$log" ||
	fail "no '<3>error: history database' line: $(cat "$log")"
bad=$(grep -v '^<[0-7]>' "$log")
[ -z "$bad" ] || fail "lines without a priority: $bad"
echo "journal: $(grep '^<3>' "$log" | head -1)"

# ---- 2. a daemon that starts, to the journal ----
log="$tmp/daemon.log"
: >"$log"
JOURNAL_STREAM=$(devino "$log") "$build/bin/asteald" --foreground --socket "$tmp/b.sock" \
	--db "$tmp/b.db" --quantum-ms 10 >/dev/null 2>>"$log" &
daemon_pid=$!
listening() { grep -q 'listening on' "$log"; }
wait_for 20 listening || fail "asteald did not start"
kill "$daemon_pid"
wait "$daemon_pid" || fail "asteald exited $? on SIGTERM"
daemon_pid=""
grep -q '^<6>info: .*listening on ' "$log" || fail "no '<6>info: ... listening on' line: $(cat "$log")"
bad=$(grep -v '^<[0-7]>[a-z]*: ' "$log")
[ -z "$bad" ] || fail "lines without a priority, or with a timestamp: $bad"
echo "journal: $(grep 'listening on' "$log")"

# ---- 3. JOURNAL_STREAM naming another file: plain lines ----
log="$tmp/plain.log"
: >"$log"
: >"$tmp/other"
rc=0
JOURNAL_STREAM=$(devino "$tmp/other") "$build/bin/asteald" --foreground --socket "$tmp/c.sock" \
	--db "$tmp/no/such/dir/history.db" >/dev/null 2>>"$log" || rc=$?
[ "$rc" -eq 1 ] || fail "asteald exited $rc, not 1: $(cat "$log")"
grep -q '^<' "$log" && fail "a priority on a line not for the journal: $(cat "$log")"
grep -Eq '^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:.]+ error: .*history database ' "$log" ||
	fail "no plain timestamped error line: $(cat "$log")"
echo "plain: $(head -1 "$log")"
echo ok
