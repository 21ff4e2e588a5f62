#!/bin/sh
# replay.test.sh BUILD - tests/deq_replay's checks of grants (the CPUs a
# job holding none is given as it joins or wakes, table grants), on
# histories written here with the sqlite3 command (the columns deq_replay
# reads) on CPUs 0-1:
#  1. job 1 alone on CPU 0 from quantum 0, job 2 granted CPU 1 after the
#     tick of quantum 4 and allotted from 5: exit 0, "1 grants" in the
#     summary; the same with quanta 5-6 without a tick and job 2's first
#     run at 7; a history without the table: "0 grants"; job 2 present
#     from 0 but idle (desire 0) until it wakes after the tick of 4;
#     jobs 2 and 3 idle, woken after that tick, CPU 1 granted to job 2,
#     which ends, then to job 3;
#  2. exit 1 with a line naming the grant for: CPU 0, which job 1 held
#     through it; a grant at a quantum where DEQ gave the job a CPU
#     already; one two quanta before its first run; CPUs that are not the
#     allotment or not the daemon's; two jobs that joined together and
#     stayed, granted the same CPU; a woken job's grant of CPU 0; CPU 1
#     granted to job 3 before job 2, granted it first, ended.
# Only in the normal build (deq_replay is the same program in every one).
set -u

build=${1:?usage: sh tests/replay.test.sh BUILD}
if [ -n "${ASTEAL_TEST_SAN:-}" ]; then
	echo "replay: checked in the normal build only"
	exit 0
fi
. scripts/lib.sh
command -v sqlite3 >/dev/null || fail "the sqlite3 command is missing (Debian: sqlite3)"
test_tmp replay
replay="$build/tests/deq_replay"

# history NAME SQL: a history in $tmp/NAME.db, the tables and SQL's rows.
history() {
	sqlite3 "$tmp/$1.db" "
CREATE TABLE jobs (id INTEGER PRIMARY KEY, uid INTEGER NOT NULL,
  end_ns INTEGER);
CREATE TABLE allotments (job INTEGER NOT NULL, first_quantum INTEGER NOT NULL,
  last_quantum INTEGER NOT NULL, desire INTEGER NOT NULL,
  availability INTEGER NOT NULL, allotment INTEGER NOT NULL,
  cpus TEXT NOT NULL, cpu_quanta INTEGER NOT NULL);
CREATE TABLE skipped (first_quantum INTEGER NOT NULL,
  last_quantum INTEGER NOT NULL);
CREATE TABLE grants (job INTEGER NOT NULL, quantum INTEGER NOT NULL,
  at_ns INTEGER NOT NULL, allotment INTEGER NOT NULL, cpus TEXT NOT NULL);
$2" || fail "cannot write $tmp/$1.db"
}

# Job 1 wants 1 CPU from quantum 0 on (DEQ: CPU 0, availability 2 alone,
# 1 beside job 2), job 2 likewise from quantum $1 (CPU 1).
two_jobs() {
	echo "INSERT INTO jobs (id, uid) VALUES (1, 1000), (2, 1000);
INSERT INTO allotments VALUES (1, 0, $(($1 - 1)), 1, 2, 1, '0', $1),
  (1, $1, 9, 1, 1, 1, '0', $((10 - $1))),
  (2, $1, 9, 1, 1, 1, '1', $((10 - $1)));"
}

# Job 1 wants 1 CPU from quantum 0 on (CPU 0); job 2, present from 0,
# desires nothing until it wakes and wants 1 from quantum 5 (CPU 1).
woken() {
	echo "INSERT INTO jobs (id, uid) VALUES (1, 1000), (2, 1000);
INSERT INTO allotments VALUES (1, 0, 4, 1, 2, 1, '0', 5),
  (1, 5, 9, 1, 1, 1, '0', 5),
  (2, 0, 4, 0, 1, 0, '', 0),
  (2, 5, 9, 1, 1, 1, '1', 5);"
}

# replay_ok NAME GRANTS: deq_replay passes NAME.db, counting GRANTS.
replay_ok() {
	expect_rc 0 "$replay" "$tmp/$1.db" 0-1
	grep -q "), $2 grants: every allotment.*every grant on free CPUs" "$tmp/out" ||
		fail "$1: $(cat "$tmp/out")"
}

# replay_bad NAME PATTERN: deq_replay finds NAME.db wrong, in one line
# (the others are right), which matches PATTERN.
replay_bad() {
	expect_rc 1 "$replay" "$tmp/$1.db" 0-1
	grep -q "$2" "$tmp/out" || fail "$1: no line like '$2': $(cat "$tmp/out")"
	[ "$(wc -l <"$tmp/out")" -eq 2 ] || fail "$1: more than one mismatch: $(cat "$tmp/out")"
	grep -q "grants: MISMATCH" "$tmp/out" || fail "$1: $(cat "$tmp/out")"
}

