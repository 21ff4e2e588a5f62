#!/bin/sh
# watch.test.sh BUILD - `asteal jobs --watch` on a terminal: the real
# command in tmux (a pseudo-terminal of the size asked, TERM=xterm, and a
# screen to read back), against a private asteald with 30 jobs (asteal
# run of sleep; the first named with wide characters):
#  1. at 80x24 the alternate screen is on and the screen fits: the line
#     about the daemon (30 jobs), the column names, jobs 1 to 20 in order,
#     then "10 more jobs not shown"; no line wider than 80 columns; the
#     wide name's row aligned with the others by display width;
#  2. resized by tmux (TIOCSWINSZ and SIGWINCH) to 100x30, 60x12 and
#     100x40, it is drawn again to fit each: the rows that fit and how
#     many more (none at 40 lines);
#  3. -o and the filters hold on the screen (--name, -o id,name,user);
#  4. the daemon restarted: the screen says it went away and the watch
#     stays, then shows the 30 jobs again from the new daemon; with
#     standard output a file, one line on stderr and frames go on;
#  5. q, Ctrl-C and SIGTERM: exit 0, the alternate screen left (rmcup
#     written, the screen as it was before: what was printed there, no
#     table);
#  6. an error (a peer on the socket that answers the handshake with what
#     no asteald says): exit 1, the terminal given back first, then the
#     message said on it; a peer that sends a frame that does not decode:
#     asteal status exits 69 with one line.
# Every wait is on a condition with a bound.
set -u

build=${1:?usage: sh tests/watch.test.sh BUILD}
. scripts/lib.sh
test_tmp watch
sock="$tmp/asteald.sock"
db="$tmp/history.db"
log="$tmp/daemon.log"
A="$build/bin/asteal"
N=30
run_pids=""
plain_pid=""
fake_pid=""
unset TMUX
export LC_ALL=C.UTF-8 ASTEAL_SOCKET="$sock"

# tmux on a private server; no status line: the pane is the window.
tm() { tmux -u -S "$tmp/tmux.sock" "$@"; }
printf 'set -g remain-on-exit on\nset -g status off\nset -g default-terminal xterm\n' \
	>"$tmp/tmux.conf"
test_cleanup() {
	tm kill-server 2>/dev/null
	for p in $plain_pid $fake_pid; do
		kill "$p" 2>/dev/null
	done
	# each job's sleep, then its asteal run (no report to wait for)
	for p in $run_pids; do
		pkill -KILL -P "$p" 2>/dev/null
		kill -KILL "$p" 2>/dev/null
	done
}


# The jobs asteald lists (its --json's count).
njobs() {
	"$A" --json jobs 2>/dev/null |
		python3 -c 'import json, sys; print(len(json.load(sys.stdin)))' 2>/dev/null
}
have() { [ "$(njobs)" = "$1" ]; }
all_there() { have "$N"; }

# Start pane $1 (a new window, or the dead pane respawned) at $2x$3,
# clearing its screen and printing MARKER<n> on its second line (the first
# may scroll away as tmux says the pane is dead), then waiting for Enter
# before it runs the watch with the rest of the arguments, its raw output
# recorded in $tmp/raw.$1.
runs=0
watch_in() {
	w=$1 x=$2 y=$3
	shift 3
	runs=$((runs + 1))
	cmd="clear; echo; echo MARKER$runs; read go; exec env TERM=xterm $A --socket $sock jobs --watch --interval 0.2 $*"
	if tm has-session -t "$w" 2>/dev/null; then
		tm resize-window -t "$w" -x "$x" -y "$y" &&
			tm respawn-pane -k -t "$w" "$cmd" || fail "respawn $w"
	elif [ -e "$tmp/tmux.sock" ]; then
		tm new-session -d -s "$w" -x "$x" -y "$y" "$cmd" || fail "tmux $w"
	else
		tm -f "$tmp/tmux.conf" new-session -d -s "$w" -x "$x" -y "$y" "$cmd" ||
			fail "tmux did not start"
	fi
	: >"$tmp/raw.$w"
	tm pipe-pane -t "$w" "cat >>'$tmp/raw.$w'" || fail "pipe-pane $w"
	wait_for 10 marked "$w" $runs || fail "pane $w did not start: $(tm capture-pane -p -t "$w")"
	eval "mark_$w=$runs"
	tm send-keys -t "$w" Enter
}
marked() { tm capture-pane -p -t "$1" | grep -q "^MARKER$2\$"; }
# pane $1's format $2 (tmux's #{...})
pane() { tm display -p -t "$1" "$2"; }

