/*
 * api_device.c - devices, memory allocators and omp_display_env, on a
 * machine with no offload device: omp_get_num_devices >= 0,
 * omp_is_initial_device() true on the host, omp_get_initial_device() and
 * omp_get_device_num() the host's number (omp_get_num_devices(), OpenMP
 * 5.1), omp_get_default_device and omp_set_default_device;
 * omp_target_alloc / omp_target_memcpy / omp_target_memcpy_rect /
 * omp_target_is_present / omp_target_free on the host device; omp_alloc /
 * omp_free with omp_default_mem_alloc and the other predefined
 * allocators, omp_alloc(0) gives NULL, omp_aligned_alloc's alignment,
 * omp_calloc and omp_aligned_calloc zero,
 * omp_realloc keeps the contents, omp_init_allocator with an alignment
 * trait, omp_get/set_default_allocator; the allocate clause on a
 * parallel (GOMP_alloc, GOMP_free); omp_display_env(0) and (1) write the
 * OPENMP DISPLAY ENVIRONMENT block to stderr (captured and checked).
 */
#include <stdint.h>

#include "check.h"

/* The device numbers on a host with no offload device. */
static void devices(void)
{
	int nd = omp_get_num_devices(), host = omp_get_initial_device();
	int def = omp_get_default_device();

	CHECK(nd >= 0, "omp_get_num_devices() %d", nd);
	CHECK(omp_is_initial_device(), "omp_is_initial_device() false on the host");
	CHECK(host == nd, "omp_get_initial_device() %d, omp_get_num_devices() %d", host, nd);
	CHECK(omp_get_device_num() == host, "omp_get_device_num() %d on the host (%d)",
	      omp_get_device_num(), host);
	CHECK(def >= 0, "omp_get_default_device() %d", def);
	omp_set_default_device(host);
	CHECK(omp_get_default_device() == host, "omp_get_default_device() %d after setting %d",
	      omp_get_default_device(), host);
	omp_set_default_device(def);

	int *p = omp_target_alloc(64 * sizeof(int), host), src[64], back[64];
	CHECK(p, "omp_target_alloc on the host device gave NULL");
	for (int i = 0; i < 64; i++)
		src[i] = i * i;
	CHECK(omp_target_memcpy(p, src, sizeof src, 0, 0, host, host) == 0, "omp_target_memcpy to "
	      "it failed");
	CHECK(omp_target_memcpy(back, p, sizeof back, 0, 0, host, host) == 0, "omp_target_memcpy "
	      "back failed");
	CHECK(memcmp(src, back, sizeof src) == 0, "omp_target_memcpy round trip changed the data");
	CHECK(omp_target_is_present(src, host),
	      "omp_target_is_present on the host device is false");
	omp_target_free(p, host);

	/* A 2x3 block at (1, 2) of a 4x5 matrix into (0, 1) of a 3x4 one. */
	int m[4][5], r[3][4];
	size_t volume[2] = { 2, 3 }, dst_off[2] = { 0, 1 }, src_off[2] = { 1, 2 };
	size_t dst_dims[2] = { 3, 4 }, src_dims[2] = { 4, 5 };
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 5; j++)
			m[i][j] = 10 * i + j;
	memset(r, 0, sizeof r);
	int dims = omp_target_memcpy_rect(NULL, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, host,
					  host);
	CHECK(dims >= 2, "omp_target_memcpy_rect supports %d dimensions, fewer than 2", dims);
	int rc = omp_target_memcpy_rect(r, m, sizeof(int), 2, volume, dst_off, src_off, dst_dims,
					src_dims, host, host);
	CHECK(rc == 0, "omp_target_memcpy_rect failed (%d)", rc);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 4; j++) {
			int want = (i < 2 && j >= 1) ? 10 * (i + 1) + (j + 1) : 0;
			CHECK(r[i][j] == want, "omp_target_memcpy_rect: r[%d][%d] = %d, expected "
			      "%d", i, j, r[i][j], want);
		}
}

