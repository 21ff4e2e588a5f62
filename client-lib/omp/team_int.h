/*
 * team_int.h - what the files of the layer's parallel regions, team.c
 * (teams: a region's start, its members, its end), pool.c (the pool of
 * threads, freed teams) and barrier.c (barriers, cancellation), share;
 * private to them (layer.h is what the rest of the layer calls, and no
 * other file includes this one): a few helpers, named omp_team__*.
 * teamapi.c, the omp_* routines about teams, needs none of them.
 */
#ifndef ASTEAL_OMP_TEAM_INT_H
#define ASTEAL_OMP_TEAM_INT_H

#include "layer.h"

/* ---- pool.c ---- */

/* Threads in teams, the initial thread too: team.c counts a team's in and
 * out, omp_team_size holds them to thread-limit-var, a forked child
 * starts again from 1. */
extern _Atomic unsigned omp_team__busy;

/* An idle pool thread for a new team: want if it is idle, else any, else
 * a new one (NULL when none can be made). */
struct omp_thr *omp_team__pool_get(struct omp_thr *want);

/* A pool thread done with its team goes back to the idle list. */
void omp_team__pool_put(struct omp_thr *t);

/* A team with room for n members (a freed one when one fits). */
struct omp_team *omp_team__alloc(unsigned n);

/* A team that ended, kept for the next region. */
void omp_team__free(struct omp_team *team);

/* ---- team.c ---- */

/* A pool thread's part of the team it was handed (t->next_team), then
 * back to the pool. */
void omp_team__member(struct omp_thr *t);

/* ---- barrier.c ---- */

/* Wait at barrier bar of t's team, running the team's tasks (noslot: the
 * caller runs nothing after it, OMP_WAIT_NOSLOT); true when the region
 * was cancelled and cancellable is. */
bool omp_team__bar_wait(struct omp_thr *t, struct omp_barrier *bar,
                        bool cancellable, int noslot);

#endif