# Check the screen of pane $1 at $2x$3 (what capture-pane shows, into
# $tmp/screen.$1): the line about the daemon with $4 jobs, an empty status
# line, the column names ($5: the ones expected, "" for the default), as
# many jobs as fit in id order from the first, then how many more; no line
# wider than the screen; USER aligned under its name in every row.
screen_fits() {
	tm capture-pane -p -t "$1" >"$tmp/screen.$1" 2>/dev/null || return 1
	python3 - "$tmp/screen.$1" "$2" "$3" "$4" "$5" 2>"$tmp/why.$1" <<'EOF'
import re, sys, unicodedata
path, cols, rows, njobs, names = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
lines = open(path, encoding="utf-8").read().split("\n")[:-1]
def width(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
assert len(lines) == rows, (len(lines), rows)
assert all(width(l) <= cols for l in lines), [l for l in lines if width(l) > cols]
full = r"asteald: \d+ CPUs?, %d jobs?, \d+ CPUs? allotted   \d\d:\d\d:\d\d   every 0\.2s, q to quit" % njobs
head = lines[0]
if cols >= 80:
    assert re.fullmatch(full, head), head
else:               # cut at the screen's edge (a blank there is not shown)
    assert re.match(r"asteald: \d+ CPUs?, %d job" % njobs, head) and width(head) >= cols - 1, head
assert lines[1] == "", lines[1]
want = names.split() if names else ["ID", "NAME", "USER", "PID", "DESIRE", "ALLOT", "CPUS", "CAP", "HELD", "AGE", "EFF"]
got = lines[2].split()
assert got == want[:len(got)] and len(got) >= 3, (lines[2], want)
avail = rows - 2
body = [l for l in lines[3:] if l]
if njobs + 1 <= avail:
    shown, more = njobs, None
else:
    shown, more = avail - 2, njobs - (avail - 2)
assert len(body) == shown + (more is not None), (len(body), shown, more)
if more is not None:
    assert body[-1] == "%d more jobs not shown" % more, body[-1]
    body = body[:-1]
ids = [int(l.split()[0]) for l in body]
assert ids == sorted(ids) and len(set(ids)) == len(ids), ids
ucol = width(lines[2][:lines[2].index("USER")])
for l in body:
    m = re.match(r"\s*\d+\s+(\S+)\s+(\S+)", l)
    assert m and width(l[:m.start(2)]) == ucol, (l, ucol)
for l in lines[3 + len(body) + (more is not None):]:
    assert l == "", l
EOF
}

# a peer on the socket that says the frame $1 (hex) to every connection
# (for a minute at most)
peer() {
	rm -f "$sock"
	python3 - "$sock" "$1" <<'EOF' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(64)
s.settimeout(0.2)
end, kept = time.time() + 60, []
while time.time() < end:
    try:
        c, _ = s.accept()
    except socket.timeout:
        continue
    c.sendall(bytes.fromhex(sys.argv[2]))
    kept.append(c)
EOF
	fake_pid=$!
	wait_for 10 test -S "$sock" || fail "the peer did not listen"
}

# ---- the daemon and its 30 jobs ----
daemon_start --db "$db" --quantum-ms 10 --log-level info
"$A" run --name '数据ü' -- sleep 600 >"$tmp/run.0" 2>&1 &
run_pids=$!
wait_for 20 have 1 || fail "the first job did not show up"
i=1
while [ $i -lt $N ]; do
	"$A" run --name "w$i" -- sleep 600 >"$tmp/run.$i" 2>&1 &
	run_pids="$run_pids $!"
	i=$((i + 1))
done
wait_for 60 all_there || fail "the $N jobs did not show up: $(njobs)"
first=$("$A" --json jobs | python3 -c 'import json, sys; print(min(j["id"] for j in json.load(sys.stdin)))')
"$A" jobs "$first" | grep -q '数据ü' || fail "job $first is not the wide-named one"

# ---- 1. 80x24 ----
watch_in w 80 24
[ "$(pane w '#{pane_width}x#{pane_height}')" = 80x24 ] || fail "the pane is $(pane w '#{pane_width}x#{pane_height}')"
wait_for 20 screen_fits w 80 24 $N "" || fail "80x24: $(cat "$tmp/why.w" "$tmp/screen.w")"
[ "$(pane w '#{alternate_on}')" = 1 ] || fail "jobs --watch is not on the alternate screen"
grep -q '数据ü' "$tmp/screen.w" || fail "80x24: the wide-named job is not shown: $(cat "$tmp/screen.w")"
echo "80x24: 20 of $N jobs and '10 more jobs not shown', on the alternate screen"

# ---- 2. resized ----
for size in 100x30 60x12 100x40; do
	x=${size%x*} y=${size#*x}
	tm resize-window -t w -x "$x" -y "$y" || fail "resize to $size"
	wait_for 20 screen_fits w "$x" "$y" $N "" ||
		fail "resized to $size: $(cat "$tmp/why.w" "$tmp/screen.w")"
done
echo "resized to 100x30, 60x12 and 100x40: drawn again to fit each"

# ---- 3. -o and filters ----
watch_in f 80 24 --name w7 -o id,name,user
wait_for 20 screen_fits f 80 24 1 "ID NAME USER" ||
	fail "--name w7 -o id,name,user: $(cat "$tmp/why.f" "$tmp/screen.f")"
grep -q '^ *[0-9][0-9]*  w7  *[^ ]*$' "$tmp/screen.f" || fail "--name w7: $(cat "$tmp/screen.f")"
tm send-keys -t f q
echo "--name and -o hold on the screen"

# ---- 4. the daemon restarted ----
"$A" jobs --watch --interval 0.2 </dev/null >"$tmp/plain.out" 2>"$tmp/plain.err" &
plain_pid=$!
frames() { [ "$(grep -c "^asteald: .*, $N jobs" "$tmp/plain.out")" -gt "$1" ]; }
wait_for 20 frames 0 || fail "jobs --watch to a file: $(cat "$tmp/plain.out" "$tmp/plain.err")"
daemon_stop
# the status line (cut at the screen's edge: the socket's path may be)
away() { tm capture-pane -p -t w | sed -n 2p | grep -q "^asteald went away at [0-9:]*; connecting again to /"; }
wait_for 20 away || fail "the screen does not say the daemon went away: $(tm capture-pane -p -t w)"
said() { grep -q "went away; connecting again" "$tmp/plain.err"; }
wait_for 20 said || fail "jobs --watch to a file did not say the daemon went away: $(cat "$tmp/plain.err")"
[ "$(pane w '#{pane_dead}')" = 0 ] || fail "jobs --watch ended as the daemon went away"
kill -0 "$plain_pid" 2>/dev/null || fail "jobs --watch to a file ended as the daemon went away"
before=$(grep -c "^asteald: " "$tmp/plain.out")
daemon_start --db "$db" --quantum-ms 10 --log-level info
wait_for 60 all_there || fail "the jobs did not come back to the new daemon: $(njobs)"
back() { ! away && screen_fits w 100 40 $N ""; }
wait_for 30 back || fail "the screen did not come back: $(tm capture-pane -p -t w)"
wait_for 30 frames "$before" || fail "no frame after the restart: $(tail -n 5 "$tmp/plain.out")"
[ "$(wc -l <"$tmp/plain.err")" -eq 1 ] || fail "jobs --watch to a file said: $(cat "$tmp/plain.err")"
kill -TERM "$plain_pid"
rc=0; wait "$plain_pid" || rc=$?
plain_pid=""
[ $rc -eq 0 ] || fail "jobs --watch to a file: exit $rc on SIGTERM"
echo "daemon restarted: said on the screen and on stderr, the watch went on with the new daemon"

# ---- 5. q, Ctrl-C, SIGTERM ----
# dead, and its status known: tmux sees the end of its output first, and
# may miss a SIGCHLD (that of a child ending while it spawns another, as
# libutempter's handler is in): a SIGCHLD of our own makes it look again
dead() {
	kill -CHLD "$(tm display -p '#{pid}')" 2>/dev/null
	[ -n "$(pane "$1" '#{pane_dead_status}#{pane_dead_signal}')" ]
}
# the pane's exit 0 and its terminal given back (after $2)
given_back() {
	w=$1
	wait_for 20 dead "$w" ||
		fail "$2: jobs --watch did not end: $(pane "$w" '#{pane_dead} #{pane_pid}'; ps -o pid,ppid,stat,wchan,cmd -p "$(pane "$w" '#{pane_pid}')"; tm capture-pane -p -S - -t "$w")"
	[ "$(pane "$w" '#{pane_dead_status}')" = 0 ] ||
		fail "$2: exit $(pane "$w" '#{pane_dead_status} #{pane_dead_signal}'): $(tm capture-pane -p -S - -t "$w")"
	[ "$(pane "$w" '#{alternate_on}')" = 0 ] || fail "$2: the alternate screen is still on"
	python3 - "$tmp/raw.$w" "$(tput -T xterm smcup)" "$(tput -T xterm rmcup)" <<'EOF' || fail "$2: smcup, then rmcup last: not in the output"
import sys
raw = open(sys.argv[1], "rb").read()
smcup, rmcup = sys.argv[2].encode(), sys.argv[3].encode()
assert smcup and rmcup and raw.rfind(rmcup) > raw.rfind(smcup) >= 0
EOF
	tm capture-pane -p -t "$w" >"$tmp/after.$w"
	eval "m=\$mark_$w"
	grep -q "^MARKER$m\$" "$tmp/after.$w" && ! grep -q "NAME\|more jobs" "$tmp/after.$w" ||
		fail "$2: the screen is not as it was before: $(cat "$tmp/after.$w")"
}
given_back f q
tm send-keys -t w q
given_back w q
watch_in w 80 24
wait_for 20 screen_fits w 80 24 $N "" || fail "watch again: $(cat "$tmp/why.w" "$tmp/screen.w")"
tm send-keys -t w C-c
given_back w Ctrl-C
watch_in w 80 24
wait_for 20 screen_fits w 80 24 $N "" || fail "watch again: $(cat "$tmp/why.w" "$tmp/screen.w")"
kill -TERM "$(pane w '#{pane_pid}')"
given_back w SIGTERM
echo "q, Ctrl-C, SIGTERM: exit 0, rmcup written, the screen as it was"

# ---- 6. an error ----
watch_in w 80 24
wait_for 20 screen_fits w 80 24 $N "" || fail "watch again: $(cat "$tmp/why.w" "$tmp/screen.w")"
daemon_stop
wait_for 20 away || fail "the screen does not say the daemon went away: $(tm capture-pane -p -t w)"
peer 000000022200               # an Ok (Envelope field 4, empty)
wait_for 20 dead w || fail "jobs --watch did not end on an answer that is no asteald's: $(tm capture-pane -p -t w)"
[ "$(pane w '#{pane_dead_status}')" = 1 ] || fail "the error: exit $(pane w '#{pane_dead_status}')"
[ "$(pane w '#{alternate_on}')" = 0 ] || fail "the error: the alternate screen is still on"
tm capture-pane -p -J -t w | sed 's/ *$//' >"$tmp/after.w"   # lines unwrapped
grep -q "^asteal: asteald at $sock: expected welcome first, got ok$" "$tmp/after.w" &&
	! grep -q "more jobs" "$tmp/after.w" ||
	fail "the error: the message is not on the screen given back: $(cat "$tmp/after.w")"
echo "an error: exit 1, the terminal given back, then the message"

# a frame that decodes to nothing: said in one line, exit 69 (no asteald
# there), where the command line once read the missing message and died
kill "$fake_pid"
wait "$fake_pid" 2>/dev/null
peer 00000005ffffffffff
expect_rc 69 "$A" status
[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^asteal: asteald at $sock sent a bad frame: " "$tmp/err" ||
	fail "status, a bad frame: $(cat "$tmp/err")"
echo "a bad frame: exit 69, said in one line"
echo ok
