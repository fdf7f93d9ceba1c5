/* SPDX-License-Identifier: MIT */
/*
 * cpus_attr.c: affinity in a thread attribute under the CPU cap
 * (pthread_attr_setaffinity_np, pthread_attr_getaffinity_np), and what
 * pthread_create asks of it (cpus_survey.c).
 */
#include "fastpath.h"
#include "cpus.h"

#if defined(FP_HAVE_AFFINITY) && defined(FP_HAVE_ATTR_AFFINITY)
/* ------------------------------------------------------------------------
 * Affinity in a thread attribute (issue 37, defect 3): glibc's
 * pthread_create applies it through an internal system call, out of the
 * setters' sight, so the attribute holds the real mask, translated when it
 * is set, and reads back as virtual.  The virtual mask asked is kept
 * beside it (a few slots by attribute address, signed with the real mask
 * stored, as cpus_remember signs a thread's): it is what
 * pthread_attr_getaffinity_np gives back and what the new thread reads as
 * its own (cpus_survey.c's start), also where N exceeds the real count and
 * the real mask alone is several virtual ones.  None of these calls is
 * async-signal-safe: a mutex is fine here.
 * ---------------------------------------------------------------------- */
#define CPUS_NATTR 16
static struct {
	const void *attr;
	struct cpus_vmask v;
	/* The mask as the program gave it, ids at and past N too: glibc's
	 * attribute gives back what was set, whatever the machine has (a
	 * cold review: {1,5} read back {1} on two CPUs), in memory of its
	 * own (these calls allocate as glibc's do, and fail as glibc's with
	 * ENOMEM).  0: none, read back as translated. */
	size_t given_len;
	unsigned char *given;
} cpus_attrs[CPUS_NATTR];
static unsigned cpus_attr_next;
/* Written by every fork child (cpus_attr_child): on the start-up page,
 * which the child's first write of ours copies anyway (issue 39). */
static pthread_mutex_t cpus_attr_lock FP_STARTUP_DATA = PTHREAD_MUTEX_INITIALIZER;

/* A fork child of a threaded program: another thread may have held the
 * lock at the fork, and no thread of the child will let it go; the
 * child's pthread_create with an attribute, or its
 * pthread_attr_setaffinity_np, would wait for ever (glibc's own, with
 * malloc, work in such a child).  The child has one thread: a fresh lock. */
FP_FORK_TEXT void cpus_attr_child(void)
{
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;

	cpus_attr_lock = fresh;
}

/* given: len bytes of malloc'd memory, the slot's from now on. */
static void cpus_attr_note(const void *attr, const struct cpus_vmask *v, unsigned char *given,
                           size_t len)
{
	unsigned i, slot;

	pthread_mutex_lock(&cpus_attr_lock);
	for (i = 0; i < CPUS_NATTR && cpus_attrs[i].attr != attr; i++)
		;
	slot = i < CPUS_NATTR ? i : cpus_attr_next++ % CPUS_NATTR;
	cpus_attrs[slot].attr = attr;
	cpus_attrs[slot].v = *v;
	free(cpus_attrs[slot].given);
	cpus_attrs[slot].given = given;
	cpus_attrs[slot].given_len = len;
	pthread_mutex_unlock(&cpus_attr_lock);
}

/* The virtual mask kept for attr, when the real one it holds is still the
 * one set with it; and, if given is not NULL, the mask as set, in memory
 * the caller frees, its length in *len (0: not kept). */
static bool cpus_attr_recall(const void *attr, const cpu_set_t *real, struct cpus_vmask *out,
                             unsigned char **given, size_t *len)
{
	uint64_t sig = cpus_sig(real);
	bool found = false;

	pthread_mutex_lock(&cpus_attr_lock);
	for (unsigned i = 0; i < CPUS_NATTR && !found; i++) {
		if (cpus_attrs[i].attr == attr && cpus_attrs[i].v.valid && cpus_attrs[i].v.sig == sig) {
			*out = cpus_attrs[i].v;
			if (given && (*len = cpus_attrs[i].given_len) && (*given = malloc(*len)))
				memcpy(*given, cpus_attrs[i].given, *len);
			else if (given)
				*len = 0;
			found = true;
		}
	}
	pthread_mutex_unlock(&cpus_attr_lock);
	return found;
}

