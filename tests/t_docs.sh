#!/bin/sh
# SPDX-License-Identifier: MIT
# The documents (issue 22): the README stays a five-minute read in the
# order a newcomer asks, every relative link (and #anchor) in README.md and
# docs/*.md resolves, every docs/ file named anywhere exists, the README's
# first two commands are targets the Makefile has, its "make check takes"
# figure is the Makefile's, and every setting the object reads is in
# fastpath(7)'s ENVIRONMENT.  DOCS_TOP: another tree to check (default
# this one; a negative control points it at a broken copy).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

: "${DOCS_TOP:=$TOP}"
D=$DOCS_TOP

# --- the README: short, in the issue's order --------------------------------
n=$(wc -l <"$D/README.md" | tr -d ' ')
if [ "$n" -le 250 ]; then ok "README.md: $n lines (at most 250)"
else fail "README.md: at most 250 lines" "$n lines"; fi
want='First two commands|Do I need it?|Usage|The three field problems|What it cannot reach|Install|More'
got=$(sed -n 's/^## //p' "$D/README.md" | tr '\n' '|' | sed 's/|$//')
expect_eq "README.md: its sections, in the newcomer's order" "$want" "$got"

# --- links ----------------------------------------------------------------
# slug HEADING: GitHub's anchor for a heading: lower case, every character
# but letters, digits, '_', '-' and spaces dropped, spaces made '-'.
slug() {
	printf '%s\n' "$1" | tr '[:upper:]' '[:lower:]' | sed 's/[^a-z0-9_ -]//g; s/ /-/g'
}
# anchors FILE: the anchors of FILE's headings, one a line (outside code).
anchors() {
	awk '/^```/ { code = !code; next } !code && /^#+ / { sub(/^#+ +/, ""); print }' "$1" |
		while IFS= read -r h; do slug "$h"; done
}
# links FILE: the targets of FILE's markdown links and images, outside code
# blocks and code spans, one a line.
links() {
	awk '/^```/ { code = !code; next }
	!code {
		s = $0
		gsub(/`[^`]*`/, "", s)
		while (match(s, /\]\([^) ]+\)/)) {
			print substr(s, RSTART + 2, RLENGTH - 3)
			s = substr(s, RSTART + RLENGTH)
		}
	}' "$1"
}
nlinks=0
bad=
for f in "$D/README.md" "$D"/docs/*.md; do
	[ -f "$f" ] || continue
	dir=${f%/*}
	for l in $(links "$f"); do
		case $l in http://* | https://* | mailto:*) continue ;; esac
		nlinks=$((nlinks + 1))
		path=${l%%#*}
		anchor=
		case $l in *'#'*) anchor=${l#*#} ;; esac
		target=$f
		[ -n "$path" ] && target=$dir/$path
		if [ ! -e "$target" ]; then
			bad="$bad ${f#"$D"/}:$l(no such file)"
			continue
		fi
		if [ -n "$anchor" ]; then
			case $target in
			*.md) anchors "$target" | grep -qxF -- "$anchor" || bad="$bad ${f#"$D"/}:$l(no such heading)" ;;
			*) bad="$bad ${f#"$D"/}:$l(an anchor into a file that is not markdown)" ;;
			esac
		fi
	done
done
if [ "$nlinks" -ge 10 ] && [ -z "$bad" ]; then ok "every relative link in README.md and docs/ resolves ($nlinks, anchors too)"
else fail "every relative link in README.md and docs/ resolves ($nlinks found)" "$bad"; fi

# Every docs/ document that a source, script, man page or document names.
named=$(cd "$D" && grep -oh 'docs/[A-Za-z0-9_-]*\.md' README.md docs/*.md man/*.in ./*.c ./*.h interpose.in \
	survey.awk.in mit/*.def tools/*.awk Makefile tests/*.sh tests/*.c bench/*.sh 2>/dev/null | sort -u)
missing=
for m in $named; do [ -f "$D/$m" ] || missing="$missing $m"; done
if [ -n "$named" ] && [ -z "$missing" ]; then ok "every docs/ file named in the tree exists ($(printf '%s' "$named" | tr '\n' ' '))"
else fail "every docs/ file named in the tree exists" "missing:$missing"; fi

# --- the first two commands, and what the README says of them --------------
# shellcheck disable=SC2016 # a sed script, not the shell's
first=$(sed -n '/^## First two commands/,/^## /p' "$D/README.md" | sed -n '/^```sh$/,/^```$/p' |
	sed '1d;$d' | sed 's/ *#.*//')
expect_eq "README: the first two commands" "make deps demo|make check" "$(printf '%s\n' "$first" | tr '\n' '|' | sed 's/|$//')"
for t in deps demo check; do
	if grep -q "^$t:" "$D/Makefile"; then ok "the first commands' target '$t' is in the Makefile"
	else fail "the first commands' target '$t' is in the Makefile"; fi
done
if grep -qx 'make check' "$D/.ci/run"; then ok "CI runs the README's test command (.ci/run: make check)"
else fail "CI runs the README's test command (.ci/run: make check)"; fi
# The install steps make no apt-get call once all is there: each runs with
# apt-get a stub that logs (a package still missing here is a skip: the
# stub would then be called, and rightly).
# shellcheck disable=SC2016 # the stub's own $0 and $*
mkdir -p "$T_TMP/apt" && printf '#!/bin/sh\necho "$0 $*" >>"%s"\n' "$T_TMP/apt.log" >"$T_TMP/apt/apt-get" &&
	chmod +x "$T_TMP/apt/apt-get"
for set_ in demo test; do
	out=$(PATH="$T_TMP/apt:$PATH" sh "$D/.ci/deps" "$set_" 2>&1)
	case $out in
	installing:*) skip ".ci/deps $set_: no apt-get call when all is installed" "missing here: ${out#installing:}" ;;
	*) expect_eq ".ci/deps $set_: no apt-get call when all is installed" "" "$(cat "$T_TMP/apt.log" 2>/dev/null)" ;;
	esac
done
# The negative control: nothing found on PATH (the stubs only, id saying
# root) calls the stub.
printf '#!/bin/sh\necho 0\n' >"$T_TMP/apt/id" && chmod +x "$T_TMP/apt/id"
PATH="$T_TMP/apt" "$(command -v sh)" "$D/.ci/deps" demo >/dev/null 2>&1
if grep -q 'install -y -q --no-install-recommends make gcc binutils strace nodejs' "$T_TMP/apt.log" 2>/dev/null; then
	ok ".ci/deps demo: calls apt-get for what is missing (a PATH without the tools)"
else
	fail ".ci/deps demo: calls apt-get for what is missing" "$(cat "$T_TMP/apt.log" 2>/dev/null)"
fi
# The demo's set is the demo's own: the C toolchain, make, strace, node.
# shellcheck disable=SC2016 # a sed script
demo_pkgs=$(sed -n '/^if \[ "$set_" = test \]/q; s/^need \([^ ]*\) .*/\1/p' "$D/.ci/deps" | tr '\n' ' ')
expect_eq ".ci/deps demo: only what make demo needs" "make gcc binutils strace nodejs " "$demo_pkgs"
# shellcheck disable=SC2016
readme_min=$(tr '\n' ' ' <"$D/README.md" | sed -n 's/.*`make check` (about \([0-9][0-9]*\) minutes.*/\1/p')
make_min=$(sed -n 's/^# line "check: N passed, N failed, K skipped"; about \([0-9][0-9]*\) minutes.*/\1/p' "$D/Makefile")
if [ -n "$readme_min" ]; then expect_eq "README's 'make check (about N minutes' is the Makefile's" "$make_min" "$readme_min"
else fail "README says how long make check takes"; fi

# fastpath(7) as the build makes it: man/fastpath.7.in with the
# mitigations' parts (the summary template, FASTPATH_DISABLE's names) from
# their descriptors, in the registry's order (the Makefile's MITGEN).
man7=$T_TMP/fastpath.7
# shellcheck disable=SC2046 # the descriptors' names, one word each
(cd "$D" && awk -f tools/mitgen.awk -v template=man/fastpath.7.in \
	$(sed -n 's|^[[:space:]]*X(\([a-z0-9_]*\)).*|mit/\1.def|p' mitigations.h)) >"$man7" ||
	fail "man/fastpath.7.in: made from the descriptors" "tools/mitgen.awk failed"

# --- the summary line's examples have the template's fields ----------------
# fastpath(7)'s template (fastpath[PID]: readlink S short-circuited of N;
# ...) as a pattern: each one-letter placeholder a value, each [...] part
# optional.  The README's example and fastpath(7)'s must match it, so that a
# field added to the template (and to the object: t_core.sh) is added to
# both examples too.  "(off)" after getrandom is the template's prose.
template=$(sed -n 's/^fastpath\[PID\]: //p' "$man7" | sed 's/\\-/-/g')
# shellcheck disable=SC2016 # sed scripts
stats_re=$(printf '%s' "$template" | sed -e 's/[.+*?(){}|^$]/\\&/g' -e 's/\[\([^]]*\)\]/(\1)?/g' \
	-e 's/\b[A-Z]\b/[^ ,;]+/g')
for doc in README.md man/fastpath.7.in; do
	src=$D/$doc
	[ "$doc" = man/fastpath.7.in ] && src=$man7
	ex=$(sed -n 's/\\-/-/g; /^fastpath\[[0-9][0-9]*\]: /p' "$src" | sed 's/ (off)//g')
	if [ -n "$template" ] && [ -n "$ex" ] &&
		printf '%s\n' "$ex" | grep -Eqx "fastpath\[[0-9]+\]: $stats_re"; then
		ok "$doc: the summary line's example has fastpath(7)'s fields"
	else
		fail "$doc: the summary line's example has fastpath(7)'s fields" "example [$ex], template [$template]"
	fi
done

# --- settings: every FASTPATH_* the object reads is in fastpath(7) --------
read_names=$(cd "$D" && grep -oh '"FASTPATH_[A-Z0-9_]*"' ./*.c ./*.h | tr -d '"' | sort -u)
env_text=$(sed -n '/^\.SH ENVIRONMENT/,/^\.SH /p' "$man7" | sed 's/\\-/-/g; s/\\f[BIRP]//g')
undoc=
for v in $read_names; do
	printf '%s\n' "$env_text" | grep -q "$v" || undoc="$undoc $v"
done
if [ -n "$read_names" ] && [ -z "$undoc" ]; then
	ok "fastpath(7) ENVIRONMENT names every setting the object reads ($(printf '%s\n' "$read_names" | wc -l | tr -d ' '))"
else
	fail "fastpath(7) ENVIRONMENT names every setting the object reads" "not there:$undoc"
fi

# --- the README as a newcomer reads it (issue 41) ----------------------------
# No paragraph over 5 sentences, no sentence over 45 words: a paragraph is
# the lines between blank ones outside code blocks, tables and headings,
# each list item one; code spans count as a word, "e.g."-style dots and an
# ellipsis end no sentence.  (8add9be's README had a sentence of 140.)
long_paras=$(awk '
	function flush(   n, i, parts) {
		if (para == "") return
		n = split(para, parts, /[.!?]([ )]|$)/)
		if (n - 1 > 5) printf "%d sentences: %.60s...\n", n - 1, para
		for (i = 1; i <= n; i++) if (split(parts[i], words, /[ \t]+/) > 46) printf "a sentence of over 45 words: %.60s...\n", parts[i]
		para = ""
	}
	/^```/ { flush(); code = !code; next }
	code { next }
	/^$/ || /^#/ || /^\|/ { flush(); next }
	/^- / { flush() }
	{ line = $0; gsub(/`[^`]*`/, "X", line); gsub(/\.\.\./, "", line); gsub(/(e\.g|i\.e|etc)\./, "", line); para = para " " line }
	END { flush() }' "$D/README.md")
expect_eq "README: no paragraph over 5 sentences, no sentence over 45 words" "" "$long_paras"
# The demo table: a line of the README for each column make demo prints
# (bench/lib.sh's header).
cols=$(sed -n 's/.*if (nr) printf "%-" w "s %10s %10s %8s %16s\\n", \(.*\)$/\1/p' "$D/bench/lib.sh" |
	tr -d '"' | tr ',' '\n' | sed 's/^ *//')
missing_cols=
for c in $(printf '%s\n' "$cols" | tr ' ' '_'); do
	c=$(printf '%s' "$c" | tr '_' ' ')
	grep -q "^- .*\`$c\`" "$D/README.md" || missing_cols="$missing_cols [$c]"
done
if [ -n "$cols" ] && [ -z "$missing_cols" ]; then ok "README: a line for each column of the demo table ($(printf '%s' "$cols" | tr '\n' ','))"
else fail "README: a line for each column of the demo table" "columns [$cols], not explained:$missing_cols"; fi
# Every example command runs as written: each line of a ```sh block (the
# first two commands aside: they are these tests' own), from the top of
# the tree with its interpose first on PATH.  ```console blocks change a
# machine (systemd units, packages, an install): their interpose lines run
# with --dry-run under a scratch --root; the others are make check-deb's
# and t_interpose's (install, uninstall) and are named here, not run.
if [ "$D" = "$TOP" ] && [ -x "$TOP/bench/bin/urandom_loop" ]; then
	awk '/^## First two commands/ { skip = 1; next } /^## / { skip = 0 }
		/^```sh$/ { if (!skip) sh = 1; next } /^```console$/ { con = 1; next } /^```/ { sh = 0; con = 0; next }
		sh { print "sh\t" $0 } con { print "console\t" $0 }' "$D/README.md" >"$T_TMP/examples"
	mkdir -p "$T_TMP/exroot" "$T_TMP/exsurvey"
	tab=$(printf '\t')
	while IFS="$tab" read -r kind cmd; do
		cmd=$(printf '%s\n' "$cmd" | sed 's/  *#.*//')
		[ -n "$cmd" ] || continue
		case $kind:$cmd in
		sh:*)
			if (cd "$TOP" && PATH="$TOP:$PATH" timeout 120 sh -c "$cmd") >"$T_TMP/ex.out" 2>&1; then
				ok "README example runs: $cmd"
			else fail "README example runs: $cmd" "$(tail -n 3 "$T_TMP/ex.out")"; fi ;;
		"console:interpose --unit "*)
			if (cd "$TOP" && PATH="$TOP:$PATH" sh -c "$cmd --dry-run --root '$T_TMP/exroot'") >"$T_TMP/ex.out" 2>&1; then
				ok "README service example runs (--dry-run under a scratch --root): $cmd"
			else fail "README service example runs: $cmd" "$(tail -n 3 "$T_TMP/ex.out")"; fi ;;
		"console:interpose --survey-report "*)
			(cd "$TOP" && PATH="$TOP:$PATH" interpose --survey-report "$T_TMP/exsurvey") >"$T_TMP/ex.out" 2>&1
			expect_eq "README service example, on a directory with no record yet: $cmd exits 3" 3 $? ;;
		console:systemctl* | "console:make deps-test deb"* | "console:make install "* | "console:make uninstall"*)
			echo "pre - README example not run here ($cmd): make check-deb, t_interpose, systemd's own" ;;
		*) fail "README example of no known kind" "$kind: $cmd" ;;
		esac
	done <"$T_TMP/examples"
elif [ "$D" = "$TOP" ]; then
	skip "README examples" "no bench/bin/urandom_loop (make check builds it)"
fi

# --- the project's own style notes, and nothing cited from outside ---------
# docs/style.md holds what issue 42 asked of it (each a heading of its own),
# and no tracked file cites a style guide the tree does not have.
# shellcheck disable=SC2016 # backquotes of markdown, literally
for h in '## When a mitigation.s `init` runs, and in which thread' '## The summary line' \
	'## The survey report' '## Lint, and its exceptions' '## Registry knowledge'; do
	if grep -q "^$h\$" "$D/docs/style.md"; then ok "docs/style.md: ${h#\#\# }"
	else fail "docs/style.md has a section '${h#\#\# }'"; fi
done
# shellcheck disable=SC2016 # backquotes of markdown, literally
if grep -q '^- `caveat:` lines' "$D/docs/style.md"; then ok "docs/style.md: how caveats combine"
else fail "docs/style.md says how caveats combine"; fi
cited=$(cd "$D" && { git ls-files 2>/dev/null || find . -type f ! -path './.git/*'; } |
	grep -v '^tests/t_docs\.sh$' | while IFS= read -r f; do
		[ -f "$f" ] && grep -l 'STYLE\.md\|/work/shared' "$f" 2>/dev/null
	done)
expect_eq "no file cites STYLE.md or /work/shared (outside the tree)" "" "$cited"

# --- the licence: MIT, said once in LICENSE and by each source file ------
# unlicensed DIR: the source files under DIR (git's list where DIR is a
# checkout, else every file) whose first three lines carry no SPDX line.
# Data, documents and package metadata carry none.
unlicensed() {
	(cd "$1" && { git ls-files 2>/dev/null || find . -type f ! -path './.git/*' | sed 's|^\./||'; } |
		grep -Ev '\.(md|txt|dat|raw|svg|supp)$|^(\.gitignore|\.clang-tidy|LICENSE)$|^debian/(changelog|control|copyright|source/format|[a-z]*\.install)$|^(tests|bench|fuzz)/bin/|^dist/' |
		while IFS= read -r f; do
			[ -f "$f" ] || continue
			head -n 3 "$f" | grep -q 'SPDX-License-Identifier: MIT' || printf '%s\n' "$f"
		done)
}
if grep -q '^MIT License' "$D/LICENSE" 2>/dev/null &&
	grep -q 'Permission is hereby granted, free of charge' "$D/LICENSE"; then
	ok "LICENSE: the MIT licence"
else
	fail "LICENSE: the MIT licence" "no LICENSE, or not MIT's text"
fi
missing=$(unlicensed "$D")
if [ -z "$missing" ]; then ok "every source file's first lines say SPDX-License-Identifier: MIT"
else fail "every source file says SPDX-License-Identifier: MIT" "$(printf '%s\n' "$missing" | head -n 5 | tr '\n' ' ')"; fi
# The negative control: a tree with one source file lacking the line.
mkdir -p "$T_TMP/lic" && printf '/* SPDX-License-Identifier: MIT */\n' >"$T_TMP/lic/a.c" &&
	printf 'int x;\n' >"$T_TMP/lic/b.c"
expect_eq "the SPDX check finds a source file without the line" "b.c" "$(unlicensed "$T_TMP/lic")"
if grep -q '^License: MIT$' "$D/debian/copyright" && ! grep -q 'none-granted' "$D/debian/copyright"; then
	ok "debian/copyright: DEP-5, License: MIT"
else
	fail "debian/copyright: DEP-5, License: MIT" "$(grep '^License:' "$D/debian/copyright")"
fi

finish
