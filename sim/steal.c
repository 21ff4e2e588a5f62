/*
 * steal.c - A-STEAL and ABP work stealing, one unit-time step at a time
 * (see steal.h).  The step loop skips ahead when every allotted processor is
 * in the middle of a work block and nobody steals: those steps can only
 * count down, so they are applied in one pass.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "steal.h"

/* Grow an int array to hold at least n items. */
static int grow_ints(int **a, int n)
{
	int *na = realloc(*a, (size_t)(n > 0 ? n : 1) * sizeof(int));

	if (na == NULL)
		return -1;
	*a = na;
	return 0;
}

/* Push frame f on top of deque d. */
static int dq_push(struct steal_deque *d, int f)
{
	if (d->hi == d->cap) {
		if (d->lo > 0) {
			memmove(d->items, d->items + d->lo,
				(size_t)(d->hi - d->lo) * sizeof(int));
			d->hi -= d->lo;
			d->lo = 0;
		} else {
			int ncap = d->cap ? 2 * d->cap : 8;

			if (grow_ints(&d->items, ncap) < 0)
				return -1;
			d->cap = ncap;
		}
	}
	d->items[d->hi++] = f;
	return 0;
}

/* Pop the top of deque d, or -1 when empty. */
static int dq_pop(struct steal_deque *d)
{
	if (d->hi == d->lo)
		return -1;
	int f = d->items[--d->hi];

	if (d->hi == d->lo)
		d->hi = d->lo = 0;
	return f;
}

/* Take the bottom of deque d, or -1 when empty. */
static int dq_take(struct steal_deque *d)
{
	if (d->hi == d->lo)
		return -1;
	int f = d->items[d->lo++];

	if (d->hi == d->lo)
		d->hi = d->lo = 0;
	return f;
}

/* A deque with no frames and nothing running. */
static int dq_empty(const struct steal_deque *d)
{
	return d->hi == d->lo && d->cur < 0;
}

/* A new empty deque in the victim set: its id, or -1. */
static int deque_new(struct steal_job *j)
{
	int id;

	if (j->free_dq >= 0) {
		id = j->free_dq;
		j->free_dq = j->dq[id].owner;
	} else {
		if ((j->ndq & (j->ndq - 1)) == 0 || j->ndq < 8) {
			int ncap = j->ndq < 8 ? 8 : 2 * j->ndq;
			struct steal_deque *nd = realloc(j->dq, (size_t)ncap * sizeof(*nd));

			if (nd == NULL)
				return -1;
			j->dq = nd;
			if (grow_ints(&j->live, ncap) < 0 || grow_ints(&j->mug, ncap) < 0)
				return -1;
		}
		id = j->ndq++;
		j->dq[id] = (struct steal_deque){ .items = NULL };
	}
	struct steal_deque *d = &j->dq[id];

	d->lo = d->hi = 0;
	d->cur = -1;
	d->owner = -1;
	d->mug_pos = -1;
	d->live_pos = j->nlive;
	j->live[j->nlive++] = id;
	return id;
}

/* Drop an empty deque from the victim and muggable sets. */
static void deque_free(struct steal_job *j, int id)
{
	struct steal_deque *d = &j->dq[id];
	int last;

	if (d->mug_pos >= 0) {
		last = j->mug[--j->nmug];
		j->mug[d->mug_pos] = last;
		j->dq[last].mug_pos = d->mug_pos;
		d->mug_pos = -1;
	}
	last = j->live[--j->nlive];
	j->live[d->live_pos] = last;
	j->dq[last].live_pos = d->live_pos;
	d->live_pos = -1;
	d->owner = j->free_dq;
	j->free_dq = id;
}

/* Set up a job (see steal.h). */
int steal_job_init(struct steal_job *j, enum steal_kind kind, int P,
		   const struct dag_spec *spec, uint64_t seed,
		   const struct est_params *est)
{
	*j = (struct steal_job){ .kind = kind, .P = P, .free_dq = -1,
				 .root = -1, .finish = -1, .est = *est };
	j->est.max = P;
	j->desire = est_initial();
	rng_seed(&j->rng, seed);
	if (grow_ints(&j->proc, P) < 0 || grow_ints(&j->slot, P) < 0)
		goto oom;
	int root = dag_start(&j->dag, spec);

	if (root < 0)
		goto oom;
	if (kind == STEAL_ABP) {
		if (grow_ints(&j->perm, P) < 0)
			goto oom;
		for (int i = 0; i < P; i++) {
			if (deque_new(j) < 0)
				goto oom;
			j->perm[i] = i;
		}
		if (dq_push(&j->dq[rng_below(&j->rng, (uint32_t)P)], root) < 0)
			goto oom;
	} else {
		j->root = root;
	}
	return 0;
oom:
	j->error = 1;
	return -1;
}

