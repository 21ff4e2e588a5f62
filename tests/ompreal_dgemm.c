/*
 * ompreal_dgemm.c - one dgemm through Debian's OpenMP build of OpenBLAS,
 * for tests/ompreal.test.sh, which builds it (linked against
 * openblas-openmp/libopenblas.so.0 by path, with an RPATH there, so that
 * neither update-alternatives nor LD_LIBRARY_PATH can swap in another
 * BLAS) and runs it once on the system's libgomp and once on the layer.
 *
 * It fills A and B (N x N, row major) from a formula, computes C = A B
 * with cblas_dgemm, checks 64 entries of C against a plain dot product
 * (exactly: see fill), writes C's bytes to OUT and prints one line:
 *
 *   dgemm n=N parallel=openmp threads=T time_s=S sum=X fnv=H check=ok
 *
 * parallel is how this OpenBLAS was built (openblas_get_parallel: it must
 * say openmp), threads how many threads it will use (from
 * OMP_NUM_THREADS, and omp_get_max_threads at each call), sum the sum of
 * C's entries (in order, on one thread) and fnv the FNV-1a hash of C's
 * bytes: equal on both runtimes.  Exit 0 when the check passed, 1 when it
 * did not, 2 on bad usage.
 *
 *   ompreal_dgemm N OUT
 */
#include <cblas.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Entries in [-0.5, 0.5), multiples of 1/1024: every product is a
 * multiple of 2^-20 and every partial sum of N <= 20000 of them is below
 * 2^13 in size, so all of C's arithmetic is exact (33 bits of 53), in any
 * order and with or without FMA: C is the same bits however the threads
 * split and sum it, and any difference is an error, not rounding. */
static void fill(double *m, long n, long a, long b)
{
	for (long i = 0; i < n; i++)
		for (long j = 0; j < n; j++)
			m[i * n + j] = (double)((i * a + j * b + (i ^ j)) % 1024) / 1024.0 - 0.5;
}

static const char *parallel_name(int p)
{
	switch (p) {
	case 0: return "sequential";
	case 1: return "pthreads";
	case 2: return "openmp";
	default: return "unknown";
	}
}

int main(int argc, char **argv)
{
	char *end;
	long n = argc == 3 ? strtol(argv[1], &end, 10) : 0;

	if (argc != 3 || *end != '\0' || n < 8 || n > 20000) {
		fprintf(stderr, "usage: ompreal_dgemm N OUT  (8 <= N <= 20000)\n");
		return 2;
	}
	size_t bytes = (size_t)n * (size_t)n * sizeof(double);
	double *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
	if (a == NULL || b == NULL || c == NULL) {
		fprintf(stderr, "ompreal_dgemm: out of memory for n=%ld\n", n);
		return 1;
	}
	fill(a, n, 131, 71);
	fill(b, n, 37, 113);
	memset(c, 0, bytes);

	double t0 = now_s();
	cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint)n, (blasint)n,
		    (blasint)n, 1.0, a, (blasint)n, b, (blasint)n, 0.0, c, (blasint)n);
	double t = now_s() - t0;

	/* 64 entries, spread over C, against a plain dot product. */
	int ok = 1;
	for (long s = 0; s < 64; s++) {
		long i = (s * 7919) % n, j = (s * 104729 + 13) % n;
		double want = 0;
		for (long k = 0; k < n; k++)
			want += a[i * n + k] * b[k * n + j];
		if (c[i * n + j] != want) {
			fprintf(stderr, "ompreal_dgemm: C[%ld][%ld] = %.17g, expected %.17g\n",
				i, j, c[i * n + j], want);
			ok = 0;
		}
	}

	double sum = 0;
	for (size_t k = 0; k < (size_t)n * (size_t)n; k++)
		sum += c[k];
	uint64_t h = 1469598103934665603ULL;
	const unsigned char *p = (const unsigned char *)c;
	for (size_t k = 0; k < bytes; k++) {
		h ^= p[k];
		h *= 1099511628211ULL;
	}

	FILE *f = fopen(argv[2], "wb");
	if (f == NULL || fwrite(c, 1, bytes, f) != bytes || fclose(f) != 0) {
		perror(argv[2]);
		return 1;
	}
	printf("dgemm n=%ld parallel=%s threads=%d time_s=%.3f sum=%.17g fnv=%016llx check=%s\n",
	       n, parallel_name(openblas_get_parallel()), openblas_get_num_threads(), t, sum,
	       (unsigned long long)h, ok ? "ok" : "FAILED");
	free(a);
	free(b);
	free(c);
	return ok ? 0 : 1;
}
