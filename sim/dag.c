/*
 * dag.c - fork/join dags that unfold as they run: the paper's phases job
 * (Fig. 2) and random fork/join trees, as small frame programs stepped by
 * the thread scheduler, plus a sequential walk that measures T1 and T_inf.
 * See dag.h for the model.
 */
#include <stdio.h>
#include <stdlib.h>

#include "dag.h"
#include "rng.h"

enum { FR_PHASES_ROOT, FR_PHASES_PAR, FR_FORKJOIN };

#define DAG_MAX_DEPTH 40

/* Check a spec: 0, or -1 with the reason in *why. */
int dag_spec_check(const struct dag_spec *s, const char **why)
{
	if (s->kind == DAG_PHASES) {
		if (s->w1 < 0 || s->w1 > 100000000L) {
			*why = "w1 must be in [0, 1e8]";
			return -1;
		}
		if (s->w2 < 1 || s->w2 > 100000000L) {
			*why = "w2 must be in [1, 1e8]";
			return -1;
		}
		if (s->h < 1 || s->h > 1000000L) {
			*why = "h must be in [1, 1e6]";
			return -1;
		}
		if (s->iters < 1 || s->iters > 1000000L) {
			*why = "iters must be in [1, 1e6]";
			return -1;
		}
		return 0;
	}
	if (s->fj_depth < 0 || s->fj_depth > DAG_MAX_DEPTH) {
		*why = "fork/join depth must be in [0, 40]";
		return -1;
	}
	if (s->fj_branch < 1 || s->fj_branch > 64) {
		*why = "fork/join branch must be in [1, 64]";
		return -1;
	}
	if (s->fj_work < 1 || s->fj_work > 100000000L) {
		*why = "fork/join work must be in [1, 1e8]";
		return -1;
	}
	if (!(s->fj_spawn >= 0.0 && s->fj_spawn <= 1.0)) {
		*why = "fork/join spawn probability must be in [0, 1]";
		return -1;
	}
	return 0;
}

/* Fill s with a phases job. */
void dag_spec_phases(struct dag_spec *s, long w1, long w2, long h, long iters,
		     int loop)
{
	*s = (struct dag_spec){ .kind = DAG_PHASES, .w1 = w1, .w2 = w2,
				.h = h, .iters = iters, .loop = loop };
}

/* Fill s with a random fork/join job. */
void dag_spec_forkjoin(struct dag_spec *s, int depth, int branch, long work,
		       double spawn, uint64_t seed)
{
	*s = (struct dag_spec){ .kind = DAG_FORKJOIN, .fj_depth = depth,
				.fj_branch = branch, .fj_work = work,
				.fj_spawn = spawn, .seed = seed };
}

/* Take a frame from the pool (growing it), or -1. */
static int frame_alloc(struct dag *d)
{
	if (d->free_head < 0) {
		int ncap = d->cap ? 2 * d->cap : 64;
		struct dag_frame *nf;

		if (ncap > (1 << 28)) {
			d->oom = 1;
			return -1;
		}
		nf = realloc(d->fr, (size_t)ncap * sizeof(*nf));
		if (nf == NULL) {
			d->oom = 1;
			return -1;
		}
		d->fr = nf;
		for (int i = ncap - 1; i >= d->cap; i--) {
			d->fr[i].parent = d->free_head;
			d->free_head = i;
		}
		d->cap = ncap;
	}
	int f = d->free_head;

	d->free_head = d->fr[f].parent;
	d->live++;
	d->fr[f] = (struct dag_frame){ .parent = -1 };
	return f;
}

/* Return a finished frame to the pool. */
void dag_free(struct dag *d, int f)
{
	d->fr[f].parent = d->free_head;
	d->free_head = f;
	d->live--;
}

/* Start running a job: returns the root frame's id, or -1. */
int dag_start(struct dag *d, const struct dag_spec *s)
{
	*d = (struct dag){ .spec = *s, .free_head = -1 };
	int f = frame_alloc(d);

	if (f < 0)
		return -1;
	struct dag_frame *fr = &d->fr[f];

	if (s->kind == DAG_PHASES) {
		fr->kind = FR_PHASES_ROOT;
	} else {
		fr->kind = FR_FORKJOIN;
		fr->rs = s->seed;
	}
	return f;
}

/* Release a job's frames. */
void dag_finish(struct dag *d)
{
	free(d->fr);
	d->fr = NULL;
	d->cap = 0;
	d->live = 0;
	d->free_head = -1;
}

/* A uniform integer in [1, n] from a frame's own stream. */
static long fr_rand(struct dag_frame *fr, long n)
{
	return 1 + (long)(rng_mix(&fr->rs) % (uint64_t)n);
}

/* The phases programs (root and parallel-loop frames). */
static enum dag_act step_phases(struct dag *d, int f, long *work, int *child)
{
	const struct dag_spec *s = &d->spec;
	struct dag_frame *fr = &d->fr[f];

