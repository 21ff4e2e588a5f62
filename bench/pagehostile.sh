#!/bin/sh
# pagehostile.sh BUILD [SECONDS] [ROUNDS] - what a hostile job scribbling
# over its page costs the others (issue 40, "Tests"): three fib jobs (fib
# 45, 2 workers each) share the CPUs under a fresh asteald for SECONDS
# (default 5), calm, then with tests/pageattack beside them for the same
# time (SECONDS may be a fraction: make check's smoke runs 0.5; random bytes at full speed over every part of a page_allot job's
# page, torn counts, NaN, negative and huge desires, usage going back,
# parked records of quanta that never were with the eventfd signalled in
# a tight loop, one job after another as the daemon drops them: see its
# top comment).  Per phase, from asteal --json status at its end: the
# ticks run and skipped, tick time p50/p99/max, the revocations the fib
# jobs completed through their pages and their latency p50/p99/max
# (Allot decided to last worker parked, on the shared clock), the
# daemon's CPU time over the phase, its log's warnings, and the host's
# steal.  Calm and attack alternate, ROUNDS times (default 3).
set -u

build=${1:?usage: bench/pagehostile.sh BUILD [SECONDS] [ROUNDS]}
secs=${2:-5}
rounds=${3:-3}
case "$secs" in ''|*[!0-9.]*|.*|*.*.*) echo "usage: bench/pagehostile.sh BUILD [SECONDS] [ROUNDS]" >&2; exit 2 ;; esac
awk -v s="$secs" 'BEGIN { exit !(s > 0) }' || { echo "usage: bench/pagehostile.sh BUILD [SECONDS] [ROUNDS]" >&2; exit 2; }
case "$rounds" in ''|*[!0-9]*|0) echo "usage: bench/pagehostile.sh BUILD [SECONDS] [ROUNDS]" >&2; exit 2 ;; esac
for b in bin/asteald bin/asteal jobs/fib tests/pageattack; do
	[ -x "$build/$b" ] || { echo "bench: no $build/$b (make tests)" >&2; exit 2; }
done
. "$(dirname "$0")/../scripts/lib.sh"
test_tmp bench-pagehostile

steal_now() { awk '/^cpu /{print $9, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat; }
steal_pct() {
	echo "$1 $2" | awk '{ s = $3 - $1; t = $4 - $2; printf "%.1f%%", (t > 0 ? 100 * s / t : 0) }'
}
# json KEY FILE: a number from asteal --json status.
json() { sed -n "s/.*\"$1\":\"\{0,1\}\([0-9.]*\).*/\1/p" "$2"; }
us() { awk -v n="$1" 'BEGIN { printf "%.0f µs", n / 1000 }'; }
# cpu_ticks PID: its user + system clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

hz=$(getconf CLK_TCK)
printf '| round | phase | ticks (skipped) | tick p50 | tick p99 | tick max | revocations | revoke p50 | revoke p99 | revoke max | daemon CPU | warnings | attack | steal |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n'
r=1
while [ "$r" -le "$rounds" ]; do
	for phase in calm attack; do
		rm -f "$tmp/s" "$tmp/h.db"* "$tmp"/job.* "$tmp/attack.out"
		"$build/bin/asteald" --socket "$tmp/s" --db "$tmp/h.db" --foreground \
		    --log-level warn --config /dev/null >"$tmp/daemon.log" 2>&1 &
		daemon_pid=$!
		wait_for 10 test -S "$tmp/s" || { echo "bench: asteald did not start" >&2; exit 1; }
		pids=""
		for k in 1 2 3; do
			ASTEAL_SOCKET="$tmp/s" ASTEAL_WORKERS=2 "$build/jobs/fib" 45 \
			    >"$tmp/job.$k" 2>&1 &
			pids="$pids $!"
		done
		three() { [ "$(ASTEAL_SOCKET="$tmp/s" "$build/bin/asteal" --json status |
		    sed -n 's/.*"page_allot_jobs":\([0-9]*\).*/\1/p')" = 3 ]; }
		wait_for 10 three || { echo "bench: the fib jobs did not join" >&2; exit 1; }
		s0=$(steal_now)
		c0=$(cpu_ticks "$daemon_pid")
		# A fresh daemon: its samples are this phase's (up to 4096).
		if [ "$phase" = attack ]; then
			"$build/tests/pageattack" "$tmp/s" "$secs" >"$tmp/attack.out" 2>&1
			attack=$(sed -n 's/pageattack: \([0-9]*\) jobs, \([0-9]*\) dropped.*steady \(.*\)/\1 jobs, \2 dropped, steady \3/p' "$tmp/attack.out")
		else
			sleep "$secs"
			attack="-"
		fi
		c1=$(cpu_ticks "$daemon_pid")
		s1=$(steal_now)
		ASTEAL_SOCKET="$tmp/s" "$build/bin/asteal" --json status >"$tmp/status.json" ||
			{ echo "bench: no status" >&2; exit 1; }
		kill $pids
		wait $pids 2>/dev/null
		kill "$daemon_pid"
		wait "$daemon_pid" || { echo "bench: asteald failed: $(cat "$tmp/daemon.log")" >&2; exit 1; }
		daemon_pid=""
		printf '| %d | %s | %s (%s) | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
		    "$r" "$phase" "$(json ticks "$tmp/status.json")" \
		    "$(json skipped_ticks "$tmp/status.json")" \
		    "$(us "$(json tick_p50_ns "$tmp/status.json")")" \
		    "$(us "$(json tick_p99_ns "$tmp/status.json")")" \
		    "$(us "$(json tick_max_ns "$tmp/status.json")")" \
		    "$(json revocations "$tmp/status.json")" \
		    "$(us "$(json revoke_p50_ns "$tmp/status.json")")" \
		    "$(us "$(json revoke_p99_ns "$tmp/status.json")")" \
		    "$(us "$(json revoke_max_ns "$tmp/status.json")")" \
		    "$(awk -v a="$c0" -v b="$c1" -v hz="$hz" -v s="$secs" \
		        'BEGIN { printf "%.1f%%", 100 * (b - a) / hz / s }')" \
		    "$(grep -c warning "$tmp/daemon.log")" "$attack" \
		    "$(steal_pct "$s0" "$s1")"
	done
	r=$((r + 1))
done
