/* SPDX-License-Identifier: MIT */
/*
 * bind.c: binding the real C library functions, the core's table and
 * every table the registry lists (fp_real.h), without dlsym where the
 * dynamic symbol tables can be read (issue 39).
 */
#include "fastpath.h"

#include <dlfcn.h>
#ifdef FP_LINUX
#  include <link.h>
#endif

/* Tests substitute their own lookup to provoke re-entry during binding:
 * then every name is asked of it (no walk of the tables). */
#ifdef FP_DLSYM
#define FP_DLSYM_TEST 1
#else
#define FP_DLSYM(name) dlsym(RTLD_NEXT, name)
#endif
#define FP_DLSYM_GLOBAL(name) dlsym(RTLD_DEFAULT, name)

/* The core's table of real functions (fp_real.h); each mitigation defines
 * its own in one of its units. */
#define FP_REAL_TAG core
FP_REAL_DEFINE(FP_REAL_CORE); // NOLINT(misc-unused-parameters): a stand-in may ignore some
#undef FP_REAL_TAG

#ifdef FP_HAVE_RSEQ_AREA
/* Weak: a C library without them (glibc before 2.35) leaves them NULL. */
extern const ptrdiff_t __rseq_offset __attribute__((weak));
extern const unsigned int __rseq_size __attribute__((weak));
#endif
_Atomic ptrdiff_t fp_rseq_at FP_STARTUP_DATA;

FP_STARTUP_TEXT ptrdiff_t fp_rseq_learn(void)
{
	ptrdiff_t at = 1;

#ifdef FP_HAVE_RSEQ_AREA
	if (&__rseq_offset && &__rseq_size && __rseq_size >= 8)
		at = __rseq_offset + (ptrdiff_t)sizeof(uint32_t);
#endif
	atomic_store_explicit(&fp_rseq_at, at, memory_order_relaxed);
	return at;
}

/* ------------------------------------------------------------------------
 * Initialisation.
 * ---------------------------------------------------------------------- */
/* How many real functions were found only in the global scope (said once
 * under FASTPATH_DEBUG, fp_bind_say).  Atomic: a table bound at its first
 * use may be bound in two threads at once. */
static _Atomic unsigned fp_bind_global FP_STARTUP_DATA;

#ifdef FP_LINUX
/* Which loaded objects hold the addresses at[]: each one's load base
 * (found[] says which were found; a non-PIE program's base is 0). */
struct fp_owners {
	uintptr_t at[2], base[2];
	bool found[2];
};

FP_STARTUP_TEXT static int fp_owners_of(struct dl_phdr_info *info, size_t size, void *data)
{
	struct fp_owners *o = data;
	size_t k;
	ElfW(Half) i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = (uintptr_t)info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD)
			continue;
		for (k = 0; k < 2; k++)
			if (!o->found[k] && o->at[k] - lo < ph->p_memsz) {
				o->found[k] = true;
				o->base[k] = (uintptr_t)info->dlpi_addr;
			}
	}
	return o->found[0] && o->found[1];
}

/* a and b lie in the same loaded object.  Read from the program headers, a
 * few per object: dladdr would also look for the nearest symbol, a walk of
 * the object's whole symbol table (libc's cost every process a tenth of a
 * millisecond at start-up).  dl_iterate_phdr takes the loader's lock: at
 * initialisation only, never in a call a signal handler may make. */
FP_STARTUP_TEXT static bool fp_same_object(const void *a, const void *b)
{
	struct fp_owners o = { { (uintptr_t)a, (uintptr_t)b }, { 0, 0 }, { false, false } };

	return dl_iterate_phdr(fp_owners_of, &o) && o.base[0] == o.base[1];
}
#endif

