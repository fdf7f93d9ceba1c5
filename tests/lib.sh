# Shared helpers for tests/t_*.sh (POSIX sh).  Each script sources this,
# calls `ok`/`fail` (or `check`), and ends with `finish`, which prints the
# plain "N passed, N failed" line that tests/run.sh adds up.
set -u
cd "$(dirname "$0")/.." || exit 2
TOP=$(pwd -P)
: "${FASTPATH_SO:=$TOP/fastpath.so}"
: "${TESTBIN:=$TOP/tests/bin}"
# shellcheck disable=SC2034 # used by the scripts that source this
INTERPOSE=$TOP/interpose
# The real interpreter, not a version manager's shim script (pyenv's runs a
# dozen processes, each of which would print its own summary line).
PYTHON=
if command -v python3 >/dev/null 2>&1; then
	PYTHON=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
fi
export PYTHON
T_PASSED=0
T_FAILED=0
T_TMP=$(mktemp -d) || exit 2
trap 'rm -rf "$T_TMP"' EXIT

ok() { T_PASSED=$((T_PASSED + 1)); echo "ok - $1"; }
fail() { T_FAILED=$((T_FAILED + 1)); echo "FAIL - $1"; [ $# -gt 1 ] && printf '    %s\n' "$2"; return 0; }

# check NAME COMMAND...: passes when COMMAND exits 0.
check() {
	name=$1
	shift
	if "$@" >"$T_TMP/check.out" 2>&1; then
		ok "$name"
	else
		fail "$name" "$(head -c 2000 "$T_TMP/check.out")"
	fi
}

# expect_eq NAME EXPECTED ACTUAL
expect_eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else fail "$1" "expected [$2], got [$3]"; fi
}

# skip NAME WHY: prints a clear message and counts nothing.
skip() { echo "skip - $1: $2"; }

finish() {
	echo "$T_PASSED passed, $T_FAILED failed"
	[ "$T_FAILED" -eq 0 ]
}
