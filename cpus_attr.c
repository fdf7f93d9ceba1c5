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
 * is set, and reads back as virtual.  The mask as the program gave it (ids
 * at and past N too: glibc gives back what was set) travels in the
 * attribute itself, in the mask glibc copies: the real mask in its first
 * CPUS_ATTR_REAL bytes, the only ones a kernel reads (its cpumask_size,
 * at most 1 KiB), then a tag, the given length and the given bytes.  So
 * every copy glibc makes carries it (an attribute copied by value,
 * pthread_setattr_default_np, pthread_getattr_default_np), a destroyed
 * attribute takes it with it, and there is no table to outgrow (a cold
 * review: copies, reused addresses and a seventeenth attribute read the
 * translation).  None of these calls is async-signal-safe: malloc is fine.
 * ---------------------------------------------------------------------- */
#define CPUS_ATTR_REAL (CPUS_LINUX_MAX / 8)
static const unsigned char cpus_attr_tag[16] = "fastpath-vmask-1";
struct cpus_attr_head {
	unsigned char tag[16];
	uint64_t len; /* the given bytes that follow */
};
#define CPUS_ATTR_GIVEN (CPUS_ATTR_REAL + sizeof(struct cpus_attr_head))

/* A mask pthread_create of no attribute reads (pthread_setattr_default_np
 * was given one): until then it asks nothing. */
static _Atomic bool cpus_default_masked;

/* attr's mask as glibc holds it, in memory the caller frees (*len bytes,
 * the rest of what was asked zero), or NULL: none (all ones, glibc's
 * answer then), or none it can give. */
static unsigned char *cpus_attr_held(const pthread_attr_t *attr, size_t *len)
{
	/* Its size is glibc's alone: asked at doubling sizes until one holds
	 * it (a smaller one is EINVAL, the bytes past it set). */
	for (size_t n = 2 * CPUS_ATTR_REAL; n <= ((size_t)1 << 24); n *= 2) {
		unsigned char *b = malloc(n);
		int rc;

		if (!b)
			return NULL;
		rc = CPUS_REAL(pthread_attr_getaffinity_np)(attr, n, (cpu_set_t *)(void *)b);
		if (rc == 0) {
			size_t i = 0, want = n;
			struct cpus_attr_head h;

			while (i < n && b[i] == 0xff)
				i++;
			/* glibc refuses only bytes set past the size asked: a
			 * mask held longer, its tail zeros, reads whole here;
			 * what it did not copy is zeros (a cold review: a
			 * given mask of 1008 bytes and more read as translated). */
			memcpy(&h, b + CPUS_ATTR_REAL, sizeof h);
			if (memcmp(h.tag, cpus_attr_tag, sizeof h.tag) == 0 &&
			    h.len <= SIZE_MAX - CPUS_ATTR_GIVEN && h.len + CPUS_ATTR_GIVEN > n)
				want = (size_t)h.len + CPUS_ATTR_GIVEN;
			if (i < n && want > n) {
				unsigned char *w = realloc(b, want);

				if (!w) {
					free(b);
					return NULL;
				}
				memset(w + n, 0, want - n);
				b = w;
			}
			if (i < n) {
				*len = want;
				return b;
			}
		}
		free(b);
		if (rc != EINVAL)
			return NULL;
	}
	return NULL;
}

/* The given bytes a mask held carries (their length in *glen), or NULL:
 * a real mask alone (set with the cap off, or by glibc from a thread). */
static const unsigned char *cpus_attr_given(const unsigned char *held, size_t len, size_t *glen)
{
	struct cpus_attr_head h;

	if (len < CPUS_ATTR_GIVEN)
		return NULL;
	memcpy(&h, held + CPUS_ATTR_REAL, sizeof h);
	if (memcmp(h.tag, cpus_attr_tag, sizeof h.tag) != 0 || h.len > len - CPUS_ATTR_GIVEN)
		return NULL;
	*glen = (size_t)h.len;
	return held + CPUS_ATTR_GIVEN;
}

