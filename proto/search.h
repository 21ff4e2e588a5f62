/*
 * search.h - the one binary search of the tree: in an array sorted by some
 * key, the first place whose element is not below a given key (where that
 * key is, or would be put).  Header only: a static inline function whose
 * comparison, a static function of the caller, the compiler inlines, so
 * that pure code (policy/) and the daemon's per-message look-ups use it
 * at no cost.
 */
#ifndef ASTEAL_SEARCH_H
#define ASTEAL_SEARCH_H

#include <stddef.h>
#include <stdint.h>

/* Compare two uint64_t, for qsort (to sort what search_first searches). */
static inline int search_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The first i in [0, n) with !below(arr, i, key), or n: below(arr, i, key)
 * says whether element i of arr sorts before key, and must be true for a
 * prefix of the array and false after it. */
static inline size_t search_first(const void *arr, size_t n, const void *key,
                                  int (*below)(const void *arr, size_t i,
                                               const void *key))
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (below(arr, mid, key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
