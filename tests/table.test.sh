#!/bin/sh
# table.test.sh BUILD - tables for people on a terminal and elsewhere: the
# real asteal under script(1) (a pseudo-terminal, stty cols N), against a
# private asteald with three jobs (asteal run of sleep: one with a long
# name, one with wide characters, one short):
#  1. on a terminal of 60 columns, asteal jobs (wider than that, whatever
#     the names) fits it: no line wider than 60 display columns, the
#     header first, one line per job, NAME cut to a part of the long name
#     (the wide one whole), each row's USER under its header; the columns
#     on the right that still do not fit are left out whole (the header's
#     names are the first of the default columns, in order, none cut);
#     piped, the same table is whole: a line wider than 60 columns, every
#     name whole, the same with COLUMNS=60;
#  2. history --jobs fits too, and is whole piped;
#  3. a table that fits is the same on the terminal as piped (-o
#     id,name%12,user: the width asked, cut with '+'); --parsable is never
#     fitted;
#  4. asteal show on a terminal of 40 columns: every line of its tables
#     fits, the long name's value wrapped over more lines, whole once
#     they are joined; piped, on one line.
# Every wait is on a condition with a bound.
set -u

build=${1:?usage: sh tests/table.test.sh BUILD}
. scripts/lib.sh
test_tmp table
sock="$tmp/asteald.sock"
log="$tmp/daemon.log"
A="$build/bin/asteal"
LONG="a-rather-long-job-name-that-no-narrow-terminal-can-show"
WIDE="数据ü-wide"
run_pids=""
export LC_ALL=C.UTF-8 ASTEAL_SOCKET="$sock"
unset COLUMNS
test_cleanup() {
	# each job's sleep, then its asteal run (no report to wait for)
	for p in $run_pids; do
		pkill -KILL -P "$p" 2>/dev/null
		kill -KILL "$p" 2>/dev/null
	done
}

# on_terminal COLS ARGS...: asteal ARGS on a terminal COLS wide, its
# output (carriage returns dropped) in $tmp/term
on_terminal() {
	cols=$1
	shift
	script -qec "stty cols $cols rows 50 && exec '$A' $*" /dev/null </dev/null |
		tr -d '\r' >"$tmp/term" || fail "asteal $* on a terminal failed"
}