/* The virtual mask given (setsize bytes) set in attr, as above. */
static int cpus_attr_set(pthread_attr_t *attr, size_t setsize, const cpu_set_t *mask)
{
	struct cpus_attr_head h;
	struct cpus_map m;
	cpu_set_t want;
	unsigned char *b;
	int rc;

	/* As glibc's own copy: ENOMEM, the attribute as it was, where none
	 * can be made (a cold review: a size past memory was taken). */
	if (setsize > SIZE_MAX - CPUS_ATTR_GIVEN || !(b = calloc(1, CPUS_ATTR_GIVEN + setsize)))
		return ENOMEM;
	fp_cpus_map(&m);
	/* A mask that names none of the N stays empty: pthread_create then
	 * fails with the kernel's EINVAL, as on a machine of N CPUs. */
	(void)fp_cpus_to_real(&m, mask, setsize, &want);
	memcpy(b, &want, sizeof want);
	memcpy(h.tag, cpus_attr_tag, sizeof h.tag);
	h.len = setsize;
	memcpy(b + CPUS_ATTR_REAL, &h, sizeof h);
	memcpy(b + CPUS_ATTR_GIVEN, mask, setsize);
	rc = CPUS_REAL(pthread_attr_setaffinity_np)(attr, CPUS_ATTR_GIVEN + setsize,
	                                            (cpu_set_t *)(void *)b);
	/* An older glibc that refuses bytes past the kernel's mask (its
	 * check_cpuset_attr): the real mask alone, read back as translated. */
	if (rc == EINVAL)
		rc = CPUS_REAL(pthread_attr_setaffinity_np)(attr, sizeof want, &want);
	free(b);
	return rc;
}

FP_EXPORT int pthread_attr_setaffinity_np(pthread_attr_t *attr, size_t setsize,
                                          const cpu_set_t *mask)
{
	/* No mask, or an empty size: glibc clears the attribute's.  (Its
	 * header says non-null, its code takes NULL: through a volatile, so
	 * that the test is not folded away.) */
	const cpu_set_t *volatile given = mask;

	if (!CPUS_REAL(pthread_attr_setaffinity_np))
		return ENOSYS;
	if (!fp_enabled(FP_BIT(cpus)) || !given || setsize == 0)
		return CPUS_REAL(pthread_attr_setaffinity_np)(attr, setsize, mask);
	return cpus_attr_set(attr, setsize, mask);
}

/* A thread's attributes hold its real mask, the kernel's: its virtual one
 * where it is remembered (the caller's own, the main thread's; a
 * sibling's is in its memory, out of reach), as the thread reads it (a
 * cold review: {1,3} against the thread's {3}). */
FP_EXPORT int pthread_getattr_np(pthread_t th, pthread_attr_t *attr)
{
	int rc = CPUS_REAL(pthread_getattr_np)(th, attr);
	unsigned char *held, *b;
	struct cpus_vmask v;
	struct cpus_map m;
	cpu_set_t now;
	size_t len, need, glen;

	if (rc != 0 || !fp_enabled(FP_BIT(cpus)) || !CPUS_REAL(pthread_attr_getaffinity_np) ||
	    !(held = cpus_attr_held(attr, &len)))
		return rc;
	memcpy(&now, held, sizeof now);
	if (!cpus_attr_given(held, len, &glen) && cpus_recalled_thread(th, &now, &v)) {
		fp_cpus_map(&m);
		need = ((size_t)m.n + 63) / 64 * 8;
		if ((b = malloc(need))) {
			cpus_put_vmask(&v, m.n, need, (cpu_set_t *)(void *)b);
			(void)cpus_attr_set(attr, need, (cpu_set_t *)(void *)b);
			free(b);
		}
	}
	free(held);
	return rc;
}

