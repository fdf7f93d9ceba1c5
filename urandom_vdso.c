/* SPDX-License-Identifier: MIT */
/*
 * urandom_vdso.c: which source serves the urandom mitigation's reads, and
 * the memory each thread reads through.
 *
 *   vdso       (Linux 6.11 on, where the architecture has it) every pooled
 *              read is one call of the kernel's vDSO getrandom on a state of
 *              this thread's own: nothing is buffered here, and the vDSO
 *              checks the kernel's generation on every call, so a fork child
 *              or a cloned VM diverges at once, as natively.
 *   kernel     (Linux 5.18 to 6.10, or FASTPATH_URANDOM_SOURCE=kernel) a read
 *              of a pooled descriptor is the real read: the open is saved,
 *              no byte is buffered.  The kernel reseeds on a VM generation
 *              change (vmgenid); a user-space buffer could not follow it.
 *   reservoir  (Linux before 5.18, illumos, or FASTPATH_URANDOM_SOURCE=
 *              reservoir) urandom_pool.c's 64 KiB pool and 1 KiB slices,
 *              MADV_DONTDUMP where the kernel has it: the kernel itself
 *              cannot tell clones apart there, so the pool is no less safe.
 *
 * Per-thread memory (vDSO states, reservoir slices) comes from chunks
 * mapped as the kernel asks (states: its mmap_prot and mmap_flags, several
 * to a page, none across a page) or wipe-on-fork and dont-dump (slices);
 * the thread's pointer is in thread-local storage, and a key's destructor
 * hands the memory back when the thread ends, for the next thread to take.
 * A slot is a bit taken by compare-and-swap and given back by an atomic
 * and: nothing a siglongjmp out of a first read can leave held.  Only
 * mapping a new chunk takes a try-lock, with every signal blocked; a
 * thread that finds it held goes without (the kernel serves that read).
 * No allocation, no lock waited for, on a read or at a thread's end.
 */
#include "fastpath.h"
#include "urandom.h"

#ifdef FP_LINUX
#include <sys/utsname.h>
#endif

int ur_source = UR_SRC_KERNEL;
int ur_source_asked = UR_SRC_AUTO;
bool ur_test_no_vdso FP_STARTUP_DATA;
FP_TLS void *ur_tls_state;
FP_TLS void *ur_tls_slice;

int ur_parse_source(const char *s, int *src, char *why, size_t whylen)
{
	*src = UR_SRC_AUTO;
	if (strcmp(s, "auto") == 0)
		return 0;
	if (strcmp(s, "reservoir") == 0) {
		*src = UR_SRC_RESERVOIR;
		return 0;
	}
	if (strcmp(s, "kernel") == 0) {
		*src = UR_SRC_KERNEL;
		return 0;
	}
	snprintf(why, whylen, "expected auto, kernel or reservoir");
	return -1;
}

const char *ur_source_name(int src)
{
	return src == UR_SRC_VDSO ? "vdso" : src == UR_SRC_RESERVOIR ? "reservoir" : "kernel";
}

#ifdef UR_HAVE_VDSO
#include <elf.h>
#include <link.h>

static size_t ur_page;

ur_vgr_fn ur_vgr;
struct ur_vgr_params ur_vgr_p;
void *ur_vgr_libc FP_STARTUP_DATA;

/* A symbol of the vDSO image, through its dynamic section and DT_HASH (the
 * kernel links it with both hash styles). */
static void *ur_vdso_sym(const char *name)
{
	/* The auxiliary vector gives the image's address as a number. */
	const char *img = (const char *)getauxval(AT_SYSINFO_EHDR); // NOLINT(performance-no-int-to-ptr)
	const ElfW(Ehdr) *eh = (const void *)img;
	const ElfW(Phdr) *ph;
	const ElfW(Dyn) *dyn = NULL;
	const ElfW(Sym) *sym = NULL;
	const Elf32_Word *hash = NULL;
	const char *str = NULL, *base = NULL;
	int i;

	if (!img || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
		return NULL;
	ph = (const void *)(img + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && !base)
			base = img + ph[i].p_offset - ph[i].p_vaddr;
		else if (ph[i].p_type == PT_DYNAMIC)
			dyn = (const void *)(img + ph[i].p_offset);
	}
	if (!base || !dyn)
		return NULL;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == DT_STRTAB)
			str = base + dyn->d_un.d_ptr;
		else if (dyn->d_tag == DT_SYMTAB)
			sym = (const void *)(base + dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_HASH)
			hash = (const void *)(base + dyn->d_un.d_ptr);
	}
	if (!str || !sym || !hash)
		return NULL;
	for (i = 0; i < (int)hash[1]; i++)
		if (sym[i].st_shndx != SHN_UNDEF && strcmp(str + sym[i].st_name, name) == 0 &&
		    (sym[i].st_info & 0xf) == STT_FUNC)
			return (void *)(base + sym[i].st_value);
	return NULL;
}

