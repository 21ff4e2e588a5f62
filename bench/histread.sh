#!/bin/sh
# histread.sh BUILD [RUNS] [ROUNDS] - whether reading the history makes the
# daemon's ticks late: a history of RUNS allotment runs (default 500000:
# 100 jobs, RUNS/100 quanta, every job's allotment changing every quantum,
# written by asteal-histbench), then, ROUNDS times (default 3), a fresh
# asteald on a copy of it, idle for as long as the next phase took last
# (3 s the first time; HISTREAD_IDLE=S, for a short run), and a fresh
# asteald on another copy while `asteal history --csv` pages through every
# run, interleaved.  Per phase, from the daemon's Status at the phase's
# end (its tick samples cover exactly that daemon's life, under 4096
# ticks): the timer's lateness (wake: fire time
# minus the tick's due time) at p50, p99 and max, the ticks skipped, the
# tick's own time at p99, and the phase's length; medians over the rounds
# (the range in brackets), and the host's steal over the whole sitting.
set -u

build=${1:?usage: bench/histread.sh BUILD [RUNS] [ROUNDS]}
runs=${2:-500000}
rounds=${3:-3}
A="$build/bin/asteald"
C="$build/bin/asteal"
H="$build/bench/asteal-histbench"
for b in "$A" "$C" "$H"; do
	[ -x "$b" ] || { echo "histread: $b missing (make all bench-bins)" >&2; exit 1; }
done
command -v python3 >/dev/null || { echo "histread: needs python3" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/asteal-histread.XXXXXX") || exit 1
dpid=""
cleanup() {
	[ -n "$dpid" ] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM
unset ASTEAL_TRACE ASTEAL_PROFILE ASTEAL_MODE ASTEAL_QUANTUM_MS
bench_name=histread
limit=0
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"


quanta=$((runs / 100))
"$H" --db "$tmp/base.db" --jobs 100 --quanta "$quanta" --rate 1 >"$tmp/hb" 2>&1 ||
	{ echo "histread: asteal-histbench failed" >&2; cat "$tmp/hb" >&2; exit 1; }

# start: a fresh daemon on a copy of the history.
start() {
	cp "$tmp/base.db" "$tmp/h.db"
	# The last daemon's log goes first: its "listening on" is not this one's.
	rm -f "$tmp/s" "$tmp/h.db-wal" "$tmp/h.db-shm" "$tmp/log"
	"$A" --foreground --socket "$tmp/s" --db "$tmp/h.db" --quantum-ms 10 \
		>"$tmp/log" 2>&1 &
	dpid=$!
	i=0
	while ! grep -q 'listening on' "$tmp/log" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 100 ] && { echo "histread: asteald did not start" >&2; cat "$tmp/log" >&2; exit 1; }
		sleep 0.1
	done
}

# stop PHASE SECONDS: the daemon's tick figures for the phase, one line.
stop() {
	"$C" --socket "$tmp/s" status --json >"$tmp/st" ||
		{ echo "histread: status failed" >&2; exit 1; }
	python3 - "$1" "$2" "$tmp/st" >>"$tmp/rows" <<'EOF'
import json, sys
d = json.load(open(sys.argv[3]))
print(sys.argv[1], sys.argv[2], d["wake_p50_ns"], d["wake_p99_ns"],
      d["wake_max_ns"], d["skipped_ticks"], d["tick_p99_ns"], d["ticks"])
EOF
	kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	dpid=""
}

now() { date +%s.%N; }

: >"$tmp/rows"
s0=$(steal); t0=$(total)
idle=${HISTREAD_IDLE:-3}
case "$idle" in ''|*[!0-9.]*) echo "histread: HISTREAD_IDLE must be a number of seconds" >&2; exit 1 ;; esac
for _ in $(seq "$rounds"); do
	start
	sleep "$idle"
	stop idle "$idle"
	start
	b=$(now)
	n=$("$C" --socket "$tmp/s" history --csv | wc -l)
	e=$(now)
	[ "$n" -gt "$runs" ] || { echo "histread: history gave $n lines for $runs runs" >&2; exit 1; }
	idle=$(python3 -c "print('%.2f' % ($e - $b))")
	stop paging "$idle"
done
s1=$(steal); t1=$(total)

python3 - "$tmp/rows" "$runs" "$rounds" "$s0" "$s1" "$t0" "$t1" <<'EOF'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
runs, rounds = int(sys.argv[2]), int(sys.argv[3])
s0, s1, t0, t1 = (int(x) for x in sys.argv[4:8])
print("asteald's ticks (10 ms quanta) while idle and while `asteal history` "
      "pages through %d runs; %d rounds, medians [range]" % (runs, rounds))
print()
print("| phase | length | wake p50 | wake p99 | wake max | skipped | tick p99 |")
print("|---|---|---|---|---|---|---|")
def cell(vals, unit, scale):
    m = st.median(vals)
    return "%.*f %s [%.*f-%.*f]" % (2 if scale > 1 else 0, m / scale, unit,
                                    2 if scale > 1 else 0, min(vals) / scale,
                                    2 if scale > 1 else 0, max(vals) / scale)
for phase in ("idle", "paging"):
    ps = [r for r in rows if r[0] == phase]
    col = lambda k: [float(r[k]) for r in ps]
    print("| %s | %s | %s | %s | %s | %s | %s |" % (
        phase, "%.2f s" % st.median(col(1)),
        cell(col(2), "ms", 1e6), cell(col(3), "ms", 1e6), cell(col(4), "ms", 1e6),
        "%d" % max(col(5)), cell(col(6), "ms", 1e6)))
print()
print("host steal over the sitting: %.1f%%" % (100.0 * (s1 - s0) / max(1, t1 - t0)))
EOF
