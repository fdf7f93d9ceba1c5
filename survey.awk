# SPDX-License-Identifier: MIT
# survey.awk: the survey report (interpose(1), SURVEY), from the records of
# a FASTPATH_SURVEY directory (their format is fastpath(7)'s).  Why awk, and
# how a mitigation adds its row: docs/design.md, "The survey report".
#
# POSIX awk only (mawk, gawk, illumos' nawk and /usr/xpg4/bin/awk, busybox):
# no gawk extensions, `gawk --lint` clean.  Run by interpose(1) in the
# record directory, in the C locale, as
#
#   find . ! -name . -prune -name '*.rec' <accepted> -print; echo //;
#   find . ! -name . -prune -name '*.rec' ! <accepted> -print
#
# piped into it: the records to read, a line "//", then the *.rec entries
# refused (not a small regular file owned by root or by the reporting
# user), which are counted as unreadable.  A name with a newline in it
# splits into lines; only whole "./<digits>.rec" lines are taken, and no
# file name can contain "//", so no name forges the separator.
#
# From the environment (never -v, which expands backslashes):
#   FP_SURVEY_ROOT     the surveyed command's pid; unset or 0: unknown
#   FP_SURVEY_UNIT     the systemd unit whose drop-in surveys into this
#                      directory: the suggestion is its --unit line
#   FP_SURVEY_COMMAND  a file holding the command as sh words, quoted by
#                      interpose; unset: the earliest process's name "..."
#   FP_SURVEY_ALIVE    "all": take every "running" record's process as
#                      alive, "none": as gone (tests); unset: kill -0 each
#
# Every loop here is bounded by the input (records, their lines, at most
# MAX_RECORD_LINES each) or by a constant; every value is checked for being
# a plain decimal before it is used.

BEGIN {
	MAX_RECORD_LINES = 512
	# The fork histogram: bucket i counts forks begun with 2^i threads
	# alive (2^i to 2^(i+1) - 1; the last, 256 and more).
	NBUCKETS = 9
	BUCKET_THREADS[0] = 1
	for (bucket = 1; bucket < NBUCKETS; bucket++) BUCKET_THREADS[bucket] = 2 * BUCKET_THREADS[bucket - 1]
	NQUERIES = split("sysconf get_nprocs get_nprocs_conf sched_getaffinity " \
		"pthread_getaffinity_np files", CPU_QUERY, " ")
	split("socket door pipe other", READLINK_KIND, " ")
	# Each byte's value, for escape(): in the C locale, one character
	# per byte.
	for (byte = 1; byte < 256; byte++) ORD[sprintf("%c", byte)] = byte
	root_pid = environment("FP_SURVEY_ROOT")
	root_pid = is_count(root_pid) ? root_pid + 0 : 0
	nproc = 0; nrunning = 0; unreadable = 0; in_refused = 0; top_records = 0; nuids = 0
	nnames = 0; superseded = 0
	t0 = -1; t1 = 0; first_prog = ""
	# What being loaded costs each process, fastpath.so against no
	# preload, before it does anything (issue 39; docs/benchmarks.md, "The
	# cost of being there": about 0.1 ms of CPU an exec where it was
	# measured).  FP_SURVEY_STARTUP_US sets another machine's figure.
	STARTUP_NS = environment("FP_SURVEY_STARTUP_US")
	STARTUP_NS = STARTUP_NS ~ /^[0-9]+(\.[0-9]+)?$/ ? STARTUP_NS * 1000 : 100000
	short_procs = 0
	each_mitigation("init")
}

# A setting from the environment; unset reads as "".
function environment(name) { return (name in ENVIRON) ? ENVIRON[name] : "" }

$0 == "//" { in_refused = 1; next }
!is_record_name($0) || ($0 in listed) { next }
in_refused { listed[$0] = 1; unreadable++; next }
{
	listed[$0] = 1
	name_pid = pid_of_name($0)
	if (!(name_pid in names_of)) names_of[name_pid] = 0
	record_names[++nnames] = $0
	named[name_pid, ++names_of[name_pid]] = $0
}

