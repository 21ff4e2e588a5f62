#!/bin/sh
# demo.test.sh BUILD - make demo's story agrees with itself: a quick demo
# (DEMO_QUICK=1: smaller jobs, no verdicts) exits 0, and for each of its
# three jobs the mean desire and allotment it prints (from the history)
# are the ones its chart's panel states (BUILD/demo/allotments.svg), and
# the mean allotment its `asteal run --stats` line gave; its closing story
# states how many CPUs the jobs asked for together.  Skipped in the
# sanitizer builds (the demo runs the normal build).
set -u

build=${1:?usage: sh tests/demo.test.sh BUILD}
if [ -n "${ASTEAL_TEST_SAN:-}" ]; then
	echo "skip: the demo runs the normal build (sanitizer build $ASTEAL_TEST_SAN)"
	exit 0
fi
. scripts/lib.sh
test_tmp demo

DEMO_QUICK=1 sh scripts/demo.sh "$build" >"$tmp/out" 2>&1 ||
	fail "the quick demo failed: $(tail -20 "$tmp/out")"
python3 - "$tmp/out" "$build/demo/allotments.svg" <<'PY' || fail "the demo's figures disagree: $(cat "$tmp/out")"
import re, sys
out = open(sys.argv[1]).read()
svg = open(sys.argv[2]).read()
printed = {m.group(1): (float(m.group(2)), float(m.group(3)))
           for m in re.finditer(r"^  (wide|phases|serial) +([0-9.]+) +([0-9.]+)$", out, re.M)}
charted = {m.group(1): (float(m.group(3)), float(m.group(2)))
           for m in re.finditer(r'font-weight="normal">(\w+)</tspan></text>\n<text[^>]*>'
                                r"mean allotment ([0-9.]+), mean desire ([0-9.]+) CPUs", svg)}
stats = {m.group(1): float(m.group(2))
         for m in re.finditer(r"^  \[(\w+)\] asteal: job \d+ \w+: .*mean allotment ([0-9.]+) CPUs",
                              out, re.M)}
for name in ("wide", "phases", "serial"):
    assert name in printed, ("not printed", name)
    assert name in charted, ("not charted", name, charted)
    assert name in stats, ("no stats line", name)
    d, a = printed[name]
    cd, ca = charted[name]
    # the same rows, summed in another order: equal to the printed digit
    assert abs(d - cd) <= 0.011 and abs(a - ca) <= 0.011, (name, printed[name], charted[name])
    # the job's own count of its quanta and the history's rows
    assert abs(a - stats[name]) <= 0.05, (name, a, stats[name])
m = re.search(r"What happened: together the jobs asked for ([0-9.]+) CPUs on average", out)
assert m, "no story line"
print("ok:", printed, "story:", m.group(1))
PY
echo "ok: the printed means, the chart and the stats agree"
