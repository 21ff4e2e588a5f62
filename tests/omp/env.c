/*
 * env.c - the OMP_* environment, as the runner sets it: this program
 * prints nothing and checks the ICVs against EXPECT_* variables the runner
 * passes beside the OMP_* ones (each check only when its EXPECT_ is set):
 *
 *   EXPECT_MAX_THREADS       omp_get_max_threads()
 *   EXPECT_TEAM              the size of a plain parallel region's team
 *   EXPECT_NESTED_MAX_THREADS, EXPECT_NESTED_TEAM
 *                            omp_get_max_threads() inside that region, and
 *                            the size of a region nested in it
 *   EXPECT_DYNAMIC           omp_get_dynamic()
 *   EXPECT_SCHEDULE          omp_get_schedule() as [monotonic:]KIND,CHUNK,
 *                            KIND static, dynamic, guided or auto; a
 *                            schedule(runtime) loop then runs every
 *                            iteration once, static chunks round-robin
 *   EXPECT_MAX_ACTIVE_LEVELS omp_get_max_active_levels()
 *   EXPECT_THREAD_LIMIT      omp_get_thread_limit()
 *   EXPECT_PROC_BIND         omp_get_proc_bind()
 *   EXPECT_NUM_PLACES        omp_get_num_places(); whatever the places,
 *                            each one's processor ids and the partition's
 *                            place numbers are the same through the
 *                            Fortran spellings with integer(8) arguments
 *                            (libgomp's omp_get_place_proc_ids_8_ and
 *                            omp_get_partition_place_nums_8_)
 *   EXPECT_CANCELLATION      omp_get_cancellation()
 *   EXPECT_MAX_TASK_PRIORITY omp_get_max_task_priority()
 *   EXPECT_DEFAULT_DEVICE    omp_get_default_device()
 *   EXPECT_STACK_BYTES       every thread but the initial one (whose stack
 *                            is the process's) uses a stack array of this
 *                            many bytes, touching every page: it works only
 *                            if OMP_STACKSIZE was followed
 */
#include <stdint.h>

#include "check.h"

#define MAXN 1000
#define MAXT 256

/* Check an integer ICV against its EXPECT_ variable, if given. */
static void expect_int(const char *var, const char *what, long got)
{
	long want;

	if (env_long(var, &want))
		CHECK(got == want, "%s is %ld, expected %ld (%s)", what, got, want, var);
}

/* Parse "[monotonic:]kind,chunk" into an omp_sched_t and a chunk. */
static void parse_schedule(const char *s, omp_sched_t *kind, int *chunk)
{
	static const struct {
		const char *name;
		omp_sched_t kind;
	} kinds[] = {
		{ "static", omp_sched_static }, { "dynamic", omp_sched_dynamic },
		{ "guided", omp_sched_guided }, { "auto", omp_sched_auto },
	};
	unsigned mono = 0;
	const char *comma = strchr(s, ',');

	if (strncmp(s, "monotonic:", 10) == 0) {
		mono = omp_sched_monotonic;
		s += 10;
	}
	CHECK(comma, "EXPECT_SCHEDULE '%s' is not KIND,CHUNK", s);
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		size_t len = strlen(kinds[k].name);
		if ((size_t)(comma - s) == len && strncmp(s, kinds[k].name, len) == 0) {
			*kind = (omp_sched_t)(kinds[k].kind | mono);
			*chunk = atoi(comma + 1);
			return;
		}
	}
	fail("EXPECT_SCHEDULE '%s': unknown kind", s);
}

/* The schedule: the ICV, and a runtime loop that follows it. */
static void schedule(void)
{
	const char *want = getenv("EXPECT_SCHEDULE");
	static int count[MAXN], owner[MAXN];
	omp_sched_t kind, wkind;
	int chunk, wchunk, n = 0;

	if (!want)
		return;
	parse_schedule(want, &wkind, &wchunk);
	omp_get_schedule(&kind, &chunk);
	CHECK(kind == wkind &&
	      (chunk == wchunk || (wkind & ~omp_sched_monotonic) == omp_sched_auto),
	      "omp_get_schedule() gave %#x,%d, expected %#x,%d (%s)", (unsigned)kind, chunk,
	      (unsigned)wkind, wchunk, want);
#pragma omp parallel
	{
#pragma omp master
		n = omp_get_num_threads();
#pragma omp for schedule(runtime)
		for (int i = 0; i < MAXN; i++) {
			ATOMIC_ADD(&count[i], 1);
			owner[i] = omp_get_thread_num();
		}
	}
	for (int i = 0; i < MAXN; i++)
		CHECK(count[i] == 1, "schedule(runtime) under %s: iteration %d ran %d times", want,
		      i, count[i]);
	if ((wkind & ~omp_sched_monotonic) == omp_sched_static && wchunk > 0)
		for (int i = 0; i < MAXN; i++)
			CHECK(owner[i] == (i / wchunk) % n, "schedule(runtime) under %s: "
			      "iteration %d ran on thread %d, expected %d", want, i, owner[i],
			      (i / wchunk) % n);
}

