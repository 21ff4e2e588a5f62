#!/bin/sh
# daemonbench.test.sh BUILD - bench/daemon.sh keeps working: one round
# of a second of 20 jobs on each path of the exchange (the socket alone; the
# Feedback in pages; everything through the pages, allotments read there
# and revocations answered there), each beside the exchange's floor
# (asteal-wirefloor's; asteal-pagefloor's for the page row),
# exits 0 with one row per configuration and side, and every allotment
# right (asteal-loadgen's online and history checks, grants and runs of
# turns included, and deq_replay through the core): the "wrong" column 0
# in the three asteald rows, and every job of the page row reading its
# allotments in its page.  Its figures are not judged (bench/README.md,
# "Daemon load", has them).  Skipped in the sanitizer builds, which build
# no load generator.
set -u

build=${1:?usage: sh tests/daemonbench.test.sh BUILD}
if [ -n "${ASTEAL_TEST_SAN:-}" ]; then
	echo "skip: bench/daemon.sh measures the normal build (sanitizer build $ASTEAL_TEST_SAN)"
	exit 0
fi
. scripts/lib.sh
test_tmp daemonbench

expect_rc 0 sh bench/daemon.sh "$build" 1 1 "20:0.1 20:0.1:feed 20:0.1:page"
cat "$tmp/out"
[ "$(grep -c '^| 1 | 20 | 0.1 | floor ' "$tmp/out")" = 2 ] ||
	fail "not two floor rows: $(cat "$tmp/out")"
[ "$(grep -c '^| 1 | 20 | 0.1 | floor, page ' "$tmp/out")" = 1 ] ||
	fail "no page floor row: $(cat "$tmp/out")"
# The "wrong" column, by its header.
col=$(head -1 "$tmp/out" | awk -F'|' '{ for (i = 1; i <= NF; i++) if ($i == " wrong ") print i }')
[ -n "$col" ] || fail "no wrong column: $(head -1 "$tmp/out")"
for what in 'asteald, socket' 'asteald, feedback in page' 'asteald, page'; do
	row=$(grep "^| 1 | 20 | 0.1 | $what |" "$tmp/out")
	[ -n "$row" ] || fail "no '$what' row: $(cat "$tmp/out")"
	wrong=$(echo "$row" | awk -F'|' -v c="$col" '{ gsub(/ /, "", $c); print $c }')
	[ "$wrong" = 0 ] || fail "'$what': wrong $wrong: $row"
done
echo "ok: three rows, 0 wrong"
