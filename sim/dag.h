/*
 * dag.h - the simulator's jobs: fork/join dags of unit-time nodes that
 * unfold as they run (paper, section 2 and Fig. 2).
 *
 * A job is a tree of frames (procedure instances).  A thread scheduler asks
 * dag_step() what a frame does next: run a block of k nodes (DAG_WORK),
 * spawn a child frame (DAG_SPAWN), wait for its spawned children
 * (DAG_SYNC), or finish (DAG_RETURN).  Spawn and sync are edges, not nodes:
 * only work blocks take time.  Two kinds of job:
 *
 *   phases    the paper's Fig. 2: `iters` iterations of a serial phase of
 *             w1 nodes followed by an h-way parallel phase whose h branches
 *             are chains of w2 nodes.  The branches are spawned by lazy
 *             binary splitting (one split node per spawn, as a Cilk
 *             parallel loop does), so an iteration has work
 *             w1 + (h - 1) + h*w2 and span w1 + ceil(lg h) + w2; or, with
 *             `loop`, by a serial loop of h - 1 spawn nodes whose last
 *             iteration runs the last branch itself (span w1 + h - 1 + w2).
 *   forkjoin  a random fork/join tree: each procedure runs 1..branch
 *             segments of 1..work nodes, after each of which it spawns a
 *             child procedure with probability `spawn` (up to `depth`
 *             levels), then syncs and runs a last segment.  The shape is a
 *             pure function of the seed.
 */
#ifndef ASTEAL_SIM_DAG_H
#define ASTEAL_SIM_DAG_H

#include <stdint.h>

enum dag_kind { DAG_PHASES, DAG_FORKJOIN };

struct dag_spec {
	enum dag_kind kind;
	long w1, w2, h, iters;  /* phases */
	int loop;               /* phases: spawn branches in a serial loop */
	int fj_depth;           /* forkjoin: deepest nesting, 0..40 */
	int fj_branch;          /* forkjoin: most segments per procedure */
	long fj_work;           /* forkjoin: most nodes per segment */
	double fj_spawn;        /* forkjoin: probability a segment spawns */
	uint64_t seed;          /* forkjoin: the shape */
};

enum dag_act { DAG_WORK, DAG_SPAWN, DAG_SYNC, DAG_RETURN };

struct dag_frame {
	long rem;          /* the scheduler's: nodes left in the work block */
	int parent;        /* frame id, or -1 for the root */
	int pending;       /* spawned children that have not returned */
	int8_t waiting;    /* the scheduler's: suspended at a sync */
	int8_t kind;       /* internal: which program */
	int16_t pc;        /* internal: where in it */
	int depth;         /* forkjoin nesting */
	int segs;          /* forkjoin segments left */
	long lo, hi, iter; /* phases loop state */
	uint64_t rs;       /* forkjoin random state */
};

/* A job being run: its spec and its pool of live frames. */
struct dag {
	struct dag_spec spec;
	struct dag_frame *fr;
	int cap;
	int free_head;   /* free list through .parent */
	int live;        /* frames allocated and not freed */
	int oom;         /* set when the pool could not grow */
};

/* The size of a dag, walked without a scheduler. */
struct dag_size {
	double work;     /* T1: nodes */
	double span;     /* T_inf: nodes on the longest path */
	double frames;   /* procedure instances */
};

/* Check a spec: 0, or -1 with the reason in *why. */
int dag_spec_check(const struct dag_spec *s, const char **why);

/* Fill s with a phases job (loop: spawn the branches in a serial loop). */
void dag_spec_phases(struct dag_spec *s, long w1, long w2, long h, long iters,
		     int loop);

/* Fill s with a random fork/join job. */
void dag_spec_forkjoin(struct dag_spec *s, int depth, int branch, long work,
		       double spawn, uint64_t seed);

/* Start running a job: returns the root frame's id, or -1 (no memory). */
int dag_start(struct dag *d, const struct dag_spec *s);

/* Release a job's frames. */
void dag_finish(struct dag *d);

/* What frame f does next: DAG_WORK with the block length in *work,
 * DAG_SPAWN with the new child's id in *child (-1 if out of memory), or
 * DAG_SYNC / DAG_RETURN.  May grow the pool: frame pointers taken before
 * the call are stale after it. */
enum dag_act dag_step(struct dag *d, int f, long *work, int *child);

/* Return a finished frame to the pool. */
void dag_free(struct dag *d, int f);

/* Frame f of d. */
static inline struct dag_frame *dag_frame(struct dag *d, int f)
{
	return &d->fr[f];
}

/* Work, span and frame count of a spec, by a sequential walk: 0, or -1
 * when out of memory. */
int dag_measure(const struct dag_spec *s, struct dag_size *out);

/* A short description of a spec for CSV files ("phases:w1=..."). */
void dag_describe(const struct dag_spec *s, char *buf, int len);

#endif
