#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/chart.sh RAW SVG: draws make bench's figures with gnuplot.
#   left:  every row's speed-up (native s / fastpath s), log scale, with
#          its target marked (rows under an "informational" heading have
#          none);
#   right: the find_elf-like sweep, forks/s against pool threads.
# RAW is the untabled output of the bench scripts (bench/run.sh keeps it
# in bench/out/bench.raw): "# target >= Nx" headings, ROW lines, and the
# find_elf table.  Without gnuplot (Debian: gnuplot-nox) it says so.
set -u
raw=$1 svg=$2
if ! command -v gnuplot >/dev/null 2>&1; then
	echo "chart: gnuplot not installed (Debian: gnuplot-nox); no $svg"
	exit 0
fi
dir=$(dirname "$svg")
mkdir -p "$dir"
rows=$dir/rows.dat sweep=$dir/sweep.dat
# rows.dat: index, ratio, target (NaN: none), label
# Three shapes of rows: bench_urandom.sh's ROW lines under "# target"
# headings; bench_readlink.sh's "target: NAME  R.RRx (want >= T) met";
# bench_cpus.sh's "--cpus 8 is R.Rx faster than --cpus 256 (target: Tx)".
awk -F '\t' '
	/^# target >= / { t = $0; sub(/^# target >= /, "", t); sub(/x.*/, "", t); next }
	/^# informational/ { t = "NaN"; next }
	# ROW lines before any heading are bench_readlink.sh own, drawn
	# from its "target:" lines instead (which name the target).
	$1 == "ROW" && t != "" { n++; printf "%d\t%s\t%s\t%s\n", n, $5, t, $2; next }
	/^target: .*x \(want >= [0-9.]+\)/ {
		l = $0; sub(/^target: /, "", l); sub(/ +[0-9.]+x \(want.*/, "", l)
		r = $0; sub(/.* /, "", r); r = $0; sub(/x \(want.*/, "", r); sub(/.* /, "", r)
		w = $0; sub(/.*want >= /, "", w); sub(/\).*/, "", w)
		n++; printf "%d\t%s\t%s\t%s\n", n, r, w, "readlink: " l; next
	}
	/^--cpus 8 is [0-9.]+x faster than --cpus 256 \(target: [0-9.]+x\)/ {
		split($0, f, " "); r = f[4]; sub(/x$/, "", r); w = $0; sub(/.*target: /, "", w); sub(/x\).*/, "", w)
		n++; printf "%d\t%s\t%s\t%s\n", n, r, w, "find_elf-like: --cpus 8 vs --cpus 256"
	}
' "$raw" >"$rows"
# sweep.dat: threads, forks/s (the native row is the machine's own count)
awk '
	$1 == "native" && NF == 4 && $2 ~ /^[0-9]+$/ { print $2 "\t" $4 "\tnative" }
	$1 == "--cpus" && NF == 5 && $3 ~ /^[0-9]+$/ { print $3 "\t" $5 "\t--cpus " $2 }
' "$raw" >"$sweep"
[ -s "$rows" ] || { echo "chart: no rows in $raw"; exit 1; }
n=$(wc -l <"$rows")
date=$(date -u +%Y-%m-%d)
# The native run's forks/s and threads: a dashed level across the sweep.
nat=$(awk -F '\t' '$3 == "native" { print $2; exit }' "$sweep")
natt=$(awk -F '\t' '$3 == "native" { print $1; exit }' "$sweep")
natline=
if [ -n "$nat" ]; then
	natline="set arrow from 0.8,$nat to 320,$nat nohead dt 2 lw 2 lc rgb '#cc3311'
set label 'native ($natt threads): $nat forks/s' at 1,$nat offset 0,1 tc rgb '#cc3311'"
fi
gnuplot <<GP
set terminal svg size 1600,900 font "sans,10" background "white"
set output "$svg"
set datafile separator "\t"
set termoption noenhanced
set multiplot layout 1,2 title "fastpath make bench, $date (native vs fastpath, same run)"
set size 0.68,1
set origin 0,0
set tmargin 4
set bmargin 22
set title "speed-up per row (log scale); target marked"
set logscale y
set yrange [0.5:*]
set ylabel "native s / fastpath s"
set xrange [0:$n + 1]
set xtics rotate by 60 right font "sans,8" nomirror
set grid ytics
set style fill solid 0.6
set boxwidth 0.7
set key top right
# Targets as short red bars across each box (drawn as paths, which every
# SVG viewer shows).
plot "$rows" using 1:2:xtic(4) with boxes lc rgb "#4477aa" title "speed-up", \
     "$rows" using (\$1 - 0.45):3:(0.9):(0) with vectors nohead lw 3 lc rgb "#cc3311" title "target"
set size 0.32,1
set origin 0.68,0
set title "find_elf-like pool: forks/s against threads"
set logscale x 2
unset logscale y
set autoscale y
set yrange [0:*]
set xrange [0.8:320]
set xtics norotate font "sans,9" (1,2,4,8,16,32,64,128,256)
set bmargin 22
set xlabel "pool threads (--cpus N; native: this machine)"
set ylabel "forks/s"
unset boxwidth
$natline
plot "< grep -v native $sweep" using 1:2 with lines lw 2 lc rgb "#4477aa" title "--cpus N"
unset multiplot
GP
echo "chart: $svg ($n rows, $(wc -l <"$sweep") sweep points)"
