/*
 * alloc.c - OpenMP memory allocators (omp_init_allocator, omp_alloc and
 * friends) and the allocate directive's GOMP_alloc/GOMP_free, with
 * libgomp 12's answers: every memory space is plain memory; traits are
 * checked as libgomp checks them (a trait libgomp 12 cannot honour, such
 * as pinned memory or the high-bandwidth space, gives
 * omp_null_allocator); alignment, pool size and fallback are honoured.
 * Each block carries a header (the malloc'd base, the sizes, the
 * allocator) just below the address returned.
 *
 * A thread's default allocator (def-allocator-var) is per OS thread, as
 * libgomp keeps it in the thread's state: struct omp_icv has no field for
 * it, and a new team's threads start from OMP_ALLOCATOR's.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "layer.h"
#include "gomp.h"
#include "env.h"

#define MAX_PREDEFINED 8               /* omp_thread_mem_alloc */

/* An allocator made by omp_init_allocator. */
struct allocator {
	uintptr_t memspace;
	uintptr_t alignment;
	uintptr_t pool_size;
	_Atomic uintptr_t used;
	uintptr_t fb_data;
	int sync_hint, access, fallback, partition;
};

/* What sits before each block omp_alloc returns. */
struct mem_hdr {
	void *base;                    /* what malloc returned */
	size_t size;                   /* what the caller asked for */
	size_t charged;                /* counted against the pool */
	uintptr_t allocator;           /* the one that made it */
};

static __thread uintptr_t def_alloc __attribute__((tls_model("initial-exec")));

/* The calling thread's default allocator. */
static uintptr_t default_allocator(void)
{
	return def_alloc != 0 ? def_alloc : omp_g.default_allocator;
}

/* omp_init_allocator: a new allocator, or omp_null_allocator for a
 * memory space or trait libgomp 12 rejects. */
OMP_API omp_allocator_handle_t omp_init_allocator(omp_memspace_handle_t memspace,
                                                  int ntraits,
                                                  const omp_alloctrait_t traits[])
{
	struct allocator d = {
		.memspace = memspace, .alignment = 1, .pool_size = ~(uintptr_t)0,
		.fb_data = 0, .sync_hint = omp_atv_contended, .access = omp_atv_all,
		.fallback = omp_atv_default_mem_fb, .partition = omp_atv_environment,
	};
	bool pinned = false;
	struct allocator *a;

	if (memspace > omp_low_lat_mem_space)
		return omp_null_allocator;
	for (int i = 0; i < ntraits; i++) {
		uintptr_t v = traits[i].value;
		switch (traits[i].key) {
		case omp_atk_sync_hint:
			if (v == omp_atv_default)
				v = omp_atv_contended;
			else if (v != omp_atv_contended && v != omp_atv_uncontended
			         && v != omp_atv_serialized && v != omp_atv_private)
				return omp_null_allocator;
			d.sync_hint = (int)v;
			break;
		case omp_atk_alignment:
			if (v == 0 || (v & (v - 1)) != 0)
				return omp_null_allocator;
			d.alignment = v;
			break;
		case omp_atk_access:
			if (v == omp_atv_default)
				v = omp_atv_all;
			else if (v != omp_atv_all && v != omp_atv_cgroup && v != omp_atv_pteam
			         && v != omp_atv_thread)
				return omp_null_allocator;
			d.access = (int)v;
			break;
		case omp_atk_pool_size:
			d.pool_size = v;
			break;
		case omp_atk_fallback:
			if (v == omp_atv_default)
				v = omp_atv_default_mem_fb;
			else if (v != omp_atv_default_mem_fb && v != omp_atv_null_fb
			         && v != omp_atv_abort_fb && v != omp_atv_allocator_fb)
				return omp_null_allocator;
			d.fallback = (int)v;
			break;
		case omp_atk_fb_data:
			d.fb_data = v;
			break;
		case omp_atk_pinned:
			if (v == omp_atv_true)
				pinned = true;
			else if (v != omp_atv_default && v != omp_atv_false)
				return omp_null_allocator;
			break;
		case omp_atk_partition:
			if (v == omp_atv_default)
				v = omp_atv_environment;
			else if (v != omp_atv_environment && v != omp_atv_nearest
			         && v != omp_atv_blocked && v != omp_atv_interleaved)
				return omp_null_allocator;
			d.partition = (int)v;
			break;
		default:
			return omp_null_allocator;
		}
	}
	if (d.alignment < sizeof(void *))
		d.alignment = sizeof(void *);
	/* libgomp 12 (without memkind) cannot pin nor give high bandwidth. */
	if (pinned || memspace == omp_high_bw_mem_space)
		return omp_null_allocator;
	a = omp_gomp_malloc(sizeof *a);
	*a = d;
	return (omp_allocator_handle_t)(uintptr_t)a;
}

