# SPDX-License-Identifier: MIT
# interpose.awk: the text that interpose(1) reads, parsed here so that the
# sh wrapper holds no awk program of its own (issue 22).  Installed beside
# fastpath.so and survey.awk; interpose runs it as
#
#   awk -v job=JOB [-v NAME=VALUE]... -f interpose.awk
#
# with the input on standard input.  The jobs, one function each:
#
#   elf_header   od -An -tu1 of a file's first 64 bytes in; out "CLASS
#                MACHINE PHOFF PHENTSIZE PHNUM ENDIAN" (CLASS 32 or 64,
#                ENDIAN 1 little, 2 big); exit 1 for a file that is not ELF
#   elf_interp   od -An -tu1 of its program headers in (-v phent, phnum,
#                endian from elf_header); out 1 when one is PT_INTERP (the
#                dynamic loader runs the program), else 0
#   unit_env     a systemd unit's files in, concatenated in the order
#                systemd reads them; out the last value that an
#                Environment= line of [Service] gives the variable -v var,
#                nothing when none does (an empty Environment= resets)
#   unit_key     the same files in; out the last value that a line of
#                [Service] gives the key -v key (User, DynamicUser,
#                ProtectSystem...), nothing when none does or the last
#                assignment is empty (which resets)
#   dropins      "NAME/PATH" lines of drop-in files in; out those lines
#                whose NAME is not ours (fastpath.conf), the first of each
#                NAME only (the first directory's file of a name wins)
#   cpu_list     a kernel CPU list (Cpus_allowed_list: "0-3,8") in; out the
#                CPU ids, one a line, in order
#   psrinfo_online  psrinfo(8)'s lines in (illumos: "ID STATE since ...");
#                out the ids of the processors on-line or no-intr, which
#                pbind(8) accepts, one a line, in order
#
# POSIX awk only (mawk, gawk, illumos' nawk and /usr/xpg4/bin/awk,
# busybox): `gawk --lint` and `gawk --posix` clean.  An unknown job exits 2.
# Every loop is bounded by the input or by the header's own counts.

BEGIN {
	unknown_job = 0
	if (job !~ /^(elf_header|elf_interp|unit_env|unit_key|dropins|cpu_list|psrinfo_online)$/) {
		unknown_job = 1
		exit 2
	}
	if (job == "dropins")
		FS = "/"
	byte_count = 0
	in_service = 0
	env_value = ""
	env_set = 0
}

job == "elf_header" || job == "elf_interp" { take_bytes(); next }
job == "unit_env" { unit_env_line(); next }
job == "unit_key" { unit_key_line(); next }
job == "dropins" { dropin_line(); next }
job == "cpu_list" { cpu_list_line(); next }
job == "psrinfo_online" { psrinfo_line(); next }

END {
	if (unknown_job)
		exit 2
	if (job == "elf_header")
		exit elf_header()
	if (job == "elf_interp")
		elf_interp()
	else if ((job == "unit_env" || job == "unit_key") && env_set)
		print env_value
}

# ---- ELF --------------------------------------------------------------------
# bytes[0..byte_count-1]: the file's bytes, as od printed them.
function take_bytes(    i) {
	for (i = 1; i <= NF; i++)
		bytes[byte_count++] = $i + 0
}

# The unsigned number of LEN bytes at OFF, in the file's byte order.
function number_at(off, len, little_endian,    i, value) {
	value = 0
	for (i = 0; i < len; i++)
		value = value * 256 + (little_endian ? bytes[off + len - 1 - i] : bytes[off + i])
	return value
}

# The header's class, machine and where its program headers are; 1 (the
# exit status) for a file too short or not ELF, or of an unknown class.
function elf_header(    little) {
	if (byte_count < 64 || bytes[0] != 127 || bytes[1] != 69 || bytes[2] != 76 || bytes[3] != 70)
		return 1
	little = bytes[5] == 1
	if (bytes[4] == 1)
		print 32, number_at(18, 2, little), number_at(28, 4, little), number_at(42, 2, little), \
			number_at(44, 2, little), bytes[5]
	else if (bytes[4] == 2)
		print 64, number_at(18, 2, little), number_at(32, 8, little), number_at(54, 2, little), \
			number_at(56, 2, little), bytes[5]
	else
		return 1
	return 0
}