# The pid a record's name says: the writer names it <pid>.rec, and a
# record whose pid is not its name's is not what it says (unreadable).
function pid_of_name(name) { sub(/^.*\//, "", name); return substr(name, 1, length(name) - 4) + 0 }

# Every record listed, read once, in the order listed.  One pid in several
# names (./PID.rec and ./UID/PID.rec): a process that changed user
# (setpriv, runuser, a daemon's setuid) left the records it wrote before in
# the directory of its first user, and its later ones in its new user's
# subdirectory; the one written last (now_s) is read, the others passed
# over.
function read_all(    i, k, p, name, best, best_now) {
	for (i = 1; i <= nnames; i++) {
		p = pid_of_name(record_names[i])
		if (names_of[p] == 1) { read_one(record_names[i]); continue }
		if (p in done_pid) continue
		done_pid[p] = 1
		best = ""; best_now = -1
		for (k = 1; k <= names_of[p]; k++) {
			name = named[p, k]
			if (!read_record(name) || rec["pid"] + 0 != p) { unreadable++; continue }
			if (best != "") superseded++
			if (rec["now_s"] + 0 > best_now) { best = name; best_now = rec["now_s"] + 0 }
		}
		if (best != "") read_one(best)
	}
}

function read_one(name) {
	if (read_record(name) && rec["pid"] + 0 == pid_of_name(name)) { fold_record(); trusted_from(name) }
	else unreadable++
}

# Whose records were read: by_uid[UID] from UID's own subdirectory.
function trusted_from(name,    uid) {
	if (name !~ /^\.\/[0-9]+\//) { top_records++; return }
	uid = substr(name, 3); uid = substr(uid, 1, index(uid, "/") - 1)
	if (!(uid in by_uid)) { by_uid[uid] = 0; uids[++nuids] = uid }
	by_uid[uid]++
}

END { read_all(); report() }

# ---- reading ----------------------------------------------------------------
# ./PID.rec, or ./UID/PID.rec: a user's own subdirectory of a shared one.
function is_record_name(s) { return s ~ /^\.\/([0-9]+\/)?[0-9]+\.rec$/ && length(s) <= 52 }
# A count: at most 20 digits (2^64 has 20).  Seconds: such a count, a
# point and up to 9 more digits.  No sign, exponent, nan or inf.
function is_count(s) { return s ~ /^[0-9]+$/ && length(s) <= 20 }
function is_seconds(s) {
	return s ~ /^[0-9]+(\.[0-9]+)?$/ && (index(s, ".") ? index(s, ".") <= 21 && length(s) <= 30 : length(s) <= 20)
}

# read_record(NAME): the record in rec[key]; false for a record that is
# incomplete (no "end"), too long, of another version, with a value that is
# not a plain decimal (nan, -1, 1e9, text), or missing what every record
# has.  A file gone or unreadable since it was listed reads as nothing.
function read_record(name,    got, lines, complete, line, f, nf) {
	split("", rec)
	lines = 0; complete = 0
	# Into a variable, not $0: the chosen records are read again in END.
	while ((got = (getline line < name)) > 0) {
		if (++lines > MAX_RECORD_LINES) break
		if (lines == 1) {
			if (line != "fastpath-survey 1") break
			continue
		}
		nf = split(line, f)
		# A name is whatever the file was called: spaces, nothing
		# (escaped when shown); the record still counts.
		if (f[1] == "prog") { rec["prog"] = nf > 1 ? substr(line, 6) : "?"; continue }
		if (nf != 2) break
		if (f[1] == "end") { complete = 1; break }
		if (f[1] != "state" && !is_seconds(f[2])) break
		rec[f[1]] = f[2]
	}
	if (got >= 0) close(name)
	return complete && got > 0 && record_is_whole()
}

function record_is_whole() {
	return ("pid" in rec) && ("ppid" in rec) && ("prog" in rec) && ("state" in rec) &&
		("start_s" in rec) && ("now_s" in rec) &&
		is_count(rec["pid"]) && rec["pid"] > 0 && !((rec["pid"] + 0) in proc_of_pid) &&
		is_count(rec["ppid"]) &&
		(rec["state"] == "running" || rec["state"] == "exited") &&
		is_seconds(rec["start_s"]) && is_seconds(rec["now_s"])
}

# A counter of this record; a key it lacks counts 0.
function key(k) { return (k in rec) ? rec[k] + 0 : 0 }

# ---- one record into the totals --------------------------------------------
function fold_record(    p, start, now) {
	p = rec["pid"] + 0
	nproc++
	proc_of_pid[p] = nproc
	proc_pid[nproc] = p
	proc_ppid[nproc] = rec["ppid"] + 0
	proc_prog[nproc] = escape(rec["prog"])
	if (!(proc_ppid[nproc] in children_recorded)) children_recorded[proc_ppid[nproc]] = 0
	children_recorded[proc_ppid[nproc]]++
	# Children it was seen to start: forks (fork(2)), spawns (posix_spawn,
	# system, popen, _Fork), and vfork children, which count
	# themselves in the memory they share with it.
	proc_started[nproc] = key("cpus.forks") + key("spawns") + key("vforks")
	if (rec["state"] == "running") running_pid[++nrunning] = p
	start = rec["start_s"] * 1e9; now = rec["now_s"] * 1e9
	# Short: its start-up is 1% of its life or more.
	if (rec["state"] == "exited" && now - start < 100 * STARTUP_NS) short_procs++
	if (t0 < 0 || start < t0) { t0 = start; first_prog = rec["prog"] }
	if (now > t1) t1 = now
	top_ns = 0; top_what = ""
	each_mitigation("fold")
	proc_top_ns[nproc] = top_ns
	proc_top_what[nproc] = top_what
}

# ---- the registry: one line per mitigation, in the report's order ---------
# Each NAME_rules(phase) is that mitigation's whole part of the report:
#   "init"     its totals zeroed (before the first record)
#   "fold"     this record (rec[]) into its totals; returns the native time
#              the record spent in its calls (the "top processes" list)
#   "derive"   once all records are in: what its row and suggestion need
#   "row"      prints its row
#   "suggest"  adds its reason, option, note or caveat (add_reason & co.)
function each_mitigation(phase) {
	mitigation_said(phase, "readlink", readlink_rules(phase))
	mitigation_said(phase, "urandom", urandom_rules(phase))
	mitigation_said(phase, "getrandom", getrandom_rules(phase))
	mitigation_said(phase, "cpus (fork)", cpus_rules(phase))
}

function mitigation_said(phase, name, ns) {
	if (phase == "fold" && ns > top_ns) { top_ns = ns; top_what = name }
}

# ---- helpers -----------------------------------------------------------------
function ms(ns) { return sprintf("%.1f ms", ns / 1e6) }
function us(ns) { return sprintf("%.1f us", ns / 1e3) }
function share_of_run(ns) { return wall_ns > 0 ? sprintf("%.1f%%", 100 * ns / wall_ns) : "-" }
function mean(total, count) { return count > 0 ? total / count : 0 }
# Worth suggesting: 100 ms, or 1% of the run.
function worth(ns) { return ns >= 100e6 || (wall_ns > 0 && ns >= 0.01 * wall_ns) }
# A row of no calls, no time: one line for all of them (zero_rows).
function row(name, calls, ns, saved, basis) {
	if (!calls && !ns) { zero_rows = zero_rows (zero_rows == "" ? "" : ", ") name; return }
	printf "%-10s %8d calls  %10s native  %7s of the run  saves ~%s (%s)\n", \
		name, calls, ms(ns), share_of_run(ns), ms(saved), basis
}
# A reason, and the saving it claims (ns): the suggestion weighs them all
# against the start-up it costs (startup_row).
function add_reason(text, ns) { reasons = reasons (reasons == "" ? "" : "; ") text; reasons_saved += ns }
function add_note(text) { notes = notes (notes == "" ? "" : "\n") "note: " text }
function add_option(text) { options = options " " text }
function add_caveat(text) { caveat = caveat (caveat == "" ? "" : "\n") "caveat: " text }

# ---- what reaches the reader's terminal ----------------------------------------
# Every name and argument printed goes through escape(): no byte of a
# control (C0, DEL, C1 raw or as UTF-8) or of invalid UTF-8 is printed as
# itself, so no record, name or argument can move the reader's cursor,
# retitle the window or forge a line.
#
# shown_len(S, I): how many bytes at I make one character a terminal shows
# as itself (printable ASCII, or a whole UTF-8 sequence that is not C1,
# overlong, a surrogate or past U+10FFFF); 0: the byte is to be escaped.
function shown_len(s, i,    c, len, lo, hi, k, d) {
	c = ORD[substr(s, i, 1)]
	if (c >= 32 && c < 127) return 1
	if (c < 194 || c > 244) return 0
	len = c < 224 ? 2 : c < 240 ? 3 : 4
	lo = 128; hi = 191
	if (c == 194 || c == 224) lo = 160
	else if (c == 237) hi = 159
	else if (c == 240) lo = 144
	else if (c == 244) hi = 143
	if (i + len - 1 > length(s)) return 0
	d = ORD[substr(s, i + 1, 1)]
	if (d < lo || d > hi) return 0
	for (k = 2; k < len; k++) {
		d = ORD[substr(s, i + k, 1)]
		if (d < 128 || d > 191) return 0
	}
	return len
}

function octal(c) { return sprintf("\\%03o", ORD[c]) }

# escape(S): S to show, each escaped byte as \ooo.
function escape(s,    out, i, n, k) {
	if (s !~ /[^ -~]/) return s
	out = ""; n = length(s)
	for (i = 1; i <= n; i += k) {
		k = shown_len(s, i)
		out = out (k ? substr(s, i, k) : octal(substr(s, i, 1)))
		if (!k) k = 1
	}
	return out
}

# sh_quote(S): one word of sh that pasted into a POSIX shell gives back S
# exactly: as it is when it holds only characters no shell treats
# specially; else runs of shown characters in single quotes (each ' as
# '\''), and escaped bytes as "$(printf '\ooo...')".  $() drops trailing
# newlines: a run that ends in one takes the next byte too, and newlines
# that end the word stay themselves, in quotes (the line after them then
# starts with a quote, and forges no line of the report).
function sh_quote(s,    out, i, n, k, lit, pr) {
	if (s != "" && s !~ /[^A-Za-z0-9_.\/:=,+@%-]/) return s
	out = ""; lit = ""; pr = ""; n = length(s)
	for (i = 1; i <= n; i += k) {
		k = shown_len(s, i)
		if (k && pr !~ /\\012$/) {
			if (pr != "") { out = out "\"$(printf '" pr "')\""; pr = "" }
			lit = lit substr(s, i, k)
			continue
		}
		k = 1
		if (lit != "") { out = out single_quoted(lit); lit = "" }
		if (substr(s, i) ~ /^\n+$/ && pr !~ /\\012$/) { lit = substr(s, i); break }
		pr = pr octal(substr(s, i, 1))
	}
	if (pr != "") out = out "\"$(printf '" pr "')\""
	if (lit != "" || out == "") out = out single_quoted(lit)
	return out
}

function single_quoted(s,    out) {
	out = ""
	while (match(s, /'/)) {
		out = out substr(s, 1, RSTART - 1) "'\\''"
		s = substr(s, RSTART + 1)
	}
	return "'" out s "'"
}

# sh_words(TEXT, WORDS): the words of TEXT as interpose's quote_words
# wrote them (plain, '...' or \', one space between) into WORDS[1..n]; n.
function sh_words(text, words,    n, i, c, w, inword, q, len) {
	n = 0; w = ""; inword = 0; q = 0; len = length(text)
	for (i = 1; i <= len; i++) {
		c = substr(text, i, 1)
		if (q) { if (c == "'") q = 0; else w = w c; continue }
		if (c == "'") { q = 1; inword = 1; continue }
		if (c == "\\") { w = w substr(text, ++i, 1); inword = 1; continue }
		if (c == " ") { if (inword) words[++n] = w; w = ""; inword = 0; continue }
		w = w c; inword = 1
	}
	if (inword) words[++n] = w
	return n
}

# ---- readlink -----------------------------------------------------------------
function readlink_rules(phase,    k) {
	if (phase == "init") {
		readlink_calls = readlink_ns = readlink_short = readlink_short_ns = 0
		readlink_stat = readlink_stat_ns = readlink_stat_each = readlink_saved = 0
		for (k = 1; k <= 4; k++) readlink_kind_calls[k] = 0
	}
	if (phase == "fold") return readlink_fold()
	if (phase == "derive") readlink_derive()
	else if (phase == "row") readlink_row()
	else if (phase == "suggest") readlink_suggest()
	return 0
}

function readlink_fold(    k) {
	for (k = 1; k <= 4; k++) {
		readlink_kind_calls[k] += key("readlink." READLINK_KIND[k])
		readlink_calls += key("readlink." READLINK_KIND[k])
	}
	readlink_ns += key("readlink.ns")
	readlink_short += key("readlink.short"); readlink_short_ns += key("readlink.short_ns")
	readlink_stat += key("readlink.stat"); readlink_stat_ns += key("readlink.stat_ns")
	return key("readlink.ns")
}

# The saving: each short-circuited call's native time less the stat that
# answers it instead.
function readlink_derive() {
	readlink_stat_each = mean(readlink_stat_ns, readlink_stat)
	readlink_saved = readlink_short_ns - readlink_short * readlink_stat_each
	if (readlink_saved < 0) readlink_saved = 0
}

function readlink_row() {
	row("readlink", readlink_calls, readlink_ns, readlink_saved, \
		sprintf("%d of them answered from a stat of %s instead of %s each; socket %d, door %d, pipe %d, other %d", \
		readlink_short, us(readlink_stat_each), readlink_short ? us(readlink_short_ns / readlink_short) : "-", \
		readlink_kind_calls[1], readlink_kind_calls[2], readlink_kind_calls[3], readlink_kind_calls[4]))
}

function readlink_suggest() {
	if (worth(readlink_saved) && readlink_short)
		add_reason(sprintf("readlink would save ~%s (%s of the run)", ms(readlink_saved), share_of_run(readlink_saved)), readlink_saved)
}

# ---- urandom ------------------------------------------------------------------
function urandom_rules(phase) {
	if (phase == "init")
		urandom_calls = urandom_ns = urandom_opens_cloexec = urandom_opens = urandom_small_reads = \
			urandom_big_reads = urandom_closes = urandom_reserve_saved = urandom_exact_saved = \
			urandom_dup_close_ns = urandom_dup_fallback = urandom_source = \
			urandom_refused = urandom_refused_read_ns = urandom_nopool = urandom_nopool_saved = \
			urandom_nopool_said = urandom_killed = 0
	if (phase == "fold") return urandom_fold()
	if (phase == "row") urandom_row()
	else if (phase == "suggest") urandom_suggest()
	return 0
}

# Reserve mode answers every call the pool takes; exact mode (the default)
# keeps a duplicate and its close per open, timed in the process
# (dup_close_ns), else counted at a native close each for both (a record
# from before that key).
function urandom_fold(    opens, reads, pooled_ns, closes, close_ns, dup_close, exact_saved) {
	opens = key("urandom.open_cloexec") + key("urandom.open_plain")
	reads = key("urandom.read_le16") + key("urandom.read_le64") + key("urandom.read_le256") + \
		key("urandom.read_le4096")
	closes = key("urandom.close"); close_ns = key("urandom.close_ns")
	urandom_calls += opens + reads + key("urandom.read_big") + closes
	urandom_ns += key("urandom.open_ns") + key("urandom.read_ns") + key("urandom.read_big_ns") + close_ns
	urandom_opens_cloexec += key("urandom.open_cloexec"); urandom_opens += opens
	urandom_small_reads += reads; urandom_big_reads += key("urandom.read_big")
	urandom_closes += closes
	# urandom.source (1 vdso, 2 kernel, 3 reservoir): from the kernel,
	# reads stay system calls and save nothing.
	if (key("urandom.source")) urandom_source = key("urandom.source")
	# getrandom.refused (1 ENOSYS, 2 EPERM): a filter refuses getrandom,
	# so the default source is the kernel's read; the reservoir would
	# save those reads too (urandom_suggest).
	# 3: the filter kills on getrandom; every source but the kernel's
	# read would call it (urandom_suggest).
	if (key("getrandom.refused") == 3) urandom_killed = 1
	if (key("getrandom.refused") == 1 || key("getrandom.refused") == 2) {
		urandom_refused = key("getrandom.refused")
		if (key("urandom.source") == 2 && key("urandom.exact_pools") < 2)
			urandom_refused_read_ns += key("urandom.read_ns")
	}
	pooled_ns = key("urandom.open_ns") + (key("urandom.source") == 2 ? 0 : key("urandom.read_ns")) + close_ns
	urandom_reserve_saved += pooled_ns
	dup_close = key("urandom.dup_close_ns")
	# A kernel without F_DUPFD_CLOEXEC: the duplicate is two calls.
	if (key("urandom.dup_fallback")) urandom_dup_fallback = 1
	if (dup_close > 0) {
		exact_saved = pooled_ns - opens * dup_close
		if (!urandom_dup_close_ns || dup_close < urandom_dup_close_ns) urandom_dup_close_ns = dup_close
	} else {
		exact_saved = pooled_ns - close_ns - mean(close_ns, closes) * opens
	}
	# urandom.exact_pools 2 (the soft descriptor limit is the hard one,
	# no CAP_SYS_RESOURCE) or 3 (it is 16382 or more): exact mode's opens
	# would be real there and save nothing; what they would save under a
	# lower soft limit is kept apart, for the note (urandom_suggest).
	if (key("urandom.exact_pools") >= 2) {
		urandom_nopool = key("urandom.exact_pools")
		urandom_nofile_soft = key("urandom.nofile_soft"); urandom_nofile_hard = key("urandom.nofile_hard")
		if (exact_saved > 0) urandom_nopool_saved += exact_saved
		exact_saved = 0
	}
	if (exact_saved > 0) urandom_exact_saved += exact_saved
	return key("urandom.open_ns") + key("urandom.read_ns") + key("urandom.read_big_ns") + close_ns
}

# One sentence: what the saving counts, and the reserve mode's beside it.
function urandom_row() {
	row("urandom", urandom_calls, urandom_ns, urandom_exact_saved, \
		sprintf("%d opens, %d reads <= 4096 B%s, %d closes, less exact mode's dup and close per open (%s%s)%s; --urandom=reserve ~%s", \
		urandom_opens, urandom_small_reads, \
		urandom_source == 1 ? " (reads served by vdso)" : urandom_source == 2 ? " (reads served by kernel: not saved" \
		(urandom_refused ? ", getrandom refused (" refused_name() ")" : "") ")" : \
		urandom_source == 3 ? " (reads served by reservoir)" : "", urandom_closes, \
		urandom_dup_close_ns ? us(urandom_dup_close_ns) : "as a close twice", \
		urandom_dup_fallback ? ", by F_DUPFD then F_SETFD: no F_DUPFD_CLOEXEC here" : "", \
		urandom_big_reads ? sprintf("; %d larger reads stay", urandom_big_reads) : "", \
		ms(urandom_reserve_saved)))
}

# Why exact mode cannot pool, with the limits as the last such record had
# them (RLIM_INFINITY recorded as the largest unsigned long).
function nopool_why() {
	return urandom_nopool == 2 ? \
		sprintf("the soft descriptor limit is the hard one (%s) and there is no CAP_SYS_RESOURCE", nofile(urandom_nofile_hard)) : \
		sprintf("the soft descriptor limit is 16382 or more (%s; hard %s)", nofile(urandom_nofile_soft), nofile(urandom_nofile_hard))
}
function nofile(n) { return n >= 4294967295 ? "unlimited" : sprintf("%d", n) }

function refused_name() { return urandom_refused == 2 ? "EPERM" : "ENOSYS" }

# The suggested command keeps the default exact mode: its saving is the one
# quoted; reserve mode changes what a closed number shows, so it is named
# for the operator to choose, never suggested.  Where getrandom is refused
# (old container seccomp profiles: where libuuid opens the device per
# UUID), the default source is the kernel's read and saves no read: the
# suggestion is then the fastest command, with the reservoir source, and
# its caveat on the line above, so the operator chooses knowingly.
function urandom_suggest() {
	if (!urandom_calls) return
	# A filter that kills on getrandom: the vdso source and the reservoir
	# would call it, and end the program; the kernel's read never does.
	if (urandom_killed) {
		if (worth(urandom_exact_saved)) {
			add_reason(sprintf("urandom would save ~%s (%s of the run) with --urandom-source=kernel; a seccomp filter kills on getrandom here, which the other sources would call", \
				ms(urandom_exact_saved), share_of_run(urandom_exact_saved)), urandom_exact_saved)
			add_option("--urandom-source=kernel")
		}
		return
	}
	if (urandom_refused && urandom_refused_read_ns > 0 && worth(urandom_exact_saved + urandom_refused_read_ns)) {
		add_reason(sprintf("urandom would save ~%s (%s of the run) with --urandom-source=reservoir; getrandom is refused here (%s), so the default source is the kernel's read, which would save ~%s (~%s with --urandom=reserve)", \
			ms(urandom_exact_saved + urandom_refused_read_ns), share_of_run(urandom_exact_saved + urandom_refused_read_ns), \
			refused_name(), ms(urandom_exact_saved), ms(urandom_reserve_saved)), urandom_exact_saved + urandom_refused_read_ns)
		add_option("--urandom-source=reservoir")
		add_caveat("--urandom-source=reservoir serves the device's reads from a 64 KiB user-space buffer, which cannot see a VM snapshot being restored: clones of one snapshot serve the same bytes until their next refill; not for VMs that are snapshotted or cloned (fastpath(7))")
		return
	}
	# Where exact mode cannot pool (urandom.exact_pools), it would save
	# nothing: say why, and what would let it, rather than suggest it.
	urandom_nopool_said = urandom_nopool && (worth(urandom_nopool_saved) || worth(urandom_reserve_saved))
	if (urandom_nopool_said)
		add_note(sprintf("urandom: exact mode cannot pool here: %s, so its opens would be real and save nothing; a soft limit below the hard one and below 16382 (ulimit -Sn 1024 before the command, if it needs no more descriptors) would let it save ~%s; --urandom=reserve would save ~%s as it is, but a closed descriptor then stays open (fastpath(7))", \
			nopool_why(), ms(urandom_nopool_saved + urandom_exact_saved), ms(urandom_reserve_saved)))
	if (worth(urandom_exact_saved))
		add_reason(sprintf("urandom would save ~%s (%s of the run; ~%s with --urandom=reserve)", \
			ms(urandom_exact_saved), share_of_run(urandom_exact_saved), ms(urandom_reserve_saved)), urandom_exact_saved)
	else if (!urandom_nopool && worth(urandom_reserve_saved))
		add_note(sprintf("urandom: exact mode would save only ~%s; --urandom=reserve would save ~%s, but a closed descriptor then stays open (fastpath(7))", \
			ms(urandom_exact_saved), ms(urandom_reserve_saved)))
}

# ---- getrandom ----------------------------------------------------------------
function getrandom_rules(phase) {
	if (phase == "init") getrandom_calls = getrandom_ns = getrandom_sc = getrandom_sc_ns = 0
	if (phase == "fold") return getrandom_fold()
	if (phase == "row") getrandom_row()
	else if (phase == "suggest") getrandom_suggest()
	return 0
}

# getrandom.syscall: the small calls made through syscall(2) (PHP's
# random_bytes), which the preload sees but --getrandom does not serve:
# counted and timed in the row, never in its saving.
function getrandom_fold() {
	getrandom_calls += key("getrandom.calls")
	getrandom_ns += key("getrandom.ns")
	getrandom_sc += key("getrandom.syscall")
	getrandom_sc_ns += key("getrandom.syscall_ns")
	return key("getrandom.ns") + key("getrandom.syscall_ns")
}

function getrandom_row() {
	row("getrandom", getrandom_calls + getrandom_sc, getrandom_ns + getrandom_sc_ns, getrandom_ns, \
		"kernel time of the small calls, served from the pool only with --getrandom" \
		(getrandom_sc ? sprintf("; %d made by syscall(2), which it does not serve", getrandom_sc) : ""))
}

function getrandom_suggest() {
	if (!worth(getrandom_ns) || !getrandom_calls) return
	# Refused by a filter: refused under --getrandom too, as natively.
	if (urandom_refused) {
		add_note(sprintf("getrandom is refused here (%s): --getrandom would serve none of its %d calls", refused_name(), getrandom_calls))
		return
	}
	add_reason(sprintf("getrandom would save ~%s (%s of the run)", ms(getrandom_ns), share_of_run(getrandom_ns)), getrandom_ns)
	add_option("--getrandom")
	add_caveat("--getrandom serves getrandom() from a user-space pool, which cannot see a VM snapshot being restored: not for VMs that are snapshotted or cloned")
}

# ---- cpus ---------------------------------------------------------------------
function cpus_rules(phase) {
	if (phase == "init") cpus_init()
	if (phase == "fold") return cpus_fold()
	if (phase == "derive") { cpus_find_pool(); cpus_fork_growth() }
	else if (phase == "row") cpus_row()
	else if (phase == "suggest") cpus_suggest()
	return 0
}

function bucket_threads(i) { return BUCKET_THREADS[i] }
function bucket_label(i) { return i == NBUCKETS - 1 ? "256+" : (i == 0 ? "1" : bucket_threads(i) "-" (2 * bucket_threads(i) - 1)) }

function cpus_init(    i) {
	cpus_queries = cpus_threads = cpus_threads_max = cpus_forks = cpus_fork_ns = 0
	pool_size = pool_asker = 0; pool_maker = ""
	fork_grows = cpus_saved = 0; cap_bucket = cpus_low = cpus_high = -1
	for (i = 1; i <= NQUERIES; i++) cpus_query_calls[i] = cpus_query_answer[i] = 0
	for (i = 0; i < NBUCKETS; i++) fork_count[i] = fork_ns[i] = 0
}

function cpus_fold(    i, q, asked, answer, most, ppid) {
	asked = 0
	proc_cpu_answer[nproc] = 0; proc_cpu_query[nproc] = ""
	for (i = 1; i <= NQUERIES; i++) {
		q = key("cpus.q_" CPU_QUERY[i]); answer = key("cpus.a_" CPU_QUERY[i])
		asked += q
		cpus_query_calls[i] += q
		if (answer > cpus_query_answer[i]) cpus_query_answer[i] = answer
		if (q && answer > proc_cpu_answer[nproc]) {
			proc_cpu_answer[nproc] = answer
			proc_cpu_query[nproc] = CPU_QUERY[i]
		}
	}
	cpus_queries += asked
	proc_threads[nproc] = key("cpus.threads")
	cpus_threads += key("cpus.threads")
	most = key("cpus.threads_max")
	if (most > cpus_threads_max) cpus_threads_max = most
	# A pool's threads, siblings and parents: see cpus_find_pool.
	ppid = proc_ppid[nproc]
	if (!(ppid in children_threads) || key("cpus.threads") > children_threads[ppid])
		children_threads[ppid] = key("cpus.threads")
	cpus_forks += key("cpus.forks")
	cpus_fork_ns += key("cpus.fork_ns")
	for (i = 0; i < NBUCKETS; i++) {
		fork_count[i] += key("cpus.fork_t" bucket_threads(i))
		fork_ns[i] += key("cpus.fork_t" bucket_threads(i) "_ns")
	}
	return key("cpus.fork_ns") / (most > 1 ? most - 1 : 1)
}

# A pool sized from the CPU count: a process was told N CPUs (N > 1), and
# at least N threads were made in it, in its parent, or in a sibling (a
# process of the same parent): a shell's $(getconf _NPROCESSORS_ONLN)
# handed to the program it starts.  The largest such N is the pool.
function cpus_find_pool(    i, n, parent, threads, maker) {
	pool_size = 0; pool_asker_made = 0
	for (i = 1; i <= nproc; i++) {
		n = proc_cpu_answer[i]
		# Of askers told the same count, the one that made the threads
		# itself (a program that also ran nproc asked for its own pool).
		if (n <= 1 || n < pool_size || (n == pool_size && (pool_asker_made || proc_threads[i] < n))) continue
		parent = (proc_ppid[i] in proc_of_pid) ? proc_of_pid[proc_ppid[i]] : 0
		threads = proc_threads[i]; maker = i
		if (parent && proc_threads[parent] > threads) { threads = proc_threads[parent]; maker = parent }
		if (children_threads[proc_ppid[i]] > threads) { threads = children_threads[proc_ppid[i]]; maker = 0 }
		if (threads < n) continue
		pool_size = n
		pool_asker = i
		pool_asker_made = proc_threads[i] >= n
		pool_maker = maker ? proc_prog[maker] : sibling_with_threads(proc_ppid[i], threads)
	}
}

function sibling_with_threads(ppid, threads,    i) {
	for (i = 1; i <= nproc; i++)
		if (proc_ppid[i] == ppid && proc_threads[i] == threads) return proc_prog[i]
	return "?"
}

# Fork time against live threads: grows when the forks made with the most
# threads alive (a bucket seen twice) took at least twice those made with
# the fewest.  Capped at K, the most threads at which fork was seen within
# 2x of the fewest, the later forks would have cost what those did.  Forks
# of a pool overlap: its threads wait in fork side by side, so the time
# saved is per worker (wall time), not the sum over them.
function cpus_fork_growth(    i, low, high, cheap, workers) {
	low = -1; high = -1
	for (i = 0; i < NBUCKETS; i++) {
		if (fork_count[i] && low < 0) low = i
		if (fork_count[i] >= 2) high = i
	}
	fork_grows = 0; cap_bucket = -1; cpus_saved = 0
	cpus_low = low; cpus_high = high
	if (low < 0 || high <= low) return
	cheap = mean(fork_ns[low], fork_count[low])
	if (cheap <= 0 || mean(fork_ns[high], fork_count[high]) < 2 * cheap) return
	fork_grows = 1
	cap_bucket = low
	for (i = low + 1; i < NBUCKETS; i++) {
		if (!fork_count[i]) continue
		if (mean(fork_ns[i], fork_count[i]) >= 2 * cheap) break
		cap_bucket = i
	}
	for (i = cap_bucket + 1; i < NBUCKETS; i++)
		if (fork_count[i]) cpus_saved += fork_count[i] * (mean(fork_ns[i], fork_count[i]) - cheap)
	workers = cpus_threads_max > 1 ? cpus_threads_max - 1 : 1
	cpus_saved /= workers
	if (cpus_saved > wall_ns) cpus_saved = wall_ns
}

function cpus_row(    i, asked, workers) {
	asked = ""
	for (i = 1; i <= NQUERIES; i++)
		if (cpus_query_calls[i])
			asked = asked sprintf("%s%s x%d -> %d", asked == "" ? "" : ", ", CPU_QUERY[i], \
				cpus_query_calls[i], cpus_query_answer[i])
	workers = cpus_threads_max > 1 ? cpus_threads_max - 1 : 1
	row("cpus", cpus_queries, cpus_fork_ns / workers, cpus_saved, \
		sprintf("its time is fork's, per worker; queries: %s; %d threads made, %d alive at most; %d forks", \
		asked == "" ? "none" : asked, cpus_threads, cpus_threads_max, cpus_forks))
	if (!cpus_forks) return
	print "  fork time by threads alive when it began:"
	for (i = 0; i < NBUCKETS; i++)
		if (fork_count[i])
			printf "    %-8s %6d forks  mean %s\n", bucket_label(i), fork_count[i], ms(mean(fork_ns[i], fork_count[i]))
}

# Who was told the count, and who made the pool, when they differ.
function pool_origin() {
	if (proc_threads[pool_asker] >= pool_size) return ""
	return sprintf(" (%s asked %s, %s made the threads)", proc_prog[pool_asker], \
		proc_cpu_query[pool_asker], pool_maker)
}

function cpus_suggest(    cap) {
	if (!pool_size) return
	cap = fork_grows ? bucket_threads(cap_bucket) : 0
	# A cap at or above the count the program saw changes nothing: fork
	# time grew with something else (the heap), not with this pool.
	if (fork_grows && cap >= pool_size) {
		if (worth(cpus_saved))
			add_note(sprintf("fork time grew, but not with the pool of %d sized from the CPU count: no --cpus", pool_size))
		return
	}
	if (fork_grows && worth(cpus_saved)) {
		add_reason(sprintf("the program sized a pool of %d from the CPU count%s, and fork took %s with %s threads alive but %s with %s: capped at %d (the most threads at which fork was seen within 2x of that), it would save ~%s", \
			pool_size, pool_origin(), ms(mean(fork_ns[cpus_low], fork_count[cpus_low])), bucket_label(cpus_low), \
			ms(mean(fork_ns[cpus_high], fork_count[cpus_high])), bucket_label(cpus_high), cap, ms(cpus_saved)), cpus_saved)
		add_option("--cpus " cap)
	} else if (cpus_forks && !fork_grows) {
		add_note(sprintf("the program sized a pool of %d from the CPU count%s, but fork time did not grow with live threads here: no --cpus", \
			pool_size, pool_origin()))
	}
}

# ---- processes ----------------------------------------------------------------
# Left no record: each recorded process's children seen started less those
# that left a record, the command itself if it left none, and the records
# still "running" whose process is gone.  Exact unless a process has more
# recorded children than it was seen to start (a start the survey cannot
# see: vfork from a program without our exec wrappers, a raw clone, children
# of an image that was then replaced by exec), or a record's parent is
# neither recorded nor the command: then a lower bound, and said so.
function count_processes(    i, p, kids) {
	missing = 0; missing_exact = 1
	for (i = 1; i <= nproc; i++) {
		p = proc_pid[i]
		kids = (p in children_recorded) ? children_recorded[p] : 0
		if (proc_started[i] > kids) missing += proc_started[i] - kids
		else if (kids > proc_started[i]) missing_exact = 0
		if (root_pid > 0 && p != root_pid && !(proc_ppid[i] in proc_of_pid) && proc_ppid[i] != root_pid)
			missing_exact = 0
	}
	if (root_pid > 0 && !(root_pid in proc_of_pid)) missing++
	still_running = 0
	mark_gone_processes()
	outlived = ""
	for (i = 1; i <= nrunning; i++)
		if (running_pid[i] in gone) missing++
		else if (++still_running <= 5)
			outlived = outlived (outlived == "" ? "" : ", ") running_pid[i] " " proc_prog[proc_of_pid[running_pid[i]]]
	if (still_running > 5) outlived = outlived ", ..."
}

# Under --survey, processes that outlived the command (a daemon it
# started) are named, and what they go on doing is said: interpose removes
# the directory after this report, and they keep the preload in survey
# mode, writing records nowhere, until they end.
function note_outlived() {
	if (!still_running || environment("FP_SURVEY_COMMAND") == "") return
	add_note(sprintf("still running after the command ended: %s; surveyed until they end, their later records lost (survey a daemon through its environment: interpose(1), SERVICES)", \
		outlived))
}

# gone[pid] for each "running" record whose process is gone: kill -0, in
# batches of 200 pids per shell (pids are checked digits).
function mark_gone_processes(    how, i, j, cmd, pid) {
	how = environment("FP_SURVEY_ALIVE")
	for (i = 1; i <= nrunning; i += 200) {
		if (how == "all") continue
		if (how == "none") {
			for (j = i; j <= nrunning && j < i + 200; j++) gone[running_pid[j]] = 1
			continue
		}
		cmd = "for p in"
		for (j = i; j <= nrunning && j < i + 200; j++) cmd = cmd " " running_pid[j]
		cmd = cmd "; do kill -0 $p 2>/dev/null || [ -d /proc/$p ] || echo $p; done"
		while ((cmd | getline pid) > 0) gone[pid + 0] = 1
		close(cmd)
	}
}

# ---- the report ----------------------------------------------------------------
function report(    i) {
	if (!nproc) { no_records(); exit 3 }
	wall_ns = t1 > t0 && t0 >= 0 ? t1 - t0 : 0
	count_processes()
	each_mitigation("derive")
	printf "fastpath survey of: %s\n", surveyed_command()
	printf "processes: %d recorded, ", nproc
	if (missing_exact) printf "%d left no record", missing
	else if (missing) printf "at least %d left no record", missing
	else printf "none seen to leave no record (some starts were not seen)"
	if (still_running) printf ", %d still running", still_running
	printf "; wall time %s\n", ms(wall_ns)
	if (unreadable) printf "(%d unreadable record(s) ignored)\n", unreadable
	if (superseded) printf "(%d earlier record(s) of a process that changed user passed over: its last one is read)\n", superseded
	if (nuids) {
		printf "records read: %d in the directory (root's or the reader's)", top_records
		for (i = 1; i <= nuids; i++)
			printf ", %d of uid %s (its own subdirectory, owned by it)", by_uid[uids[i]], uids[i]
		print ""
	}
	print ""
	zero_rows = ""
	each_mitigation("row")
	if (zero_rows != "") print zero_rows ": no calls"
	startup_row()
	print ""
	top_processes()
	print ""
	suggest()
}

# What fastpath.so costs by being loaded, in every process recorded or
# missed: a cost, never a saving, that a workload of short processes pays
# most of (those whose start-up is 1% of their life or more, counted).
function startup_row(    n) {
	n = nproc + missing
	startup_ns = n * STARTUP_NS
	printf "%-10s %8d procs  %10s added   %7s of the run  (~%s each, loading fastpath.so; %d of them lived under %s)\n", \
		"start-up", n, ms(startup_ns), share_of_run(startup_ns), us(STARTUP_NS), short_procs, ms(100 * STARTUP_NS)
}

function top_processes(    j, i, best, chosen) {
	print "top processes:"
	for (j = 1; j <= 5; j++) {
		best = -1; chosen = 0
		for (i = 1; i <= nproc; i++)
			if (!(i in shown) && proc_top_ns[i] > best) { best = proc_top_ns[i]; chosen = i }
		if (!chosen || (best == 0 && j > 1)) break
		shown[chosen] = 1
		printf "  %7d %-16s %s %s\n", proc_pid[chosen], proc_prog[chosen], \
			best ? proc_top_what[chosen] : "-", best ? ms(best) : ""
	}
}

# The command, as interpose quoted it, each word quoted again by sh_quote
# (sh words, which pasted into a POSIX shell give back its argument vector,
# whatever its bytes, and show no control byte), else the name of the
# earliest process, quoted, and "...".
function surveyed_command(    file, line, text, got, lines, words, n, i, out) {
	file = environment("FP_SURVEY_COMMAND")
	if (file != "") {
		text = ""; lines = 0
		while ((got = (getline line < file)) > 0)
			text = text (lines++ ? "\n" : "") line
		close(file)
		n = got == 0 ? sh_words(text, words) : 0
		out = ""
		for (i = 1; i <= n; i++) out = out (i > 1 ? " " : "") sh_quote(words[i])
		if (n) return out
	}
	return first_prog == "" ? "..." : sh_quote(first_prog) " ..."
}

# No record read: no report to make.  One line, not rows of zeros ending
# "nothing to mitigate", which would read as a program that needs nothing;
# the exit status (3) tells it to a script (interpose(1), EXIT STATUS).
function no_records(    why) {
	why = unreadable ? sprintf("; %d unreadable record(s) ignored", unreadable) : ""
	if (environment("FP_SURVEY_COMMAND") != "")
		printf "fastpath survey of: %s: no records (none of its processes wrote one: not loaded (a static or setuid program, LD_PRELOAD cleared), killed, or could not write)%s\n", \
			surveyed_command(), why
	else
		printf "fastpath survey: no records in this directory%s\n", why
}

# The suggestion: every mitigation's reason, notes and caveat, then the
# one "suggest:" line, the last of the report.
function suggest() {
	reasons = ""; notes = ""; options = ""; caveat = ""; reasons_saved = 0
	note_outlived()
	each_mitigation("suggest")
	# Never a suggestion that makes the workload slower: what the
	# mitigations save must outweigh what loading fastpath.so into each
	# process costs (a workload of many short processes).
	if (reasons != "" && reasons_saved <= startup_ns) {
		add_note(sprintf("fastpath.so's start-up, ~%s in each of %d processes (~%s), would cost more than the ~%s it saves (%s): no suggestion", \
			us(STARTUP_NS), nproc + missing, ms(startup_ns), ms(reasons_saved), reasons))
		reasons = ""
	}
	if (notes != "") print notes
	# Exact mode held back only by the descriptor limits (the note above).
	if (reasons == "") { print "suggest: nothing to mitigate" (urandom_nopool_said ? " at these descriptor limits (see the note)" : ""); return }
	if (caveat != "") print caveat
	print "reason: " reasons
	# A unit's directory (interpose --unit NAME --survey=DIR wrote its
	# drop-in): the line that applies the options to that unit.
	if (environment("FP_SURVEY_UNIT") != "") print "suggest: interpose --unit " sh_quote(environment("FP_SURVEY_UNIT")) options
	else print "suggest: interpose" options " -- " surveyed_command()
}