FP_EXPORT int pthread_attr_getaffinity_np(const pthread_attr_t *attr, size_t setsize,
                                          cpu_set_t *mask)
{
	const unsigned char *out;
	unsigned char *held, *virt = NULL;
	struct cpus_map m;
	size_t len, need;

	if (!CPUS_REAL(pthread_attr_getaffinity_np))
		return ENOSYS;
	if (!fp_enabled(FP_BIT(cpus)) || !(held = cpus_attr_held(attr, &len)))
		return CPUS_REAL(pthread_attr_getaffinity_np)(attr, setsize, mask);
	if (!(out = cpus_attr_given(held, len, &need))) {
		/* A real mask alone: its virtual CPUs, the whole mask (up to
		 * 1 KiB: CPUS_LINUX_MAX ids). */
		cpu_set_t now;

		fp_cpus_map(&m);
		need = ((size_t)m.n + 63) / 64 * 8;
		if (!(virt = malloc(need))) {
			free(held);
			return ENOMEM;
		}
		memcpy(&now, held, sizeof now);
		fp_cpus_to_virtual(&m, &now, sizeof now, (cpu_set_t *)(void *)virt, need);
		out = virt;
	}
	/* As glibc: EINVAL when the mask held has ids past the caller's set;
	 * else copied, the rest of the set zeroed. */
	for (size_t i = setsize; i < need; i++)
		if (out[i]) {
			free(held);
			free(virt);
			return EINVAL;
		}
	memset(mask, 0, setsize);
	memcpy(mask, out, setsize < need ? setsize : need);
	free(held);
	free(virt);
	return 0;
}

/* glibc copies the mask with the attribute: only whether there is one is
 * ours to know. */
FP_EXPORT int pthread_setattr_default_np(const pthread_attr_t *attr)
{
	const pthread_attr_t *volatile given = attr; /* glibc's header: nonnull */
	int rc = CPUS_REAL(pthread_setattr_default_np)(attr);

	if (rc == 0 && given && fp_enabled(FP_BIT(cpus)))
		atomic_store(&cpus_default_masked, fp_cpus_attr_has_mask(attr));
	return rc;
}

/* For pthread_create (cpus_survey.c): whether attr holds a mask at all
 * (else the thread starts on its creator's); no attribute: the default. */
bool fp_cpus_attr_has_mask(const pthread_attr_t *attr)
{
	unsigned char *held;
	size_t len;

	if (!attr)
		return atomic_load(&cpus_default_masked);
	if (!CPUS_REAL(pthread_attr_getaffinity_np) || !(held = cpus_attr_held(attr, &len)))
		return false;
	free(held);
	return true;
}

/* For pthread_create (cpus_survey.c): the virtual mask a new thread made
 * with attr starts with, when attr holds one set through us; no
 * attribute: the default's. */
bool fp_cpus_attr_vmask(const pthread_attr_t *attr, struct cpus_vmask *out)
{
	const unsigned char *given;
	unsigned char *held = NULL;
	pthread_attr_t def;
	cpu_set_t now;
	struct cpus_map m;
	size_t len, glen;
	bool kept = false;

	if (!fp_enabled(FP_BIT(cpus)) || !CPUS_REAL(pthread_attr_getaffinity_np))
		return false;
	if (!attr) {
		memset(&def, 0, sizeof def);
		if (!atomic_load(&cpus_default_masked) || CPUS_REAL(pthread_getattr_default_np)(&def) != 0)
			return false;
		held = cpus_attr_held(&def, &len);
		pthread_attr_destroy(&def);
	} else {
		held = cpus_attr_held(attr, &len);
	}
	if (held && (given = cpus_attr_given(held, len, &glen))) {
		fp_cpus_map(&m);
		kept = cpus_vmask_of(out, m.n, glen, (const cpu_set_t *)(const void *)given);
		memcpy(&now, held, sizeof now);
		out->sig = cpus_sig(&now);
		out->valid = kept;
	}
	free(held);
	return kept;
}
#endif
