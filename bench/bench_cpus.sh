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
	printf '%-10s %8s %10s %10s\n' "$label" "$1" "$3" "$4"
	echo "$label $3" >>"$TMPB"
}
: >"$TMPB"
row native
for n in 1 2 4 8 16 32 256; do
	row "--cpus $n" --cpus "$n"
done
awk '$1 == "--cpus" && $2 == 8 { a = $3 } $1 == "--cpus" && $2 == 256 { b = $3 }
	END { if (a > 0) printf "--cpus 8 is %.1fx faster than --cpus 256 (target: 2x)\n", b / a }' "$TMPB"