FP_EXPORT int pthread_attr_setaffinity_np(pthread_attr_t *attr, size_t setsize,
                                          const cpu_set_t *mask)
{
	/* No mask, or an empty size: glibc clears the attribute's.  (Its
	 * header says non-null, its code takes NULL: through a volatile, so
	 * that the test is not folded away.) */
	const cpu_set_t *volatile given = mask;
	struct cpus_map m;
	struct cpus_vmask v;
	cpu_set_t want;
	unsigned char *copy;
	int rc;

	if (!CPUS_REAL(pthread_attr_setaffinity_np))
		return ENOSYS;
	if (!fp_enabled(FP_BIT(cpus)) || !given || setsize == 0)
		return CPUS_REAL(pthread_attr_setaffinity_np)(attr, setsize, mask);
	/* glibc copies the mask as given: where that cannot be, ENOMEM,
	 * the attribute as it was (a cold review: a size past memory was
	 * taken). */
	if (!(copy = malloc(setsize)))
		return ENOMEM;
	memcpy(copy, mask, setsize);
	fp_cpus_map(&m);
	/* A mask that names none of the N stays empty: pthread_create then
	 * fails with the kernel's EINVAL, as on a machine of N CPUs. */
	(void)fp_cpus_to_real(&m, mask, setsize, &want);
	rc = CPUS_REAL(pthread_attr_setaffinity_np)(attr, sizeof want, &want);
	if (rc == 0) {
		v.valid = cpus_vmask_of(&v, m.n, setsize, mask);
		v.sig = cpus_sig(&want);
		cpus_attr_note(attr, &v, copy, setsize);
	} else {
		free(copy);
	}
	return rc;
}

/* Whether every bit of the n bytes at p is set: glibc's answer for an
 * attribute that holds no mask. */
static bool cpus_all_ones(const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != 0xff)
			return false;
	return true;
}

FP_EXPORT int pthread_attr_getaffinity_np(const pthread_attr_t *attr, size_t setsize,
                                          cpu_set_t *mask)
{
	unsigned char *out, *given = NULL;
	struct cpus_map m;
	struct cpus_vmask v;
	cpu_set_t now;
	size_t need, len = 0;
	bool kept;

	if (!CPUS_REAL(pthread_attr_getaffinity_np))
		return ENOSYS;
	if (!fp_enabled(FP_BIT(cpus)))
		return CPUS_REAL(pthread_attr_getaffinity_np)(attr, setsize, mask);
	CPU_ZERO(&now);
	if (CPUS_REAL(pthread_attr_getaffinity_np)(attr, sizeof now, &now) != 0 ||
	    cpus_all_ones(&now, sizeof now))
		return CPUS_REAL(pthread_attr_getaffinity_np)(attr, setsize, mask);
	kept = cpus_attr_recall(attr, &now, &v, &given, &len);
	fp_cpus_map(&m);
	/* The whole virtual mask (up to 1 KiB: CPUS_LINUX_MAX ids), off the
	 * stack; not a call a signal handler may make, so malloc is fine. */
	need = ((size_t)m.n + 63) / 64 * 8;
	if (len) {
		out = given;
		need = len;
	} else {
		if (!(out = malloc(need)))
			return ENOMEM;
		if (kept)
			cpus_put_vmask(&v, m.n, need, (cpu_set_t *)(void *)out);
		else
			fp_cpus_to_virtual(&m, &now, sizeof now, (cpu_set_t *)(void *)out, need);
	}
	/* As glibc: EINVAL when the mask held has ids past the caller's set;
	 * else copied, the rest of the set zeroed. */
	for (size_t i = setsize; i < need; i++)
		if (out[i]) {
			free(out);
			return EINVAL;
		}
	memset(mask, 0, setsize);
	memcpy(mask, out, setsize < need ? setsize : need);
	free(out);
	return 0;
}

