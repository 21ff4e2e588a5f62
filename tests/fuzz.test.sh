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
	"$build/tests/fuzz_frame" "$n" "$seed"
done
echo ok