/* Free a job's memory. */
void steal_job_free(struct steal_job *j)
{
	for (int i = 0; i < j->ndq; i++)
		free(j->dq[i].items);
	free(j->dq);
	free(j->live);
	free(j->mug);
	free(j->proc);
	free(j->slot);
	free(j->perm);
	dag_finish(&j->dag);
	memset(j, 0, sizeof(*j));
}

/* The processors the job asks for next quantum. */
int steal_request(const struct steal_job *j)
{
	if (j->kind == STEAL_ABP)
		return j->P;
	return est_report(&j->est, j->desire);
}

/* A processor's deque becomes ownerless: its running frame goes on top. */
static int release_deque(struct steal_job *j, int id)
{
	struct steal_deque *d = &j->dq[id];

	d->owner = -1;
	/* ABP stuck and yieldto: the assigned node stays with its process,
	 * out of thieves' reach */
	if (d->cur >= 0 && (j->kind == STEAL_ASTEAL ||
			    j->abp_preempted == STEAL_ABP_STEALABLE)) {
		if (dq_push(d, d->cur) < 0)
			return -1;
		d->cur = -1;
	}
	if (j->kind == STEAL_ASTEAL) {
		if (dq_empty(d)) {
			deque_free(j, id);
		} else {
			d->mug_pos = j->nmug;
			j->mug[j->nmug++] = id;
		}
	}
	return 0;
}

/* Remove allotted processor i (A-STEAL), keeping the array dense. */
static int remove_proc(struct steal_job *j, int i)
{
	int id = j->proc[i];

	if (release_deque(j, id) < 0)
		return -1;
	j->nproc--;
	if (i != j->nproc) {
		j->proc[i] = j->proc[j->nproc];
		j->slot[i] = j->slot[j->nproc];
		j->dq[j->proc[i]].owner = i;
	}
	return 0;
}

static int advance(struct steal_job *j, int id);

/* Make the top of deque id its running frame, if it has none. */
static int resume(struct steal_job *j, int id)
{
	struct steal_deque *d = &j->dq[id];

	if (d->cur >= 0)
		return 0;
	d->cur = dq_pop(d);
	if (d->cur < 0)
		return 0;
	if (j->dag.fr[d->cur].rem > 0)
		return 0;
	return advance(j, id);
}

/* Add an allotted processor with a new empty deque (A-STEAL). */
static int add_proc(struct steal_job *j, int slot)
{
	int id = deque_new(j), i = j->nproc;

	if (id < 0)
		return -1;
	j->proc[i] = id;
	j->slot[i] = slot;
	j->dq[id].owner = i;
	j->nproc++;
	if (j->root >= 0) {     /* the job's first processor starts the root */
		j->dq[id].cur = j->root;
		j->root = -1;
		return advance(j, id);
	}
	return 0;
}

/* ABP: release every deque, then give the a processors random deques. */
static int abp_allot(struct steal_job *j, int a, const int *slots)
{
	for (int i = 0; i < j->nproc; i++)
		if (release_deque(j, j->proc[i]) < 0)
			return -1;
	j->nproc = 0;
	for (int i = 0; i < a; i++) {
		uint32_t k = (uint32_t)i + rng_below(&j->rng, (uint32_t)(j->P - i));
		int id = j->perm[k];

		j->perm[k] = j->perm[i];
		j->perm[i] = id;
		j->proc[i] = id;
		j->slot[i] = slots ? slots[i] : -1;
		j->dq[id].owner = i;
		j->nproc++;
		if (resume(j, id) < 0)
			return -1;
	}
	return 0;
}

/* Give the job `a` anonymous processors for the next quantum. */
int steal_allot(struct steal_job *j, int a)
{
	if (a < 0)
		a = 0;
	if (a > j->P)
		a = j->P;
	if (j->kind == STEAL_ABP)
		return abp_allot(j, a, NULL) < 0 ? (j->error = 1, -1) : 0;
	while (j->nproc > a)
		if (remove_proc(j, (int)rng_below(&j->rng, (uint32_t)j->nproc)) < 0)
			return j->error = 1, -1;
	while (j->nproc < a)
		if (add_proc(j, -1) < 0)
			return j->error = 1, -1;
	return 0;
}

