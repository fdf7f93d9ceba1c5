# SPDX-License-Identifier: MIT
# fastpath: GNU make, no autotools.
#   make            build fastpath.so, fastpath-run and the man pages
#   make deps       install the Debian packages make demo needs (as root)
#   make check      every test but the slow hardening runs (~10 min)
#   make check-hardening  the slow ones (CI runs it after make check)
#   make check-core the quick part: unit and integration (about a minute)
#   make demo       the three mitigations, native vs fastpath, one table
#   make bench      the full benchmarks
#   make fuzz-fd    the descriptor fuzzer, native vs fastpath.so (FUZZ_FD_SECONDS)
#   make fuzz-cpus  the CPU cap's fuzzer: native vs --cpus R, or one N-CPU
#                   machine on two backings (FUZZ_CPUS_SECONDS, FUZZ_CPUS_N)
#   make install    bin/interpose, lib/fastpath/fastpath.so and survey.awk, man pages
#                   (with the i386 object: lib/fastpath/$LIB/fastpath.so, per class)
#   make deb        the Debian package, into dist/ (make check-deb tests it)

# The one place the version is written: fastpath.so (FASTPATH_VERSION),
# interpose --version and the man pages take it from here.
VERSION  = 0.2.0

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
LIBDIR  ?= $(PREFIX)/lib
MANDIR  ?= $(PREFIX)/share/man
DESTDIR ?=
CFLAGS  ?= -O2 -g

UNAME_S := $(shell uname -s)
WARN    := -Wall -Wextra
# Our flags come first so that the user's CFLAGS can override -O and add
# more; the ones that make fastpath.so what it is cannot be turned off.
FP_CPPFLAGS := -D_GNU_SOURCE -DFASTPATH_VERSION='"$(VERSION)"'
FP_CFLAGS   := -std=gnu11 -fPIC -pthread $(WARN)
SO_FLAGS    := -shared -fvisibility=hidden

# Every C file at the top level is a unit of fastpath.so.
SRCS := $(sort $(wildcard *.c))
HDRS := $(sort $(wildcard *.h))

ifeq ($(UNAME_S),SunOS)
# illumos: pfiles and most of userland exist as 32- and 64-bit programs, and
# ld.so.1 preloads each from LD_PRELOAD_32 / LD_PRELOAD_64.  libc has dlsym.
# make's default CC is cc, which OmniOS and SmartOS need not have: gcc is
# what their pkgsrc and OmniOS packages install.  An explicit CC still wins.
ifeq ($(origin CC),default)
CC        := gcc
endif
LIBS      :=
SO_LDFLAGS := -Wl,-z,now
SOS       := fastpath.so 64/fastpath.so
fastpath.so: ARCH := -m32
64/fastpath.so: ARCH := -m64
else
LIBS      := -ldl -pthread
# No DT_FINI (--fini names a symbol that is not defined): the C runtime's
# _fini does nothing on these targets, and it sits at the end of our text,
# a page every exit faulted in for it (issue 39); the destructors run from
# .fini_array as before.
# Our own imports from the C library bound at load (-z now), and the GOT
# then read-only (full RELRO).  Bound lazily they would save every process
# 12 us (issue 39), but the loader's first resolution of each saves the
# vector registers on the caller's stack (3 KB more with AVX-512): a
# signal handler on a small alternate stack whose first read of
# /dev/urandom reaches one crashed where native runs (a cold review).
SO_LDFLAGS := -Wl,-z,now -Wl,-z,relro -Wl,--fini=fp_no_dt_fini
# No --sort-section: the statics every start-up touches are in .data
# (FP_STARTUP_DATA, fastpath.h), and link order puts the C runtime's own
# .bss (crtbegin's completed.0, read and written at exit) first, on the
# page .data ends in, which the loader has made private already (issue
# 39: sorted by alignment, it came last, on a page of its own: two faults
# at every exit).
SOS       := fastpath.so
# Both ELF classes (issue 19): where $(CC) -m32 builds and glibc's loader
# expands $$LIB, the i386 object is built too, and interpose preloads
# DIR/$$LIB/fastpath.so: each process, 64- or 32-bit, loads the object of
# its own class, with no loader error.  What $$LIB becomes is asked of the
# loaders here (tools/dst_lib.sh), not assumed.  M32=no builds the native
# object alone (the Debian package does); M32=yes fails where it cannot.
M32 ?= auto
ifneq ($(M32),no)
LIB_NATIVE := $(shell sh tools/dst_lib.sh '$(CC)')
LIB_M32    := $(if $(LIB_NATIVE),$(shell sh tools/dst_lib.sh '$(CC)' -m32))
ifeq ($(LIB_NATIVE),$(LIB_M32))
LIB_M32    :=
endif
ifeq ($(M32)$(LIB_M32),yes)
$(error M32=yes: $(CC) -m32 cannot build here, or the loader does not expand $$LIB)
endif
endif
ifneq ($(LIB_M32),)
SOS       += $(LIB_M32)/fastpath.so
$(LIB_M32)/fastpath.so: ARCH := -m32
# The native object keeps its place; its $$LIB name is a link to it.
LIB_LINK  := $(LIB_NATIVE)/fastpath.so
endif
endif

