#!/bin/sh
# SPDX-License-Identifier: MIT
# interpose --unit NAME / --smf FMRI (interpose(1), SERVICES): the systemd
# drop-in written, rewritten, shown, removed, on a --root tree; bad names;
# a unit that sets LD_PRELOAD itself; systemd-analyze verify on the result.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

I=$INTERPOSE
R=$T_TMP/root
D=$R/etc/systemd/system/web.service.d
F=$D/fastpath.conf
mkdir -p "$R/etc/systemd/system" "$R/lib/systemd/system"
lib=$("$I" --print-path)
unit() { printf '[Unit]\nDescription=test\n[Service]\nExecStart=/bin/true\n%s\n' "${1-}"; }
unit >"$R/lib/systemd/system/web.service"

# --- write ------------------------------------------------------------------
"$I" --unit web --root "$R" --cpus 4 --getrandom >"$T_TMP/out" 2>"$T_TMP/err"
expect_eq "write: status 0" 0 $?
if [ -f "$F" ] && [ ! -h "$F" ]; then ok "write: $F is a file"; else fail "write: the drop-in is a file"; fi
want="[Service]
Environment=LD_PRELOAD=$lib
Environment=FASTPATH_CPUS=4
Environment=OMP_NUM_THREADS=4
Environment=FASTPATH_GETRANDOM=1"
expect_eq "write: the settings, one Environment= each" "$want" "$(grep -v '^#' "$F")"
expect_eq "write: prints the commands it does not run" \
	"systemctl daemon-reload
systemctl restart web.service" "$(grep -v '^#' "$T_TMP/out")"
expect_eq "write: nothing on stderr" "" "$(cat "$T_TMP/err")"
expect_eq "write: mode 0644" "644" "$(stat -c %a "$F")"
expect_eq "write: no temporary file left" "fastpath.conf" "$(ls -A "$D")"

# --- rewrite with other options: replaced whole, not appended ----------------
"$I" --unit web.service --root "$R" --urandom=reserve --survey=/var/lib/fastpath-survey \
	--stats=/var/log/fastpath/ >/dev/null 2>&1
want="[Service]
Environment=LD_PRELOAD=$lib
Environment=FASTPATH_STATS=/var/log/fastpath/
Environment=FASTPATH_URANDOM=reserve
Environment=FASTPATH_SURVEY=/var/lib/fastpath-survey
StateDirectory=fastpath-survey
LogsDirectory=fastpath"
expect_eq "rewrite (NAME.service): the new settings only" "$want" "$(grep -v '^#' "$F")"
"$I" --unit web --root "$R" --survey=/run/fp-survey >/dev/null 2>&1
expect_eq "--survey=/run/DIR: RuntimeDirectory=, preserved" "RuntimeDirectory=fp-survey
RuntimeDirectoryPreserve=yes" "$(grep Runtime "$F")"
"$I" --unit web --root "$R" --survey=/srv/s >/dev/null 2>"$T_TMP/err"
if grep -q 'not writable by others' "$T_TMP/err" && ! grep -q Directory= "$F"; then
	ok "--survey elsewhere: no directive, the rule for making it said"
else fail "--survey elsewhere: no directive, the rule for making it said" "$(cat "$T_TMP/err")"; fi
# A link at the name is replaced, not written through.
echo keep >"$T_TMP/target"
ln -sf "$T_TMP/target" "$F"
"$I" --unit web --root "$R" --cpus 2 >/dev/null 2>&1
if [ ! -h "$F" ] && [ "$(cat "$T_TMP/target")" = keep ]; then ok "a symbolic link at the name is replaced, its target untouched"
else fail "a symbolic link at the name is replaced, its target untouched"; fi

# --- dry run ----------------------------------------------------------------
cp "$F" "$T_TMP/before"
"$I" --unit web --root "$R" --cpus 8 --dry-run >"$T_TMP/out" 2>"$T_TMP/err"
expect_eq "dry-run: status 0" 0 $?
if cmp -s "$F" "$T_TMP/before"; then ok "dry-run: the file is unchanged"; else fail "dry-run: the file is unchanged"; fi
if grep -qx 'Environment=FASTPATH_CPUS=8' "$T_TMP/out" && grep -q "would write $F" "$T_TMP/err"; then
	ok "dry-run: prints the file it would write"
else fail "dry-run: prints the file it would write" "$(cat "$T_TMP/out" "$T_TMP/err")"; fi
"$I" --unit other --root "$R" --dry-run >/dev/null 2>&1
if [ ! -e "$R/etc/systemd/system/other.service.d" ]; then ok "dry-run: makes no directory"; else fail "dry-run: makes no directory"; fi