# fits FILE COLS NAMES: FILE's lines are at most COLS display columns
# wide; the first holds the first of NAMES (the default columns), in
# order, none cut and some left out; the others a job each, its USER
# under its header (by display width), its NAME the start of its name,
# the long one cut.
fits() {
	python3 - "$@" "$(id -un)" "$LONG" "$WIDE" <<'EOF' 2>"$tmp/why"
import re, sys, unicodedata
path, cols, names, user, long, wide = sys.argv[1:7]
cols, names = int(cols), names.split()
lines = open(path, encoding="utf-8").read().split("\n")
assert lines[-1] == "", lines[-1]
lines = lines[:-1]
def width(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
def at(s, col):     # the index in s where display column col starts
    i = 0
    while i < len(s) and width(s[:i]) < col:
        i += 1
    return i
assert all(width(l) <= cols for l in lines), [l for l in lines if width(l) > cols]
head = lines[0].split()
assert 3 <= len(head) < len(names) and head == names[:len(head)], (head, names)
body = lines[1:]
assert len(body) == 3, body
ncol = width(lines[0][:lines[0].index("NAME")])
ucol = width(lines[0][:lines[0].index("USER")])
shown = []
for l in body:
    m = re.search("  %s( |$)" % re.escape(user), l)
    assert m and width(l[:m.start() + 2]) == ucol, (l, ucol)
    shown.append(l[at(l, ncol):m.start()].strip())
for name in (long, wide, "short"):
    assert len([s for s in shown if s and name.startswith(s)]) == 1, (name, shown)
assert long not in shown, shown
EOF
}

have() {
	n=$("$A" --json jobs 2>/dev/null |
		python3 -c 'import json, sys; print(len(json.load(sys.stdin)))' 2>/dev/null)
	[ "${n:-0}" = 3 ]
}

"$build/bin/asteald" --foreground --socket "$sock" --db "$tmp/history.db" \
	--quantum-ms 10 --log-level info >"$log" 2>&1 &
daemon_pid=$!
wait_for 20 test -S "$sock" || fail "the daemon did not start"
for name in "$LONG" "$WIDE" short; do
	"$A" run --name "$name" -- sleep 600 >/dev/null 2>&1 &
	run_pids="$run_pids $!"
done
wait_for 60 have || fail "the three jobs did not show up: $("$A" jobs)"
DEFAULT="ID NAME USER PID DESIRE ALLOT CPUS CAP HELD AGE EFF"
HISTORY="ID NAME USER PID START END ELAPSED STATUS WORK STEAL MUG SLEEP PREEMPTED"

# ---- 1. jobs ----
on_terminal 60 jobs
fits "$tmp/term" 60 "$DEFAULT" || fail "jobs on 60 columns: $(cat "$tmp/why" "$tmp/term")"
"$A" jobs >"$tmp/piped" || fail "jobs piped failed"
[ "$(wc -L <"$tmp/piped")" -gt 60 ] && grep -q -- "  $LONG  " "$tmp/piped" ||
	fail "jobs piped is not whole: $(cat "$tmp/piped")"
# the columns that do not change from one call to the next
STABLE=id,name,user,pid,command,cap,held
"$A" jobs -o "$STABLE" >"$tmp/piped" || fail "jobs -o $STABLE piped failed"
COLUMNS=60 "$A" jobs -o "$STABLE" >"$tmp/piped60" || fail "jobs piped with COLUMNS=60 failed"
[ "$(wc -L <"$tmp/piped")" -gt 60 ] && cmp -s "$tmp/piped" "$tmp/piped60" ||
	fail "COLUMNS=60 changed jobs -o $STABLE piped: $(cat "$tmp/piped60")"
echo "jobs: fits 60 columns on a terminal ($(head -n 1 "$tmp/term" | wc -w) columns), whole piped"

# ---- 2. history --jobs ----
on_terminal 60 history --jobs
fits "$tmp/term" 60 "$HISTORY" || fail "history --jobs on 60 columns: $(cat "$tmp/why" "$tmp/term")"
"$A" history --jobs >"$tmp/piped" || fail "history --jobs piped failed"
[ "$(wc -L <"$tmp/piped")" -gt 60 ] && grep -q -- "  $LONG  " "$tmp/piped" ||
	fail "history --jobs piped is not whole: $(cat "$tmp/piped")"
echo "history --jobs: fits 60 columns on a terminal, whole piped"

# ---- 3. a table that fits; --parsable ----
on_terminal 60 jobs -o id,name%12,user
"$A" jobs -o id,name%12,user >"$tmp/piped" || fail "jobs -o id,name%12,user failed"
cmp -s "$tmp/term" "$tmp/piped" ||
	fail "a table that fits differs on a terminal: $(cat "$tmp/term") / $(cat "$tmp/piped")"
grep -q "  a-rather-lo+  " "$tmp/term" || fail "name%12 on a terminal: $(cat "$tmp/term")"
on_terminal 60 jobs -P -o "$STABLE"
"$A" jobs -P -o "$STABLE" >"$tmp/piped" || fail "jobs -P failed"
cmp -s "$tmp/term" "$tmp/piped" || fail "--parsable differs on a terminal: $(cat "$tmp/term")"
echo "a table that fits and --parsable: the same on a terminal as piped"

# ---- 4. show ----
id=$("$A" jobs -o id,name -P -n | sed -n "s/^\([0-9]*\)|$LONG\$/\1/p")
[ -n "$id" ] || fail "no id for the long-named job: $("$A" jobs -P)"
on_terminal 40 show "$id"
python3 - "$tmp/term" "$LONG" <<'EOF' 2>"$tmp/why" || fail "show on 40 columns: $(cat "$tmp/why" "$tmp/term")"
import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")[:-1]
rows = [l for l in lines if l.startswith("  ")]     # not the sections' titles
assert all(len(l) <= 40 for l in rows), [l for l in rows if len(l) > 40]
at = [i for i, l in enumerate(lines) if l.startswith("  NAME ")][0]
value = lines[at][len("  NAME"):].strip()
for l in lines[at + 1:]:
    if not l.startswith("    "):
        break
    value += l.strip()
assert value == sys.argv[2], value
EOF
"$A" show "$id" >"$tmp/piped" || fail "show piped failed"
grep -q "^  NAME  *$LONG\$" "$tmp/piped" || fail "show piped: $(cat "$tmp/piped")"
echo "show: values wrapped on 40 columns, whole piped"
echo ok
