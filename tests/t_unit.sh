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
Environment=GOMAXPROCS=4
Environment=FASTPATH_GETRANDOM=1"
expect_eq "write: the settings, one Environment= each (GOMAXPROCS too, as the exec path sets)" "$want" "$(grep -v '^#' "$F")"
expect_eq "write: prints the commands it does not run" \
	"systemctl daemon-reload
systemctl restart web.service" "$(grep -v '^#' "$T_TMP/out")"
expect_eq "write: nothing on stderr" "" "$(cat "$T_TMP/err")"
expect_eq "write: mode 0644" "644" "$(stat -c %a "$F")"
expect_eq "write: no temporary file left" "fastpath.conf" "$(ls -A "$D")"

# The unit's text is read from the temporary file mktemp made, never from a
# name beside it that another user of /tmp could have put a link or a FIFO
# at once mktemp's name shows (inotify).  A mktemp that names its file in
# advance stands in for that user's guess.
mkdir -p "$T_TMP/fakebin" "$T_TMP/tmpd"
real_mktemp=$(command -v mktemp)
cat >"$T_TMP/fakebin/mktemp" <<EOF2
#!/bin/sh
case "\$*" in
*fastpath-unit.*) : >"$T_TMP/tmpd/fastpath-unit.known" && echo "$T_TMP/tmpd/fastpath-unit.known" ;;
*) exec "$real_mktemp" "\$@" ;;
esac
EOF2
chmod +x "$T_TMP/fakebin/mktemp"
echo keep >"$T_TMP/unit_victim"
ln -sf "$T_TMP/unit_victim" "$T_TMP/tmpd/fastpath-unit.known.text"
PATH="$T_TMP/fakebin:$PATH" TMPDIR="$T_TMP/tmpd" "$I" --unit web --root "$R" --cpus 4 >/dev/null 2>&1
expect_eq "--unit: a link beside mktemp's file is not written through" keep "$(cat "$T_TMP/unit_victim")"
rm -f "$T_TMP/tmpd/fastpath-unit.known.text"

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

# --- issue 41: the exec path's settings, every unit systemd accepts -------------
unit >"$R/lib/systemd/system/web.service"
"$I" --unit web --root "$R" --cpus 2 --pin --force >/dev/null 2>&1
want=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status | awk -F, '{
	for (i = 1; i <= NF; i++) { n = split($i, r, "-"); for (c = r[1]; c <= r[n]; c++) printf "%d\n", c } }' | sed -n 1,2p | tr '\n' ' ' | sed 's/ $//')
if [ "$(printf '%s\n' "$want" | wc -w)" -lt 2 ]; then
	skip "--pin: CPUAffinity=" "this process may use fewer than 2 CPUs"
else
	expect_eq "--pin: CPUAffinity= the first N CPUs allowed, as the exec path pins" "CPUAffinity=$want" "$(grep '^CPUAffinity=' "$F")"
fi
"$I" --unit web --root "$R" --cpus quota >/dev/null 2>&1
expect_eq "--cpus quota: FASTPATH_CPUS=quota, no OMP_NUM_THREADS or GOMAXPROCS of 'quota'" \
	"Environment=FASTPATH_CPUS=quota" "$(grep -v '^#' "$F" | grep -e CPUS= -e OMP_ -e GOMAX)"
"$I" --unit web --root "$R" --cpus quota --pin >/dev/null 2>&1
expect_eq "--cpus quota --pin under --unit: a usage error" 125 $?
unit 'Environment=GOMAXPROCS=7' >"$R/lib/systemd/system/web.service"
"$I" --unit web --root "$R" --cpus 2 >/dev/null 2>&1
expect_eq "the unit's GOMAXPROCS wins" "Environment=OMP_NUM_THREADS=2" "$(grep -e OMP_ -e GOMAX "$F")"
unit >"$R/lib/systemd/system/web.service"
unit >"$R/lib/systemd/system/tpl@.service"
for t in tpl@ tpl@.service; do
	"$I" --unit "$t" --root "$R" --cpus 1 --force >"$T_TMP/out" 2>&1
	expect_eq "a template ($t): the restart line names its instances" \
		"systemctl restart 'tpl@*.service'  # every running instance" "$(grep '^systemctl restart' "$T_TMP/out")"