/* The vDSO's getrandom and its sizes: at the first use of the source
 * (ur_source_now), from memory only, so a signal handler may be the one
 * that does it.  Refills and pooled getrandom calls use it only where the
 * getrandom we bound is libc's (ur_source_load, at initialisation): a
 * preload after ours that wraps getrandom (a replay tool,
 * tests/libfault_getrandom.so) still sees each of those.  Reads of the
 * device never reach getrandom natively, so they use the vDSO whoever
 * wraps getrandom. */
static void ur_vgr_bind(void)
{
	ur_vgr_fn f = (ur_vgr_fn)ur_vdso_sym("__vdso_getrandom");

	/* Its sizes come from a call with opaque_len ~0.  A state must fit
	 * in a page (the kernel's rule: pages may be dropped one by one). */
	if (!f || f(NULL, 0, 0, &ur_vgr_p, ~(size_t)0) != 0 || ur_vgr_p.size_of_opaque_state == 0 ||
	    ur_vgr_p.size_of_opaque_state > ur_page)
		return;
	ur_vgr = f;
}
#endif

/* Only for the helgrind/drd build (make check-valgrind): the slots' lock is
 * a hand-made try-lock, which the tools cannot see; a slot handed from an
 * ended thread to a new one is ordered by it.  As the pool's (its
 * UR_ANN_*), client requests tell them. */
#ifdef FP_VALGRIND_ANNOTATE
#include <valgrind/helgrind.h>
#define UR_SL_CREATE(s)                                                       \
	do {                                                                 \
		ANNOTATE_RWLOCK_CREATE(s);                                   \
		ANNOTATE_BENIGN_RACE_SIZED(&(s)->mapping, sizeof (s)->mapping, \
		                           "the slots' lock word");          \
	} while (0)
#define UR_SL_LOCKED(s) ANNOTATE_RWLOCK_ACQUIRED(s, 1)
#define UR_SL_UNLOCK(s) ANNOTATE_RWLOCK_RELEASED(s, 1)
/* The source decided once, by whichever thread reads first: its state word
 * and the source are atomics (a thread that finds the decision under way
 * reads the kernel's), and what the decider set up is published by the
 * state's release store, which the tools cannot see. */
#define UR_SRC_CREATE()                                                       \
	do {                                                                 \
		ANNOTATE_BENIGN_RACE_SIZED(&ur_src_state, sizeof ur_src_state, \
		                           "the source's decision state");   \
		ANNOTATE_BENIGN_RACE_SIZED(&ur_source, sizeof ur_source,     \
		                           "the source, atomic");            \
	} while (0)
#define UR_SRC_PUBLISH() ANNOTATE_HAPPENS_BEFORE(&ur_src_state)
#define UR_SRC_SEEN() ANNOTATE_HAPPENS_AFTER(&ur_src_state)
#else
#define UR_SL_CREATE(s) ((void)0)
#define UR_SL_LOCKED(s) ((void)0)
#define UR_SL_UNLOCK(s) ((void)0)
#define UR_SRC_CREATE() ((void)0)
#define UR_SRC_PUBLISH() ((void)0)
#define UR_SRC_SEEN() ((void)0)
#endif

/* ------------------------------------------------------------------------
 * Slots: per-thread memory, from chunks of up to 64 slots, none across a
 * page.  The chunk table and its bitmaps are ordinary memory (a state's
 * own page may be dropped by the kernel at any time: no list lives there).
 * ---------------------------------------------------------------------- */
#define UR_CHUNKS 256  /* 16,000 threads' slots at most; later ones: none */
struct ur_slots {
	_Atomic bool mapping;  /* a chunk being mapped: a try-lock, never waited for */
	size_t size;         /* of a slot, cache-line aligned */
	unsigned per_page, per_chunk;
	size_t chunk_bytes;
	int prot, flags;
	bool advise;         /* wipe-on-fork and dont-dump, by madvise */
	_Atomic unsigned nchunks;  /* published after its chunk[] */
	unsigned char *chunk[UR_CHUNKS];
	_Atomic uint64_t used[UR_CHUNKS];
};
static struct ur_slots ur_states, ur_slices;
#ifndef UR_HAVE_VDSO
static size_t ur_page;
#endif