# interpose --survey's starter (tools/fastpath-run.c): a program of its
# own, not a unit of the object, so it lives outside the top level.
RUN_BIN := fastpath-run
# The man pages, with the version: the build tree's read as installed ones.
MANS := man/interpose.1 man/fastpath.7

# The mitigations' descriptors (mit/NAME.def), in the registry's order
# (mitigations.h): interpose's options, its --help and the man pages'
# parts, and survey.awk's registry line are made from them here, at build
# time (tools/mitgen.awk), so that nothing reads a descriptor at run time.
MITS     := $(shell sed -n 's/^[[:space:]]*X(\([a-z0-9_]*\)).*/\1/p' mitigations.h)
MIT_DEFS := $(MITS:%=mit/%.def)
# MITGEN DEF...: $< with its markers filled in from DEF..., into $@.
MITGEN    = awk -f tools/mitgen.awk -v template=$< $(1) >$@.tmp && mv -f $@.tmp $@
MITGEN_IN := tools/mitgen.awk $(MIT_DEFS) mitigations.h
# What is made from a descriptor (the build tree runs them as installed).
GEN := interpose survey.awk

all: $(SOS) $(LIB_LINK) libdirs $(RUN_BIN) $(MANS) $(GEN)

interpose: interpose.in $(MITGEN_IN)
	$(call MITGEN,$(MIT_DEFS)) && chmod 755 $@

survey.awk: survey.awk.in $(MITGEN_IN)
	$(call MITGEN,$(MIT_DEFS))

# libdirs: "native DIR" and "m32 DIR", what $$LIB is for each class, where
# both objects are built; interpose reads it beside fastpath.so.  Rewritten
# only when it changes; removed when there is no i386 object.
libdirs: FORCE
	@if [ -n "$(LIB_M32)" ]; then \
		printf 'native %s\nm32 %s\n' '$(LIB_NATIVE)' '$(LIB_M32)' >$@.tmp && \
		{ cmp -s $@.tmp $@ || mv -f $@.tmp $@; } && rm -f $@.tmp; \
	else rm -f $@; fi

$(LIB_LINK): fastpath.so
	@mkdir -p $(@D)
	ln -sfn $(shell echo '$(LIB_NATIVE)' | sed 's|[^/][^/]*|..|g')/fastpath.so $@

FORCE:

$(RUN_BIN): tools/fastpath-run.c tools/reach.c tools/reach.h outfile.c
	$(CC) $(CPPFLAGS) -std=gnu11 $(WARN) $(CFLAGS) $(LDFLAGS) -o $@ tools/fastpath-run.c tools/reach.c

man/%: man/%.in Makefile $(MITGEN_IN)
	awk -f tools/mitgen.awk -v template=$< $(MIT_DEFS) >$@.tmp && \
		sed 's|@VERSION@|$(VERSION)|g' $@.tmp >$@.tmp2 && mv -f $@.tmp2 $@ && rm -f $@.tmp

$(SOS): $(SRCS) $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(ARCH) $(FP_CPPFLAGS) $(CPPFLAGS) $(FP_CFLAGS) $(SO_FLAGS) $(CFLAGS) \
		$(SO_LDFLAGS) $(LDFLAGS) -o $@ $(SRCS) $(LIBS)

