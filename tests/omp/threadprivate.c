/*
 * threadprivate.c - threadprivate variables (gcc's thread-local storage)
 * and copyin: a global, a static local, a struct and an array keep each
 * thread's value from one region to the next when both regions have the
 * same number of threads and dyn-var is false (OpenMP's guarantee, which
 * needs each thread number to stay on one OS thread); the initial
 * thread's copy is the one seen outside regions; copyin gives every
 * thread the initial thread's values, also for the struct and the array;
 * single copyprivate of a threadprivate variable broadcasts it.
 */
#include "check.h"

struct tp_struct {
	int a;
	double b[4];
};

static int tp_global = -1;
static struct tp_struct tp_st;
static long tp_arr[8];
#pragma omp threadprivate(tp_global, tp_st, tp_arr)

/* A counter in a static local, threadprivate: one per thread. */
static int bump(void)
{
	static int calls;
#pragma omp threadprivate(calls)
	return ++calls;
}

/* Values persist from one region to the next of the same size. */
static void persist(void)
{
	int bad = 0, n = omp_get_max_threads();

	omp_set_dynamic(0);
#pragma omp parallel num_threads(n)
	{
		int me = omp_get_thread_num();
		tp_global = 1000 + me;
		tp_st.a = me;
		tp_st.b[3] = me * 0.5;
		tp_arr[7] = -me;
		for (int k = 0; k <= me; k++)
			bump();
	}
	CHECK(tp_global == 1000, "outside the region the initial thread's copy is %d, expected "
	      "1000", tp_global);
	for (int round = 0; round < 3; round++) {
#pragma omp parallel num_threads(n)
		{
			int me = omp_get_thread_num();
			if (tp_global != 1000 + me || tp_st.a != me || tp_st.b[3] != me * 0.5 ||
			    tp_arr[7] != -me)
				__atomic_or_fetch(&bad, 1, __ATOMIC_SEQ_CST);
			if (bump() != me + 2 + round)
				__atomic_or_fetch(&bad, 2, __ATOMIC_SEQ_CST);
		}
	}
	CHECK(!(bad & 1), "a threadprivate global, struct or array lost its value between two "
	      "regions of %d threads", n);
	CHECK(!(bad & 2), "a threadprivate static local lost its count between two regions of %d "
	      "threads", n);
}

/* copyin copies the initial thread's values into every thread's. */
static void copyin(void)
{
	int bad = 0;

	tp_global = 4242;
	tp_st.a = 17;
	tp_st.b[0] = 2.5;
	for (int k = 0; k < 8; k++)
		tp_arr[k] = k * 11;
#pragma omp parallel copyin(tp_global, tp_st, tp_arr) num_threads(4)
	{
		if (tp_global != 4242 || tp_st.a != 17 || tp_st.b[0] != 2.5)
			ATOMIC_STORE(&bad, 1);
		for (int k = 0; k < 8; k++)
			if (tp_arr[k] != k * 11)
				ATOMIC_STORE(&bad, 1);
		tp_global = omp_get_thread_num();
	}
	CHECK(!bad, "copyin: a thread's threadprivate copy did not hold the initial thread's "
	      "values");
	CHECK(tp_global == 0, "after the region the initial thread's copy is %d, expected 0",
	      tp_global);
}

/* single copyprivate of a threadprivate variable. */
static void broadcast(void)
{
	int bad = 0;

#pragma omp parallel num_threads(3)
	{
#pragma omp single copyprivate(tp_global)
		tp_global = 777;
		if (tp_global != 777)
			ATOMIC_STORE(&bad, 1);
	}
	CHECK(!bad, "single copyprivate of a threadprivate variable did not reach every thread");
}

/* All three. */
int main(void)
{
	persist();
	copyin();
	broadcast();
	return 0;
}
