#!/bin/sh
# demo.sh BUILD - run every job serially, on one worker and on all cores
# with libasteal, and print a table of results and times.  (Later issues
# add the daemon and two-level scheduling; see README.md.)
set -eu

build=${1:-build}
cpus=$(nproc)

# Sizes that take about a second serially on a small machine.
set -- "fib 38" "nqueens 14" "cilksort 10000000" "matmul 1024" "uts T3" "phases 10"

field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
ratio() { awk "BEGIN { printf \"%.2f\", $1 / $2 }"; }

printf '\nasteal demo: each job serially, then with libasteal on 1 and %s workers\n\n' "$cpus"
printf '%-9s %-9s %-12s %-5s %9s %9s %9s %8s %8s\n' job size result check \
	serial_s T1_s "T${cpus}_s" T1/Tser "T1/T${cpus}"
status=0
for spec in "$@"; do
	job=${spec% *}
	size=${spec#* }
	if ! s=$("$build/jobs/$job" "$size" --serial) ||
	   ! p1=$("$build/jobs/$job" "$size" --workers 1) ||
	   ! pn=$("$build/jobs/$job" "$size" --workers "$cpus"); then
		echo "$job $size: FAILED" >&2
		status=1
		continue
	fi
	ts=$(field "$s" time_s)
	t1=$(field "$p1" time_s)
	tn=$(field "$pn" time_s)
	printf '%-9s %-9s %-12s %-5s %9.3f %9.3f %9.3f %8s %8s\n' "$job" "$size" \
		"$(field "$pn" result | cut -c1-12)" "$(field "$pn" check)" \
		"$ts" "$t1" "$tn" "$(ratio "$t1" "$ts")" "$(ratio "$t1" "$tn")"
done
cat <<MSG

Each job checks its own result (check=ok).  T1/Tser is the runtime's
overhead on one worker; T1/T$cpus its scaling on $cpus cores.  Timings on a
shared machine vary: run "make bench" for best-of-several figures beside
OpenMP and oneTBB.
MSG
exit $status