# ---- tests ---------------------------------------------------------------
# tests/test_*.c      cmocka unit tests; they #include the sources they test
# tests/prog_*.c      programs the integration tests run under LD_PRELOAD
# tests/prog_*_fortify.c   the same, built with -D_FORTIFY_SOURCE=2
# tests/lib*.c        shared objects used by those programs
# tests/t_*.sh        integration scripts, run by tests/run.sh
TEST_CFLAGS := -std=gnu11 -O2 -g -pthread $(WARN)
UNIT_BINS := $(patsubst tests/%.c,tests/bin/%,$(wildcard tests/test_*.c))
PROG_BINS := $(patsubst tests/%.c,tests/bin/%,$(wildcard tests/prog_*.c))
TLIB_SOS  := $(patsubst tests/%.c,tests/bin/%.so,$(wildcard tests/lib*.c))
# The descriptor fuzzer (fuzz/fd_fuzz.c) and the CPU cap's
# (fuzz/cpus_fuzz.c); their block is below fuzz's.
FDFUZZ_BIN := tests/bin/fd_fuzz
FUZZ_BINS  := $(FDFUZZ_BIN) tests/bin/cpus_fuzz

tests/bin/test_%: tests/test_%.c $(SRCS) $(HDRS) tests/testutil.h tests/core_units.h
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE -DFP_UNIT_TEST $(CPPFLAGS) $(TEST_CFLAGS) -fPIC $(CFLAGS) -I. -o $@ $< \
		$(LDFLAGS) -lcmocka $(LIBS)

tests/bin/prog_%_fortify: tests/prog_%_fortify.c tests/testutil.h
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE $(CPPFLAGS) $(TEST_CFLAGS) $(CFLAGS) -O2 -U_FORTIFY_SOURCE \
		-D_FORTIFY_SOURCE=2 -o $@ $< $(LDFLAGS) $(LIBS)

# OpenMP (t_cpus: omp_get_num_procs agrees with the cap): a compiler
# without it leaves no program, and t_cpus.sh says why it skips.
tests/bin/prog_omp: tests/prog_omp.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(TEST_CFLAGS) $(CFLAGS) -fopenmp -o $@ $< $(LDFLAGS) $(LIBS) 2>/dev/null || \
		{ echo "$(CC) -fopenmp failed: no OpenMP check"; rm -f $@; }

tests/bin/prog_%: tests/prog_%.c tests/testutil.h $(TLIB_SOS)
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE $(CPPFLAGS) $(TEST_CFLAGS) $(CFLAGS) -o $@ $< \
		-Ltests/bin -Wl,-rpath,'$$ORIGIN' $(LDFLAGS) $(PROG_LIBS_$*) $(LIBS)

tests/bin/lib%.so: tests/lib%.c
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE $(CPPFLAGS) $(TEST_CFLAGS) -fPIC -shared $(CFLAGS) -o $@ $< \
		$(LDFLAGS) $(LIBS)

# A program whose own DT_NEEDED library calls our wrappers from its
# constructor, which runs before fastpath.so's.
PROG_LIBS_early := -learly
# fc_early, which tests/libfirstcall_early.so's constructor calls.
PROG_LIBS_firstcall := -rdynamic
# Its own first calls in a signal handler bind nothing (altdepth).
PROG_LIBS_robust := -Wl,-z,now

# The Debian packages make demo needs (only the missing ones; none, no
# apt-get call).  make check installs what the tests need itself.
deps:
	@sh .ci/deps demo

# ... and those the tests, make deb and make lint need too.
deps-test:
	@sh .ci/deps

