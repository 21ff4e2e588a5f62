#!/bin/sh
# histsize.sh BUILD [SECONDS] - what the allotment history costs on disk
# under contention: 8 jobs on this machine's CPUs for SECONDS (default
# 60) under one asteald with a fresh database, in three workloads:
#   fib      8 copies of fib (A-STEAL: each asks for every CPU it can use)
#   abp      the same in ABP mode (a constant desire: only the turns move)
#   mixed    4 fib and 4 phases (serial and parallel phases, desires move)
# and per workload: the rows written, why each row after a job's first
# began (its desire changed, its class changed, or neither: a run of turns
# ended because its values left its two, or jobs came or went), the runs
# of turns, the database's growth (checkpointed, page_count x page_size)
# and that growth per hour, against the goal of 1 MB an hour.  The host's
# steal over the run is printed beside each row.
set -u

build=${1:?usage: bench/histsize.sh BUILD [SECONDS]}
secs=${2:-60}
A="$build/bin/asteald"
for b in bin/asteald jobs/fib jobs/phases; do
	[ -x "$build/$b" ] || { echo "histsize: $build/$b missing (make)" >&2; exit 1; }
done
command -v sqlite3 >/dev/null || { echo "histsize: needs sqlite3" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/asteal-histsize.XXXXXX") || exit 1
dpid=""
pids=""
cleanup() {
	[ -n "$pids" ] && kill $pids 2>/dev/null
	[ -n "$dpid" ] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM
unset ASTEAL_TRACE ASTEAL_PROFILE ASTEAL_MODE ASTEAL_QUANTUM_MS
bench_name=histsize
limit=0
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"


db_bytes() {
	sqlite3 "$1" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null 2>&1
	sqlite3 "$1" "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size();"
}

# run NAME: one workload, one table row.
run() {
	name=$1
	rm -f "$tmp"/h.db*
	"$A" --foreground --socket "$tmp/s" --db "$tmp/h.db" >"$tmp/log" 2>&1 &
	dpid=$!
	i=0
	while ! grep -q 'listening on' "$tmp/log" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 100 ] && { echo "histsize: asteald did not start" >&2; cat "$tmp/log" >&2; exit 1; }
		sleep 0.1
	done
	base=$(db_bytes "$tmp/h.db")
	s0=$(steal); t0=$(total)
	pids=""
	for k in 1 2 3 4 5 6 7 8; do
		mode=""
		job="$build/jobs/fib 60"
		[ "$name" = abp ] && mode=abp
		[ "$name" = mixed ] && [ $k -gt 4 ] && job="$build/jobs/phases 1000000 --w1 100000 --w2 10000 --h 16"
		ASTEAL_MODE=$mode ASTEAL_SOCKET="$tmp/s" $job >/dev/null 2>&1 &
		pids="$pids $!"
	done
	sleep "$secs"
	kill $pids 2>/dev/null
	wait $pids 2>/dev/null
	pids=""
	sleep 0.5
	kill "$dpid"; wait "$dpid" 2>/dev/null; dpid=""
	s1=$(steal); t1=$(total)
	bytes=$(($(db_bytes "$tmp/h.db") - base))
	sqlite3 "$tmp/h.db" "
	  WITH r AS (SELECT job, desire, class, cpu_quanta,
	        cpu_quanta != allotment * (last_quantum - first_quantum + 1) AS t,
	        lag(desire) OVER w AS pd, lag(class) OVER w AS pc
	      FROM allotments WINDOW w AS (PARTITION BY job ORDER BY first_quantum))
	  SELECT count(*), sum(pd IS NOT NULL AND pd != desire),
	         sum(pd = desire AND pc != class), sum(pd = desire AND pc = class),
	         sum(t) FROM r;" >"$tmp/counts"
	IFS='|' read -r rows bydes bycls other turns <"$tmp/counts"
	awk -v n="$name" -v s="$secs" -v r="$rows" -v d="$bydes" -v c="$bycls" \
	    -v o="$other" -v t="$turns" -v b="$bytes" -v st=$((s1 - s0)) -v tt=$((t1 - t0)) 'BEGIN {
		mbh = b / s * 3600 / 1e6
		printf "%-7s %6d %7.2f %7d %7d %7d %6d %9d %8.2f  %-5s %5.1f%%\n", n, r, r / s, d, c, o, t,
		       b, mbh, mbh <= 1 ? "met" : "NOT", tt ? 100 * st / tt : 0
	}'
}

echo "8 jobs on $(nproc) CPUs for $secs s each, one fresh history per workload"
printf "%-7s %6s %7s %7s %7s %7s %6s %9s %8s  %-5s %6s\n" workld rows rows/s desire class other turns bytes MB/hour goal steal
for w in fib abp mixed; do
	run "$w"
done
