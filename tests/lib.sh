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

# stats_field NAME ERE [VAR=VALUE...]: the summary line of a program run
# under fastpath.so (with those settings) has the field "NAME <ERE>" whole,
# between "; " or the line's ends, and "NAME off" under FASTPATH_DISABLE=NAME.
stats_field() {
	sf_name=$1 sf_re=$2
	shift 2
	sf_line=$(env LD_PRELOAD="$FASTPATH_SO" FASTPATH_STATS=1 "$@" sh -c : 2>&1 >/dev/null)
	if printf '%s\n' "$sf_line" | grep -Eq "(: |; )$sf_name $sf_re(;|\$)"; then
		ok "summary field \"$sf_name\" has the documented shape"
	else
		fail "summary field \"$sf_name\" has the documented shape" "$sf_line"
	fi
	sf_line=$(env LD_PRELOAD="$FASTPATH_SO" FASTPATH_STATS=1 FASTPATH_DISABLE="$sf_name" "$@" \
		sh -c : 2>&1 >/dev/null)
	if printf '%s\n' "$sf_line" | grep -Eq "(: |; )$sf_name off(;|\$)"; then
		ok "summary field \"$sf_name\": off when disabled"
	else
		fail "summary field \"$sf_name\": off when disabled" "$sf_line"
	fi
}

finish() {
	echo "$T_PASSED passed, $T_FAILED failed"
	[ "$T_FAILED" -eq 0 ]
}
