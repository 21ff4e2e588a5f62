#!/bin/sh
# fuzz.sh FUZZBUILD SEEDBUILD SECONDS - run both fuzz harnesses under
# libFuzzer for SECONDS each (make fuzz): FUZZBUILD/fuzz/fuzz_frame and
# fuzz_daemon (clang, ASan + UBSan, built by make fuzz), each from the
# seeds its standalone build in SEEDBUILD writes (-s DIR), its regression
# inputs (tests/fuzz/NAME, read only) and the corpus kept from earlier
# runs in FUZZBUILD/corpus/NAME.  Prints, per harness,
# libFuzzer's last status line (cov: edges covered, ft: features, corp:
# corpus) and its final statistics (executions, executions a second, peak
# memory).  A crash, leak, sanitizer report or oracle failure stops it
# (exit 1) with the input saved as FUZZBUILD/crash-NAME-*; its log is
# FUZZBUILD/NAME.log.
set -eu

fb=${1:?usage: scripts/fuzz.sh FUZZBUILD SEEDBUILD SECONDS}
sb=${2:?usage: scripts/fuzz.sh FUZZBUILD SEEDBUILD SECONDS}
secs=${3:?usage: scripts/fuzz.sh FUZZBUILD SEEDBUILD SECONDS}

for name in frame daemon; do
	seeds="$fb/seeds/$name"
	corpus="$fb/corpus/$name"
	log="$fb/$name.log"
	mkdir -p "$seeds" "$corpus"
	"$sb/tests/fuzz_$name" -s "$seeds"
	# New inputs go to the first folder, the corpus; the others are read.
	set -- "$corpus" "$seeds"
	regress="$(dirname "$0")/../tests/fuzz/$name"
	if [ -d "$regress" ]; then
		set -- "$@" "$regress"
	fi
	echo "fuzz_$name: $secs s under libFuzzer (log: $log)"
	if ! "$fb/fuzz/fuzz_$name" -max_total_time="$secs" -max_len=8192 \
	    -timeout=10 -print_final_stats=1 -artifact_prefix="$fb/crash-$name-" \
	    "$@" >"$log" 2>&1; then
		tail -n 40 "$log"
		echo "fuzz_$name: FAILED (input saved as $fb/crash-$name-*)"
		exit 1
	fi
	grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)' "$log" | sed 's/^/  /'
	grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' \
	    "$log" | sed 's/^/  /'
done
