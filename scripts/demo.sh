#!/bin/sh
# demo.sh BUILD - run every job serially and on all cores with libasteal and
# print a table of results and times.  (Later: the daemon and two-level
# scheduling; see README.md.)
set -eu

build=${1:-build}
cpus=$(nproc)

# job size: moderate sizes that take about a second serially.
set -- "fib 35" "nqueens 12" "cilksort 4000000" "matmul 512" "uts T1" "phases 10"

printf '\nasteal demo: each job serially, then with libasteal on %s workers\n\n' "$cpus"
printf '%-9s %-9s %-14s %-6s %10s %10s %8s\n' job size result check serial_s parallel_s speedup
status=0
for spec in "$@"; do
	job=${spec% *}
	size=${spec#* }
	if ! s=$("$build/jobs/$job" "$size" --serial) ||
	   ! p=$("$build/jobs/$job" "$size" --workers "$cpus"); then
		echo "$job $size: FAILED" >&2
		status=1
		continue
	fi
	field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
	ts=$(field "$s" time_s)
	tp=$(field "$p" time_s)
	printf '%-9s %-9s %-14s %-6s %10s %10s %8s\n' "$job" "$size" \
		"$(field "$p" result | cut -c1-14)" "$(field "$p" check)" "$ts" "$tp" \
		"$(awk "BEGIN { printf \"%.2f\", $ts / $tp }")"
done
printf '\nEach job checks its own result (check=ok).  Speedup is serial time\n'
printf 'over parallel time on this machine; run "make bench" for the full\n'
printf 'comparison with OpenMP and oneTBB.\n'
exit $status
