#!/bin/sh
# fuzz.test.sh BUILD - run both fuzz harnesses, built standalone, for a
# fixed number of deterministic mutations: the framing fuzzer
# (tests/fuzz_frame.c) from two seeds, the daemon's (tests/fuzz_daemon.c)
# from one; then their regression inputs, each once: the inputs that once
# failed, kept after the fix as tests/fuzz/frame/*.bin and
# tests/fuzz/daemon/*.bin, named for what they caught.  Any crash,
# sanitizer report, leak (of memory, or of descriptors: the daemon's
# harness runs with 256) or oracle mismatch fails, and so does a run whose
# oracles had too little to compare.  Fewer iterations under the
# sanitizers, which are slower; none in the TSan build: both harnesses run
# on one thread, where TSan has nothing to report (the normal and ASan
# builds run them).
set -eu

build=${1:?usage: sh tests/fuzz.test.sh BUILD}
if [ "${ASTEAL_TEST_SAN:-}" = tsan ]; then
	echo "skip: the fuzzers run on one thread: nothing for TSan (the normal and ASan builds run them)"
	exit 0
fi

# The number after "text" in the harness's summary line.
count() {
	echo "$1" | sed -n "s/.*[ (]\([0-9]*\) $2.*/\1/p"
}

# At least min of what, or fail.
least() {
	[ "${1:-0}" -ge "$3" ] || { echo "too few $2: ${1:-none} (at least $3)"; exit 1; }
}

n=200000
[ -n "${ASTEAL_TEST_SAN:-}" ] && n=40000
for seed in 1 2; do
	out=$("$build/tests/fuzz_frame" "$n" "$seed")
	echo "$out"
	# The hand codecs' oracles must have had bodies and Allots to compare.
	least "$(count "$out" 'Feedbacks hand-decoded')" "hand-decoded Feedbacks" 100
	least "$(count "$out" 'Allots hand-encoded')" "hand-encoded Allots" 1000
done

n=3000
[ -n "${ASTEAL_TEST_SAN:-}" ] && n=1200
# With 256 descriptors: a daemon set up and freed per input that left one
# behind each time (a socket's number held for a timer that never fired)
# would run out within the run.
out=$(ulimit -n 256 && "$build/tests/fuzz_daemon" "$n" 1)
echo "$out"
# Its oracles must have seen jobs, replies, refusals and ticks.
least "$(count "$out" 'jobs)')" "jobs registered" $((n / 20))
least "$(count "$out" 'replies')" "replies" $((n / 2))
least "$(count "$out" 'peers failed')" "peers failed as predicted" $((n / 2))
least "$(count "$out" 'Allots')" "Allots" 10

for name in frame daemon; do
	set -- "$(dirname "$0")/fuzz/$name"/*.bin
	[ -f "$1" ] || continue
	"$build/tests/fuzz_$name" -r "$@"
done
echo ok
