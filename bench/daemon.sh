#!/bin/sh
# daemon.sh BUILD [ROUNDS [SECONDS [CONFIGS]]] - asteald under load beside the
# floor of its exchange, for the configurations of the quantum exchange's
# figures (bench/README.md, "Daemon load"):
#   100 jobs, desire change rate 0.1;  100 jobs, rate 1;
#   1000 jobs, rate 0.1;               10000 jobs, rate 0.1
# (CONFIGS picks some, e.g. "100:0.1 1000:0.1:page"). A configuration's
# suffix says which path the jobs' half of the exchange takes
# (asteal-loadgen's --feedback and --allot), and its rows say it too:
#   JOBS:RATE       "asteald, socket": Feedback, Allot and Released
#                   messages, the way of a job that cannot use a page;
#   JOBS:RATE:feed  "asteald, feedback in page": the Feedback in the page
#                   the daemon shares with each job, Allots and Released
#                   as messages;
#   JOBS:RATE:page  "asteald, page": everything per quantum through the
#                   page, as libasteal does (the Feedback; the allotment
#                   read there; a revocation answered in the page's
#                   parked part and the eventfd).
# Each round runs, for every configuration, one after the other:
#   floor    asteal-wirefloor: the same exchange's system calls over Unix
#            stream sockets with nothing behind them (no protobuf, DEQ,
#            history, libevent); for a :page configuration asteal-pagefloor
#            instead ("floor, page"): a process that wakes at every tick,
#            reads every job's page and writes the allotments that changed,
#            and nothing else;
#   asteald  a private daemon (L = 10 ms, offset 1 ms) driven by
#            asteal-loadgen (W = 8), which checks every allotment online
#            and against the daemon's history; then tests/deq_replay
#            replays every recorded quantum through DEQ on the database.
# One row each: the daemon side's user, system and total CPU as a share of
# one core, tick time p50/p99/max (timer fired to the last allotment
# written), timer lateness p99, DEQ p50, changes and Allot messages per
# tick, pages written and futex wakes per tick ("-" unless the allotments
# go through the page), wrong allotments (loadgen + replay), and the
# host's steal over the run (the steal column of /proc/stat, as a share of
# both CPUs), which is what the tails mostly follow on a shared VM.
# Compare rows of one round: the configurations of a round are
# interleaved, so one sitting measures the paths side by side.
set -u

usage() {
	echo "usage: bench/daemon.sh BUILD [ROUNDS [SECONDS [CONFIGS]]]" >&2
	exit 2
}

[ $# -ge 1 ] && [ $# -le 4 ] || usage
build=$1
rounds=${2:-3}
secs=${3:-10}
configs=${4:-"100:0.1 100:1 1000:0.1 10000:0.1"}
for v in "$rounds" "$secs"; do
	case "$v" in ''|*[!0-9]*|0) usage ;; esac
done
for b in bin/asteald bench/asteal-loadgen bench/asteal-wirefloor bench/asteal-pagefloor tests/deq_replay; do
	[ -x "$build/$b" ] || { echo "bench: no $build/$b (make bench-bins)" >&2; exit 2; }
done
. "$(dirname "$0")/../scripts/lib.sh"
test_tmp bench-daemon
# 10,000 jobs: a socket each in the daemon, and in the load generator.
ulimit -n "$(ulimit -Hn)" 2>/dev/null
cpus=$(taskset -pc $$ | sed 's/.*: *//')