/*
 * The real function: the next definition after ours.  When none comes
 * after us, because the C library is searched before us (LD_PRELOAD=
 * "libc.so.6 fastpath.so": then programs reach libc's functions, not ours,
 * but our constructor, destructor and the calls libc does not have still
 * run), the first definition in the global scope, unless it is our own.
 * NULL: the C library under us lacks it (fastpath.h, "Not ready yet").
 * Linux only: on illumos dl_iterate_phdr is not among the symbols checked
 * against the oldest libc we load on (tests/illumos_libc_symbols.txt).
 */
FP_STARTUP_TEXT static void *fp_lookup(const char *name)
{
	void *p = FP_DLSYM(name);

#ifdef FP_LINUX
	if (fp_likely(p != NULL))
		return p;
	p = FP_DLSYM_GLOBAL(name);
	if (!p || fp_same_object(p, (void *)fp_lookup))
		return NULL;
	atomic_fetch_add_explicit(&fp_bind_global, 1, memory_order_relaxed);
#endif
	return p;
}

#ifdef FP_LINUX
/* valgrind's core preload (vgpreload_core-ARCH-linux.so) among the
 * objects loaded at start-up, noted by the walk for what may not run under
 * it (a clone of the urandom mitigation's), asked where no lock may be
 * taken. */
bool fp_under_valgrind FP_STARTUP_DATA;

/* The C library's loaded segments, recorded by the walk at initialisation
 * (fp_libc_note): getpid's object, in libc itself on every version (glibc
 * before 2.33 linked fstat into each object from libc_nonshared.a). */
#define FP_LIBC_SEGS 8
static struct {
	uintptr_t lo[FP_LIBC_SEGS], len[FP_LIBC_SEGS];
	unsigned n;
	bool known;
} fp_libc FP_STARTUP_DATA;

FP_STARTUP_TEXT static __attribute__((unused)) void fp_libc_note(const struct dl_phdr_info *info)
{
	ElfW(Half) i;

	for (i = 0; i < info->dlpi_phnum && fp_libc.n < FP_LIBC_SEGS; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD) {
			fp_libc.lo[fp_libc.n] = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
			fp_libc.len[fp_libc.n++] = info->dlpi_phdr[i].p_memsz;
		}
	fp_libc.known = i == info->dlpi_phnum;
}

/* Is f (a bound real function) the C library's own, not a later preload's
 * wrapper that must see the calls?  Read from the segments recorded at
 * initialisation: async-signal-safe, for a table bound at its first use
 * (fp_real_late); the loader's own list where they are not known, which
 * is at initialisation only (such tables are bound there). */
bool fp_in_libc(const void *f)
{
	unsigned i;

	if (!f)
		return false;
	if (!fp_libc.known)
		return fp_same_object(f, (void *)&getpid);
	for (i = 0; i < fp_libc.n; i++)
		if ((uintptr_t)f - fp_libc.lo[i] < fp_libc.len[i])
			return true;
	return false;
}
#endif

#if defined(FP_LINUX) && !defined(FP_DLSYM_TEST)
/*
 * Binding without dlsym (issue 39): a hundred dlsym(RTLD_NEXT) calls were
 * a third of what loading us cost a process (each one finds its caller's
 * object, sets up an error catch and walks the search order).  The same
 * answer, read from the dynamic symbol tables of the objects after ours,
 * up to the C library's, in the order the loader searches them, with the
 * rules of glibc's do_lookup_x and check_match for a lookup without a
 * version: the first object with a global or weak definition, an
 * unversioned one before the one default version.  Only where that order
 * is plain: ours loaded before the C library, every object between with a
 * GNU hash table, and no LD_DYNAMIC_WEAK.  Anything else (a name not found
 * so, an IFUNC, an unusual binding or type) is asked of dlsym, as before.
 */
#define FP_WALK_MAX 16

struct fp_dso {
	const ElfW(Sym) *sym;
	const char *str;
	const uint32_t *gnu;
	const ElfW(Half) *ver;
	uintptr_t base;
};

