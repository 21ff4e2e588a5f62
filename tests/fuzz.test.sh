#!/bin/sh
# fuzz.test.sh BUILD - run the framing fuzzer (tests/fuzz_frame.c, built
# standalone) for a fixed number of deterministic mutations from two seeds:
# any crash, sanitizer report, leak or oracle mismatch fails.  Fewer
# iterations under the sanitizers, which are slower.
set -eu

build=${1:?usage: sh tests/fuzz.test.sh BUILD}
n=200000
[ -n "${ASTEAL_TEST_SAN:-}" ] && n=40000
for seed in 1 2; do
	out=$("$build/tests/fuzz_frame" "$n" "$seed")
	echo "$out"
	# The hand codecs' oracles must have had bodies and Allots to compare.
	hand=$(echo "$out" | sed -n 's/.*; \([0-9]*\) Feedbacks hand-decoded.*/\1/p')
	[ "${hand:-0}" -gt 100 ] || { echo "too few hand-decoded Feedbacks: ${hand:-none}"; exit 1; }
	allots=$(echo "$out" | sed -n 's/.*; \([0-9]*\) Allots hand-encoded.*/\1/p')
	[ "${allots:-0}" -gt 1000 ] || { echo "too few hand-encoded Allots: ${allots:-none}"; exit 1; }
done
echo ok
