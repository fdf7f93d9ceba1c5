# SPDX-License-Identifier: MIT
# mitgen.awk: the build's reader of the mitigation descriptors (mit/*.def,
# docs/design.md, "Adding a mitigation").  Run at build time only:
#   awk -f tools/mitgen.awk -v template=FILE DEF...
# prints FILE with each marker line (@MIT_...@ alone on a line, indented
# or not) replaced by what the descriptors DEF..., in that order (the
# registry's, mitigations.h), say; and, anywhere in a line, @MIT_SETVARS@ by
# the shell variables their options set, @MIT_VALUE_OPTS@ by the case
# patterns of those that take a value.  What interpose runs, the man
# pages and survey.awk are made this way, so that nothing parses a
# descriptor at run time.
#
# A descriptor: '#' comments; top-level lines "KEY VALUE"; a line that
# starts with a tab belongs to the last "option" or "section" above it.
#   name NAME            its name in mitigations.h and FASTPATH_DISABLE, and
#                        the file's (NAME.def, or mit_NAME.def beside a test)
#   summary TEXT         its field of the summary line (roff)
#   sample TEXT          its field in fastpath(7)'s example line (roff)
#   report ROW FUNC      a row of the survey report and its rules function
#   option --NAME        an interpose option, then, tab-indented:
#     kind disable|flag|value   --no-NAME: adds NAME to FASTPATH_DISABLE;
#                          a flag (VAR=1); a required value (VAR=VALUE)
#     var VAR            the shell variable interpose keeps it in
#     env FASTPATH_...   the variable exported with it (none: interpose's
#                          own code exports it)
#     arg WORD           (value) the value's name in --help and the man page
#     values A B ...     (value) the words accepted; none: any non-empty
#     what TEXT          (value) what a usage error says it needs
#     synopsis by hand   interpose(1)'s SYNOPSIS writes it itself (an
#                          option that nests another); else it is listed
#     help TEXT          a line of --help (repeated)
#     man ROFF           a line of its interpose(1) entry (repeated)
#   record               its survey record's keys, as fastpath(7) lists
#                        them, in tab-indented man lines
#   variable FASTPATH_X  a variable it reads: its fastpath(7) ENVIRONMENT
#                        entry, in tab-indented man lines (repeated)
#   section TITLE        its fastpath(7) section, in tab-indented man lines

function fail(msg) {
	printf "mitgen: %s: %s\n", (where != "" ? where : FILENAME ":" FNR), msg >"/dev/stderr"
	bad = 1
	exit 1
}

