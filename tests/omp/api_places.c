/*
 * api_places.c - the places and affinity routines return without
 * crashing and give sane values (their values depend on OMP_PLACES,
 * OMP_PROC_BIND and the machine, so only their consistency is checked):
 * omp_get_num_places >= 0; each place's omp_get_place_num_procs >= 1 and
 * omp_get_place_proc_ids fills that many CPU ids; a place number out of
 * range has 0 procs; omp_get_place_num in [-1, places) in and out of a
 * region; omp_get_partition_num_places and omp_get_partition_place_nums
 * agree and name valid places; omp_get_proc_bind is one of the enum's
 * values; proc_bind clauses on regions; omp_set_affinity_format /
 * omp_get_affinity_format round-trip a format and report its length
 * when the buffer is short; omp_capture_affinity expands %n, %N and %L to
 * the thread number, the team size and the level.
 */
#include <stdlib.h>

#include "check.h"

/* Places: counts, ids and partitions, from the calling thread. */
static void places(const char *where)
{
	int np = omp_get_num_places(), me = omp_get_place_num();
	int pp = omp_get_partition_num_places();

	CHECK(np >= 0, "%s: omp_get_num_places() %d", where, np);
	CHECK(me >= -1 && me < (np > 0 ? np : 1), "%s: omp_get_place_num() %d with %d places",
	      where, me, np);
	for (int p = 0; p < np; p++) {
		int n = omp_get_place_num_procs(p);
		CHECK(n >= 1 && n <= 4096, "%s: place %d has %d procs", where, p, n);
		int *ids = malloc(sizeof *ids * (size_t)n);
		CHECK(ids, "out of memory");
		for (int k = 0; k < n; k++)
			ids[k] = -1;
		omp_get_place_proc_ids(p, ids);
		for (int k = 0; k < n; k++)
			CHECK(ids[k] >= 0, "%s: place %d's proc id %d is %d", where, p, k, ids[k]);
		free(ids);
	}
	CHECK(omp_get_place_num_procs(np) == 0 && omp_get_place_num_procs(-1) == 0,
	      "%s: a place out of range has %d and %d procs", where, omp_get_place_num_procs(np),
	      omp_get_place_num_procs(-1));
	CHECK(pp >= 0 && pp <= np, "%s: partition of %d places out of %d", where, pp, np);
	if (pp > 0) {
		int *nums = malloc(sizeof *nums * (size_t)pp);
		CHECK(nums, "out of memory");
		omp_get_partition_place_nums(nums);
		for (int k = 0; k < pp; k++)
			CHECK(nums[k] >= 0 && nums[k] < np, "%s: partition place %d is %d of %d",
			      where, k, nums[k], np);
		free(nums);
	}
	omp_proc_bind_t b = omp_get_proc_bind();
	CHECK(b == omp_proc_bind_false || b == omp_proc_bind_true || b == omp_proc_bind_master ||
	      b == omp_proc_bind_close || b == omp_proc_bind_spread, "%s: omp_get_proc_bind() %d",
	      where, (int)b);
}

/* Place queries in regions under each binding. */
static void in_regions(void)
{
	places("outside any region");
#pragma omp parallel
	places("in a region");
#pragma omp parallel proc_bind(spread) num_threads(2)
	places("in a region with proc_bind(spread)");
#pragma omp parallel proc_bind(close) num_threads(3)
	places("in a region with proc_bind(close)");
#pragma omp parallel proc_bind(master) num_threads(2)
	places("in a region with proc_bind(master)");
}

/* The affinity format: set, get back, and capture with it. */
static void format(void)
{
	char buf[128], small[4];
	const char *fmt = "T%n of %N at %L";
	size_t len;
	int bad = 0;

	len = omp_get_affinity_format(buf, sizeof buf);
	CHECK(len > 0 && len < sizeof buf && strlen(buf) == len, "omp_get_affinity_format: %zu, "
	      "'%s'", len, buf);
	omp_set_affinity_format(fmt);
	len = omp_get_affinity_format(buf, sizeof buf);
	CHECK(len == strlen(fmt) && strcmp(buf, fmt) == 0, "omp_get_affinity_format after setting "
	      "'%s': %zu, '%s'", fmt, len, buf);
	len = omp_get_affinity_format(small, sizeof small);
	CHECK(len == strlen(fmt) && strlen(small) == sizeof small - 1, "omp_get_affinity_format "
	      "into 4 bytes: %zu, '%s'", len, small);
#pragma omp parallel num_threads(3)
	{
		char got[64], want[64];
		size_t n = omp_capture_affinity(got, sizeof got, NULL);
		snprintf(want, sizeof want, "T%d of %d at %d", omp_get_thread_num(),
			 omp_get_num_threads(), omp_get_level());
		if (n != strlen(want) || strcmp(got, want) != 0)
			ATOMIC_STORE(&bad, 1);
		n = omp_capture_affinity(got, sizeof got, "%0.3n|%N");
		snprintf(want, sizeof want, "%03d|%d", omp_get_thread_num(), omp_get_num_threads());
		if (n != strlen(want) || strcmp(got, want) != 0)
			ATOMIC_STORE(&bad, 2);
	}
	CHECK(!bad, "omp_capture_affinity with %s format did not expand %%n, %%N, %%L to the "
	      "thread's values", bad == 1 ? "the set" : "an explicit");
}

/* Both. */
int main(void)
{
	in_regions();
	format();
	return 0;
}