/* Give the job exactly the processor slots listed. */
int steal_allot_slots(struct steal_job *j, const int *slots, int n)
{
	uint64_t want[(1024 + 63) / 64] = { 0 }, have[(1024 + 63) / 64] = { 0 };

	if (n > j->P || j->P > 1024)
		return j->error = 1, -1;
	if (j->kind == STEAL_ABP)
		return abp_allot(j, n, slots) < 0 ? (j->error = 1, -1) : 0;
	for (int k = 0; k < n; k++)
		want[slots[k] / 64] |= 1ULL << (slots[k] % 64);
	for (int i = 0; i < j->nproc;) {
		int s = j->slot[i];

		if (s >= 0 && (want[s / 64] >> (s % 64) & 1)) {
			have[s / 64] |= 1ULL << (s % 64);
			i++;
		} else if (remove_proc(j, i) < 0) {
			return j->error = 1, -1;
		}
	}
	for (int k = 0; k < n; k++) {
		int s = slots[k];

		if (!(have[s / 64] >> (s % 64) & 1) && add_proc(j, s) < 0)
			return j->error = 1, -1;
	}
	return 0;
}

/* Run deque id's frame through zero-time actions until it has a work block,
 * or the processor runs out of frames, or the job finishes. */
static int advance(struct steal_job *j, int id)
{
	struct dag *g = &j->dag;

	for (;;) {
		struct steal_deque *d = &j->dq[id];
		int f = d->cur, c = -1, parent;
		long w = 0;

		if (f < 0)
			return 0;
		switch (dag_step(g, f, &w, &c)) {
		case DAG_WORK:
			g->fr[f].rem = w;
			return 0;
		case DAG_SPAWN:
			if (c < 0)
				return -1;
			if (dq_push(d, f) < 0)
				return -1;
			d->cur = c;
			continue;
		case DAG_SYNC:
			if (g->fr[f].pending == 0)
				continue;
			g->fr[f].waiting = 1;
			d->cur = -1;
			break;
		case DAG_RETURN:
			parent = g->fr[f].parent;
			dag_free(g, f);
			if (parent < 0) {
				d->cur = -1;
				j->done = 1;
				return 0;
			}
			if (--g->fr[parent].pending == 0 && g->fr[parent].waiting) {
				g->fr[parent].waiting = 0;
				d->cur = parent;   /* the last child resumes its parent */
				continue;
			}
			d->cur = -1;
			break;
		}
		/* Out of work: the top of the own deque, if any. */
		d->cur = dq_pop(d);
		if (d->cur >= 0 && g->fr[d->cur].rem > 0)
			return 0;
	}
}

/* ABP yieldto: processor i, whose throw at preempted process v failed,
 * yields to v and runs v's assigned node from the next step on. */
static int yield_to(struct steal_job *j, int i, int v, struct steal_stats *st)
{
	struct steal_deque *vd = &j->dq[v];

	st->yields++;
	j->dq[j->proc[i]].owner = -1;
	j->proc[i] = v;
	vd->owner = i;
	if (j->dag.fr[vd->cur].rem > 0)
		return 0;
	return advance(j, v);
}

/* A processor without work: mug (A-STEAL, if any deque is muggable), else
 * one steal attempt at a random other deque. */