	for (;;) {
		switch (fr->pc) {
		case 0: /* iteration start (root only) */
			if (fr->iter == s->iters)
				return DAG_RETURN;
			fr->pc = 1;
			if (s->w1 > 0) {
				*work = s->w1;
				return DAG_WORK;
			}
			break;
		case 1: /* the parallel phase covers branches [0, h) */
			fr->lo = 0;
			fr->hi = s->h;
			fr->pc = 2;
			break;
		case 2: /* split while more than one branch is left */
			if (fr->hi - fr->lo > 1) {
				fr->pc = 3;
				*work = 1;
			} else {
				fr->pc = 4;
				*work = s->w2;
			}
			return DAG_WORK;
		case 3: { /* spawn the lower half (or one branch), keep the rest */
			long lo = fr->lo, mid = fr->lo + (fr->hi - fr->lo) / 2;
			int c;

			if (s->loop && fr->kind == FR_PHASES_ROOT)
				mid = lo + 1;

			fr->lo = mid;
			fr->pc = 2;
			c = frame_alloc(d);
			fr = &d->fr[f];
			if (c >= 0) {
				struct dag_frame *cf = &d->fr[c];

				cf->kind = FR_PHASES_PAR;
				cf->pc = 2;
				cf->lo = lo;
				cf->hi = mid;
				cf->parent = f;
				fr->pending++;
			}
			*child = c;
			return DAG_SPAWN;
		}
		case 4:
			fr->pc = 5;
			return DAG_SYNC;
		default: /* 5: after the sync */
			if (fr->kind == FR_PHASES_PAR)
				return DAG_RETURN;
			fr->iter++;
			fr->pc = 0;
			break;
		}
	}
}

/* The random fork/join program. */
static enum dag_act step_forkjoin(struct dag *d, int f, long *work, int *child)
{
	const struct dag_spec *s = &d->spec;
	struct dag_frame *fr = &d->fr[f];

	for (;;) {
		switch (fr->pc) {
		case 0:
			fr->segs = (int)fr_rand(fr, s->fj_branch);
			fr->pc = 1;
			break;
		case 1:
			if (fr->segs == 0) {
				fr->pc = 3;
				break;
			}
			fr->pc = 2;
			*work = fr_rand(fr, s->fj_work);
			return DAG_WORK;
		case 2: {
			fr->segs--;
			fr->pc = 1;
			uint64_t u = rng_mix(&fr->rs);
			double p = (double)(u >> 11) * (1.0 / 9007199254740992.0);

			if (fr->depth >= s->fj_depth || p >= s->fj_spawn)
				break;
			uint64_t cseed = rng_mix(&fr->rs);
			int depth = fr->depth + 1;
			int c = frame_alloc(d);

			fr = &d->fr[f];
			if (c >= 0) {
				struct dag_frame *cf = &d->fr[c];

				cf->kind = FR_FORKJOIN;
				cf->depth = depth;
				cf->rs = cseed;
				cf->parent = f;
				fr->pending++;
			}
			*child = c;
			return DAG_SPAWN;
		}
		case 3:
			fr->pc = 4;
			return DAG_SYNC;
		case 4:
			fr->pc = 5;
			*work = fr_rand(fr, s->fj_work);
			return DAG_WORK;
		default:
			return DAG_RETURN;
		}
	}
}

/* What frame f does next (see dag.h). */
enum dag_act dag_step(struct dag *d, int f, long *work, int *child)
{
	if (d->fr[f].kind == FR_FORKJOIN)
		return step_forkjoin(d, f, work, child);
	return step_phases(d, f, work, child);
}

/* Walk frame f sequentially: its work and its span from its start. */
static int measure_frame(struct dag *d, int f, struct dag_size *sz,
			 double *span)
{
	double t = 0, maxend = 0;

	sz->frames += 1;
	for (;;) {
		long w = 0;
		int c = -1;

		switch (dag_step(d, f, &w, &c)) {
		case DAG_WORK:
			t += (double)w;
			sz->work += (double)w;
			break;
		case DAG_SPAWN: {
			double cs;

			if (c < 0)
				return -1;
			if (measure_frame(d, c, sz, &cs) < 0)
				return -1;
			if (t + cs > maxend)
				maxend = t + cs;
			break;
		}
		case DAG_SYNC:
			if (maxend > t)
				t = maxend;
			d->fr[f].pending = 0;
			break;
		case DAG_RETURN:
			if (maxend > t)
				t = maxend;
			dag_free(d, f);
			*span = t;
			return 0;
		}
	}
}

/* Work, span and frame count of a spec, by a sequential walk. */
int dag_measure(const struct dag_spec *s, struct dag_size *out)
{
	struct dag d;
	int root = dag_start(&d, s);
	double span = 0;
	int rc;

	*out = (struct dag_size){ 0 };
	if (root < 0) {
		dag_finish(&d);
		return -1;
	}
	rc = measure_frame(&d, root, out, &span);
	out->span = span;
	dag_finish(&d);
	return rc;
}

/* A short description of a spec for CSV files. */
void dag_describe(const struct dag_spec *s, char *buf, int len)
{
	if (s->kind == DAG_PHASES)
		snprintf(buf, (size_t)len, "phases:w1=%ld:w2=%ld:h=%ld:iters=%ld%s",
			 s->w1, s->w2, s->h, s->iters, s->loop ? ":loop" : "");
	else
		snprintf(buf, (size_t)len,
			 "forkjoin:depth=%d:branch=%d:work=%ld:spawn=%.3g:seed=%llu",
			 s->fj_depth, s->fj_branch, s->fj_work, s->fj_spawn,
			 (unsigned long long)s->seed);
}
