#!/bin/sh
# SPDX-License-Identifier: MIT
# A PostgreSQL cluster surveyed (issue 40's done-when): Debian's postgresql,
# run as postgres (initdb into a temporary directory, the server on a unix
# socket there, pgbench -i and pgbench -t 50), every process recorded,
# under its exec'd name, and root's report reads them all:
#   - through a shared directory made as fastpath(7) says (root's, 1733);
#   - by a root interpose --survey of a command that drops to postgres.
# Needs root (to become postgres) and the postgresql package; each run is
# bounded (timeout), the whole suite well under a minute.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
P=$FASTPATH_SO

initdb=
for f in /usr/lib/postgresql/*/bin/initdb; do [ -x "$f" ] && initdb=$f; done
why=
if [ "$(id -u)" -ne 0 ]; then
	why="not root: cannot run the cluster as postgres"
elif [ -z "$initdb" ]; then
	why="postgresql is not installed (no /usr/lib/postgresql/*/bin/initdb)"
elif ! id postgres >/dev/null 2>&1; then
	why="no user postgres"
elif ! command -v setpriv >/dev/null 2>&1 || ! command -v timeout >/dev/null 2>&1; then
	why="setpriv (util-linux) or timeout (coreutils) is missing"
fi
if [ -n "$why" ]; then
	skip "a PostgreSQL cluster surveyed" "$why"
	finish
	exit
fi
BIN=${initdb%/initdb}
pg_uid=$(id -u postgres)
# postgres must reach what is under T_TMP (mktemp's 0700).
chmod 0755 "$T_TMP"

# as_pg COMMAND...: COMMAND as postgres, bounded.
as_pg() { timeout 40 setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }

# cluster NAME: a fresh cluster in $T_TMP/NAME (data, and run: its socket
# and log), not surveyed: initdb is the setting, not the workload.
cluster() {
	rm -rf "${T_TMP:?}/$1"
	mkdir "$T_TMP/$1"
	install -d -m 0700 -o postgres "$T_TMP/$1/data" "$T_TMP/$1/run"
	as_pg "$BIN/initdb" -D "$T_TMP/$1/data" -A trust -U postgres >"$T_TMP/$1/run/initdb.log" 2>&1
}

# The workload, as sh -c's script: $1 the bin directory, $2 the cluster.
# shellcheck disable=SC2016 # for the inner shell
WORK='"$1/pg_ctl" -D "$2/data" -l "$2/run/pg.log" -w -t 30 -o "-k $2/run -c listen_addresses=" start >/dev/null &&
"$1/pgbench" -h "$2/run" -U postgres -i postgres >"$2/run/bench.log" 2>&1 &&
"$1/pgbench" -h "$2/run" -U postgres -t 50 postgres >>"$2/run/bench.log" 2>&1
rc=$?
"$1/pg_ctl" -D "$2/data" -w -t 30 -m fast stop >/dev/null
exit $rc'

# check NAME REPORT RECDIR: the report read every record, each under a
# name of the programs run, none missing; postgres's own processes are
# recorded (the postmaster, its auxiliaries, the backends).
check() {
	nrec=$(find "$3" -name '*.rec' | wc -l | tr -d ' ')
	names=$(find "$3" -name '*.rec' -exec sed -n 's/^prog //p' {} + | sort -u | tr '\n' ' ')
	npg=$(find "$3" -name '*.rec' -exec grep -l '^prog postgres$' {} + | wc -l | tr -d ' ')
	expect_eq "$1: every process recorded, and the report read every record as uid $pg_uid's" \
		"processes: $nrec recorded, 0 left no record|$nrec of uid $pg_uid|" \
		"$(sed -n 's/;.*//p' "$2" | grep '^processes')|$(sed -n "s/.*, \\([0-9]* of uid $pg_uid\\) .*/\\1/p" "$2")|$(grep '^(' "$2")"
	case $names in
	*[!a-z_\ ]* | "") fail "$1: the records' names are the programs run" "$names" ;;
	*) ok "$1: the records' names are the programs run ($names)" ;;
	esac
	# postmaster, startup, checkpointer, background writer, walwriter,
	# autovacuum launcher, logical replication launcher, the backends.
	if [ "$npg" -ge 8 ]; then ok "$1: $npg postgres processes recorded, backends under their exec'd name"
	else fail "$1: postgres processes recorded" "$npg of $nrec: $names"; fi
}

# --- a shared directory, made as fastpath(7) says ---------------------------------
if cluster shared; then
	install -d -m 1733 -o root "$T_TMP/sv"
	as_pg env LD_PRELOAD="$P" FASTPATH_SURVEY="$T_TMP/sv" sh -c "$WORK" sh "$BIN" "$T_TMP/shared"
	rc=$?
	precond "the cluster ran (pg_ctl start, pgbench -i, pgbench -t 50)" [ "$rc" -eq 0 ]
	"$INTERPOSE" --survey-report "$T_TMP/sv" >"$T_TMP/rep" 2>&1
	check "shared directory" "$T_TMP/rep" "$T_TMP/sv"
else
	fail "initdb" "$(cat "$T_TMP/shared/run/initdb.log")"
fi

# --- a root --survey of a command that becomes postgres ---------------------------
# The records the dropped processes write are read too (interpose makes its
# directory the shared kind when run by root).
if cluster dropped; then
	mkdir -p "$T_TMP/tmp"
	TMPDIR=$T_TMP/tmp timeout 50 "$INTERPOSE" --survey -- setpriv --reuid=postgres --regid=postgres \
		--init-groups sh -c "$WORK" sh "$BIN" "$T_TMP/dropped" 2>"$T_TMP/rep"
	rc=$?
	precond "the cluster ran under interpose --survey" [ "$rc" -eq 0 ]
	# The records are gone with the directory: count them from the report.
	n=$(sed -n 's/^processes: \([0-9]*\) recorded.*/\1/p' "$T_TMP/rep")
	expect_eq "root --survey, dropped to postgres: every process recorded, as uid $pg_uid's" \
		"0 left no record|${n:-?} of uid $pg_uid" \
		"$(sed -n 's/^processes: [0-9]* recorded, \([^;,]*\).*/\1/p' "$T_TMP/rep")|$(sed -n "s/.*, \\([0-9]* of uid $pg_uid\\) .*/\\1/p" "$T_TMP/rep")"
	if [ "${n:-0}" -ge 8 ]; then ok "root --survey, dropped to postgres: $n processes recorded"
	else fail "root --survey, dropped to postgres: processes recorded" "$(cat "$T_TMP/rep")"; fi
else
	fail "initdb" "$(cat "$T_TMP/dropped/run/initdb.log")"
fi
chmod 0700 "$T_TMP"
finish
