/*
 * cxx_lambda.cpp - C++ lambdas with OpenMP: a task that runs a lambda
 * capturing by value (the task's copy) and by reference (the shared
 * original), lambdas creating tasks recursively (a std::function fib),
 * a parallel region inside a lambda, and an exception thrown and caught
 * inside a task (it must not escape the task).  Results are exact.
 */
#include <omp.h>

#include <functional>
#include <stdexcept>

#include "check.h"

/* Lambdas in tasks, recursion through std::function, a region in a lambda. */
int main()
{
	long total = 0;
	int caught = 0;

	auto add = [&total](long v) {
#pragma omp atomic
		total += v;
	};
#pragma omp parallel
#pragma omp single
	for (int k = 1; k <= 100; k++) {
		auto by_value = [k, add]() { add(k); };
#pragma omp task firstprivate(by_value)
		by_value();
	}
	CHECK(total == 5050, "tasks running lambdas: total %ld, expected 5050", total);

	std::function<long(int)> fib = [&fib](int n) -> long {
		if (n < 2)
			return n;
		long x, y;
#pragma omp task shared(x) firstprivate(n) if (n > 10)
		x = fib(n - 1);
		y = fib(n - 2);
#pragma omp taskwait
		return x + y;
	};
	long f = -1;
#pragma omp parallel
#pragma omp single
	f = fib(20);
	CHECK(f == 6765, "std::function fib(20) with tasks: %ld", f);

	auto region = [](int nt) {
		int count = 0;
#pragma omp parallel num_threads(nt) reduction(+: count)
		count += 1;
		return count;
	};
	CHECK(region(3) == 3, "a parallel region inside a lambda: %d threads", region(3));

#pragma omp parallel
#pragma omp single
	for (int k = 0; k < 20; k++) {
#pragma omp task shared(caught)
		{
			try {
				throw std::runtime_error("inside a task");
			} catch (const std::runtime_error &) {
#pragma omp atomic
				caught++;
			}
		}
	}
	CHECK(caught == 20, "exceptions caught inside tasks: %d of 20", caught);
	return 0;
}