done
"$I" --unit tpl@a --root "$R" --cpus 1 >"$T_TMP/out" 2>&1
expect_eq "an instance: the restart line names it" "systemctl restart tpl@a.service" "$(grep '^systemctl restart' "$T_TMP/out")"
for kind in socket timer path mount automount swap target slice scope device; do
	"$I" --unit "x.$kind" --root "$R" --cpus 1 >/dev/null 2>"$T_TMP/err"
	rc=$?
	if [ $rc -eq 125 ] && grep -q "is a $kind unit" "$T_TMP/err" && [ ! -e "$R/etc/systemd/system/x.$kind.service.d" ]; then
		ok "a .$kind unit: 125, the reason, nothing written"
	else fail "a .$kind unit: 125, the reason, nothing written" "status $rc: $(cat "$T_TMP/err")"; fi
done
unit >"$R/lib/systemd/system/foo\\x2dbar.service"
"$I" --unit 'foo\x2dbar' --root "$R" --cpus 1 >"$T_TMP/out" 2>&1
line=$(sed -n 's/^systemctl restart //p' "$T_TMP/out")
eval "set -- $line"
expect_eq "an escaped name: the pasted restart line names that unit" 'foo\x2dbar.service' "$1"
"$I" --unit ghost --root "$R" --cpus 1 >/dev/null 2>"$T_TMP/err"
rc=$?
if [ $rc -eq 0 ] && grep -q 'warning: no unit ghost.service' "$T_TMP/err" && [ -f "$R/etc/systemd/system/ghost.service.d/fastpath.conf" ]; then
	ok "a unit that does not exist: written, with a warning"
else fail "a unit that does not exist: written, with a warning" "status $rc: $(cat "$T_TMP/err")"; fi
"$I" --unit web --root "$R" --cpus 2 --force >/dev/null 2>&1
expect_eq "an unknown unit's warning is not said of one that exists" "" "$("$I" --unit web --root "$R" --cpus 2 2>&1 >/dev/null)"
"$I" --unit web --root "$R" --cpus 3 >"$T_TMP/out" 2>&1
if grep -qx '# - Environment=FASTPATH_CPUS=2' "$T_TMP/out" && grep -qx '# + Environment=FASTPATH_CPUS=3' "$T_TMP/out"; then
	ok "a rewrite says what changed"
else fail "a rewrite says what changed" "$(cat "$T_TMP/out")"; fi
echo 'Environment=MINE=1' >>"$F"
cp "$F" "$T_TMP/edited"
"$I" --unit web --root "$R" --cpus 4 >/dev/null 2>"$T_TMP/err"
rc=$?
if [ $rc -eq 125 ] && cmp -s "$F" "$T_TMP/edited" && grep -q 'edited by hand' "$T_TMP/err"; then
	ok "a drop-in edited by hand: kept, 125, the reason"
else fail "a drop-in edited by hand: kept, 125, the reason" "status $rc: $(cat "$T_TMP/err")"; fi
"$I" --unit web --root "$R" --cpus 4 --force >/dev/null 2>&1
expect_eq "... replaced with --force" "Environment=FASTPATH_CPUS=4" "$(grep FASTPATH_CPUS "$F")"
printf '[Service]\nEnvironment=A=1\n' >"$F"
"$I" --unit web --root "$R" --cpus 4 >/dev/null 2>&1
expect_eq "a fastpath.conf interpose did not write: kept without --force" 125 $?
"$I" --unit web --root "$R" --cpus 4 --force >/dev/null 2>&1
"$I" --force --cpus 1 true >/dev/null 2>&1
expect_eq "--force without --unit: usage error" 125 $?
# A sandboxed unit and a --stats file it could not write.
for sb in 'ProtectSystem=strict' 'DynamicUser=yes'; do
	unit "$sb" >"$R/lib/systemd/system/web.service"
	"$I" --unit web --root "$R" --stats=/var/log/fastpath.log --force >/dev/null 2>"$T_TMP/err"
	if grep -q "warning: the unit's $sb leaves it no way to write /var/log/fastpath.log" "$T_TMP/err"; then
		ok "$sb and --stats=FILE it cannot write: a warning"
	else fail "$sb and --stats=FILE it cannot write: a warning" "$(cat "$T_TMP/err")"; fi
	"$I" --unit web --root "$R" --stats=/var/log/fastpath/ --force >/dev/null 2>"$T_TMP/err"
	if [ ! -s "$T_TMP/err" ] && grep -qx 'LogsDirectory=fastpath' "$F"; then
		ok "$sb and --stats=/var/log/fastpath/: LogsDirectory=, no warning"
	else fail "$sb and --stats=/var/log/fastpath/: LogsDirectory=, no warning" "$(cat "$T_TMP/err")"; fi