/* On the binding thread's stack: no page of ours touched for it. */
struct fp_walk {
	struct fp_dso o[FP_WALK_MAX];
	unsigned n;
	bool after_us, libc_after, usable;
	uintptr_t vdso;
	/* The objects before ours: where another copy's marker would be. */
	struct fp_dso before[FP_WALK_MAX];
	unsigned nbefore;
	bool before_ok;
	/* After the C library, only the interpreter (tail_clean): then a
	 * name found in neither is absent from the whole search order, and
	 * the walk's answer is dlsym's without asking it. */
	struct fp_dso interp;
	uintptr_t interp_base;
	bool have_interp, tail_clean;
	/* The program itself, which dl_iterate_phdr reports first, is never
	 * the C library: started by the interpreter run as a command, a
	 * program built without -fPIE has the interpreter's base, 0. */
	bool program_seen;
};

/* What the walk also answered, for initialisation after the binding: the
 * C library's __libc_single_threaded, and whether an object before ours
 * exports fastpath_object_marker (another copy).  Unknown: dlsym's. */
static struct {
	bool single_known, copy_known, copy;
	const volatile char *single;
} fp_walked FP_STARTUP_DATA;

/* A d_ptr: glibc's loader relocates the dynamic section in place, musl's
 * and a read-only one (MIPS, RISC-V) are left as offsets. */
static const void *fp_dyn_ptr(uintptr_t base, uintptr_t p)
{
	return (const void *)(p < base ? p + base : p); // NOLINT(performance-no-int-to-ptr)
}

FP_STARTUP_TEXT static const ElfW(Dyn) *fp_dynamic(const struct dl_phdr_info *info)
{
	const ElfW(Dyn) *dyn = NULL;
	ElfW(Half) i;

	for (i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr); // NOLINT(performance-no-int-to-ptr)
	return dyn;
}

FP_STARTUP_TEXT static bool fp_dso_of(const struct dl_phdr_info *info, struct fp_dso *d)
{
	const ElfW(Dyn) *dyn = fp_dynamic(info);

	*d = (struct fp_dso){ .base = (uintptr_t)info->dlpi_addr };
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == DT_SYMTAB)
			d->sym = fp_dyn_ptr(d->base, (uintptr_t)dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_STRTAB)
			d->str = fp_dyn_ptr(d->base, (uintptr_t)dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_GNU_HASH)
			d->gnu = fp_dyn_ptr(d->base, (uintptr_t)dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_VERSYM)
			d->ver = fp_dyn_ptr(d->base, (uintptr_t)dyn->d_un.d_ptr);
	}
	return d->sym && d->str && d->gnu;
}

FP_STARTUP_TEXT static bool fp_starts(const char *s, const char *want)
{
	while (*want && *s == *want)
		s++, want++;
	return !*want;
}

FP_STARTUP_TEXT static bool fp_is_valgrind(const char *path)
{
	const char *base = path;

	for (; *path; path++)
		if (*path == '/')
			base = path + 1;
	return fp_starts(base, "vgpreload_core-");
}

/* The C library: the object whose DT_SONAME begins "libc.so" (glibc's
 * libc.so.6), or, with no SONAME, the interpreter (musl's C library is
 * its dynamic linker).  Not the object that holds getpid's address: a
 * program built without -fPIE that takes that address makes its own PLT
 * entry getpid's address in every object (canonical), and the C library
 * was then never found: every table bound by dlsym at start-up, and no
 * function libc's (fp_in_libc). */
FP_STARTUP_TEXT static bool fp_is_libc(const struct dl_phdr_info *info, uintptr_t interp)
{
	const ElfW(Dyn) *dyn = fp_dynamic(info);
	uintptr_t str = 0, name = 0;
	bool named = false;

	if (!dyn)
		return false;
	for (; dyn->d_tag != DT_NULL; dyn++)
		if (dyn->d_tag == DT_STRTAB) {
			str = (uintptr_t)dyn->d_un.d_ptr;
		} else if (dyn->d_tag == DT_SONAME) {
			name = (uintptr_t)dyn->d_un.d_val;
			named = true;
		}
	if (named)
		return str && fp_starts((const char *)fp_dyn_ptr(info->dlpi_addr, str) + name, "libc.so");
	return (uintptr_t)info->dlpi_addr == interp;
}

