/*
 * target.c - target regions and teams on the host, the only device the
 * layer has (omp_get_num_devices() == 0), as libgomp 12 runs them when it
 * has no device: the region's function runs on the encountering thread
 * as a new initial task (layer.h's omp_target_enter/omp_target_leave),
 * with firstprivate data copied as gomp_target_fallback copies it; data
 * mapping constructs do nothing but wait for their dependences.  Asking for a device that does not exist
 * is fatal under OMP_TARGET_OFFLOAD=mandatory, with libgomp's message,
 * and runs on the host otherwise.  `nowait` runs the region at once,
 * after its dependences (the encountering task waits for them).
 *
 * Host teams: GOMP_teams_reg runs the teams region's function once per
 * team, in sequence, on the calling thread; GOMP_teams4 (gcc 12's form
 * inside a target region) is a loop gcc drives: the first call sets the
 * league up and returns true, each next call moves to the next team and
 * returns false after the last.  A thread's league is omp_self->num_teams
 * (the number of teams; 0 or 1 outside any) and omp_self->team_num.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "layer.h"
#include "gomp.h"
#include "env.h"

/* gcc's gomp-constants.h. */
#define MAP_FIRSTPRIVATE      0x0c
#define MAP_ATTACH            0x50
#define DEVICE_ICV            (-1)
#define DEVICE_HOST_FALLBACK  (-2)
#define TARGET_ARG_DEVICE_MASK    ((1 << 7) - 1)
#define TARGET_ARG_SUBSEQUENT     (1 << 7)
#define TARGET_ARG_ID_MASK        (((1 << 8) - 1) << 8)
#define TARGET_ARG_THREAD_LIMIT   (2 << 8)
#define TARGET_ARG_VALUE_SHIFT    16

#define HOST_DEVICE 0

/* libgomp's resolve_device for the target constructs: the default device
 * for GOMP_DEVICE_ICV; fatal under OMP_TARGET_OFFLOAD=mandatory for
 * anything but the host. */
static void resolve_device(int device)
{
	if (device == DEVICE_ICV)
		device = omp_icv()->default_device;
	if (device != HOST_DEVICE && device != DEVICE_HOST_FALLBACK
	    && omp_g.target_offload == 1)
		omp_gomp_fatal("OMP_TARGET_OFFLOAD is set to MANDATORY, but device not found");
}

/* Copy the firstprivate entries (kind 0x0c in a 16-bit kind's low byte,
 * log2 of the alignment in its high byte) into one block, pointing
 * hostaddrs at the copies; the block to free afterwards (NULL if none). */
static void *copy_firstprivate(size_t mapnum, void **hostaddrs, const size_t *sizes,
                               const unsigned short *kinds)
{
	size_t align = 0, size = 0, off = 0;
	char *block, *base;

	for (size_t i = 0; i < mapnum; i++)
		if ((kinds[i] & 0xff) == MAP_FIRSTPRIVATE) {
			size_t a = (size_t)1 << (kinds[i] >> 8);
			if (align < a)
				align = a;
			size = ((size + a - 1) & ~(a - 1)) + sizes[i];
		}
	if (align == 0)
		return NULL;
	block = omp_gomp_malloc(size + align);
	base = (char *)(((uintptr_t)block + align - 1) & ~(uintptr_t)(align - 1));
	for (size_t i = 0; i < mapnum; i++) {
		if ((kinds[i] & 0xff) != MAP_FIRSTPRIVATE || hostaddrs[i] == NULL)
			continue;
		size_t a = (size_t)1 << (kinds[i] >> 8);
		off = (off + a - 1) & ~(a - 1);
		memcpy(base + off, hostaddrs[i], sizes[i]);
		hostaddrs[i] = base + off;
		off += sizes[i];
		/* A pointer attached to the copy: point it at the copy. */
		if (i + 1 < mapnum && (kinds[i + 1] & 0xff) == MAP_ATTACH) {
			*(*(uintptr_t **)hostaddrs[i + 1] + sizes[i + 1]) = (uintptr_t)hostaddrs[i];
			i++;
		}
	}
	return block;
}