done
# An object the unit's user cannot reach: a copy of the tree's commands in
# a directory only root may enter (under /tmp, which PrivateTmp= hides too).
if [ ! -f "$FASTPATH_SO" ]; then
	# make check-sanitize's ASan run: LD_PRELOAD=libasan.so:fastpath.so.
	skip "an object the unit cannot reach" "FASTPATH_SO is a list ($FASTPATH_SO), not an object to copy"
else
	P=$T_TMP/private
	mkdir -p "$P" && chmod 700 "$P" && cp "$I" "$FASTPATH_SO" "$TOP/interpose.awk" "$P/" 2>/dev/null
	unit 'User=nobody' >"$R/lib/systemd/system/web.service"
	"$P/interpose" --unit web --root "$R" --cpus 1 --force >/dev/null 2>"$T_TMP/err"
	if grep -q "warning: the unit runs as nobody, who cannot search /tmp/" "$T_TMP/err"; then
		ok "User= that cannot reach the object: a warning"
	else fail "User= that cannot reach the object: a warning" "$(cat "$T_TMP/err")"; fi
	unit 'PrivateTmp=yes' >"$R/lib/systemd/system/web.service"
	"$P/interpose" --unit web --root "$R" --cpus 1 --force >/dev/null 2>"$T_TMP/err"
	if grep -q "warning: the unit's PrivateTmp= hides $P/fastpath.so" "$T_TMP/err"; then
		ok "PrivateTmp= hiding the object: a warning"
	else fail "PrivateTmp= hiding the object: a warning" "$(cat "$T_TMP/err")"; fi
fi
unit >"$R/lib/systemd/system/web.service"
"$I" --unit web --root "$R" --cpus 1 --force >/dev/null 2>"$T_TMP/err"
expect_eq "an object the unit reaches: no warning" "" "$(cat "$T_TMP/err")"

# --- --root that another user can change: refused, for writing and removing ---
if [ "$(id -u)" -ne 0 ]; then
	skip "--root owned by another user" "not root (chown needs it)"
