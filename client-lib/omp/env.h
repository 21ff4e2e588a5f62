/*
 * env.h - what env.c and places.c offer the layer's peripheral modules
 * (api.c, alloc.c, lock.c, fortran.c, target.c) beyond layer.h: libgomp's
 * way of reporting errors, and the place list OMP_PLACES (or
 * OMP_PROC_BIND, GOMP_CPU_AFFINITY) produced.  All hidden.
 *
 * libgomp reports a problem as "\nlibgomp: <message>\n" on stderr, and a
 * fatal one the same way followed by exit(EXIT_FAILURE); programs and
 * test suites built for libgomp see the same text from the layer.
 */
#ifndef ASTEAL_OMP_ENV_H
#define ASTEAL_OMP_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Print a libgomp-style error line ("\nlibgomp: ...\n") on stderr. */
void omp_gomp_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print a libgomp-style error line and exit with status 1, as libgomp's
 * gomp_fatal does. */
__attribute__((noreturn)) void omp_gomp_fatal(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* libgomp's fatal error for an allocation of size bytes that failed. */
__attribute__((noreturn)) void omp_gomp_oom(size_t size);

/* malloc(size), or libgomp's fatal error when that fails (as gomp_malloc
 * does): never NULL. */
void *omp_gomp_malloc(size_t size);

/* ---- places.c, for env.c ---- */

/* Read the process's affinity mask; the number of processors in it. */
int omp_places_init(void);

/* OMP_PLACES: true when it made the place list (checked only, and not
 * made, when ignore: OMP_PROC_BIND=false). */
bool omp_places_parse(bool ignore);

/* GOMP_CPU_AFFINITY, likewise (ignored when OMP_PLACES made the list). */
bool omp_places_cpu_affinity(bool ignore);

/* Binding without places: one place per processor. */
void omp_places_default(void);

/* Print the place list as OMP_DISPLAY_ENV does: {0:2},{2}. */
void omp_places_print(FILE *f);

/* ---- places.c, for api.c ---- */

/* The number of places (0 when there is no place list). */
int omp_env_num_places(void);

/* The number of processors in place p (0 when p is not a place). */
int omp_env_place_num_procs(int p);

/* Store the processor numbers of place p, ascending, in ids (which has
 * room for omp_env_place_num_procs(p) of them). */
void omp_env_place_proc_ids(int p, int *ids);

/* The place the calling thread is bound to: the first place holding all
 * the processors its affinity mask allows; -1 when none or no places. */
int omp_env_current_place(void);

/* The processors the calling thread may run on, as libgomp prints them
 * for %A ("0-3,6"), written like snprintf into buf; returns the length
 * the whole text needs. */
size_t omp_env_affinity_string(char *buf, size_t size);

#endif