# --- remove -----------------------------------------------------------------
echo '[Service]' >"$D/other.conf"
"$I" --unit web --root "$R" --remove --dry-run >/dev/null 2>&1
if [ -f "$F" ]; then ok "remove --dry-run: removes nothing"; else fail "remove --dry-run: removes nothing"; fi
"$I" --unit web --root "$R" --remove >"$T_TMP/out" 2>&1
expect_eq "remove: status 0" 0 $?
expect_eq "remove: exactly that file" "other.conf" "$(ls -A "$D")"
if grep -qx 'systemctl daemon-reload' "$T_TMP/out"; then ok "remove: prints daemon-reload"
else fail "remove: prints daemon-reload" "$(cat "$T_TMP/out")"; fi
"$I" --unit web --root "$R" --cpus 2 >/dev/null 2>&1
rm -f "$D/other.conf"
"$I" --unit web --root "$R" --remove >/dev/null 2>&1
if [ ! -e "$D" ]; then ok "remove: the directory too, once empty"; else fail "remove: the directory too, once empty" "$(ls -A "$D")"; fi
"$I" --unit web --root "$R" --remove >/dev/null 2>&1
expect_eq "remove when there is none: status 0" 0 $?
"$I" --unit web --root "$R" --remove --cpus 2 >/dev/null 2>&1
expect_eq "remove with settings: usage error" 125 $?

# --- bad names and values: 125, nothing written -----------------------------
for bad in '' 'a/b' '../x' '.hidden' '-x' 'a b' 'a%i' 'a@b@c' 'x;y' \
	"$(printf '%0250d' 0)"; do
	"$I" --unit "$bad" --root "$R" --cpus 2 >/dev/null 2>"$T_TMP/err"
	rc=$?
	if [ $rc -eq 125 ] && [ -z "$(ls -A "$R/etc/systemd/system")" ]; then
		ok "bad unit name '$(printf '%.20s' "$bad")': 125, nothing written"
	else
		fail "bad unit name '$(printf '%.20s' "$bad")': 125, nothing written" "status $rc: $(ls -A "$R/etc/systemd/system")"
	fi
done
for good in 'getty@tty1' 'getty@' 'a-b_c.d:e' 'x\x2dy'; do
	"$I" --unit "$good" --root "$R" --dry-run >/dev/null 2>&1
	expect_eq "a valid unit name '$good'" 0 $?
done
for bad in "--survey" "--survey=rel/dir" "--stats=rel" "--stats=/a b" "--unit web ls"; do
	eval "set -- $bad"
	"$I" --unit web --root "$R" "$@" >/dev/null 2>&1
	rc=$?
	if [ $rc -eq 125 ] && [ ! -e "$D" ]; then ok "--unit $bad: 125, nothing written"; else fail "--unit $bad: 125, nothing written" "status $rc"; fi
done
"$I" --remove true >/dev/null 2>&1
expect_eq "--remove without --unit: usage error" 125 $?
"$I" --unit web --root "$T_TMP/none" >/dev/null 2>&1
expect_eq "--root that is not a directory: usage error" 125 $?
# A link on the way out of the root is not followed.
mkdir -p "$T_TMP/r2/etc/systemd" "$T_TMP/elsewhere"
ln -s "$T_TMP/elsewhere" "$T_TMP/r2/etc/systemd/system"
"$I" --unit web --root "$T_TMP/r2" >/dev/null 2>&1
rc=$?
if [ $rc -ne 0 ] && [ -z "$(ls -A "$T_TMP/elsewhere")" ]; then ok "a symbolic link on the way: refused"
else fail "a symbolic link on the way: refused" "status $rc"; fi

# --- a unit that sets LD_PRELOAD (and OMP_NUM_THREADS) itself ---------------
unit 'Environment="LD_PRELOAD=/usr/lib/libjemalloc.so.2 /usr/lib/libx.so" OMP_NUM_THREADS=3 FOO=1' \
	>"$R/lib/systemd/system/web.service"
mkdir -p "$R/lib/systemd/system/web.service.d"
printf '[Service]\nEnvironment=LD_PRELOAD=/usr/lib/liby.so\n' >"$R/lib/systemd/system/web.service.d/10-y.conf"
"$I" --unit web --root "$R" --cpus 2 >/dev/null 2>&1
expect_eq "the unit's LD_PRELOAD (its last drop-in's) kept behind ours" \
	"Environment=LD_PRELOAD=$lib:/usr/lib/liby.so" "$(grep LD_PRELOAD= "$F")"
expect_eq "the unit's OMP_NUM_THREADS wins" "" "$(grep OMP_NUM_THREADS "$F")"
rm -r "$R/lib/systemd/system/web.service.d"
"$I" --unit web --root "$R" >/dev/null 2>&1
expect_eq "the unit's own LD_PRELOAD list kept behind ours" \
	"Environment=LD_PRELOAD=$lib:/usr/lib/libjemalloc.so.2:/usr/lib/libx.so" "$(grep LD_PRELOAD= "$F")"