/* The default attribute (pthread_setattr_default_np), whose mask glibc
 * copies from the one given, already real: its virtual mask is kept under
 * this key, for the threads made with no attribute and for its copies
 * (pthread_getattr_default_np) to read back (a cold review: a thread made
 * by the default pinned to {0} read {0,2} under --cpus 4). */
static const char cpus_default_key;
static _Atomic bool cpus_default_kept;

/* The record kept under from, for the real mask attr holds, noted again
 * under key. */
static void cpus_attr_copy(const pthread_attr_t *attr, const void *from, const void *key)
{
	unsigned char *given = NULL;
	struct cpus_vmask v;
	cpu_set_t now;
	size_t len = 0;

	CPU_ZERO(&now);
	if (CPUS_REAL(pthread_attr_getaffinity_np)(attr, sizeof now, &now) == 0 &&
	    !cpus_all_ones(&now, sizeof now) && cpus_attr_recall(from, &now, &v, &given, &len)) {
		cpus_attr_note(key, &v, given, len);  /* given is the slot's now */
		given = NULL;
		if (key == &cpus_default_key)
			atomic_store(&cpus_default_kept, true);
	}
	free(given);
}

FP_EXPORT int pthread_setattr_default_np(const pthread_attr_t *attr)
{
	const pthread_attr_t *volatile given = attr; /* glibc's header: nonnull */
	int rc = CPUS_REAL(pthread_setattr_default_np)(attr);

	if (rc == 0 && given && fp_enabled(FP_BIT(cpus))) {
		atomic_store(&cpus_default_kept, false);
		cpus_attr_copy(attr, attr, &cpus_default_key);
	}
	return rc;
}

FP_EXPORT int pthread_getattr_default_np(pthread_attr_t *attr)
{
	int rc = CPUS_REAL(pthread_getattr_default_np)(attr);

	if (rc == 0 && atomic_load(&cpus_default_kept))
		cpus_attr_copy(attr, &cpus_default_key, attr);
	return rc;
}

/* For pthread_create (cpus_survey.c): whether attr holds a mask at all
 * (else the thread starts on its creator's); no attribute: the default. */
bool fp_cpus_attr_has_mask(const pthread_attr_t *attr)
{
	cpu_set_t now;

	CPU_ZERO(&now);
	if (!attr)
		return atomic_load(&cpus_default_kept);
	return CPUS_REAL(pthread_attr_getaffinity_np) &&
	       CPUS_REAL(pthread_attr_getaffinity_np)(attr, sizeof now, &now) == 0 &&
	       !cpus_all_ones(&now, sizeof now);
}

/* For pthread_create (cpus_survey.c): the virtual mask a new thread made
 * with attr starts with, when attr holds one set through us; no
 * attribute: the default's. */
bool fp_cpus_attr_vmask(const pthread_attr_t *attr, struct cpus_vmask *out)
{
	pthread_attr_t def;
	cpu_set_t now;
	bool kept;

	CPU_ZERO(&now);
	if (!fp_enabled(FP_BIT(cpus)) || !CPUS_REAL(pthread_attr_getaffinity_np))
		return false;
	if (attr)
		return CPUS_REAL(pthread_attr_getaffinity_np)(attr, sizeof now, &now) == 0 &&
		       cpus_attr_recall(attr, &now, out, NULL, NULL);
	if (!atomic_load(&cpus_default_kept) || CPUS_REAL(pthread_getattr_default_np)(&def) != 0)
		return false;
	kept = CPUS_REAL(pthread_attr_getaffinity_np)(&def, sizeof now, &now) == 0 &&
	       cpus_attr_recall(&cpus_default_key, &now, out, NULL, NULL);
	pthread_attr_destroy(&def);
	return kept;
}
#endif /* FP_HAVE_AFFINITY && FP_HAVE_ATTR_AFFINITY */