FNR == 1 {
	nm++
	mfile[nm] = FILENAME
	block = ""
}
/^[ \t]*$/ || /^#/ { next }
/^\t/ {
	line = $0
	sub(/^\t+/, "", line)
	key = line
	sub(/[ \t].*/, "", key)
	val = substr(line, length(key) + 1)
	sub(/^[ \t]/, "", val)
	if (block == "option") {
		if (key == "help" || key == "man") {
			cnt = ++opt_n[no, key]
			opt[no, key, cnt] = val
		} else if (key == "kind" || key == "var" || key == "env" || key == "arg" || key == "values" || key == "what" || key == "synopsis") {
			opt[no, key] = val
		} else fail("unknown option key '" key "'")
	} else if (block == "section") {
		if (key != "man") fail("a section holds man lines only")
		sec_text[nm] = sec_text[nm] val "\n"
	} else if (block == "record") {
		if (key != "man") fail("a record holds man lines only")
		rec_text[nm] = rec_text[nm] val "\n"
	} else if (block == "variable") {
		if (key != "man") fail("a variable holds man lines only")
		var_text[nv] = var_text[nv] val "\n"
	} else fail("an indented line belongs to no option or section")
	next
}
{
	key = $1
	val = substr($0, length(key) + 1)
	sub(/^[ \t]+/, "", val)
	block = ""
	if (key == "name") {
		mname[nm] = val
		base = FILENAME
		sub(/.*\//, "", base)
		sub(/\.def$/, "", base)
		sub(/^mit_/, "", base)
		if (base != val) fail("name '" val "' in " FILENAME)
	} else if (key == "summary") {
		msummary[nm] = val
	} else if (key == "sample") {
		msample[nm] = val
	} else if (key == "report") {
		cnt = ++mreport_n[nm]
		mreport_func[nm, cnt] = $NF
		row = val
		sub(/[ \t]+[^ \t]+$/, "", row)
		mreport_row[nm, cnt] = row
	} else if (key == "option") {
		if (val !~ /^--[a-z][a-z0-9-]*$/) fail("option '" val "' is not --name")
		no++
		opt_mit[no] = nm
		opt[no, "name"] = val
		block = "option"
	} else if (key == "record") {
		if (val != "") fail("record takes no value")
		block = "record"
	} else if (key == "variable") {
		if (val !~ /^FASTPATH_[A-Z0-9_]+$/) fail("variable '" val "' is not FASTPATH_NAME")
		nv++
		var_name[nv] = val
		block = "variable"
	} else if (key == "section") {
		sec_title[nm] = val
		block = "section"
	} else fail("unknown key '" key "'")
}

function check(    i, k) {
	for (i = 1; i <= nm; i++)
		if (mname[i] == "") { where = mfile[i]; fail("no name") }
	for (i = 1; i <= no; i++) {
		k = opt[i, "kind"]
		where = mfile[opt_mit[i]]
		if (k != "disable" && k != "flag" && k != "value") fail(opt[i, "name"] ": kind '" k "'")
		if (k != "disable" && opt[i, "var"] !~ /^[a-z_][a-z0-9_]*$/) fail(opt[i, "name"] ": no var")
		if (k == "value" && (opt[i, "arg"] == "" || opt[i, "what"] == "")) fail(opt[i, "name"] ": no arg or what")
		if (k == "disable" && opt[i, "name"] != "--no-" mname[opt_mit[i]]) fail(opt[i, "name"] ": not --no-" mname[opt_mit[i]])
		if (!opt_n[i, "help"]) fail(opt[i, "name"] ": no help")
	}
}

# roff: a '-' in a name is a minus sign
function rname(s) { gsub(/-/, "\\-", s); return s }

# "a, b or c"
function either(s,    w, n, i, r) {
	n = split(s, w, " ")
	r = w[1]
	for (i = 2; i <= n; i++) r = r (i == n ? " or " : ", ") w[i]
	return r
}

function emit(what, ind,    i, j, k, o, v, s, n, pad) {
	if (what == "USAGE") {
		for (i = 1; i <= no; i++) {
			o = opt[i, "name"] (opt[i, "kind"] == "value" ? " " opt[i, "arg"] : "")
			for (j = 1; j <= opt_n[i, "help"]; j++) {
				if (j == 1) {
					pad = length(o) <= 16 ? sprintf("%-16s", o) : o
					print "  " pad "  " opt[i, "help", j]
				} else print "                    " opt[i, "help", j]
			}
		}
	} else if (what == "VARS") {
		for (i = 1; i <= no; i++)
			if (opt[i, "var"] != "") print ind opt[i, "var"] "="
	} else if (what == "PARSE") {
		# the options without a value; those with one join interpose's
		# own in one arm (VALUE_OPTS, VALUE_WHAT, VALUE_SET)
		for (i = 1; i <= no; i++) {
			k = opt[i, "kind"]
			if (k == "disable")
				print ind opt[i, "name"] ") disable=\"$disable${disable:+,}" mname[opt_mit[i]] "\" ;;"
			else if (k == "flag")
				print ind opt[i, "name"] ") " opt[i, "var"] "=1 ;;"
		}
	} else if (what == "VALUE_WHAT") {
		for (i = 1; i <= no; i++)
			if (opt[i, "kind"] == "value") print ind opt[i, "name"] ") what='" opt[i, "what"] "' ;;"
	} else if (what == "VALUE_SET") {
		for (i = 1; i <= no; i++) {
			if (opt[i, "kind"] != "value") continue
			o = opt[i, "name"]; v = opt[i, "var"]
			if (opt[i, "values"] == "") { print ind o ") " v "=$val ;;"; continue }
			s = opt[i, "values"]
			gsub(/ +/, " | ", s)
			print ind o ")"
			print ind "\tcase $val in"
			print ind "\t" s ") " v "=$val ;;"
			print ind "\t*) die \"" o " needs " either(opt[i, "values"]) ", not '$val'\" ;;"
			print ind "\tesac"
			print ind "\t;;"
		}
	} else if (what == "PUT" || what == "UV") {
		# each setting given: exported (put), or a line of the drop-in (uv)
		for (i = 1; i <= no; i++) {
			if (opt[i, "env"] == "") continue
			print ind "[ -n \"$" opt[i, "var"] "\" ] && " tolower(what) " " opt[i, "env"] \
				(opt[i, "kind"] == "flag" ? " 1" : " \"$" opt[i, "var"] "\"")
		}
	} else if (what == "SYNOPSIS") {
		for (i = 1; i <= no; i++) {
			if (opt[i, "synopsis"] == "by hand") continue
			if (opt[i, "kind"] == "value") {
				print ".RB [ " rname(opt[i, "name"])
				print ".IR " opt[i, "arg"] " ]"
			} else print ".RB [ " rname(opt[i, "name"]) " ]"
		}
	} else if (what == "MAN1") {
		for (i = 1; i <= no; i++) {
			o = rname(opt[i, "name"])
			print ".TP"
			if (opt[i, "kind"] == "value")
				print ".BI " o " \" " opt[i, "arg"] "\\fR, \" " o "= " opt[i, "arg"]
			else print ".B " o
			for (j = 1; j <= opt_n[i, "man"]; j++) print opt[i, "man", j]
			if (opt[i, "kind"] == "disable") {
				print "Adds"
				print ".B " mname[opt_mit[i]]
				print "to"
				print ".BR FASTPATH_DISABLE ."
			}
		}
	} else if (what == "DISABLE_LIST") {
		for (i = 1; i <= nm; i++) print ".BR " mname[i] " ,"
	} else if (what == "SUMMARY") {
		s = ""
		for (i = 1; i <= nm; i++)
			if (msummary[i] != "") s = s (s == "" ? "" : "; ") msummary[i]
		print "fastpath[PID]: " s
	} else if (what == "SAMPLE") {
		s = ""
		for (i = 1; i <= nm; i++)
			if (msample[i] != "") s = s (s == "" ? "" : "; ") msample[i]
		print "fastpath[1234]: " s
	} else if (what == "OFF") {
		for (i = 1; i <= nm; i++) print ".BR \"" mname[i] " off\" " (i < nm ? "," : ".")
	} else if (what == "EACH") {
		for (i = 1; i <= nm; i++)
			for (j = 1; j <= mreport_n[i]; j++)
				print ind "mitigation_said(phase, \"" mreport_row[i, j] "\", " mreport_func[i, j] "(phase))"
	} else if (what == "RECORD") {
		for (i = 1; i <= nm; i++) printf "%s", rec_text[i]
	} else if (what == "ENVIRONMENT") {
		for (i = 1; i <= nv; i++) printf ".TP\n.B %s\n%s", var_name[i], var_text[i]
	} else if (what == "SECTIONS") {
		for (i = 1; i <= nm; i++)
			if (sec_title[i] != "") printf ".SH %s\n%s", sec_title[i], sec_text[i]
	} else {
		printf "mitgen: %s: unknown marker @MIT_%s@\n", template, what >"/dev/stderr"
		bad = 1
		exit 1
	}
}

END {
	if (bad) exit 1
	if (template == "") { print "mitgen: no -v template=FILE" >"/dev/stderr"; exit 1 }
	check()
	setvars = ""
	for (oi = 1; oi <= no; oi++) if (opt[oi, "var"] != "") setvars = setvars "$" opt[oi, "var"]
	valueopts = ""
	for (oi = 1; oi <= no; oi++)
		if (opt[oi, "kind"] == "value") valueopts = valueopts opt[oi, "name"] " | " opt[oi, "name"] "=* | "
	while ((rc = (getline line <template)) > 0) {
		if (line ~ /^[ \t]*@MIT_[A-Z0-9_]+@[ \t]*$/) {
			lead = line
			sub(/@.*/, "", lead)
			marker = line
			sub(/^[ \t]*@MIT_/, "", marker)
			sub(/@.*/, "", marker)
			emit(marker, lead)
			continue
		}
		gsub(/@MIT_SETVARS@/, setvars, line)
		gsub(/@MIT_VALUE_OPTS@/, valueopts, line)
		print line
	}
	if (rc < 0) { printf "mitgen: cannot read %s\n", template >"/dev/stderr"; exit 1 }
}