# Job 1 on CPU 0 from quantum 0; jobs 2 and 3 idle from 0 and woken
# after the tick of 4: job 2 is granted CPU 1 at 1 ns and ends at $1 ns,
# job 3 is granted it at 10 ns and is allotted it from 5.
handed_on() {
	echo "INSERT INTO jobs VALUES (1, 1000, NULL), (2, 1000, $1), (3, 1000, NULL);
INSERT INTO allotments VALUES (1, 0, 4, 1, 2, 1, '0', 5),
  (1, 5, 9, 1, 1, 1, '0', 5),
  (2, 0, 4, 0, 1, 0, '', 0),
  (3, 0, 4, 0, 1, 0, '', 0),
  (3, 5, 9, 1, 1, 1, '1', 5);
INSERT INTO grants VALUES (2, 4, 1, 1, '1'), (3, 4, 10, 1, '1');"
}

# ---- 1. grants of free CPUs ----
history ok "$(two_jobs 5) INSERT INTO grants VALUES (2, 4, 1, 1, '1');"
replay_ok ok 1
history skip "$(two_jobs 7) INSERT INTO grants VALUES (2, 4, 1, 1, '1');
INSERT INTO skipped VALUES (5, 6);"
replay_ok skip 1
history none "$(two_jobs 5) DROP TABLE grants;"
replay_ok none 0
# Job 2 ended before the tick after its grant: no run to check.
history left "$(two_jobs 5) INSERT INTO jobs (id, uid) VALUES (3, 1000);
INSERT INTO grants VALUES (3, 2, 1, 1, '1');"
replay_ok left 1
# Job 2 idle (desire 0, no CPU) from quantum 0, woken after the tick of 4.
history woke "$(woken) INSERT INTO grants VALUES (2, 4, 1, 1, '1');"
replay_ok woke 1
history handed "$(handed_on 5)"
replay_ok handed 2
echo "grants of free CPUs, before the job's first run, as it woke, or after another's end: exit 0"

# ---- 2. grants deq_replay must refuse ----
history taken "$(two_jobs 5) INSERT INTO grants VALUES (2, 4, 1, 1, '0');"
replay_bad taken "grant to job 2 at quantum 4: '0' is not free, job 1 held '0' through it"
history late "$(two_jobs 5) INSERT INTO grants VALUES (2, 5, 1, 1, '1');"
replay_bad late "grant to job 2 at quantum 5: DEQ gave it '1' there already"
history early "$(two_jobs 5) INSERT INTO grants VALUES (2, 3, 1, 1, '1');"
replay_bad early "grant to job 2 at quantum 3: its first run starts at quantum 5, not 4"
history count "$(two_jobs 5) INSERT INTO grants VALUES (2, 4, 1, 2, '1');"
replay_bad count "grant to job 2 at quantum 4: '1' is not 2 of the daemon's CPUs"
history foreign "$(two_jobs 5) INSERT INTO grants VALUES (2, 4, 1, 1, '7');"
replay_bad foreign "grant to job 2 at quantum 4: '7' is not 1 of the daemon's CPUs"
# Jobs 2 and 3 join together after the tick of 2 (job 1 is on CPU 0):
# CPU 1 is free for one of them only.
history twice "INSERT INTO jobs (id, uid) VALUES (1, 1000), (2, 1000), (3, 1000);
INSERT INTO allotments VALUES (1, 0, 9, 1, 2, 1, '0', 10);
INSERT INTO grants VALUES (2, 2, 1, 1, '1'), (3, 2, 2, 1, '1');
INSERT INTO allotments VALUES (2, 3, 3, 0, 1, 0, '', 0),
  (3, 3, 3, 0, 1, 0, '', 0);"
replay_bad twice "grants at quantum 2: job 2 got '1', job 3 '1' before it ended"
history wokeon0 "$(woken) INSERT INTO grants VALUES (2, 4, 1, 1, '0');"
replay_bad wokeon0 "grant to job 2 at quantum 4: '0' is not free, job 1 held '0' through it"
history handedearly "$(handed_on 20)"
replay_bad handedearly "grants at quantum 4: job 2 got '1', job 3 '1' before it ended"
echo "a grant of a CPU another job held, one to a job DEQ gave a CPU, one well before the job's first run, CPUs not the allotment or not the daemon's, two grants of one CPU, a woken job's grant of a held CPU, a CPU granted again before its job ended: exit 1, named"
echo ok