# 1 when a program header of type PT_INTERP (3) is among the phnum read.
function elf_interp(    header, little) {
	little = endian == 1
	for (header = 0; header < phnum + 0; header++) {
		if ((header + 1) * phent > byte_count)
			break
		if (number_at(header * phent, 4, little) == 3) {
			print 1
			return
		}
	}
	print 0
}

# ---- systemd units ----------------------------------------------------------
# One line of the unit's files: a section header, or an Environment= line
# of [Service] whose words (quoted as systemd quotes them) may set var.
function unit_env_line(    assignments, word) {
	if ($0 ~ /^[ \t]*\[/) {
		in_service = $0 ~ /^[ \t]*\[Service\]/
		return
	}
	if (!in_service || $0 !~ /^[ \t]*Environment[ \t]*=/)
		return
	assignments = $0
	sub(/^[^=]*=[ \t]*/, "", assignments)
	if (assignments == "") {
		env_value = ""
		env_set = 0
		return
	}
	while (assignments != "") {
		sub(/^[ \t]+/, "", assignments)
		word = next_word(assignments)
		assignments = rest_after_word
		if (index(word, var "=") == 1) {
			env_value = from(word, length(var) + 2)
			env_set = 1
		}
	}
}

# KEY=VALUE in [Service]: the value, surrounding blanks dropped; the last
# one wins, an empty one resets.
function unit_key_line(    value) {
	if ($0 ~ /^[ \t]*\[/) {
		in_service = $0 ~ /^[ \t]*\[Service\]/
		return
	}
	if (!in_service || index($0, "=") == 0)
		return
	value = $0
	sub(/^[ \t]+/, "", value)
	if (substr(value, 1, length(key)) != key || substr(value, length(key) + 1) !~ /^[ \t]*=/)
		return
	sub(/^[^=]*=[ \t]*/, "", value)
	sub(/[ \t]+$/, "", value)
	env_value = value
	env_set = value != ""
}

# The first word of TEXT, its quotes removed; what follows it is left in
# rest_after_word.  An unclosed quote runs to the end of the line.
function next_word(text,    word, ch, close_at) {
	word = ""
	while (text != "" && substr(text, 1, 1) !~ /[ \t]/) {
		ch = substr(text, 1, 1)
		if (ch == "\"" || ch == "'") {
			close_at = index(substr(text, 2), ch)
			if (!close_at)
				close_at = length(text)
			word = word substr(text, 2, close_at - 1)
			text = from(text, close_at + 2)
		} else {
			word = word ch
			text = from(text, 2)
		}
	}
	rest_after_word = text
	return word
}

# TEXT from its character AT on; "" past its end (no substr past the end:
# gawk --lint warns of it).
function from(text, at) {
	return at <= length(text) ? substr(text, at) : ""
}

# "NAME/PATH": kept unless NAME is ours or was seen before.
function dropin_line() {
	if ($1 != "fastpath.conf" && !($1 in dropin_seen)) {
		dropin_seen[$1] = 1
		print
	}
}

# ---- CPU lists --------------------------------------------------------------
function cpu_list_line(    ranges, nranges, r, ends, nends, cpu) {
	nranges = split($0, ranges, ",")
	for (r = 1; r <= nranges; r++) {
		nends = split(ranges[r], ends, "-")
		if (nends == 1 && ends[1] ~ /^[0-9]+$/)
			print ends[1] + 0
		else if (nends == 2 && ends[1] ~ /^[0-9]+$/ && ends[2] ~ /^[0-9]+$/)
			for (cpu = ends[1] + 0; cpu <= ends[2] + 0; cpu++)
				print cpu
	}
}

# One line of psrinfo(8): "ID STATE since DATE TIME"; the id of a processor
# that can run this process (on-line, or no-intr: no interrupts, but runs
# threads).
function psrinfo_line() {
	if (NF >= 2 && $1 ~ /^[0-9]+$/ && ($2 == "on-line" || $2 == "no-intr"))
		print $1
}