FP_STARTUP_TEXT static bool fp_phdr_has(const struct dl_phdr_info *info, uintptr_t a)
{
	ElfW(Half) i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && a - (info->dlpi_addr + ph->p_vaddr) < ph->p_memsz)
			return true;
	}
	return false;
}

FP_STARTUP_TEXT static int fp_walk_collect(struct dl_phdr_info *info, size_t size, void *data)
{
	struct fp_walk *w = data;

	(void)size;
	if (w->vdso && (uintptr_t)info->dlpi_phdr - w->vdso < 8192)
		return 0;  /* the vDSO: in no search order */
	if (info->dlpi_name && fp_is_valgrind(info->dlpi_name))
		fp_under_valgrind = true;
	bool libc = w->program_seen && fp_is_libc(info, w->interp_base);

	if (libc && !fp_libc.known)
		fp_libc_note(info);
	w->program_seen = true;
	if (!w->usable)
		return fp_libc.known;  /* on, for the C library's segments only */
	if (!w->after_us) {
		w->after_us = fp_phdr_has(info, (uintptr_t)&fp_real_core);
		if (!w->after_us && (w->nbefore == FP_WALK_MAX ||
		                     !fp_dso_of(info, &w->before[w->nbefore++])))
			w->before_ok = false;
		return 0;
	}
	if (w->libc_after) {
		/* Past the C library: a later object may be one a constructor
		 * that ran before ours dlopen()ed, which is in no search order
		 * (the loader appends those, after every object loaded at
		 * start-up): a name beyond it is dlsym's.  But the interpreter
		 * (glibc's ld.so comes last) is in every search order. */
		if ((uintptr_t)info->dlpi_addr == w->interp_base && !w->have_interp)
			w->have_interp = fp_dso_of(info, &w->interp);
		else
			w->tail_clean = false;
		return !w->tail_clean;
	}
	if (w->n == FP_WALK_MAX || !fp_dso_of(info, &w->o[w->n])) {
		w->usable = false;
		return fp_libc.known;
	}
	w->n++;
	w->libc_after = libc;
	return 0;
}

FP_STARTUP_TEXT static void fp_walk_start(struct fp_walk *w)
{
	w->n = w->nbefore = 0;
	w->program_seen = false;
	w->after_us = w->libc_after = w->have_interp = false;
	w->before_ok = w->tail_clean = true;
	w->interp_base = (uintptr_t)getauxval(AT_BASE);
	w->usable = !fp_env_get("LD_DYNAMIC_WEAK");
	w->vdso = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	(void)dl_iterate_phdr(fp_walk_collect, w);
	w->usable = w->usable && w->after_us && w->libc_after;
}

/* a == b, without the C library's strcmp: its page is one more fault for
 * a program that never calls it. */
FP_STARTUP_TEXT static bool fp_str_eq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