/* Memory allocators. */
static void allocators(void)
{
	static const omp_allocator_handle_t predefined[] = {
		omp_default_mem_alloc, omp_large_cap_mem_alloc, omp_const_mem_alloc,
		omp_high_bw_mem_alloc, omp_low_lat_mem_alloc, omp_cgroup_mem_alloc,
		omp_pteam_mem_alloc, omp_thread_mem_alloc,
	};

	for (size_t a = 0; a < sizeof predefined / sizeof predefined[0]; a++) {
		char *p = omp_alloc(1000, predefined[a]);
		CHECK(p, "omp_alloc(1000) with predefined allocator %zu gave NULL", a);
		memset(p, 0x5a, 1000);
		omp_free(p, predefined[a]);
	}
	CHECK(omp_alloc(0, omp_default_mem_alloc) == NULL, "omp_alloc(0) did not give NULL");
	void *al = omp_aligned_alloc(256, 100, omp_default_mem_alloc);
	CHECK(al && (uintptr_t)al % 256 == 0, "omp_aligned_alloc(256) gave %p", al);
	omp_free(al, omp_default_mem_alloc);
	long *za = omp_aligned_calloc(128, 10, sizeof(long), omp_default_mem_alloc);
	CHECK(za && (uintptr_t)za % 128 == 0, "omp_aligned_calloc(128) gave %p", (void *)za);
	for (int i = 0; i < 10; i++)
		CHECK(za[i] == 0, "omp_aligned_calloc: element %d is %ld", i, za[i]);
	omp_free(za, omp_default_mem_alloc);
	int *z = omp_calloc(100, sizeof(int), omp_default_mem_alloc);
	CHECK(z, "omp_calloc gave NULL");
	for (int i = 0; i < 100; i++)
		CHECK(z[i] == 0, "omp_calloc: element %d is %d", i, z[i]);
	for (int i = 0; i < 100; i++)
		z[i] = i;
	z = omp_realloc(z, 10000 * sizeof(int), omp_default_mem_alloc, omp_default_mem_alloc);
	CHECK(z, "omp_realloc gave NULL");
	for (int i = 0; i < 100; i++)
		CHECK(z[i] == i, "omp_realloc: element %d is %d", i, z[i]);
	omp_free(z, omp_default_mem_alloc);

	omp_alloctrait_t traits[] = {
		{ omp_atk_alignment, 128 }, { omp_atk_fallback, omp_atv_default_mem_fb },
	};
	omp_allocator_handle_t mine = omp_init_allocator(omp_default_mem_space, 2, traits);
	CHECK(mine != omp_null_allocator, "omp_init_allocator with alignment 128 failed");
	void *m = omp_alloc(300, mine);
	CHECK(m && (uintptr_t)m % 128 == 0, "an allocator with alignment 128 gave %p", m);
	omp_free(m, mine);
	omp_allocator_handle_t old = omp_get_default_allocator();
	CHECK(old == omp_default_mem_alloc, "omp_get_default_allocator() %lu, expected "
	      "omp_default_mem_alloc", (unsigned long)old);
	omp_set_default_allocator(mine);
	m = omp_alloc(64, omp_null_allocator);   /* the default one: mine */
	CHECK(m && (uintptr_t)m % 128 == 0, "omp_alloc with the default allocator set to mine "
	      "gave %p", m);
	omp_free(m, omp_null_allocator);
	omp_set_default_allocator(old);
	omp_destroy_allocator(mine);
}

/* The allocate clause on firstprivate, reduction and task-private variables. */
static void allocate_clause(void)
{
	int x = 5, n = 0;
	long sum = 0, red = 0, t = 0;

#pragma omp parallel firstprivate(x) allocate(omp_high_bw_mem_alloc: x) reduction(+: n)
	{
		x += omp_get_thread_num();
		n++;
#pragma omp barrier
#pragma omp atomic
		sum += x;
	}
	CHECK(sum == 5L * n + (long)n * (n - 1) / 2, "firstprivate with allocate: sum %ld for %d "
	      "threads", sum, n);
#pragma omp parallel for reduction(+: red) allocate(red)
	for (int i = 0; i < 100; i++)
		red += i;
	CHECK(red == 4950, "reduction with allocate: %ld", red);
#pragma omp parallel
#pragma omp single
	{
#pragma omp task private(x) allocate(omp_default_mem_alloc: x) shared(t)
		{
			x = 3;
			t += x;
		}
	}
	CHECK(t == 3, "task private with allocate: %ld", t);
}

/* omp_display_env writes the environment block to stderr: capture it. */
static void display_env(void)
{
	FILE *tmp = tmpfile();
	char text[8192];
	size_t n;
	int saved;

	CHECK(tmp, "tmpfile failed");
	fflush(stderr);
	saved = dup(2);
	CHECK(saved >= 0 && dup2(fileno(tmp), 2) == 2, "redirecting stderr failed");
	omp_display_env(0);
	omp_display_env(1);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(text, 1, sizeof text - 1, tmp);
	text[n] = '\0';
	fclose(tmp);
	CHECK(strstr(text, "OPENMP DISPLAY ENVIRONMENT BEGIN") && strstr(text, "_OPENMP"
	      ) && strstr(text, "OPENMP DISPLAY ENVIRONMENT END"), "omp_display_env wrote no "
	      "environment block to stderr (%zu bytes)", n);
	char *second = strstr(text, "OPENMP DISPLAY ENVIRONMENT END");
	CHECK(second && strstr(second + 1, "OPENMP DISPLAY ENVIRONMENT BEGIN"),
	      "omp_display_env(0) then (1) wrote one block, not two");
}

/* All of them. */
int main(void)
{
	devices();
	allocators();
	allocate_clause();
	display_env();
	return 0;
}