static void ur_slots_setup(struct ur_slots *s, size_t size, int prot, int flags, bool advise)
{
	unsigned pages;

	size = size ? (size + FP_CACHELINE - 1) / FP_CACHELINE * FP_CACHELINE : FP_CACHELINE;
	s->size = size;
	s->per_page = size < ur_page ? (unsigned)(ur_page / size) : 1;
	pages = s->per_page < 64 ? 64 / s->per_page : 1;
	s->per_chunk = pages * s->per_page;
	s->chunk_bytes = pages * ur_page;
	s->prot = prot;
	s->flags = flags;
	s->advise = advise;
	UR_SL_CREATE(s);
}

static void *ur_slot_at(const struct ur_slots *s, unsigned c, unsigned i)
{
	return s->chunk[c] + (i / s->per_page) * ur_page + (i % s->per_page) * s->size;
}

/* A free bit of chunk c taken, by one compare-and-swap: a handler that
 * jumps out before or after it leaves the bitmap whole. */
static void *ur_slot_claim(struct ur_slots *s, unsigned c)
{
	uint64_t full = s->per_chunk >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << s->per_chunk) - 1;
	uint64_t u = atomic_load(&s->used[c]);
	unsigned i;

	while (u != full) {
		/* A loop, not ctz: no libgcc helper in a 32-bit build. */
		for (i = 0; u & ((uint64_t)1 << i); i++)
			;
		if (atomic_compare_exchange_weak(&s->used[c], &u, u | ((uint64_t)1 << i)))
			return ur_slot_at(s, c, i);
	}
	return NULL;
}

/* A new chunk, its first slot taken, under the try-lock with every signal
 * blocked: nothing can jump out while it is held, so no thread ever finds
 * it stranded.  NULL if another thread maps one now (this read goes
 * without) or there is no memory. */
static void *ur_slot_map(struct ur_slots *s)
{
	sigset_t old;
	void *p = NULL;
	unsigned n;

	fp_hold_all(&old);
	if (!atomic_exchange_explicit(&s->mapping, true, memory_order_acquire)) {
		UR_SL_LOCKED(s);
		n = atomic_load(&s->nchunks);
		if (n < UR_CHUNKS) {
			/* Through void *: see ur_pool_get on old illumos headers. */
			void *m = (void *)fp_mmap(NULL, s->chunk_bytes, s->prot, s->flags, -1, 0);

			ur_count(SYSCALLS);
			if (m != (void *)MAP_FAILED) {
				if (s->advise)
					(void)ur_private_advise(m, s->chunk_bytes);
				s->chunk[n] = m;
				atomic_store(&s->used[n], 1);
				atomic_store(&s->nchunks, n + 1);
				p = m;
			}
		}
		UR_SL_UNLOCK(s);
		atomic_store_explicit(&s->mapping, false, memory_order_release);
	}
	fp_unhold(&old);
	return p;
}

/* A free slot, or NULL (no memory, too many threads, another thread is
 * mapping a chunk): the caller goes without, never waits. */
static void *ur_slot_get(struct ur_slots *s)
{
	unsigned c, n;
	void *p;

	if (s->size == 0)
		return NULL;
	n = atomic_load(&s->nchunks);
	for (c = 0; c < n; c++)
		if ((p = ur_slot_claim(s, c)))
			return p;
	return ur_slot_map(s);
}

/* Which slot p is: chunk c, bit i; false when it is none of s's. */
static bool ur_slot_index(const struct ur_slots *s, const void *p, unsigned *c, unsigned *i)
{
	unsigned n = atomic_load(&s->nchunks);

	for (*c = 0; *c < n; (*c)++) {
		const unsigned char *b = s->chunk[*c];

		if ((const unsigned char *)p >= b && (const unsigned char *)p < b + s->chunk_bytes) {
			size_t off = (size_t)((const unsigned char *)p - b);

			*i = (unsigned)(off / ur_page * s->per_page + off % ur_page / s->size);
			return true;
		}
	}
	return false;
}

/* Gives a slot back (a thread's end): one atomic and, no lock. */
static void ur_slot_put(struct ur_slots *s, void *p)
{
	unsigned c, i;

	if (ur_slot_index(s, p, &c, &i))
		atomic_fetch_and(&s->used[c], ~((uint64_t)1 << i));
}