else
	X=$T_TMP/img
	mkdir -p "$X/etc/systemd/system" "$T_TMP/victim.d" && echo keep >"$T_TMP/victim.d/fastpath.conf"
	chown -R nobody "$X"
	"$I" --unit web --root "$X" --cpus 1 >/dev/null 2>"$T_TMP/err"
	rc=$?
	if [ $rc -eq 125 ] && grep -q "belongs to user" "$T_TMP/err" && [ -z "$(ls -A "$X/etc/systemd/system")" ]; then
		ok "--root owned by another user: 125, nothing written"
	else fail "--root owned by another user: 125, nothing written" "status $rc: $(cat "$T_TMP/err")"; fi
	# The held-out race's shape: the image's owner swaps the drop-in
	# directory for a link to another unit's; refused before any write.
	ln -s "$T_TMP/victim.d" "$X/etc/systemd/system/web.service.d"
	"$I" --unit web --root "$X" --cpus 1 >/dev/null 2>&1
	"$I" --unit web --root "$X" --remove >/dev/null 2>&1
	expect_eq "--root owned by another user, a link to another drop-in: neither written nor removed" keep "$(cat "$T_TMP/victim.d/fastpath.conf")"
	chown -R 0 "$X" && rm "$X/etc/systemd/system/web.service.d"
	# A planted etc/systemd/system link in a root-owned image: --remove refuses.
	rm -r "$X/etc/systemd/system" && ln -s "$T_TMP/victim" "$X/etc/systemd/system" &&
		mkdir -p "$T_TMP/victim/web.service.d" && echo keep >"$T_TMP/victim/web.service.d/fastpath.conf"
	"$I" --unit web --root "$X" --remove >/dev/null 2>"$T_TMP/err"
	rc=$?
	if [ $rc -eq 125 ] && [ "$(cat "$T_TMP/victim/web.service.d/fastpath.conf")" = keep ]; then
		ok "--remove through a planted link: 125, nothing removed"
	else fail "--remove through a planted link: 125, nothing removed" "status $rc: $(cat "$T_TMP/err")"; fi
	rm "$X/etc/systemd/system" && mkdir -m 777 "$X/etc/systemd/system"
	"$I" --unit web --root "$X" --cpus 1 >/dev/null 2>"$T_TMP/err"
	rc=$?
	if [ $rc -eq 125 ] && grep -q "writable by others" "$T_TMP/err"; then ok "a directory writable by others on the way: 125"
	else fail "a directory writable by others on the way: 125" "status $rc: $(cat "$T_TMP/err")"; fi
	chmod 1777 "$X/etc/systemd/system"
	"$I" --unit web --root "$X" --cpus 1 >/dev/null 2>&1
	expect_eq "... sticky (as /tmp): accepted, the drop-in's directory being ours" 0 $?
fi

# --- systemd-analyze verify ----------------------------------------------------
if ! command -v systemd-analyze >/dev/null 2>&1; then
	skip "systemd-analyze verify" "systemd-analyze is not installed (make deps installs systemd)"
else
	unit 'Environment=LD_PRELOAD=/usr/lib/libz.so' >"$R/etc/systemd/system/web.service"
	"$I" --unit web --root "$R" --cpus 4 --getrandom --urandom=reserve \
		--survey=/var/lib/fastpath-survey --stats=/var/log/fastpath/ --force >/dev/null 2>&1
	# The harness: verify must read the drop-in beside the unit, so a bad
	# line in a copy of it must be reported.
	cp "$F" "$T_TMP/good"
	echo 'NoSuchKey=1' >>"$F"
	systemd-analyze verify "$R/etc/systemd/system/web.service" >"$T_TMP/v" 2>&1
	if grep -q 'fastpath.conf.*NoSuchKey' "$T_TMP/v"; then
		cp "$T_TMP/good" "$F"
		echo "pre - systemd-analyze verify reads the drop-in"
		# a plain service, a template's instance, DynamicUser=, ProtectSystem=strict
		unit 'DynamicUser=yes' >"$R/etc/systemd/system/dyn.service"
		unit 'ProtectSystem=strict' >"$R/etc/systemd/system/strict.service"
		unit >"$R/etc/systemd/system/inst@.service"
		for u in web inst@a dyn strict; do
			[ "$u" = web ] || "$I" --unit "$u" --root "$R" --cpus 2 --pin --survey=/var/lib/fastpath-survey \
				--stats=/var/log/fastpath/ --force >/dev/null 2>&1
			[ "$u" = inst@a ] && ln -sf "$R/etc/systemd/system/inst@.service" "$R/etc/systemd/system/inst@a.service"
			systemd-analyze verify "$R/etc/systemd/system/$u.service" >"$T_TMP/v" 2>&1
			rc=$?
			if [ $rc -eq 0 ] && [ ! -s "$T_TMP/v" ] && [ -f "$R/etc/systemd/system/$u.service.d/fastpath.conf" ]; then
				ok "systemd-analyze verify: $u with its drop-in, no complaint"
			else fail "systemd-analyze verify: $u with its drop-in, no complaint" "status $rc: $(cat "$T_TMP/v")"; fi
		done
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
