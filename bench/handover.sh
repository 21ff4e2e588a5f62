#!/bin/sh
# handover.sh BUILD [ROUNDS] - revocation latency end to end: six fib jobs
# of different lengths (fib 40 to 45, 2 workers each) share the machine's
# CPUs under asteald, so that DEQ takes CPUs from jobs every few quanta.
# For each revocation, the time from the daemon's decision (DEQ, on the
# shared clock) to the last leaving worker of that job parked (on the same
# clock), measured on both sides:
#   daemon  Allot.decided_ns to Released.parked_ns, over every Released
#           the daemon took (asteal --json status: revoke_p50/p99/max);
#   jobs    the same span as each job's runtime measured it (ASTEAL_STATS:
#           latency_us p50/p99/max per job; the table shows the median of
#           the six p50s, the largest p99 and the largest max).
# Both handover orders (asteald --handover): immediate (the gaining job is
# told at once) and release (it is told once the losing job said Released,
# or after a quarter of a quantum), interleaved round by round, with the
# six jobs' makespan (the wall time until the last finished) beside them,
# and the host's steal over the round.  HANDOVER_FIB=N makes the six jobs
# fib N to N+5 instead (tests/benchsmoke.test.sh runs one short round so).
set -u

build=${1:?usage: bench/handover.sh BUILD [ROUNDS]}
rounds=${2:-3}
case "$rounds" in ''|*[!0-9]*|0) echo "usage: bench/handover.sh BUILD [ROUNDS]" >&2; exit 2 ;; esac
fib0=${HANDOVER_FIB:-40}
case "$fib0" in ''|*[!0-9]*) echo "bench: HANDOVER_FIB must be a number" >&2; exit 2 ;; esac
for b in bin/asteald bin/asteal jobs/fib; do
	[ -x "$build/$b" ] || { echo "bench: no $build/$b (make)" >&2; exit 2; }
done
. "$(dirname "$0")/../scripts/lib.sh"
test_tmp bench-handover

steal_now() { awk '/^cpu /{print $9, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat; }
steal_pct() {
	echo "$1 $2" | awk '{ s = $3 - $1; t = $4 - $2; printf "%.1f%%", (t > 0 ? 100 * s / t : 0) }'
}
# json KEY FILE: a number from asteal --json status.
json() { sed -n "s/.*\"$1\":\"\{0,1\}\([0-9.]*\).*/\1/p" "$2"; }
us() { awk -v n="$1" 'BEGIN { printf "%.0f µs", n / 1000 }'; }

printf '| round | handover | revocations | daemon p50 | daemon p99 | daemon max | jobs p50 (median) | jobs p99 (largest) | jobs max | makespan | steal |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|\n'
r=1
while [ "$r" -le "$rounds" ]; do
	for mode in immediate release; do
		rm -f "$tmp/s" "$tmp/h.db"* "$tmp"/job.*
		"$build/bin/asteald" --socket "$tmp/s" --db "$tmp/h.db" --foreground \
		    --log-level warn --config /dev/null --handover "$mode" \
		    >"$tmp/daemon.log" 2>&1 &
		daemon_pid=$!
		wait_for 10 test -S "$tmp/s" || { echo "bench: asteald did not start" >&2; exit 1; }
		s0=$(steal_now)
		t0=$(date +%s%N)
		pids=""
		for n in $(seq "$fib0" $((fib0 + 5))); do
			ASTEAL_SOCKET="$tmp/s" ASTEAL_STATS=1 ASTEAL_WORKERS=2 \
			    "$build/jobs/fib" "$n" >"$tmp/job.$n" 2>&1 &
			pids="$pids $!"
		done
		for p in $pids; do
			wait "$p" || { echo "bench: a fib failed: $(cat "$tmp"/job.*)" >&2; exit 1; }
		done
		t1=$(date +%s%N)
		s1=$(steal_now)
		ASTEAL_SOCKET="$tmp/s" "$build/bin/asteal" --json status >"$tmp/status.json" ||
			{ echo "bench: no status" >&2; exit 1; }
		kill "$daemon_pid"
		wait "$daemon_pid"
		daemon_pid=""
		grep -q check=ok "$tmp/job.$fib0" || { echo "bench: fib: $(cat "$tmp/job.$fib0")" >&2; exit 1; }
		jobs=$(grep -h 'latency_us' "$tmp"/job.* |
		    sed 's/.*latency_us p50=\([0-9.]*\) p99=\([0-9.]*\) max=\([0-9.]*\).*/\1 \2 \3/' |
		    sort -n | awk '{ p50[NR] = $1; if ($2 > p99) p99 = $2; if ($3 > mx) mx = $3 }
		    END { printf "%.0f µs | %.0f µs | %.0f µs", p50[int((NR + 1) / 2)], p99, mx }')
		printf '| %d | %s | %s | %s | %s | %s | %s | %.2f s | %s |\n' "$r" "$mode" \
		    "$(json revocations "$tmp/status.json")" \
		    "$(us "$(json revoke_p50_ns "$tmp/status.json")")" \
		    "$(us "$(json revoke_p99_ns "$tmp/status.json")")" \
		    "$(us "$(json revoke_max_ns "$tmp/status.json")")" \
		    "$jobs" "$(echo "$t0 $t1" | awk '{ print ($2 - $1) / 1e9 }')" \
		    "$(steal_pct "$s0" "$s1")"
	done
	r=$((r + 1))
done
