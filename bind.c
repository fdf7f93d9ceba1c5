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
 * under FASTPATH_DEBUG, fp_bind_say). */
static unsigned fp_bind_global FP_STARTUP_DATA;

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
	fp_bind_global++;
#endif
	return p;
}

#ifdef FP_LINUX
/* Is f (a bound real function) the C library's own, not a later preload's
 * wrapper that must see the calls?  Compared with getpid's object: in libc
 * itself on every version (glibc before 2.33 linked fstat into each object
 * from libc_nonshared.a), and not ours.  At initialisation only. */
FP_STARTUP_TEXT bool fp_in_libc(const void *f)
{
	return f && fp_same_object(f, (void *)&getpid);
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

FP_STARTUP_TEXT static bool fp_dso_of(const struct dl_phdr_info *info, struct fp_dso *d)
{
	const ElfW(Dyn) *dyn = NULL;
	ElfW(Half) i;

	for (i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr); // NOLINT(performance-no-int-to-ptr)
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
	if (!w->after_us) {
		w->after_us = fp_phdr_has(info, (uintptr_t)&fp_real_core);
		if (!w->after_us && (w->nbefore == FP_WALK_MAX ||
		                     !fp_dso_of(info, &w->before[w->nbefore++])))
			w->before_ok = false;
		return 0;
	}
	if (w->n == FP_WALK_MAX || !fp_dso_of(info, &w->o[w->n])) {
		w->usable = false;
		return 1;
	}
	w->n++;
	/* Up to the C library: a later object may be one a constructor
	 * that ran before ours dlopen()ed, which is in no search order (the
	 * loader appends those, after every object loaded at start-up); a
	 * name beyond it is dlsym's. */
	w->libc_after = fp_phdr_has(info, (uintptr_t)&getpid);
	return w->libc_after;
}

FP_STARTUP_TEXT static void fp_walk_start(struct fp_walk *w)
{
	w->n = w->nbefore = 0;
	w->after_us = w->libc_after = false;
	w->before_ok = true;
	w->usable = !fp_env_get("LD_DYNAMIC_WEAK");
	w->vdso = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	if (w->usable)
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

/* name in one object: 1 found (*out), 0 not there, -1 ask dlsym.  type:
 * STT_FUNC, or STT_OBJECT for a variable. */
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
	if (ELF32_ST_TYPE(versioned->st_info) != type)
		return -1;  /* an IFUNC (its resolver must run), TLS, another type */
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

FP_STARTUP_TEXT static void *fp_walk_lookup(const struct fp_walk *w, const char *name)
{
	uint32_t h = fp_gnu_hash(name);
	void *p = NULL;
	unsigned i;

	for (i = 0; w->usable && i < w->n; i++) {
		int r = fp_dso_find(&w->o[i], name, h, &p, STT_FUNC);

		if (r > 0)
			return p;
		if (r < 0)
			break;
	}
	return fp_lookup(name);
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

#ifdef FP_LINUX
bool fp_fd_held(int fd)
{
	size_t i;

	for (i = 0; i < fp_nmitigations; i++)
		if (fp_mitigations[i]->holds && fp_mitigations[i]->holds(fd))
			return true;
	return false;
}
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

	for (k = 0; k < n; k++)
		*s[k].slot = fp_walk_lookup(w, s[k].name);
}

FP_STARTUP_TEXT void fp_bind_all(void)
{
	/* Not on the stack (t_stack: 1.4 KiB): fp_init_run runs once, in
	 * the one thread that won fp_init_state. */
	static struct fp_walk w FP_STARTUP_DATA;
	size_t i;

	fp_bind_global = 0;
	fp_walk_start(&w);
	fp_real_bind_core(fp_walk_look, &w);
	for (i = 0; i < fp_nmitigations; i++) {
		if (fp_mitigations[i]->bind)
			fp_mitigations[i]->bind(fp_walk_look, &w);
		fp_bind_syms(&w, fp_mitigations[i]->syms, fp_mitigations[i]->nsyms);
	}
	fp_walk_more(&w);
}

/* Once settings are known: a preload order that hides our wrappers. */
FP_STARTUP_TEXT void fp_bind_say(void)
{
	char n[24];
	struct fp_buf b = { n, 0, sizeof n };

	if (fp_likely(!fp_bind_global) || !fp_cfg.debug)
		return;
	fp_buf_ulong(&b, fp_bind_global);
	fp_debug("core", n, "real functions come before fastpath.so in the search order "
	                    "(LD_PRELOAD names the C library first?): bound from the global "
	                    "scope; calls to them do not reach fastpath");
}