steal_now() { awk '/^cpu /{print $9, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat; }
steal_pct() {
	echo "$1 $2" | awk '{ s = $3 - $1; t = $4 - $2; printf "%.1f%%", (t > 0 ? 100 * s / t : 0) }'
}
# field NAME LINE: the value of NAME=... in a key=value line.
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
us() { printf '%s µs' "$1"; }

printf '| round | jobs | rate | what | user | system | CPU | tick p50 | tick p99 | tick max | late p99 | DEQ p50 | changes/tick | Allots/tick | pages/tick | wakes/tick | wrong | steal |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n'
r=1
while [ "$r" -le "$rounds" ]; do
	for c in $configs; do
		jobs=${c%%:*}
		rate=${c#*:}
		fb=message al=message what='asteald, socket'
		case "$rate" in
		*:feed) fb=page; what='asteald, feedback in page'; rate=${rate%:feed} ;;
		*:page) fb=page; al=page; what='asteald, page'; rate=${rate%:page} ;;
		*:*) echo "bench: $c: the suffix is :feed or :page" >&2; exit 2 ;;
		esac
		s0=$(steal_now)
		floor=asteal-wirefloor fwhat=floor
		[ "$al" = page ] && floor=asteal-pagefloor fwhat='floor, page'
		out=$("$build/bench/$floor" --jobs "$jobs" --seconds "$secs" \
		    --rate "$rate") || { echo "bench: $floor failed" >&2; exit 1; }
		s1=$(steal_now)
		printf '| %d | %d | %s | %s | %s%% | %s%% | %s%% | %s | %s | %s | %s | - | - | %s | - | - | - | %s |\n' \
		    "$r" "$jobs" "$rate" "$fwhat" "$(field user_pct "$out")" \
		    "$(field sys_pct "$out")" "$(field cpu_pct "$out")" \
		    "$(us "$(field tick_p50_us "$out")")" "$(us "$(field tick_p99_us "$out")")" \
		    "$(us "$(field tick_max_us "$out")")" "$(us "$(field wake_p99_us "$out")")" \
		    "$(field sends_per_tick "$out")" "$(steal_pct "$s0" "$s1")"

		rm -f "$tmp/s" "$tmp/h.db"*
		"$build/bin/asteald" --socket "$tmp/s" --db "$tmp/h.db" --foreground \
		    --log-level warn --config /dev/null --max-jobs 20000 \
		    >"$tmp/daemon.log" 2>&1 &
		daemon_pid=$!
		wait_for 10 test -S "$tmp/s" || { echo "bench: asteald did not start" >&2; exit 1; }
		out=$("$build/bench/asteal-loadgen" --socket "$tmp/s" --pid "$daemon_pid" \
		    --jobs "$jobs" --seconds "$secs" --change-rate "$rate" --db "$tmp/h.db" \
		    --feedback "$fb" --allot "$al")
		rc=$?
		kill "$daemon_pid"
		wait "$daemon_pid"
		daemon_pid=""
		[ "$rc" -eq 0 ] || { echo "bench: loadgen failed: $out" >&2; cat "$tmp/daemon.log" >&2; exit 1; }
		wrong=$(field wrong "$out")
		replay=$("$build/tests/deq_replay" "$tmp/h.db" "$cpus" | tail -1)
		case "$replay" in
		*MISMATCH*) wrong="$wrong + replay MISMATCH" ;;
		esac
		pages=- wakes=-
		if [ "$al" = page ]; then
			pages=$(field pages_written_per_tick "$out")
			wakes=$(field futex_wakes_per_tick "$out")
			n=$(field page_allot_jobs "$out")
			# The daemon may refuse a page (its log says why).
			[ "$n" = "$jobs" ] || what="$what (only $n of $jobs jobs)"
		fi
		printf '| %d | %d | %s | %s | %s%% | %s%% | %s%% | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
		    "$r" "$jobs" "$rate" "$what" \
		    "$(field daemon_user_pct "$out")" \
		    "$(field daemon_sys_pct "$out")" "$(field daemon_cpu_pct "$out")" \
		    "$(us "$(field tick_p50_us "$out")")" "$(us "$(field tick_p99_us "$out")")" \
		    "$(us "$(field tick_max_us "$out")")" "$(us "$(field wake_p99_us "$out")")" \
		    "$(us "$(field deq_p50_us "$out")")" "$(field changes_per_tick "$out")" \
		    "$(field sends_per_tick "$out")" "$pages" "$wakes" "$wrong" \
		    "$(field steal_pct "$out")%"
		echo "$out" >>"${DAEMON_BENCH_LOG:-/dev/null}"
	done
	r=$((r + 1))
done