/* A big array on the stack of a team thread, every page touched. */
static void use_stack(long bytes)
{
	volatile char buf[bytes];

	for (long i = 0; i < bytes; i += 4096)
		buf[i] = (char)i;
	buf[bytes - 1] = 1;
	CHECK(buf[bytes - 1] == 1, "the stack array did not hold its value");
}

/* Team sizes: a plain region, and a region nested in it. */
static void teams(void)
{
	long stack = 0;
	int team = -1, nested_team = -1, nested_max = -1, have_stack;

	if (!getenv("EXPECT_TEAM") && !getenv("EXPECT_NESTED_TEAM") &&
	    !getenv("EXPECT_NESTED_MAX_THREADS") && !getenv("EXPECT_STACK_BYTES"))
		return;         /* no region: OMP_NUM_THREADS=100000 must not open one */
	have_stack = env_long("EXPECT_STACK_BYTES", &stack);
#pragma omp parallel
	{
		if (omp_get_thread_num() == 0) {
			team = omp_get_num_threads();
			nested_max = omp_get_max_threads();
		}
		if (have_stack && omp_get_thread_num() != 0)
			use_stack(stack);
		if (omp_get_thread_num() == 0) {
#pragma omp parallel
#pragma omp master
			nested_team = omp_get_num_threads();
		}
	}
	expect_int("EXPECT_TEAM", "the team of a parallel region", team);
	expect_int("EXPECT_NESTED_MAX_THREADS", "omp_get_max_threads() in a region", nested_max);
	expect_int("EXPECT_NESTED_TEAM", "the team of a nested region", nested_team);
}

/* The Fortran spellings with integer(8) arguments, part of libgomp's ABI
 * (gfortran calls them for omp_lib's kind-8 interfaces). */
void omp_get_place_proc_ids_8_(const int64_t *place, int64_t *ids);
void omp_get_partition_place_nums_8_(int64_t *nums);

/* Each place's processor ids, and the partition's place numbers, through
 * C's routines and through the integer(8) spellings: the same. */
static void places_8(void)
{
	int np = omp_get_num_places(), pp = omp_get_partition_num_places();
	int max = np > pp ? np : pp;

	for (int p = 0; p < np; p++)
		if (omp_get_place_num_procs(p) > max)
			max = omp_get_place_num_procs(p);
	int *v = malloc(sizeof *v * (size_t)(max + 1));
	int64_t *v8 = malloc(sizeof *v8 * (size_t)(max + 1));
	CHECK(v && v8, "out of memory");
	for (int p = 0; p < np; p++) {
		int64_t p8 = p;
		int n = omp_get_place_num_procs(p);

		omp_get_place_proc_ids(p, v);
		omp_get_place_proc_ids_8_(&p8, v8);
		for (int k = 0; k < n; k++)
			CHECK(v8[k] == v[k], "place %d's proc id %d: %lld through "
			      "omp_get_place_proc_ids_8_, %d through C's", p, k, (long long)v8[k], v[k]);
	}
	omp_get_partition_place_nums(v);
	omp_get_partition_place_nums_8_(v8);
	for (int k = 0; k < pp; k++)
		CHECK(v8[k] == v[k], "partition place %d: %lld through "
		      "omp_get_partition_place_nums_8_, %d through C's", k, (long long)v8[k], v[k]);
	free(v);
	free(v8);
}

/* Every ICV the runner asks about. */
int main(void)
{
	expect_int("EXPECT_MAX_THREADS", "omp_get_max_threads()", omp_get_max_threads());
	expect_int("EXPECT_DYNAMIC", "omp_get_dynamic()", omp_get_dynamic());
	expect_int("EXPECT_MAX_ACTIVE_LEVELS", "omp_get_max_active_levels()",
		   omp_get_max_active_levels());
	expect_int("EXPECT_THREAD_LIMIT", "omp_get_thread_limit()", omp_get_thread_limit());
	expect_int("EXPECT_PROC_BIND", "omp_get_proc_bind()", omp_get_proc_bind());
	expect_int("EXPECT_NUM_PLACES", "omp_get_num_places()", omp_get_num_places());
	places_8();
	expect_int("EXPECT_CANCELLATION", "omp_get_cancellation()", omp_get_cancellation());
	expect_int("EXPECT_MAX_TASK_PRIORITY", "omp_get_max_task_priority()",
		   omp_get_max_task_priority());
	expect_int("EXPECT_DEFAULT_DEVICE", "omp_get_default_device()", omp_get_default_device());
	schedule();
	teams();
	return 0;
}