/* In a fork child: only the forking thread exists; every other thread's
 * slot is free again.  Its memory the kernel wiped (wipe-on-fork). */
static void ur_slots_child(struct ur_slots *s, const void *keep)
{
	unsigned c, i;

	for (c = 0; c < atomic_load(&s->nchunks); c++)
		atomic_store(&s->used[c], 0);
	if (keep && ur_slot_index(s, keep, &c, &i))
		atomic_store(&s->used[c], (uint64_t)1 << i);
	atomic_store(&s->mapping, false);
}

/* ------------------------------------------------------------------------
 * The thread's end.  glibc keeps a key's value in the thread's descriptor
 * for the first 32 keys (PTHREAD_KEY_2NDLEVEL_SIZE): setting it is a store
 * there, nothing allocated, as musl's always is.  A later key would make
 * the first setspecific of a thread allocate: then no per-thread memory is
 * handed out, and the kernel serves (ur_thread_ok).
 * ---------------------------------------------------------------------- */
static pthread_key_t ur_key FP_STARTUP_DATA;
static bool ur_key_ok FP_STARTUP_DATA;
static FP_TLS bool ur_tls_keyed;

static void ur_thread_gone(void *unused)
{
	void *st = ur_tls_state, *sl = ur_tls_slice;

	(void)unused;
	ur_tls_keyed = false;
	ur_tls_state = ur_tls_slice = NULL;
	atomic_signal_fence(memory_order_seq_cst);
	if (st)
		ur_slot_put(&ur_states, st);
	if (sl) {
		explicit_bzero(sl, ur_slices.size);
		ur_slot_put(&ur_slices, sl);
	}
}

FP_STARTUP_TEXT static void ur_key_make(void)
{
	if (ur_key_ok || pthread_key_create(&ur_key, ur_thread_gone) != 0)
		return;
#ifdef __GLIBC__
	/* Kept, unused: one key (and pthread_key_delete is no symbol of the
	 * oldest illumos libc we load into). */
	if ((unsigned)ur_key >= 32)
		return;
#endif
	ur_key_ok = true;
}

static void ur_keyed(void)
{
	if (!ur_tls_keyed) {
		ur_tls_keyed = true;
		(void)pthread_setspecific(ur_key, &ur_key);
	}
}

void *ur_thread_state_new(void)
{
	void *p;

	if (!ur_key_ok || !(p = ur_slot_get(&ur_states)))
		return NULL;
	ur_tls_state = p;
	ur_keyed();
	return p;
}

void *ur_thread_slice_new(void)
{
	void *p;

	if (!ur_key_ok || !(p = ur_slot_get(&ur_slices)))
		return NULL;
	ur_tls_slice = p;
	ur_keyed();
	return p;
}

/* getrandom refused by a seccomp filter (ENOSYS, as old container
 * profiles return, or EPERM): the vDSO makes the refused system call on
 * every call, twice (its reseed, then its fallback), and never seeds.  So
 * the first refusal ends the vdso source for the process: reads of the
 * device are the kernel's read from then on (what libuuid falls back to
 * there), and the program's own getrandom calls go to the getrandom bound,
 * which refuses them as natively.  The stats line says why. */
int ur_refused;

#ifdef UR_HAVE_VDSO
static void ur_source_refused(int err)
{
	if (ur_source != UR_SRC_VDSO)
		return;
	__atomic_store_n(&ur_refused, err, __ATOMIC_RELAXED);
	__atomic_store_n(&ur_source, UR_SRC_KERNEL, __ATOMIC_RELAXED);
	ur_debug(err == EPERM ? "getrandom refused (EPERM): source kernel from now on"
	                      : "getrandom refused (ENOSYS): source kernel from now on");
}
#endif

/* The vdso source: n bytes from this thread's state, as the system call
 * would give them (a count, or -errno).  With no state to be had, the
 * getrandom system call itself.  A signal handler that re-enters the state
 * in use is answered by the vDSO with the system call (its in_use flag). */