FP_STARTUP_TEXT static uint32_t fp_gnu_hash(const char *s)
{
	uint32_t h = 5381;

	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

/* An IFUNC's resolver, run as the loader runs it (glibc's dl-irel.h): on
 * x86 it takes no argument.  Elsewhere such a name is dlsym's, and every
 * table is bound at initialisation (fp_bind_all). */
#if defined(__x86_64__) || defined(__i386__)
#  define FP_IFUNC_RUN(a) (((void *(*)(void))(a))()) // NOLINT(performance-no-int-to-ptr)
#endif

/* name in one object: 1 found (*out), 0 not there, -1 ask dlsym.  type:
 * STT_FUNC (an IFUNC's resolver is run), or STT_OBJECT for a variable. */
FP_STARTUP_TEXT static int fp_dso_find(const struct fp_dso *d, const char *name, uint32_t h,
                                       void **out, unsigned type)
{
	const uint32_t nb = d->gnu[0], off = d->gnu[1], nbloom = d->gnu[2], shift = d->gnu[3];
	const ElfW(Addr) *bloom = (const void *)&d->gnu[4];
	const uint32_t *bucket = (const void *)&bloom[nbloom], *chain = &bucket[nb];
	const unsigned bits = sizeof(ElfW(Addr)) * 8;
	const ElfW(Sym) *versioned = NULL;
	unsigned nversions = 0;
	ElfW(Addr) w;
	uint32_t i;

	if (!nb || !nbloom)
		return 0;
	w = bloom[(h / bits) % nbloom];
	if (!(w >> (h % bits) & 1) || !(w >> ((h >> shift) % bits) & 1))
		return 0;
	for (i = bucket[h % nb]; i >= off && i; i++) {
		const ElfW(Sym) *s = &d->sym[i];
		uint32_t h2 = chain[i - off];

		if ((h | 1) == (h2 | 1) && fp_str_eq(name, d->str + s->st_name) &&
		    s->st_shndx != SHN_UNDEF && s->st_value != 0) {
			if (d->ver && (d->ver[i] & 0x7fff) >= 2) {
				if (!(d->ver[i] & 0x8000) && nversions++ == 0)
					versioned = s;
			} else {
				versioned = s;
				nversions = 1;
				break;
			}
		}
		if (h2 & 1)
			break;
	}
	if (nversions != 1)
		return 0;
#ifdef FP_IFUNC_RUN
	if (type == STT_FUNC && ELF32_ST_TYPE(versioned->st_info) == STT_GNU_IFUNC &&
	    (ELF32_ST_BIND(versioned->st_info) == STB_GLOBAL ||
	     ELF32_ST_BIND(versioned->st_info) == STB_WEAK)) {
		*out = FP_IFUNC_RUN(d->base + versioned->st_value);
		return 1;
	}
#endif
	/* As glibc's check_match: a definition of no type, an object or a
	 * common one is an address dlsym gives too; TLS (and an IFUNC where
	 * its resolver is not run here) is dlsym's to answer. */
	switch (ELF32_ST_TYPE(versioned->st_info)) {
	case STT_FUNC:
	case STT_OBJECT:
	case STT_NOTYPE:
	case STT_COMMON:
		break;
	default:
		return -1;
	}
	(void)type;
	switch (ELF32_ST_BIND(versioned->st_info)) {
	case STB_GLOBAL:
	case STB_WEAK:
		*out = (void *)(d->base + versioned->st_value); // NOLINT(performance-no-int-to-ptr)
		return 1;
	case STB_LOCAL:
		return 0;
	default:
		return -1;  /* STB_GNU_UNIQUE */
	}
}

/* name by the walk alone: true when it answers as dlsym would (*out; NULL:
 * in no object of the search order), false when dlsym must.  Not after us:
 * the first definition before us, as fp_lookup's global scope gives. */
FP_STARTUP_TEXT static bool fp_walk_find(const struct fp_walk *w, const char *name, void **out)
{
	uint32_t h = fp_gnu_hash(name);
	unsigned i;
	int r = 0;

	*out = NULL;
	if (!w->usable)
		return false;
	for (i = 0; i < w->n && r == 0; i++)
		r = fp_dso_find(&w->o[i], name, h, out, STT_FUNC);
	if (r == 0 && w->tail_clean && w->have_interp)
		r = fp_dso_find(&w->interp, name, h, out, STT_FUNC);
	if (r == 0 && w->tail_clean && w->before_ok) {
		for (i = 0; i < w->nbefore && r == 0; i++)
			r = fp_dso_find(&w->before[i], name, h, out, STT_FUNC);
		if (r > 0)
			atomic_fetch_add_explicit(&fp_bind_global, 1, memory_order_relaxed);
		return r >= 0;
	}
	return r > 0;
}

FP_STARTUP_TEXT static void *fp_walk_lookup(const struct fp_walk *w, const char *name)
{
	void *p;

	return fp_walk_find(w, name, &p) ? p : fp_lookup(name);
}

/* The answers initialisation asks for next (fp_walked), where the walk
 * can give them: then no dlsym at all runs at start-up. */
FP_STARTUP_TEXT static void fp_walk_more(const struct fp_walk *w)
{
	static const char marker[] = "fastpath_object_marker", single[] = "__libc_single_threaded";
	void *p = NULL;
	unsigned i;
	int r = 0;

	fp_walked.copy_known = fp_walked.single_known = false;
	if (!w->usable || !w->before_ok)
		return;
	for (i = 0; i < w->nbefore && r == 0; i++)
		r = fp_dso_find(&w->before[i], marker, fp_gnu_hash(marker), &p, STT_FUNC);
	if (r >= 0) {
		fp_walked.copy = r > 0;
		fp_walked.copy_known = true;
	}
	/* From the first object on, as RTLD_DEFAULT: a program's copy
	 * relocation of it (C++ reads it inline) is the live one. */
	r = 0;
	for (i = 0; i < w->nbefore && r == 0; i++)
		r = fp_dso_find(&w->before[i], single, fp_gnu_hash(single), &p, STT_OBJECT);
	for (i = 0; i < w->n && r == 0; i++)
		r = fp_dso_find(&w->o[i], single, fp_gnu_hash(single), &p, STT_OBJECT);
	/* Found, or in no object up to the C library (glibc before 2.32). */
	if (r >= 0) {
		fp_walked.single = r > 0 ? p : NULL;
		fp_walked.single_known = true;
	}
}
#else
struct fp_walk {
	int unused;
};
static void fp_walk_start(struct fp_walk *w)
{
	(void)w;
}
#define fp_walk_lookup(w, name) ((void)(w), fp_lookup(name))
static void fp_walk_more(const struct fp_walk *w)
{
	(void)w;
}
static struct {
	bool single_known, copy_known, copy;
	const volatile char *single;
} fp_walked;
#endif

/* Whether the walk found another copy of fastpath before ours; false:
 * unknown, dlsym's to say (fp_other_copy). */
bool fp_walked_copy(bool *copy)
{
	*copy = fp_walked.copy;
	return fp_walked.copy_known;
}

/* __libc_single_threaded as the walk found it (NULL: there is none);
 * false where it could not tell: counters.c asks dlsym then. */
bool fp_walked_single(const volatile char **at)
{
	*at = fp_walked.single;
	return fp_walked.single_known;
}

FP_STARTUP_TEXT static void *fp_walk_look(void *w, const char *name)
{
	return fp_walk_lookup((struct fp_walk *)w, name);
}

FP_STARTUP_TEXT static void fp_bind_syms(struct fp_walk *w, const struct fp_sym *s, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++) {
		FP_ANN_BOUND(s[k].slot, sizeof *s[k].slot);
		__atomic_store_n(s[k].slot, fp_walk_lookup(w, s[k].name), __ATOMIC_RELAXED);
	}
}

