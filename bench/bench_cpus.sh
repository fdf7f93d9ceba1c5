#!/bin/sh
# The find_elf experiment of seed 002 on this machine: one worker pool sized
# from sysconf(_SC_NPROCESSORS_ONLN), each worker fork+exec'ing /bin/true
# with 256 MiB of touched heap, at every CPU count the seed reported.  All
# rows come from the same run.
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
ITEMS=${ITEMS:-200}
HEAP=${HEAP:-256}
printf '%-10s %8s %10s %10s\n' setting threads "wall s" "forks/s"
row() {
	# row LABEL [--cpus N]
	label=$1
	shift
	# shellcheck disable=SC2046 # four numbers, split on purpose
	set -- $(${1:+"$INTERPOSE"} "$@" "$BENCHBIN/findelf" "$ITEMS" "$HEAP")
	# findelf prints exactly one line of four numbers; anything else is a
	# failed run, shown as such and left out of the ratio.
	if [ $# -ne 4 ]; then
		printf '%-10s failed: [%s]\n' "$label" "$*"
		return
	fi
	printf '%-10s %8s %10s %10s\n' "$label" "$1" "$3" "$4"
	echo "$label $3" >>"$TMPB"
}
: >"$TMPB"
row native
for n in 1 2 4 8 16 32 256; do
	row "--cpus $n" --cpus "$n"
done
awk '$1 == "--cpus" && $2 == 8 { a = $3 } $1 == "--cpus" && $2 == 256 { b = $3 }
	END {
		if (a > 0 && b > 0) printf "--cpus 8 is %.1fx faster than --cpus 256 (target: 2x)\n", b / a
		else print "--cpus 8 vs --cpus 256: no ratio (a run failed) MISSED"
	}' "$TMPB"
