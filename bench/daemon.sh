#!/bin/sh
# daemon.sh BUILD [JOBS [SECONDS [ROUNDS]]] - asteald under load, beside the
# floor of its exchange.  Each round runs, one after the other:
#   floor   asteal-wirefloor: Tick, Feedback, Allot over Unix stream
#           sockets with nothing behind them (no protobuf, DEQ, history);
#   asteald a private daemon driven by asteal-loadgen (rate 0.1, W = 8);
# and prints a row each: CPU of the daemon side as a share of one core
# (user, system, total), tick latency p50/p99/max, and the host's steal
# over the run (the `steal` column of /proc/stat, as a share of both
# CPUs), which is what the p99 mostly follows on a shared VM.  Rows of one
# round ran within a minute of each other: compare within a round.
set -u

usage() {
	echo "usage: bench/daemon.sh BUILD [JOBS [SECONDS [ROUNDS]]]" >&2
	exit 2
}

[ $# -ge 1 ] && [ $# -le 4 ] || usage
build=$1
jobs=${2:-100}
secs=${3:-20}
rounds=${4:-3}
for v in "$jobs" "$secs" "$rounds"; do
	case "$v" in ''|*[!0-9]*|0) usage ;; esac
done
for b in bin/asteald bench/asteal-loadgen bench/asteal-wirefloor; do
	[ -x "$build/$b" ] || { echo "bench: no $build/$b (make bench-bins)" >&2; exit 2; }
done
. "$(dirname "$0")/../scripts/lib.sh"
test_tmp bench-daemon
hz=$(getconf CLK_TCK)

# steal_start / steal_end: the host's steal share between the two calls.
steal_now() { awk '/^cpu /{print $9, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat; }
steal_pct() {
	echo "$1 $2" | awk '{ s = $3 - $1; t = $4 - $2; printf "%.1f%%", (t > 0 ? 100 * s / t : 0) }'
}
# field NAME LINE: the value of NAME=... in a key=value line.
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

printf '| round | what | jobs | quanta | user | system | CPU | p50 | p99 | max | steal |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|\n'
r=1
while [ "$r" -le "$rounds" ]; do
	s0=$(steal_now)
	out=$("$build/bench/asteal-wirefloor" --jobs "$jobs" --seconds "$secs") || exit 1
	s1=$(steal_now)
	printf '| %d | floor | %d | %s | %s%% | %s%% | %s%% | %s µs | %s µs | %s µs | %s |\n' \
	    "$r" "$jobs" "$(field quanta "$out")" "$(field user_pct "$out")" \
	    "$(field sys_pct "$out")" "$(field cpu_pct "$out")" \
	    "$(field p50_us "$out")" "$(field p99_us "$out")" \
	    "$(field max_us "$out")" "$(steal_pct "$s0" "$s1")"

	rm -f "$tmp/s" "$tmp/h.db"*
	"$build/bin/asteald" --socket "$tmp/s" --db "$tmp/h.db" --foreground \
	    --log-level warn --config /dev/null &
	pid=$!
	daemon_pid=$pid
	wait_for 10 test -S "$tmp/s" || { echo "bench: asteald did not start" >&2; exit 1; }
	s0=$(steal_now)
	out=$("$build/bench/asteal-loadgen" --socket "$tmp/s" --pid "$pid" \
	    --jobs "$jobs" --seconds "$secs" --change-rate 0.1 --db "$tmp/h.db")
	rc=$?
	s1=$(steal_now)
	# user and system apart, from the daemon's own counters.
	split=$(awk -v hz="$hz" -v s="$secs" '{ printf "%.2f %.2f", 100 * $14 / hz / s, 100 * $15 / hz / s }' "/proc/$pid/stat")
	kill "$pid"
	wait "$pid"
	daemon_pid=""
	[ "$rc" -eq 0 ] || { echo "bench: loadgen failed: $out" >&2; exit 1; }
	printf '| %d | asteald | %d | %s | %s%% | %s%% | %s%% | %s µs | %s µs | %s µs | %s |\n' \
	    "$r" "$jobs" "$(field ticks "$out")" "${split% *}" "${split#* }" \
	    "$(field daemon_cpu_pct "$out")" "$(field tick_p50_us "$out")" \
	    "$(field tick_p99_us "$out")" "$(field tick_max_us "$out")" \
	    "$(steal_pct "$s0" "$s1")"
	r=$((r + 1))
done