/*
 * A mitigation's table (and roots.c's) is bound at its first use (issue
 * 39): fp_written has its bit once it is written, fp_bound (fp_real.h)
 * once it is written and initialisation is done.  No claim: a thread that
 * finds it unwritten writes it whole, the same values as any other, so
 * none waits, and a binding a jump or a cancellation stopped halfway is
 * done again.  Only where the walk answers every name as dlsym would
 * (fp_walk_find): the first use may be in a signal handler, where dlsym
 * may not run, nor change a pending dlerror() (t_firstcall.sh).  Elsewhere
 * (no plain search order, no GNU hash table, objects dlopen()ed before us,
 * another architecture, illumos, the unit tests' lookup) every table is
 * bound at initialisation.
 */
_Atomic unsigned fp_bound FP_STARTUP_DATA;
static _Atomic unsigned fp_written FP_STARTUP_DATA;
#ifdef FP_DLSYM_TEST
/* test_core binds lazily when it asks; else, as there is no walk, at
 * initialisation. */
static bool fp_bind_lazy_test;
#endif
/* The objects the walk found, kept for the tables bound later; written
 * once, at initialisation, in the one thread that won fp_init_state. */
static struct fp_walk fp_walk_kept FP_STARTUP_DATA;

FP_STARTUP_TEXT static void fp_bind_one(const struct fp_mitigation *m)
{
	if (m->bind)
		m->bind(fp_walk_look, &fp_walk_kept);
	fp_bind_syms(&fp_walk_kept, m->syms, m->nsyms);
	atomic_fetch_or_explicit(&fp_written, m->bit, memory_order_release);
}

