/*
 * cancel.h - what the cancellation programs share.  Cancellation takes
 * effect only when OMP_CANCELLATION=true (omp_get_cancellation() is then
 * 1); otherwise cancel is ignored.  The runner runs them both ways and
 * says which it meant through EXPECT_CANCELLATION (1 or 0), so that a
 * runtime that ignores the variable fails instead of taking the other
 * branch of each check.
 */
#ifndef OMP_CANCEL_H
#define OMP_CANCEL_H

#include "check.h"

/* omp_get_cancellation(), checked against EXPECT_CANCELLATION when given. */
static inline int cancellation_active(void)
{
	long want;
	int on = omp_get_cancellation();

	if (env_long("EXPECT_CANCELLATION", &want))
		CHECK(on == (want != 0), "omp_get_cancellation() %d, expected %ld "
		      "(OMP_CANCELLATION=%s)", on, want, getenv("OMP_CANCELLATION") ? getenv(
		      "OMP_CANCELLATION") : "(unset)");
	return on;
}

/* Spin at `point` (a cancellation point statement) until cancelled, bounded. */
#define SPIN_UNTIL_CANCELLED(point, timed_out)                              \
	do {                                                                \
		double end_ = omp_get_wtime() + WAIT_SECONDS;               \
		while (omp_get_wtime() < end_) {                            \
			point                                               \
		}                                                           \
		ATOMIC_STORE(timed_out, 1);                                 \
	} while (0)

#endif