static int thief(struct steal_job *j, int i, struct steal_stats *st)
{
	int own = j->proc[i], v;

	if (j->nmug > 0) {
		int m = j->mug[rng_below(&j->rng, (uint32_t)j->nmug)];
		struct steal_deque *md = &j->dq[m];

		st->mug++;
		/* take over the whole deque; the own (empty) one goes away */
		int last = j->mug[--j->nmug];

		j->mug[md->mug_pos] = last;
		j->dq[last].mug_pos = md->mug_pos;
		md->mug_pos = -1;
		deque_free(j, own);
		j->proc[i] = m;
		j->dq[m].owner = i;
		return resume(j, m);
	}
	st->steal++;
	if (j->kind == STEAL_ABP) {
		if (j->P < 2)
			return 0;
		v = (int)rng_below(&j->rng, (uint32_t)(j->P - 1));
		if (v >= own)
			v++;
	} else {
		if (j->nlive < 2)
			return 0;
		int r = (int)rng_below(&j->rng, (uint32_t)(j->nlive - 1));

		v = j->live[r];
		if (v == own)
			v = j->live[j->nlive - 1];
	}
	struct steal_deque *vd = &j->dq[v];
	int f = dq_take(vd);

	if (f < 0) {
		if (j->kind == STEAL_ABP && j->abp_preempted == STEAL_ABP_YIELDTO &&
		    vd->owner < 0 && vd->cur >= 0)
			return yield_to(j, i, v, st);
		return 0;
	}
	if (j->kind == STEAL_ASTEAL && vd->owner < 0 && dq_empty(vd))
		deque_free(j, v);
	j->dq[own].cur = f;
	if (j->dag.fr[f].rem > 0)
		return 0;
	return advance(j, own);
}

/* Run up to `steps` steps on the current allotment (see steal.h). */
int steal_run(struct steal_job *j, long steps, struct steal_stats *out)
{
	struct steal_stats st = { 0 };
	struct dag_frame *fr;
	long t = 0;

	if (j->nproc == 0 && !j->done)
		t = steps;           /* no processor: the steps pass */
	while (t < steps && !j->done && !j->error) {
		int n = j->nproc, idle = 0, off = n ? (int)((j->clock + t) % n) : 0;
		long minrem = LONG_MAX;

		for (int k = 0; k < n; k++) {
			int i = k + off < n ? k + off : k + off - n;
			struct steal_deque *d = &j->dq[j->proc[i]];
			int rc = 0;

			fr = j->dag.fr;
			if (d->cur >= 0) {
				struct dag_frame *f = &fr[d->cur];

				st.work++;
				if (--f->rem > 0) {
					if (f->rem < minrem)
						minrem = f->rem;
					continue;
				}
				rc = advance(j, j->proc[i]);
				if (j->done) {
					j->finish = j->clock + t + 1;
					break;
				}
			} else {
				rc = thief(j, i, &st);
			}
			if (rc < 0) {
				j->error = 1;
				break;
			}
			d = &j->dq[j->proc[i]];
			if (d->cur < 0)
				idle++;
			else if (j->dag.fr[d->cur].rem < minrem)
				minrem = j->dag.fr[d->cur].rem;
		}
		t++;
		if (j->done || j->error || idle || n == 0 || minrem <= 1)
			continue;
		/* Everyone is inside a work block: count the blocks down. */
		long skip = minrem - 1;

		if (skip > steps - t)
			skip = steps - t;
		if (skip <= 0)
			continue;
		fr = j->dag.fr;
		for (int i = 0; i < n; i++)
			fr[j->dq[j->proc[i]].cur].rem -= skip;
		st.work += (long long)skip * n;
		t += skip;
	}
	st.steps = t;
	j->clock += t;
	j->total.work += st.work;
	j->total.steal += st.steal;
	j->total.mug += st.mug;
	j->total.yields += st.yields;
	j->total.steps += st.steps;
	if (out)
		*out = st;
	return j->error ? -1 : 0;
}

/* Close a quantum (see steal.h). */
enum est_class steal_feedback(struct steal_job *j, const struct steal_stats *q,
			      int a, long L)
{
	enum est_class cls = EST_EFFICIENT_DEPRIVED;

	if (j->kind == STEAL_ASTEAL) {
		struct est_quantum eq = {
			.desire = j->desire, .allotment = a,
			.nonsteal = (double)(q->work + q->mug),
			.allotted = (double)L * a,
		};

		j->desire = est_next(&j->est, &eq, &cls);
	}
	return cls;
}

/* A short name for a kind. */
const char *steal_kind_name(enum steal_kind k)
{
	return k == STEAL_ABP ? "abp" : "asteal";
}

static const char *const abp_names[] = { "stealable", "stuck", "yieldto" };

/* The name of an ABP variant. */
const char *steal_abp_name(enum steal_abp a)
{
	return (unsigned)a < 3 ? abp_names[a] : "?";
}

/* Parse an ABP variant's name. */
int steal_abp_parse(const char *s, enum steal_abp *a)
{
	for (int k = 0; k < 3; k++)
		if (strcmp(s, abp_names[k]) == 0) {
			*a = (enum steal_abp)k;
			return 0;
		}
	return -1;
}