/* The thread_limit a target construct's argument list carries, or 0. */
static long args_thread_limit(void **args)
{
	while (args != NULL && *args != NULL) {
		intptr_t id = (intptr_t)*args++, val;

		if (id & TARGET_ARG_SUBSEQUENT)
			val = (intptr_t)*args++;
		else
			val = id >> TARGET_ARG_VALUE_SHIFT;
		if ((id & TARGET_ARG_DEVICE_MASK) != 0)
			continue;
		if ((id & TARGET_ARG_ID_MASK) != TARGET_ARG_THREAD_LIMIT)
			continue;
		return val > INT_MAX ? INT_MAX : (long)val;
	}
	return 0;
}

/* Run a target region's function as a new initial task of this thread
 * (omp_target_enter also puts the thread outside any league). */
static void run_region(void (*fn)(void *), void **hostaddrs, long thread_limit)
{
	struct omp_thr_save s;

	omp_target_enter(&s);
	if (thread_limit > 0)
		omp_icv_mut()->thread_limit = (unsigned)thread_limit;
	fn(hostaddrs);
	omp_target_leave(&s);
}

/* GOMP_target (gcc 4.9-5's form): run the region on the host. */
OMP_API void GOMP_target(int device, void (*fn)(void *), const void *unused,
                         size_t mapnum, void **hostaddrs, size_t *sizes,
                         unsigned char *kinds)
{
	(void)unused, (void)mapnum, (void)sizes, (void)kinds;
	resolve_device(device);
	run_region(fn, hostaddrs, 0);
}

/* GOMP_target_ext: run the region on the host after its dependences,
 * with its firstprivate data copied and its thread_limit applied. */
OMP_API void GOMP_target_ext(int device, void (*fn)(void *), size_t mapnum,
                             void **hostaddrs, size_t *sizes, unsigned short *kinds,
                             unsigned int flags, void **depend, void **args)
{
	void *block;

	(void)flags;
	resolve_device(device);
	block = copy_firstprivate(mapnum, hostaddrs, sizes, kinds);
	if (depend != NULL)
		omp_dep_wait(omp_thr_get(), depend);
	run_region(fn, hostaddrs, args_thread_limit(args));
	free(block);
}

/* GOMP_target_data: nothing to map on the host. */
OMP_API void GOMP_target_data(int device, const void *unused, size_t mapnum,
                              void **hostaddrs, size_t *sizes, unsigned char *kinds)
{
	(void)unused, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
	resolve_device(device);
}