/* The tables bound as a mitigation's: the registry's, and roots.c's. */
#ifdef FP_LINUX
static const struct fp_mitigation fp_roots_table = { .bind = fp_real_bind_roots, .bit = FP_BIT_ROOTS };
#define FP_NTABLES (fp_nmitigations + 1)
#else
static const struct fp_mitigation fp_roots_table;
#define FP_NTABLES fp_nmitigations
#endif
#define FP_TABLE_AT(i) ((i) < fp_nmitigations ? fp_mitigations[i] : &fp_roots_table)

/* Every table not yet written: all at start-up where binding is not
 * lazy, the rest for the debug line's count. */
FP_STARTUP_TEXT static void fp_bind_unwritten(void)
{
	size_t i;

	for (i = 0; i < FP_NTABLES; i++)
		if (!(atomic_load(&fp_written) & FP_TABLE_AT(i)->bit))
			fp_bind_one(FP_TABLE_AT(i));
}

FP_STARTUP_TEXT void fp_bind_all(void)
{
	atomic_store_explicit(&fp_bind_global, 0, memory_order_relaxed);
	fp_walk_start(&fp_walk_kept);
	fp_real_bind_core(fp_walk_look, &fp_walk_kept);
	fp_walk_more(&fp_walk_kept);
#if defined(FP_LINUX) && !defined(FP_DLSYM_TEST) && defined(FP_IFUNC_RUN)
	if (fp_walk_kept.usable && fp_walk_kept.tail_clean && fp_walk_kept.before_ok)
		return;
#elif defined(FP_DLSYM_TEST)
	if (fp_bind_lazy_test)
		return;
#endif
	fp_bind_unwritten();
}

/* Initialisation is done: the tables written during it are bound. */
void fp_bind_done(void)
{
	atomic_fetch_or_explicit(&fp_bound, atomic_load(&fp_written), memory_order_release);
}

void fp_real_late(unsigned bit)
{
	size_t i;

	/* Inside our own initialisation, in this thread: the table as it is
	 * (the stand-in), as every table was before binding. */
	if (!fp_ready())
		return;
	if (!(atomic_load_explicit(&fp_written, memory_order_acquire) & bit))
		for (i = 0; i < FP_NTABLES; i++)
			if (FP_TABLE_AT(i)->bit == bit)
				fp_bind_one(FP_TABLE_AT(i));
	atomic_fetch_or_explicit(&fp_bound, bit, memory_order_release);
}

/* Once settings are known: a preload order that hides our wrappers. */
FP_STARTUP_TEXT void fp_bind_say(void)
{
	char n[24];
	struct fp_buf b = { n, 0, sizeof n };

	if (!fp_cfg.debug)
		return;
	/* Every table now, for the count (debugging costs what it costs). */
	fp_bind_unwritten();
	if (fp_likely(!atomic_load(&fp_bind_global)))
		return;
	fp_buf_ulong(&b, atomic_load(&fp_bind_global));
	fp_debug("core", n, "real functions come before fastpath.so in the search order "
	                    "(LD_PRELOAD names the C library first?): bound from the global "
	                    "scope; calls to them do not reach fastpath");
}
