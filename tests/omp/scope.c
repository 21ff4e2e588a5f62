/*
 * scope.c - OpenMP 5.1 constructs gcc 12 compiles to runtime calls: scope
 * with private and reduction (gcc 12 takes no firstprivate on it): every
 * thread of the team runs the block and the reduction combines them,
 * through GOMP_scope_start when it is a task reduction; scope nowait; the
 * error directive at execution time with severity(warning) (GOMP_warning:
 * a message on stderr, and the program goes on; error_fatal.c has
 * severity(fatal)).  The nothing directive is accepted.
 */
#include "check.h"

/* scope inside a region. */
static void scopes(void)
{
	long sum = 0, tsum = 0;
	int fp = 10, n = 0, bad = 0;    /* fp: shared, read in the scope */

#pragma omp parallel reduction(+: n)
	{
		n++;
		int pv = -1;
#pragma omp scope private(pv) reduction(+: sum)
		{
			pv = omp_get_thread_num();
			if (fp != 10)
				ATOMIC_STORE(&bad, 1);
			sum += pv + fp;
		}
#pragma omp scope reduction(task, +: tsum)
		{
#pragma omp task in_reduction(+: tsum)
			tsum += 2;
			tsum += 1;
		}
#pragma omp scope nowait
		{
#pragma omp nothing
		}
	}
	CHECK(!bad, "scope: a shared variable read inside was not 10");
	CHECK(sum == (long)n * (n - 1) / 2 + 10L * n, "scope reduction over %d threads: %ld", n,
	      sum);
	CHECK(tsum == 3L * n, "scope reduction(task): %ld, expected %ld", tsum, 3L * n);
}

/* The error directive with severity(warning) lets the program go on. */
static void warning(void)
{
	int after = 0;

#pragma omp error at(execution) severity(warning) message("scope.c: this warning is expected")
	after = 1;
	CHECK(after == 1, "the program did not go on after an error directive of severity warning");
}

/* Both. */
int main(void)
{
	scopes();
	warning();
	return 0;
}
