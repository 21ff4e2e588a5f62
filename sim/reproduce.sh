#!/bin/sh
# reproduce.sh [SIM [OUT]] - run every experiment of docs/reproduction.md
# with the settings given there, each into OUT/NAME (default sim-out),
# print each one's closing key=value line prefixed by NAME (also kept in
# OUT/summary.txt), and copy the plots shown in docs/reproduction.md into
# OUT/plots.  SIM defaults to build/bin/asteal-sim; THREADS (default 2)
# worker threads.  About 12 minutes on two cores.
set -eu

sim=${1:-build/bin/asteal-sim}
out=${2:-sim-out}
th=${THREADS:-2}
mkdir -p "$out/plots"
: >"$out/summary.txt"

# one NAME COMMAND [OPTIONS]: run one experiment into $out/NAME.
one() {
	name=$1
	shift
	"$sim" "$@" --out "$out/$name" >"$out/$name.log"
	echo "$name $(tail -n 1 "$out/$name.log")" | tee -a "$out/summary.txt"
}

# plot NAME FILE AS: keep $out/NAME/FILE as $out/plots/AS.
plot() {
	cp "$out/$1/$2" "$out/plots/$3"
}

yes 64 | head -n 100 >"$out/const64.txt"
long="--w1 1000:4000 --w2 4000:40000"

# 4.2 time
one time time --threads "$th"
plot time time-trim.svg fig3-time-trim.svg
plot time time-fit.svg time-fit.svg
one time-long time --threads "$th" $long
plot time-long time-trim.svg fig3-time-trim-long.svg
plot time-long time-fit.svg time-fit-long.svg
# what c-infinity depends on
one time-split time --threads "$th" --spawn split
for k in uniform smooth practical; do
	one "time-$k" time --threads "$th" --profile "$k"
done
one time-const64 time --threads "$th" --profile-file "$out/const64.txt"
for L in 25 50 100 400; do
	one "time-L$L" time --threads "$th" --quantum "$L"
done
for L in 25 200 400; do
	one "time-const64-p64-L$L" time --threads "$th" --procs 64 \
		--profile-file "$out/const64.txt" --quantum "$L"
	one "time-abp-const64-p64-L$L" time --threads "$th" --procs 64 --sched abp \
		--profile-file "$out/const64.txt" --quantum "$L"
done

# 4.3 waste
one waste waste --threads "$th"
plot waste waste-delta.svg fig4-waste-delta.svg
plot waste waste-parallelism.svg fig5-waste-parallelism.svg
one waste-long waste --threads "$th" $long

# 4.4 time-waste: the three ABP variants at the paper's four settings
for pm in 512:30 512:60 128:30 128:60; do
	P=${pm%:*}
	m=${pm#*:}
	for v in yieldto stealable stuck; do
		one "tw-$P-$m-$v" time-waste --threads "$th" --procs "$P" \
			--mean-avail "$m" --abp-preempted "$v"
	done
done
plot tw-512-30-yieldto time-waste.svg fig6-time-waste-512-30.svg
plot tw-512-60-yieldto time-waste.svg fig6-time-waste-512-60.svg
plot tw-128-30-yieldto time-waste.svg fig7-time-waste-128-30.svg
plot tw-128-60-yieldto time-waste.svg fig7-time-waste-128-60.svg
# the granularity axis at P = 512, mean availability 30: w1 = g, w2 = 2g
for sp in split loop; do
	for g in 5 10 20 50 100 300 1000; do
		one "tw-$sp-$g" time-waste --threads "$th" --w1 "$g" \
			--w2 $((2 * g)) --spawn "$sp"
	done
done
one tw-long time-waste --threads "$th" $long
# the fine-grained populations closest to the paper, at every setting
for pm in 512:30 512:60 128:30 128:60; do
	P=${pm%:*}
	m=${pm#*:}
	one "tw-fine-$P-$m" time-waste --threads "$th" --procs "$P" \
		--mean-avail "$m" --w1 5 --w2 10 --spawn split
	one "tw-flat-$P-$m" time-waste --threads "$th" --procs "$P" \
		--mean-avail "$m" --w1 100 --w2 200 --spawn loop
done
plot tw-fine-512-30 time-waste.svg fig6-time-waste-512-30-fine.svg

# 4.5 utilization, and mean completion time against the load
one util utilization
plot util utilization.svg fig8-utilization-U-U.svg
one util-ht1 utilization --dist HT1/HT1
plot util-ht1 utilization.svg fig8-utilization-HT1-HT1.svg
for d in U/U HT1/HT1; do
	for ia in 2000 4000 8000 12000 20000; do
		one "util-$(echo "$d" | tr / -)-$ia" utilization --dist "$d" \
			--interarrival "$ia"
	done
done
echo "plots in $out/plots"