/* GOMP_target_data_ext: nothing to map on the host. */
OMP_API void GOMP_target_data_ext(int device, size_t mapnum, void **hostaddrs,
                                  size_t *sizes, unsigned short *kinds)
{
	(void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
	resolve_device(device);
}

/* GOMP_target_end_data: nothing was mapped. */
OMP_API void GOMP_target_end_data(void)
{
}

/* GOMP_target_update: host memory is the device's. */
OMP_API void GOMP_target_update(int device, const void *unused, size_t mapnum,
                                void **hostaddrs, size_t *sizes, unsigned char *kinds)
{
	(void)unused, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
	resolve_device(device);
}

/* GOMP_target_update_ext: nothing to copy, once the dependences are met. */
OMP_API void GOMP_target_update_ext(int device, size_t mapnum, void **hostaddrs,
                                    size_t *sizes, unsigned short *kinds,
                                    unsigned int flags, void **depend)
{
	(void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds, (void)flags;
	resolve_device(device);
	if (depend != NULL)
		omp_dep_wait(omp_thr_get(), depend);
}

/* GOMP_target_enter_exit_data: nothing to map or unmap, once the
 * dependences are met: as an update. */
OMP_API void GOMP_target_enter_exit_data(int device, size_t mapnum, void **hostaddrs,
                                         size_t *sizes, unsigned short *kinds,
                                         unsigned int flags, void **depend)
{
	GOMP_target_update_ext(device, mapnum, hostaddrs, sizes, kinds, flags, depend);
}

/* A thread_limit clause's value as thread-limit-var. */
static unsigned thread_limit_var(unsigned thread_limit)
{
	return thread_limit > INT_MAX ? UINT_MAX : thread_limit;
}

/* GOMP_teams (gcc 4.9-10's form, inside a target region): the region
 * runs as one team, so only thread_limit matters (as libgomp). */
OMP_API void GOMP_teams(unsigned int num_teams, unsigned int thread_limit)
{
	(void)num_teams;
	if (thread_limit != 0)
		omp_icv_mut()->thread_limit = thread_limit_var(thread_limit);
}

/* GOMP_teams_reg: a host teams region: fn(data) once per team, in
 * sequence (nteams-var teams, or 3, when num_teams is 0). */
OMP_API void GOMP_teams_reg(void (*fn)(void *), void *data, unsigned int num_teams,
                            unsigned int thread_limit, unsigned int flags)
{
	struct omp_thr *t = omp_thr_get();
	unsigned team_num = t->team_num, old_num_teams = t->num_teams, old_limit = 0;

	(void)flags;
	if (thread_limit == 0)
		thread_limit = (unsigned)omp_g.teams_thread_limit;
	if (thread_limit != 0) {
		struct omp_icv *icv = omp_icv_mut();
		old_limit = icv->thread_limit;
		icv->thread_limit = thread_limit_var(thread_limit);
	}
	if (num_teams == 0)
		num_teams = omp_g.nteams > 0 ? (unsigned)omp_g.nteams : 3;
	t->num_teams = num_teams;
	for (unsigned i = 0; i < num_teams; i++) {
		t->team_num = i;
		fn(data);
	}
	t->team_num = team_num;
	t->num_teams = old_num_teams;
	if (thread_limit != 0)
		omp_icv_mut()->thread_limit = old_limit;
}

/* GOMP_teams4: gcc 12's teams loop inside a target region; true while
 * there is a team to run (num_teams_low teams, at least one). */
OMP_API bool GOMP_teams4(unsigned int num_teams_low, unsigned int num_teams_high,
                         unsigned int thread_limit, bool first)
{
	struct omp_thr *t = omp_thr_get();

	(void)num_teams_high;
	if (first) {
		if (thread_limit != 0)
			omp_icv_mut()->thread_limit = thread_limit_var(thread_limit);
		t->num_teams = num_teams_low > 0 ? num_teams_low : 1;
		t->team_num = 0;
		return true;
	}
	if (t->team_num + 1 >= t->num_teams)
		return false;
	t->team_num++;
	return true;
}

/* GOMP_offload_register: there is no device to load images on. */
OMP_API void GOMP_offload_register(const void *host_table, int target_type,
                                   const void *target_data)
{
	(void)host_table, (void)target_type, (void)target_data;
}

/* GOMP_offload_unregister: nothing was registered. */
OMP_API void GOMP_offload_unregister(const void *host_table, int target_type,
                                     const void *target_data)
{
	(void)host_table, (void)target_type, (void)target_data;
}

/* GOMP_offload_register_ver: there is no device to load images on. */
OMP_API void GOMP_offload_register_ver(unsigned version, const void *host_table,
                                       int target_type, const void *target_data)
{
	(void)version, (void)host_table, (void)target_type, (void)target_data;
}

/* GOMP_offload_unregister_ver: nothing was registered. */
OMP_API void GOMP_offload_unregister_ver(unsigned version, const void *host_table,
                                         int target_type, const void *target_data)
{
	(void)version, (void)host_table, (void)target_type, (void)target_data;
}
