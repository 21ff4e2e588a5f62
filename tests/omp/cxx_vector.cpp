/*
 * cxx_vector.cpp - C++ containers under worksharing: a std::vector filled
 * by a parallel for (each element written once by index), a parallel for
 * over a vector's random-access iterators, a std::vector<double> summed
 * by a user-defined reduction on std::vector (element-wise, with an
 * initializer copying the original's size), and per-thread std::string
 * building in a region; every element is right whatever the team size.
 */
#include <omp.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "check.h"

#pragma omp declare reduction(vadd: std::vector<long>: \
	std::transform(omp_out.begin(), omp_out.end(), omp_in.begin(), omp_out.begin(), \
		       std::plus<long>())) \
	initializer(omp_priv = std::vector<long>(omp_orig.size(), 0))

/* Fill, walk by iterator, reduce element-wise, build strings. */
int main()
{
	const int n = 10000;
	std::vector<int> v(n, -1);

#pragma omp parallel for schedule(dynamic, 64)
	for (int i = 0; i < n; i++)
		v[i] = i * 2;
	for (int i = 0; i < n; i++)
		CHECK(v[i] == 2 * i, "vector filled by parallel for: v[%d] = %d", i, v[i]);

#pragma omp parallel for
	for (std::vector<int>::iterator it = v.begin(); it < v.end(); ++it)
		*it += 1;
	for (int i = 0; i < n; i++)
		CHECK(v[i] == 2 * i + 1, "parallel for over iterators: v[%d] = %d", i, v[i]);

	std::vector<long> hist(10, 0);
#pragma omp parallel for reduction(vadd: hist)
	for (int i = 0; i < n; i++)
		hist[i % 10] += v[i];
	for (int k = 0; k < 10; k++) {
		long want = 0;
		for (int i = k; i < n; i += 10)
			want += 2 * i + 1;
		CHECK(hist[k] == want, "declare reduction on std::vector: hist[%d] = %ld, "
		      "expected %ld", k, hist[k], want);
	}

	std::vector<std::string> names(omp_get_max_threads());
#pragma omp parallel
	{
		std::string s = "thread ";
		s += std::to_string(omp_get_thread_num());
		names[omp_get_thread_num()] = s;
	}
	for (size_t t = 0; t < names.size(); t++)
		CHECK(names[t] == "thread " + std::to_string(t), "per-thread string %zu: '%s'", t,
		      names[t].c_str());
	return 0;
}