# The benchmark programs: make demo and make bench run them, and the
# survey's tests (tests/t_survey.sh) survey them.  Defined before any rule
# names them: a prerequisite list is expanded where the rule stands.
BENCH_BINS := $(patsubst bench/%.c,bench/bin/%,$(wildcard bench/*.c))
BENCH_SOS  := $(patsubst bench/%.so.c,bench/bin/%.so,$(wildcard bench/*.so.c))
BENCH_BINS := $(filter-out %.so,$(BENCH_BINS))

# docs/design.md's example mitigation (tests/mit_example.c), registered by its
# line in mitigations.h, in a test variant of the object (tests/t_example.sh).
# Its descriptor (tests/mit_example.def) makes a test variant of interpose
# and of the man pages in tests/bin/example/, the way the build makes ours.
EXAMPLE_SO := tests/bin/fastpath_example.so
EXAMPLE_DEFS := $(MIT_DEFS) tests/mit_example.def
EXAMPLE_GEN := $(addprefix tests/bin/example/,interpose survey.awk interpose.1 fastpath.7)

tests/bin/example/interpose: interpose.in $(MITGEN_IN) tests/mit_example.def
	@mkdir -p $(@D)
	$(call MITGEN,$(EXAMPLE_DEFS)) && chmod 755 $@
tests/bin/example/survey.awk: survey.awk.in $(MITGEN_IN) tests/mit_example.def
	@mkdir -p $(@D)
	$(call MITGEN,$(EXAMPLE_DEFS))
tests/bin/example/%: man/%.in $(MITGEN_IN) tests/mit_example.def
	@mkdir -p $(@D)
	$(call MITGEN,$(EXAMPLE_DEFS))

$(EXAMPLE_SO): $(SRCS) $(HDRS) tests/mit_example.c
	@mkdir -p $(@D)
	$(CC) $(FP_CPPFLAGS) -DFP_WITH_EXAMPLE $(CPPFLAGS) $(FP_CFLAGS) $(SO_FLAGS) $(CFLAGS) \
		$(SO_LDFLAGS) $(LDFLAGS) -o $@ $(SRCS) tests/mit_example.c $(LIBS)

# make check: every suite, then every skip with its reason, then one total
# line "check: N passed, N failed, K skipped"; about 10 minutes on 2 cores.
# check-core is its quick part (unit and integration suites and the fuzz
# smoke run); make check adds the quick hardening targets (lint, the
# ports, illumos, fault injection); check-hardening runs the slow ones
# (the block at the end of this file), and .ci/run runs it after make
# check, so CI tests everything.
# It first installs the packages the tests need (.ci/deps: only the
# missing ones, as root), then builds: the unit tests need cmocka's header.
check: deps-test
	@$(MAKE) --no-print-directory check-all

check-all: all $(UNIT_BINS) $(PROG_BINS) $(TLIB_SOS) $(EXAMPLE_SO) $(EXAMPLE_GEN) $(BENCH_BINS) $(BENCH_SOS) $(FUZZ_BINS)
	@sh tests/run.sh --hardening quick

check-core: all $(UNIT_BINS) $(PROG_BINS) $(TLIB_SOS) $(EXAMPLE_SO) $(EXAMPLE_GEN) $(BENCH_BINS) $(BENCH_SOS) $(FUZZ_BINS)
	@sh tests/run.sh

# One mitigation's unit and integration suites alone (tests/run.sh's
# RUN_ONLY), as its maintainer runs them; the survey's too.
check-readlink: all $(UNIT_BINS) $(PROG_BINS) $(TLIB_SOS)
	@RUN_ONLY='test_readlink* t_readlink.sh fuzz-smoke' sh tests/run.sh
check-urandom: all $(UNIT_BINS) $(PROG_BINS) $(TLIB_SOS) $(FDFUZZ_BIN)
	@RUN_ONLY='test_urandom* t_urandom.sh t_watchdog.sh t_fdfuzz.sh' sh tests/run.sh
check-cpus-suites: all $(UNIT_BINS) $(PROG_BINS) $(TLIB_SOS) $(FUZZ_BINS)
	@RUN_ONLY='test_cpus* t_cpus.sh t_cpus_machine.sh t_cpusfuzz.sh t_fsize.sh' sh tests/run.sh
# The invariant checker's full matrix (tests/t_cpus_machine.sh; make check
# runs a bounded one).
check-cpus: all $(PROG_BINS)
	@CPUS_MATRIX=full sh tests/t_cpus_machine.sh
check-survey: all $(UNIT_BINS) $(PROG_BINS) $(TLIB_SOS) $(BENCH_BINS)
	@RUN_ONLY='t_survey*.sh' sh tests/run.sh

# Every other mitigation of the registry: its suites by their names
# (test_NAME*, t_NAME*.sh), with nothing to add here.
MIT_CHECKS := $(filter-out check-readlink check-urandom check-cpus,$(MITS:%=check-%))
$(MIT_CHECKS): check-%: all $(UNIT_BINS) $(PROG_BINS) $(TLIB_SOS)
	@RUN_ONLY='test_$** t_$**.sh' sh tests/run.sh

.PHONY: check-readlink check-urandom check-cpus-suites check-cpus check-survey $(MIT_CHECKS)

# ---- benchmarks ----------------------------------------------------------

bench/bin/%.so: bench/%.so.c
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE $(CPPFLAGS) $(TEST_CFLAGS) -fPIC -shared $(CFLAGS) -o $@ $< \
		$(LDFLAGS) $(LIBS)

bench/bin/%: bench/%.c
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE $(CPPFLAGS) $(TEST_CFLAGS) $(CFLAGS) -O2 -o $@ $< $(LDFLAGS) $(LIBS)

demo: all $(BENCH_BINS) $(BENCH_SOS)
	@sh bench/demo.sh

bench: all $(BENCH_BINS) $(BENCH_SOS) tests/bin/prog_urandom_seccomp
	@sh bench/run.sh

# ---- install -------------------------------------------------------------
INSTALLED := $(DESTDIR)$(BINDIR)/interpose \
	$(patsubst %,$(DESTDIR)$(LIBDIR)/fastpath/%,$(SOS) $(LIB_LINK) $(RUN_BIN) libdirs) \
	$(DESTDIR)$(LIBDIR)/fastpath/survey.awk \
	$(DESTDIR)$(LIBDIR)/fastpath/interpose.awk \
	$(DESTDIR)$(MANDIR)/man1/interpose.1 \
	$(DESTDIR)$(MANDIR)/man7/fastpath.7

install: all
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/fastpath \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7
	sed -e 's|^FASTPATH_LIBDIR=.*|FASTPATH_LIBDIR=$(LIBDIR)/fastpath|' \
		-e 's|^VERSION=.*|VERSION=$(VERSION)|' interpose > $(DESTDIR)$(BINDIR)/interpose
	chmod 755 $(DESTDIR)$(BINDIR)/interpose
	for so in $(SOS) $(LIB_LINK); do \
		mkdir -p $$(dirname $(DESTDIR)$(LIBDIR)/fastpath/$$so) && \
		cp -P $$so $(DESTDIR)$(LIBDIR)/fastpath/$$so && \
		{ [ -h $$so ] || chmod 755 $(DESTDIR)$(LIBDIR)/fastpath/$$so; } || exit 1; \
	done
	# Where $$LIB is read per class (both objects), the map interpose reads.
	rm -f $(DESTDIR)$(LIBDIR)/fastpath/libdirs
	if [ -f libdirs ]; then cp libdirs $(DESTDIR)$(LIBDIR)/fastpath/libdirs && \
		chmod 644 $(DESTDIR)$(LIBDIR)/fastpath/libdirs; fi
	cp $(RUN_BIN) $(DESTDIR)$(LIBDIR)/fastpath/$(RUN_BIN)
	chmod 755 $(DESTDIR)$(LIBDIR)/fastpath/$(RUN_BIN)
	cp man/interpose.1 $(DESTDIR)$(MANDIR)/man1/interpose.1
	cp man/fastpath.7 $(DESTDIR)$(MANDIR)/man7/fastpath.7
	# The survey report, which interpose finds beside fastpath.so.
	cp survey.awk $(DESTDIR)$(LIBDIR)/fastpath/survey.awk
	chmod 644 $(DESTDIR)$(LIBDIR)/fastpath/survey.awk
	# What interpose parses (ELF headers, a unit's Environment=, CPU lists).
	cp interpose.awk $(DESTDIR)$(LIBDIR)/fastpath/interpose.awk
	chmod 644 $(DESTDIR)$(LIBDIR)/fastpath/interpose.awk
	chmod 644 $(DESTDIR)$(MANDIR)/man1/interpose.1 $(DESTDIR)$(MANDIR)/man7/fastpath.7

uninstall:
	rm -f $(INSTALLED)
	rmdir $(DESTDIR)$(LIBDIR)/fastpath/64 2>/dev/null || true
	# the $$LIB directories, each part of them, below fastpath/ only
	for d in $(patsubst %/,%,$(dir $(LIB_LINK) $(filter-out fastpath.so 64/%,$(SOS)))); do \
		(cd $(DESTDIR)$(LIBDIR)/fastpath 2>/dev/null && rmdir -p $$d 2>/dev/null); done; true
	rmdir $(DESTDIR)$(LIBDIR)/fastpath 2>/dev/null || true

clean:
	rm -rf fastpath.so 64 $(RUN_BIN) $(MANS) $(GEN) tests/bin bench/bin libdirs
	rm -f $(LIB_LINK) $(filter-out fastpath.so 64/%,$(SOS))
	for d in $(dir $(LIB_LINK) $(filter-out fastpath.so 64/%,$(SOS))); do rmdir -p $$d 2>/dev/null; done; true

.PHONY: all deps deps-test check check-all check-core demo bench install uninstall clean FORCE

# ---- fuzz: the /proc path parser (readlink_path.c) ------------------------
# A block of its own because pattern rules cannot express "only with clang's
# libFuzzer, else skip".  `make fuzz` runs FUZZ_TIME seconds; `make check`
# and check-core run FUZZ_SMOKE_RUNS inputs (tests/run.sh, as the suite
# fuzz-smoke).  Without libFuzzer both say so and skip.  Each ends with the
# tests' summary line, which run.sh adds up.
FUZZ_CC         ?= clang
FUZZ_TIME       ?= 60
FUZZ_SMOKE_RUNS ?= 200000
FUZZ_BIN        := tests/bin/fuzz_readlink
FUZZ_HAVE        = printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n){(void)d;(void)n;return 0;}\n' | \
	$(FUZZ_CC) -fsanitize=fuzzer -x c - -o $(FUZZ_BIN).probe >/dev/null 2>&1; \
	rc=$$?; rm -f $(FUZZ_BIN).probe; [ $$rc -eq 0 ]

$(FUZZ_BIN): fuzz/readlink_fuzz.c $(SRCS) $(HDRS) tests/core_units.h
	@mkdir -p $(@D)
	$(FUZZ_CC) -D_GNU_SOURCE -DFP_UNIT_TEST -std=gnu11 -pthread $(WARN) -g -O1 \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-I. -o $@ $< $(LIBS)
	printf '"/proc/"\n"self/"\n"thread-self/"\n"task/"\n"fd/"\n"path/"\n"/"\n"0"\n"9"\n' >$@.dict

fuzz fuzz-smoke:
	@mkdir -p tests/bin
	@if $(FUZZ_HAVE); then \
		$(MAKE) --no-print-directory $(FUZZ_BIN) && \
		if [ $@ = fuzz ]; then set -- -max_total_time=$(FUZZ_TIME); \
		else set -- -runs=$(FUZZ_SMOKE_RUNS); fi && \
		echo "== fuzz_readlink $$*" && \
		$(FUZZ_BIN) -dict=$(FUZZ_BIN).dict -artifact_prefix=tests/bin/fuzz_readlink- \
			"$$@" 2>$(FUZZ_BIN).log && \
		tail -n 2 $(FUZZ_BIN).log && echo "1 passed, 0 failed, 0 skipped" || \
		{ cat $(FUZZ_BIN).log; echo "0 passed, 1 failed, 0 skipped"; exit 1; }; \
	else \
		echo "skip - fuzz_readlink: $(FUZZ_CC) with libFuzzer (-fsanitize=fuzzer) not available"; \
		echo "0 passed, 0 failed, 1 skipped"; \
	fi

.PHONY: fuzz fuzz-smoke

# ---- fuzz-fd: the differential fuzzer for descriptors (issue 36) ----------
# fuzz/fd_fuzz.c runs generated programs of descriptor operations natively
# and under fastpath.so in exact and reserve mode and compares what each
# sees.  `make fuzz-fd` runs FUZZ_FD_SECONDS (or FUZZ_FD_CASES programs)
# from FUZZ_FD_SEED (default: the time); make check runs a fixed share
# (tests/t_fdfuzz.sh).  A difference that recurs on its rerun fails; one
# that does not is reported as flaky.
FUZZ_FD_SECONDS ?= 60
FUZZ_FD_CASES   ?=
FUZZ_FD_SEED    ?=
tests/bin/fd_fuzz: fuzz/fd_fuzz.c
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE $(CPPFLAGS) $(TEST_CFLAGS) $(CFLAGS) -o $@ $< $(LDFLAGS)

FUZZ_FD_JOBS    ?= 1
# FUZZ_FD_HEAVY=N: one program in N may exec or fill the table (ms each;
# the rest run in a fork alone); a progress line every 10000 programs.
FUZZ_FD_HEAVY   ?= 8
FDFUZZ_ARGS      = --so $(CURDIR)/fastpath.so \
	--heavy $(FUZZ_FD_HEAVY) --progress 10000 \
	$(if $(FUZZ_FD_CASES),--cases $(FUZZ_FD_CASES),--seconds $(FUZZ_FD_SECONDS))
# FUZZ_FD_JOBS=N: N shards of one seed side by side (--shard I/N), each
# with its own log under tests/bin, shown when all have ended.
fuzz-fd: all $(FDFUZZ_BIN)
	@seed=$${FUZZ_FD_SEED:-$$(date +%s)}; \
	if [ $(FUZZ_FD_JOBS) -le 1 ]; then exec $(FDFUZZ_BIN) $(FDFUZZ_ARGS) --seed $$seed; fi; \
	rm -f tests/bin/fd_fuzz.shard*.log; i=0; pids=; rc=0; \
	while [ $$i -lt $(FUZZ_FD_JOBS) ]; do \
		$(FDFUZZ_BIN) $(FDFUZZ_ARGS) --seed $$seed --shard $$i/$(FUZZ_FD_JOBS) \
			>tests/bin/fd_fuzz.shard$$i.log 2>&1 & pids="$$pids $$!"; i=$$((i + 1)); \
	done; \
	for p in $$pids; do wait $$p || rc=1; done; \
	cat tests/bin/fd_fuzz.shard*.log; exit $$rc

.PHONY: fuzz-fd

# fuzz/cpus_fuzz.c runs generated programs of affinity and counting
# operations natively and under FASTPATH_CPUS=R (R the real count: every
# answer native's), and, with FUZZ_CPUS_N other than R, the same program
# on every CPU and on one alone (one N-CPU machine whatever backs it),
# each checked against a model of N CPUs; make check runs a fixed share
# (tests/t_cpusfuzz.sh).  `make fuzz-cpus` runs FUZZ_CPUS_SECONDS from
# FUZZ_CPUS_SEED (default: the time).
FUZZ_CPUS_SECONDS ?= 60
FUZZ_CPUS_SEED    ?=
FUZZ_CPUS_N       ?=
tests/bin/cpus_fuzz: fuzz/cpus_fuzz.c
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE $(CPPFLAGS) $(TEST_CFLAGS) $(CFLAGS) -o $@ $< $(LDFLAGS)
fuzz-cpus: all tests/bin/cpus_fuzz
	@tests/bin/cpus_fuzz --so $(CURDIR)/fastpath.so --interpose $(CURDIR)/interpose \
		--seed $${FUZZ_CPUS_SEED:-$$(date +%s)} --seconds $(FUZZ_CPUS_SECONDS) \
		$(if $(FUZZ_CPUS_N),--cpus $(FUZZ_CPUS_N))

.PHONY: fuzz-cpus

# ---- hardening (issue 6) ----------------------------------------------------
# A block of its own: each target builds with another compiler or runs under
# another tool, which pattern rules cannot say.  Every target is a script
# tests/h_*.sh that ends with a plain "N passed, N failed" line and exits
# non-zero on failure; check-hardening runs them all and adds them up.
lint: $(GEN)
	@sh tests/h_lint.sh

.PHONY: lint

# UBSan and ASan builds of fastpath.so, the programs and the unit tests go
# to tests/bin/san/ (the script builds them: other flags, same sources).
check-sanitize: all $(PROG_BINS) $(TLIB_SOS) $(BENCH_BINS) $(BENCH_SOS)
	@sh tests/h_sanitize.sh

.PHONY: check-sanitize

# Needs root for its mount-namespace cases (unshare -m); skips them otherwise.
check-fault: all $(PROG_BINS) $(TLIB_SOS)
	@sh tests/h_fault.sh

.PHONY: check-fault

# No illumos machine here: compile checks as for illumos (and against the
# real headers of each tree in ILLUMOS_SYSROOTS, with the kernel era check
# of the system calls made; .ci/run passes ../shared/illumos's two), the
# compiler floor's #error, the symbol-era check against
# tests/illumos_libc_symbols.txt (no SUNWprivate symbol, _syscall not
# syscall), the readlink rules compiled as for illumos and run against the
# kernel's answer per descriptor type (tests/test_readlink_illumos.c), and
# interpose's illumos branch.
check-illumos: $(GEN)
	@sh tests/h_illumos.sh

.PHONY: check-illumos

check-musl:
	@sh tests/h_port.sh musl

check-m32:
	@sh tests/h_port.sh m32

# The branch for a kernel that cannot run i386 programs (build, link and
# symbol checks only), taken here whatever this kernel can run.
check-m32-build-only:
	@FASTPATH_TEST_NO_I386=1 sh tests/h_port.sh m32

.PHONY: check-musl check-m32 check-m32-build-only

check-eatmydata: all $(UNIT_BINS) $(PROG_BINS) $(TLIB_SOS) $(BENCH_BINS) $(BENCH_SOS)
	@sh tests/h_eatmydata.sh

.PHONY: check-eatmydata

# The slow hardening runs (the package, valgrind, the sanitizers,
# eatmydata, stress and watchdog, the forced urandom sources), after make
# check in CI.  check-stress runs 25 s under fastpath.so here (60 s on its
# own), so that it stays under ~45 s with its native run.
check-hardening: all $(UNIT_BINS) $(PROG_BINS) $(TLIB_SOS) $(BENCH_BINS) $(BENCH_SOS) $(FUZZ_BINS)
	@STRESS_SECONDS=$${STRESS_SECONDS:-25} sh tests/h_all.sh slow

.PHONY: check-hardening

# helgrind and drd get a fastpath.so whose hand-made synchronisation (the
# pool's spinlock and its publication) is announced to them by client
# requests: -DFP_VALGRIND_ANNOTATE, valgrind's headers (Debian: valgrind).
# fastpath.so itself never has them.
VG_SO := $(if $(wildcard /usr/include/valgrind/helgrind.h),tests/bin/fastpath_vg.so)

tests/bin/fastpath_vg.so: $(SRCS) $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(FP_CPPFLAGS) -DFP_VALGRIND_ANNOTATE $(CPPFLAGS) $(FP_CFLAGS) $(SO_FLAGS) \
		$(CFLAGS) $(SO_LDFLAGS) $(LDFLAGS) -o $@ $(SRCS) $(LIBS)

check-valgrind: all $(PROG_BINS) $(TLIB_SOS) $(VG_SO)
	@sh tests/h_valgrind.sh

.PHONY: check-valgrind

# STRESS_SECONDS (default 60) under fastpath.so, STRESS_NATIVE_SECONDS
# (default 10) natively.
check-stress: all $(PROG_BINS) $(TLIB_SOS)
	@sh tests/h_stress.sh

.PHONY: check-stress

# The urandom suite under each source of its bytes (vdso, kernel,
# reservoir: tests/h_sources.sh, UR_SOURCE); UR_SOURCES names fewer
# sources, UR_SUITES other suites (make check: kernel and reservoir, no
# stress run, tests/h_all.sh).
check-urandom-sources: all $(UNIT_BINS) $(PROG_BINS) $(TLIB_SOS) $(BENCH_BINS) $(BENCH_SOS) $(VG_SO)
	@sh tests/h_sources.sh

.PHONY: check-urandom-sources

# ---- Debian packages (issues 21, 41) --------------------------------------
# make deb: fastpath and libfastpath for this machine's architecture, and
# libfastpath for i386 (DEB_M32_ARCH, where this machine is amd64: the same
# source built for host i386, by gcc -m32 where there is no cross
# compiler; its fastpath:i386 twin is not kept, fastpath being
# Multi-Arch: foreign), each by dpkg-buildpackage in a copy of the tree
# (its outputs land in the copy's parent, never beside this worktree),
# then moved to dist/.  make check-deb (tests/h_deb.sh): builds them,
# lintian --pedantic, installs them with apt, runs them, purges them, and
# looks for anything left.
DEB_WORK := dist/build
DEB_M32_ARCH := $(if $(filter amd64,$(shell dpkg --print-architecture 2>/dev/null)),i386)

deb:
	rm -rf $(DEB_WORK) dist/fastpath_* dist/fastpath-dbgsym_* dist/libfastpath_* dist/libfastpath-dbgsym_* && \
		mkdir -p $(DEB_WORK)/fastpath-$(VERSION)
	tar -cf - --exclude=./.git --exclude=./dist --exclude=./tests/bin \
		--exclude=./bench/bin --exclude=./fuzz/bin . | \
		tar -xf - -C $(DEB_WORK)/fastpath-$(VERSION)
	cd $(DEB_WORK)/fastpath-$(VERSION) && $(MAKE) --no-print-directory clean >/dev/null && \
		dpkg-buildpackage -b -us -uc
	if [ -n "$(DEB_M32_ARCH)" ]; then \
		cd $(DEB_WORK)/fastpath-$(VERSION) && $(MAKE) --no-print-directory clean >/dev/null && \
		dpkg-buildpackage -B -d -us -uc -a$(DEB_M32_ARCH) && \
		rm -f ../fastpath_*_$(DEB_M32_ARCH).deb ../fastpath-dbgsym_*_$(DEB_M32_ARCH).deb; \
	fi
	mv $(DEB_WORK)/*.deb $(DEB_WORK)/*.changes $(DEB_WORK)/*.buildinfo dist/
	rm -rf $(DEB_WORK)

check-deb:
	@sh tests/h_deb.sh

.PHONY: deb check-deb