ssize_t ur_vdso_call(void *buf, size_t n, unsigned flags)
{
#ifdef UR_HAVE_VDSO
	void *st = ur_tls_state;

	if (fp_unlikely(!st)) {
		int saved = errno;
		long r;

		st = ur_thread_state_new();  /* may map a page */
		if (!st) {
			ur_count(SYSCALLS);
			r = syscall(SYS_getrandom, buf, n, flags);
			if (r < 0)
				r = -errno;
			errno = saved;
			if (fp_unlikely(r == -ENOSYS || r == -EPERM))
				ur_source_refused((int)-r);
			return r;
		}
		errno = saved;
	}
	/* The vDSO answers -errno and leaves errno alone. */
	{
		ssize_t r = ur_vgr(buf, n, flags, st, ur_vgr_p.size_of_opaque_state);

		if (fp_unlikely(r == -ENOSYS || r == -EPERM))
			ur_source_refused((int)-r);
		return r;
	}
#else
	(void)buf, (void)n, (void)flags;
	return -ENOSYS;
#endif
}

size_t ur_vdso_take(unsigned char *dst, size_t n)
{
#ifdef UR_HAVE_VDSO
	ssize_t r = ur_vdso_call(dst, n, GRND_NONBLOCK);  /* errno kept */

	/* Not yet seeded (EAGAIN) or cut short by a signal: the read on the
	 * device does the rest, as natively. */
	return r > 0 ? (size_t)r : 0;
#else
	(void)dst, (void)n;
	return 0;
#endif
}

/* Pooled getrandom calls (FASTPATH_GETRANDOM) go to the vDSO only when the
 * getrandom we bound is libc's: a preload after ours that wraps it (a
 * replay tool, tests/libfault_getrandom.so) must see the calls it saw. */
bool ur_vdso_serves_getrandom(void)
{
#ifdef UR_HAVE_VDSO
	return ur_source == UR_SRC_VDSO && ur_vgr_libc && UR_REALP(getrandom) == ur_vgr_libc;
#else
	return false;
#endif
}

#ifdef FP_LINUX
/* A pooled getrandom, sources vdso and kernel: the vDSO's answer is the
 * system call's, to the errno, for the flags it is given; otherwise the
 * getrandom we bound (the kernel has nothing to save). */
ssize_t ur_getrandom_direct(void *buf, size_t n, unsigned flags)
{
	if (ur_vdso_serves_getrandom()) {
		ssize_t r = ur_vdso_call(buf, n, flags);

		ur_count(GETRANDOM);
		if (r >= 0)
			return r;
		errno = (int)-r;
		return -1;
	}
	ur_count(SYSCALLS);
	return UR_REAL(getrandom)(buf, n, flags);
}
#endif

/* ------------------------------------------------------------------------
 * Which source: decided once, at the first call that needs it (issue 39:
 * a process that never reads the device pays nothing for the choice), or
 * at initialisation when surveyed.  Until then, and while another thread
 * (or this one, interrupted by a signal handler) decides, ur_source reads
 * kernel: the real read, always right.  Everything the decision does is a
 * system call a handler may make, or memory: what needs the loader's lock
 * (is getrandom libc's?) or may take a lock (musl's pthread_key_create)
 * was done at initialisation, by ur_source_load.
 * ---------------------------------------------------------------------- */
enum { UR_SRC_UNDECIDED, UR_SRC_DECIDING, UR_SRC_DECIDED };
/* Read by every fork (ur_source_atfork_child): on the start-up page. */
static _Atomic int ur_src_state FP_STARTUP_DATA;

#ifdef FP_LINUX
/* The kernel's release from uname, as maj * 1000 + min; 0 if unknown.
 * Read by hand: sscanf is no call for a signal handler. */
static unsigned ur_release(void)
{
	struct utsname u;
	unsigned v[2] = { 0, 0 }, k = 0;
	const char *p;

	if (uname(&u) != 0)
		return 0;
	for (p = u.release; k < 2; p++) {
		if (*p >= '0' && *p <= '9' && v[k] < 100000)
			v[k] = v[k] * 10 + (unsigned)(*p - '0');
		else if (*p == '.' && k == 0 && p != u.release)
			k++;
		else
			break;
	}
	return k == 1 && p[-1] != '.' ? v[0] * 1000 + v[1] : 0;
}
#endif

/* At initialisation, the mitigation on or surveyed: what the decision may
 * not do later. */
FP_STARTUP_TEXT void ur_source_load(void)
{
	UR_SRC_CREATE();
#ifndef __GLIBC__
	/* musl's pthread_key_create takes a lock: not for a handler. */
	if (fp_cfg.enabled & FP_BIT(urandom))
		ur_key_make();
#endif
}