/* omp_destroy_allocator: free an allocator made by omp_init_allocator. */
OMP_API void omp_destroy_allocator(omp_allocator_handle_t allocator)
{
	if ((uintptr_t)allocator > MAX_PREDEFINED)
		free((void *)(uintptr_t)allocator);
}

/* omp_set_default_allocator: the calling thread's def-allocator-var
 * (omp_null_allocator: back to OMP_ALLOCATOR's). */
OMP_API void omp_set_default_allocator(omp_allocator_handle_t allocator)
{
	def_alloc = (uintptr_t)allocator;
}

/* omp_get_default_allocator: the calling thread's def-allocator-var. */
OMP_API omp_allocator_handle_t omp_get_default_allocator(void)
{
	return (omp_allocator_handle_t)default_allocator();
}

/* A failed allocation with no retry possible: abort_fb is fatal. */
static void *alloc_failed(uintptr_t allocator, size_t size)
{
	if (allocator > MAX_PREDEFINED
	    && ((struct allocator *)allocator)->fallback == omp_atv_abort_fb)
		omp_gomp_oom(size);
	return NULL;
}

/* omp_aligned_alloc: size bytes aligned to the larger of alignment and
 * the allocator's; NULL for 0 bytes; on failure, the allocator's
 * fallback. */
OMP_API void *omp_aligned_alloc(size_t alignment, size_t size,
                                omp_allocator_handle_t allocator)
{
	uintptr_t h = (uintptr_t)allocator;

	if (size == 0)
		return NULL;
	for (;;) {
		struct allocator *d = NULL;
		size_t al = alignment, total;
		char *base, *ret;
		struct mem_hdr *hdr;

		if (h == 0)
			h = default_allocator();
		if (h > MAX_PREDEFINED) {
			d = (struct allocator *)h;
			if (d->alignment > al)
				al = d->alignment;
		}
		if (al < sizeof(void *))
			al = sizeof(void *);
		if (al > (SIZE_MAX >> 2))
			goto fail;
		if ((al & (al - 1)) != 0)
			al = (size_t)1 << (64 - __builtin_clzll((unsigned long long)al));
		if (__builtin_add_overflow(size, sizeof *hdr + al - 1, &total))
			goto fail;
		if (d != NULL && d->pool_size != ~(uintptr_t)0) {
			uintptr_t used = atomic_load_explicit(&d->used, memory_order_relaxed), nu;
			do {
				if (__builtin_add_overflow(used, total, &nu) || nu > d->pool_size)
					goto fail;
			} while (!atomic_compare_exchange_weak_explicit(&d->used, &used, nu,
			                                                memory_order_relaxed,
			                                                memory_order_relaxed));
		}
		base = malloc(total);
		if (base == NULL) {
			if (d != NULL && d->pool_size != ~(uintptr_t)0)
				atomic_fetch_sub_explicit(&d->used, total, memory_order_relaxed);
			goto fail;
		}
		ret = (char *)(((uintptr_t)base + sizeof *hdr + al - 1) & ~(uintptr_t)(al - 1));
		hdr = (struct mem_hdr *)ret - 1;
		hdr->base = base;
		hdr->size = size;
		hdr->charged = d != NULL && d->pool_size != ~(uintptr_t)0 ? total : 0;
		hdr->allocator = h;
		return ret;
fail:
		if (d == NULL)
			return NULL;
		switch (d->fallback) {
		case omp_atv_default_mem_fb:
			if (al <= sizeof(void *) && d->pool_size == ~(uintptr_t)0)
				return NULL;    /* plain malloc failed already */
			h = omp_default_mem_alloc;
			break;
		case omp_atv_null_fb:
			return NULL;
		case omp_atv_allocator_fb:
			h = d->fb_data;
			break;
		default:
			omp_gomp_oom(size);
		}
	}
}