unit "Environment=LD_PRELOAD=$lib:/usr/lib/libz.so" >"$R/lib/systemd/system/web.service"
"$I" --unit web --root "$R" >/dev/null 2>&1
expect_eq "ours already in the unit's list: not added twice" \
	"Environment=LD_PRELOAD=$lib:/usr/lib/libz.so" "$(grep LD_PRELOAD= "$F")"

# An instance: the template's file and drop-ins, then the instance's.
unit 'Environment=LD_PRELOAD=/usr/lib/libt.so' >"$R/lib/systemd/system/getty@.service"
"$I" --unit getty@tty1 --root "$R" >/dev/null 2>&1
expect_eq "an instance: the template's LD_PRELOAD kept" \
	"Environment=LD_PRELOAD=$lib:/usr/lib/libt.so" "$(grep LD_PRELOAD= "$R/etc/systemd/system/getty@tty1.service.d/fastpath.conf")"
mkdir -p "$R/etc/systemd/system/getty@tty1.service.d"
printf '[Service]\nEnvironment=LD_PRELOAD=/usr/lib/libi.so\n' >"$R/etc/systemd/system/getty@tty1.service.d/x.conf"
"$I" --unit getty@tty1 --root "$R" >/dev/null 2>&1
expect_eq "an instance: its own drop-in after the template's" \
	"Environment=LD_PRELOAD=$lib:/usr/lib/libi.so" "$(grep LD_PRELOAD= "$R/etc/systemd/system/getty@tty1.service.d/fastpath.conf")"

# --- systemd-analyze verify ----------------------------------------------------
if ! command -v systemd-analyze >/dev/null 2>&1; then
	skip "systemd-analyze verify" "systemd-analyze is not installed (make deps installs systemd)"
else
	unit 'Environment=LD_PRELOAD=/usr/lib/libz.so' >"$R/etc/systemd/system/web.service"
	"$I" --unit web --root "$R" --cpus 4 --getrandom --urandom=reserve \
		--survey=/var/lib/fastpath-survey --stats=/var/log/fastpath/ >/dev/null 2>&1
	# The harness: verify must read the drop-in beside the unit, so a bad
	# line in a copy of it must be reported.
	cp "$F" "$T_TMP/good"
	echo 'NoSuchKey=1' >>"$F"
	systemd-analyze verify "$R/etc/systemd/system/web.service" >"$T_TMP/v" 2>&1
	if grep -q 'fastpath.conf.*NoSuchKey' "$T_TMP/v"; then
		cp "$T_TMP/good" "$F"
		echo "pre - systemd-analyze verify reads the drop-in"
		systemd-analyze verify "$R/etc/systemd/system/web.service" >"$T_TMP/v" 2>&1
		rc=$?
		if [ $rc -eq 0 ] && [ ! -s "$T_TMP/v" ]; then ok "systemd-analyze verify: the unit with the drop-in, no complaint"
		else fail "systemd-analyze verify: the unit with the drop-in, no complaint" "status $rc: $(cat "$T_TMP/v")"; fi
	elif grep -qi -e 'failed to' -e 'not booted' -e 'permission' "$T_TMP/v"; then
		skip "systemd-analyze verify" "cannot run here: $(head -n 1 "$T_TMP/v")"
	else
		fail "precondition: systemd-analyze verify reads the drop-in" "$(cat "$T_TMP/v")"
	fi
fi

# --- SMF (illumos): lines printed, nothing written ------------------------------
"$I" --smf svc:/network/http:apache24 --cpus 4 >"$T_TMP/out" 2>&1
expect_eq "--smf: status 0" 0 $?
if grep -q "^svccfg -s svc:/network/http:apache24 setenv LD_PRELOAD" "$T_TMP/out" &&
	grep -qx "svccfg -s svc:/network/http:apache24 setenv FASTPATH_CPUS 4" "$T_TMP/out" &&
	grep -qx "svcadm refresh svc:/network/http:apache24" "$T_TMP/out" &&
	grep -qx "svcadm restart svc:/network/http:apache24" "$T_TMP/out"; then
	ok "--smf: the svccfg and svcadm lines"
else fail "--smf: the svccfg and svcadm lines" "$(cat "$T_TMP/out")"; fi
"$I" --smf svc:/network/http:apache24 --cpus 4 --remove >"$T_TMP/out" 2>&1
if grep -qx "svccfg -s svc:/network/http:apache24 unsetenv FASTPATH_CPUS" "$T_TMP/out"; then
	ok "--smf --remove: unsetenv lines"
else fail "--smf --remove: unsetenv lines" "$(cat "$T_TMP/out")"; fi
"$I" --smf 'svc:/x y' >/dev/null 2>&1
expect_eq "--smf with a bad FMRI: usage error" 125 $?
finish