static void ur_source_decide(void)
{
	long pg = UR_REAL(sysconf)(_SC_PAGESIZE);
	int src;

	ur_page = pg > 0 ? (size_t)pg : 4096;
#ifdef UR_HAVE_VDSO
	/* Here, at the first use, and not at start-up (issue 39): the
	 * getrandom bound is libc's own, a check of its address alone. */
	{
		void *g = UR_REALP(getrandom);

		ur_vgr_libc = fp_in_libc(g) ? g : NULL;
	}
	ur_vgr_bind();
#endif
	if (ur_source_asked != UR_SRC_AUTO) {
		src = ur_source_asked;
	} else {
#ifdef FP_LINUX
		/* vmgenid reseeding came with 5.18: before it, the kernel
		 * serves a restored VM's clones alike too. */
		src = ur_release() < 5018 ? UR_SRC_RESERVOIR : UR_SRC_KERNEL;
#else
		src = UR_SRC_RESERVOIR;  /* illumos: no vmgenid */
#endif
#ifdef UR_HAVE_VDSO
		if (src == UR_SRC_KERNEL && ur_vgr && !ur_test_no_vdso)
			src = UR_SRC_VDSO;
#endif
	}
	if (src == UR_SRC_RESERVOIR)
		ur_slots_setup(&ur_slices, sizeof(struct ur_slice), PROT_READ | PROT_WRITE,
		               MAP_PRIVATE | MAP_ANONYMOUS, true);
	/* Surveying, the mitigation is off: the source is what it would be. */
	if (fp_cfg.enabled & FP_BIT(urandom)) {
#ifdef __GLIBC__
		/* glibc's is one compare-and-swap on its table of keys, no
		 * lock: made here, at the first use, a process that never
		 * reads the device writes no page of that table. */
		if (src != UR_SRC_KERNEL)
			ur_key_make();
#endif
#ifdef UR_HAVE_VDSO
		if (src == UR_SRC_VDSO && !ur_key_ok)
			src = UR_SRC_KERNEL;
		if (src == UR_SRC_VDSO)
			ur_slots_setup(&ur_states, ur_vgr_p.size_of_opaque_state,
			               (int)ur_vgr_p.mmap_prot, (int)ur_vgr_p.mmap_flags, false);
#endif
	}
	__atomic_store_n(&ur_source, src, __ATOMIC_RELEASE);
}

int ur_source_now(void)
{
	int st = atomic_load_explicit(&ur_src_state, memory_order_acquire);

	if (fp_likely(st == UR_SRC_DECIDED)) {
		UR_SRC_SEEN();
		return ur_source;
	}
	if (st == UR_SRC_UNDECIDED) {
		sigset_t old;

		/* Every signal held while deciding, as a slot is mapped: a
		 * handler that read the device here would find it undecided
		 * and go to the kernel, and handlers coming faster than the
		 * kernel answers them (a 50 us timer under strace: t_urandom)
		 * would keep this thread from ever finishing. */
		fp_hold_all(&old);
		if (atomic_compare_exchange_strong(&ur_src_state, &st, UR_SRC_DECIDING)) {
			ur_source_decide();
			UR_SRC_PUBLISH();
			atomic_store_explicit(&ur_src_state, UR_SRC_DECIDED, memory_order_release);
		}
		fp_unhold(&old);
	}
	UR_SRC_SEEN();
	return __atomic_load_n(&ur_source, __ATOMIC_ACQUIRE);
}

/* Both steps at once, deciding afresh (the unit tests' start). */
void ur_source_init(void)
{
	ur_source_load();
	atomic_store(&ur_src_state, UR_SRC_UNDECIDED);
	(void)ur_source_now();
}

/* In a fork child: the forking thread's memory is its own still (wiped by
 * the kernel: a state starts again, a slice is empty); the rest is free. */
FP_FORK_TEXT void ur_source_atfork_child(void)
{
	int st = atomic_load(&ur_src_state);

	/* Never decided: no slot, slice or pool was made, and their pages
	 * stay unread (issue 39: a page fault each at every fork). */
	if (st == UR_SRC_UNDECIDED)
		return;
	/* The thread that was deciding is not in the child: it decides
	 * again at its first use. */
	if (st == UR_SRC_DECIDING)
		atomic_store(&ur_src_state, UR_SRC_UNDECIDED);
	ur_slots_child(&ur_states, ur_tls_state);
	ur_slots_child(&ur_slices, ur_tls_slice);
	ur_pool_atfork_child();
}