/* omp_alloc: omp_aligned_alloc without an alignment of its own. */
OMP_API void *omp_alloc(size_t size, omp_allocator_handle_t allocator)
{
	return omp_aligned_alloc(1, size, allocator);
}

/* omp_aligned_calloc: zeroed nmemb * size bytes. */
OMP_API void *omp_aligned_calloc(size_t alignment, size_t nmemb, size_t size,
                                 omp_allocator_handle_t allocator)
{
	size_t total;
	void *p;

	if (__builtin_mul_overflow(nmemb, size, &total)) {
		uintptr_t h = (uintptr_t)allocator;
		return alloc_failed(h != 0 ? h : default_allocator(), total);
	}
	p = omp_aligned_alloc(alignment, total, allocator);
	if (p != NULL)
		memset(p, 0, total);
	return p;
}

/* omp_calloc: omp_aligned_calloc without an alignment of its own. */
OMP_API void *omp_calloc(size_t nmemb, size_t size, omp_allocator_handle_t allocator)
{
	return omp_aligned_calloc(1, nmemb, size, allocator);
}

/* omp_free: give a block back (to its pool, if any). */
OMP_API void omp_free(void *ptr, omp_allocator_handle_t allocator)
{
	struct mem_hdr *hdr;

	(void)allocator;
	if (ptr == NULL)
		return;
	hdr = (struct mem_hdr *)ptr - 1;
	if (hdr->charged != 0)
		atomic_fetch_sub_explicit(&((struct allocator *)hdr->allocator)->used,
		                          hdr->charged, memory_order_relaxed);
	free(hdr->base);
}

/* omp_realloc: a new block from allocator (the old block's when null)
 * holding the old contents; the old block is freed unless this fails. */
OMP_API void *omp_realloc(void *ptr, size_t size, omp_allocator_handle_t allocator,
                          omp_allocator_handle_t free_allocator)
{
	struct mem_hdr *hdr;
	void *p;

	if (ptr == NULL)
		return omp_aligned_alloc(1, size, allocator);
	if (size == 0) {
		omp_free(ptr, free_allocator);
		return NULL;
	}
	hdr = (struct mem_hdr *)ptr - 1;
	if (allocator == omp_null_allocator)
		allocator = (omp_allocator_handle_t)hdr->allocator;
	p = omp_aligned_alloc(1, size, allocator);
	if (p == NULL)
		return NULL;
	memcpy(p, ptr, hdr->size < size ? hdr->size : size);
	omp_free(ptr, free_allocator);
	return p;
}

/* GOMP_alloc: the allocate directive's allocation; running out is fatal. */
OMP_API void *GOMP_alloc(size_t alignment, size_t size, uintptr_t allocator)
{
	void *p = omp_aligned_alloc(alignment, size, (omp_allocator_handle_t)allocator);

	if (p == NULL && size != 0)
		omp_gomp_oom(size);
	return p;
}

/* GOMP_free: the allocate directive's release. */
OMP_API void GOMP_free(void *ptr, uintptr_t allocator)
{
	omp_free(ptr, (omp_allocator_handle_t)allocator);
}
