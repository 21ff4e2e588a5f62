/*
 * deq.c - dynamic equipartitioning (DEQ) as a pure function: allot P
 * processor slots among jobs by water-filling, hand out the whole-processor
 * leftovers by turns, and keep every job's slots where it can
 * (../shared/DESIGN.md, "DEQ, exactly").
 *
 * Counts.  With c_j = min(desire_j, P), the water level L is the largest
 * integer with S(L) = sum_j min(c_j, L) <= P.  A job with c_j <= L is
 * satisfied and gets c_j; every other job is deprived and gets L, and the
 * r = P - S(L) leftover processors (r < number of deprived jobs) go one
 * each to r deprived jobs, which then get L + 1 <= c_j.  Thus the sum is
 * min(P, sum_j c_j) and no job gets more than it asked for.
 *
 * Turns.  The deprived jobs form a queue for the leftovers, and `credit`
 * is a job's place in it counted from the back: after a quantum with m
 * deprived jobs, the one at the front has credit m and the one at the back
 * credit 1; a satisfied job has credit 0.  Each quantum the leftovers go to
 * the deprived jobs with the largest credit (ties, which only arise among
 * jobs that were not deprived last quantum, or from a caller that does not
 * feed credit back, are broken in index order starting at index q mod n,
 * so that they rotate).  The queue is then rebuilt: the jobs that got a
 * leftover move to the back, in the order they got it, behind those that
 * did not.  A new job (credit 0) or one that was satisfied enters behind
 * every waiting job: it cannot jump the queue, and nobody can overtake it
 * once it waits, so it cannot starve either (every quantum with leftovers
 * serves the front).  Among jobs that stay deprived this is a round robin
 * in a fixed order, so over any window of quanta their total allotments
 * differ by at most one processor-quantum.  Negative credits count as 0,
 * credits above 2^31 - 1 as 2^31 - 1.
 *
 * Availability is exact: what the job would be allotted by this same call
 * with its desire raised to P (same credits, same q).  For a deprived job
 * that is its allotment (raising its desire changes nothing); for a
 * satisfied job it is the level L' <= L it would then face, plus one if it
 * would be among the first r' deprived jobs in turn order at that level.
 * So allotment = min(desire, availability) for every job.
 *
 * Users first (deq_allot_users).  Each job names its user.  A user's
 * desire D_u is min(P, sum of c_j over its jobs), and the users are
 * water-filled among the P processors exactly as jobs are above, with
 * credits of their own: user u is allotted a_u = min(D_u, A_u), A_u being
 * its exact availability among users, and the a_u sum to
 * min(P, sum_u D_u) = min(P, sum_j c_j).  Then each user's jobs are
 * water-filled, by the same rules and with the jobs' own credits, among
 * A_u processors, not a_u, with desires capped at min(P, A_u + 1) (which
 * changes no result: a job asking more than A_u is deprived at every
 * level up to A_u either way, and the cap keeps a pass's cost to its jobs
 * and A_u; a user with A_u = 0 leaves its jobs deprived at level 0, so
 * they keep their places in its queue).  A_u gives the same allotments
 * as a_u: if u is deprived, a_u = A_u; if it is satisfied, D_u <= A_u,
 * and D_u < P or A_u = P, so D_u = sum c_j and every job of u is
 * satisfied among A_u processors as among a_u, with the same allotments
 * (c_j) and credits (0).  So u's jobs get a_u in all, none more than it
 * asked, and the sum over all jobs is min(P, sum_j c_j).  And A_u keeps
 * availability exact: raising job j's desire to P raises D_u to P and
 * leaves every other input of the users' pass as it was, so u then gets
 * exactly A_u; among A_u processors, with j asking for P, j gets what the
 * pass among A_u computes as j's availability.  Hence allotment =
 * min(desire, availability) for every job here too.  Fairness: the users
 * take turns for leftovers as jobs do above, so users whose demand stays
 * unmet are within one processor-quantum of each other over any window,
 * however many jobs each runs; within a user, its deprived jobs take the
 * user's share in a round robin the same way, their order kept through
 * quanta in which the user gets nothing.
 *
 * Slots.  Input slots claimed by two jobs stay with the lower-indexed job
 * (the later claims are dropped).  A job whose allotment does not grow
 * keeps its lowest-numbered old slots; one that grows keeps them all and
 * takes free slots, lowest first, in index order.
 *
 * Changes.  Each job's `changed` says whether its allotment, availability
 * or slots differ from what came in, and deq_allot_changes() lists those
 * jobs as it goes, so that the daemon's cost beyond this pass grows with
 * the changes, not with the jobs.  A job whose old slots are all its own
 * changed slots when it kept fewer than it had or took free ones (which
 * cannot be its old ones, as it kept those); a job that lost an old slot
 * to a lower-indexed claim may take it back from the free ones, so its
 * old set is saved and compared (only inputs with such claims cost
 * this).
 *
 * Cost: O(n log n + P + 16 n) time; about 33 KiB of stack, and no
 * allocation unless n > DEQ_STACK_JOBS.  Users first adds
 * O(U log U + sum_u A_u) for U users, about 18 KiB more stack, and
 * allocates only beyond DEQ_STACK_JOBS jobs or DEQ_STACK_USERS users.
 *
 * Every pass above (all jobs, the users, one user's jobs) is the same
 * code: share() on a struct deq_pass, which names the jobs taking part
 * (an index list into jobs[], or all of them), the processors they share
 * and the cap on their desires; the users' pass runs on a scratch array
 * of jobs standing for the users.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "deq.h"
#include "search.h"

#define DEQ_WORDS (DEQ_MAX_PROCS / 64)
#define DEQ_CREDIT_MAX ((int64_t)0x7fffffff)
#define DEQ_STACK_JOBS 2048
#define DEQ_STACK_USERS 64

/* The per-call scratch space that depends only on P, and the list of
 * changed jobs being made (NULL when nobody asked). */
struct deq_work {
	int32_t owner[DEQ_MAX_PROCS];          /* slot -> claiming job, -1 */
	int64_t sum[DEQ_MAX_PROCS + 1];        /* S(l) for l = 0..L */
	int32_t tree[DEQ_MAX_PROCS + 2];       /* histogram, then Fenwick */
	int *changed;
	int nchanged;
};

/* One water-filling pass: jobs[idx[k]] for k < n (jobs[k] when idx is
 * NULL) share procs processors, their desires capped at cap (P, or less
 * within a user's share: see the top of file). */
struct deq_pass {
	struct deq_job *jobs;
	const int32_t *idx;
	int n, procs, cap;
};

/* Job i changed: mark it, and list it the first time. */
static void mark_changed(struct deq_work *wk, struct deq_job *j, int i)
{
	if (j->changed)
		return;
	j->changed = 1;
	if (wk->changed != NULL)
		wk->changed[wk->nchanged++] = i;
}

/* The bits of word w that are slots below P. */
static uint64_t word_mask(int w, int P)
{
	int lo = w * 64;

	if (P >= lo + 64)
		return ~(uint64_t)0;
	if (P <= lo)
		return 0;
	return ((uint64_t)1 << (P - lo)) - 1;
}

/* A job's desire capped. */
static int capped(const struct deq_job *j, int cap)
{
	return j->desire < cap ? j->desire : cap;
}

/* The k-th job of a pass, its index in jobs[] in *i. */
static struct deq_job *pass_job(const struct deq_pass *p, int k, int *i)
{
	*i = p->idx != NULL ? p->idx[k] : k;
	return &p->jobs[*i];
}

/* A credit brought into the range the turn order uses. */
static int64_t clamp_credit(int64_t c)
{
	if (c < 0)
		return 0;
	return c > DEQ_CREDIT_MAX ? DEQ_CREDIT_MAX : c;
}

/* The words of a set that can hold slots below P. */
static int words(int P)
{
	return (P + 63) / 64;
}

/* The slots of s in its first nw words. */
static int count_in(const struct deq_set *s, int nw)
{
	int total = 0;

	for (int w = 0; w < nw; w++)
		if (s->w[w] != 0)
			total += __builtin_popcountll(s->w[w]);
	return total;
}

/* Whether the arguments are acceptable (nothing is modified). */
static int args_ok(int P, const struct deq_job *jobs, int n)
{
	if (P < 1 || P > DEQ_MAX_PROCS || n < 0 || (n > 0 && jobs == NULL))
		return 0;
	for (int i = 0; i < n; i++) {
		if (jobs[i].desire < 0)
			return 0;
		for (int w = 0; w < DEQ_WORDS; w++)
			if (jobs[i].cpus.w[w] & ~word_mask(w, P))
				return 0;
	}
	return 1;
}

/* Record which job holds each slot; the first claim wins. */
static void claim_slots(int P, const struct deq_job *jobs, int n,
			int32_t *owner)
{
	for (int s = 0; s < P; s++)
		owner[s] = -1;
	for (int i = 0; i < n; i++) {
		for (int w = 0; w < words(P); w++) {
			uint64_t bits = jobs[i].cpus.w[w];

			while (bits != 0) {
				int s = w * 64 + __builtin_ctzll(bits);

				if (owner[s] < 0)
					owner[s] = i;
				bits &= bits - 1;
			}
		}
	}
}

/* The pass's water level L; fills sum[0..L] with S(l), using tree as
 * histogram, and *deprived with the number of jobs whose capped desire
 * exceeds L. */
static int water_level(const struct deq_pass *p, struct deq_work *wk,
		       int *deprived)
{
	int32_t *hist = wk->tree;
	int64_t above;
	int l = 0, i;

	memset(hist, 0, (size_t)(p->cap + 1) * sizeof(*hist));
	for (int k = 0; k < p->n; k++)
		hist[capped(pass_job(p, k, &i), p->cap)]++;
	wk->sum[0] = 0;
	above = p->n - hist[0];                /* jobs with c > l */
	while (l < p->procs && wk->sum[l] + above <= p->procs) {
		wk->sum[l + 1] = wk->sum[l] + above;
		l++;
		above -= hist[l];
	}
	*deprived = (int)above;
	return l;
}

/* The level a satisfied job of capped desire c would face with desire P:
 * the largest l in [c, L] with S(l) + l <= P + c. */
static int counterfactual_level(const int64_t *sum, int L, int c, int P)
{
	int lo = c, hi = L;

	while (lo < hi) {
		int mid = lo + (hi - lo + 1) / 2;

		if (sum[mid] + mid <= (int64_t)P + c)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* Count one more job of capped desire v in the Fenwick tree (size P+1). */
static void tree_add(int32_t *tree, int P, int v)
{
	for (int i = v + 1; i <= P + 1; i += i & -i)
		tree[i]++;
}

/* How many counted jobs have capped desire <= v. */
static int tree_upto(const int32_t *tree, int v)
{
	int total = 0;

	for (int i = v + 1; i > 0; i -= i & -i)
		total += tree[i];
	return total;
}

/* Compare two sort keys. */
static int key_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Fill keys with the pass's turn order: larger credit first, then pass
 * order from q mod n; the low 32 bits are the rotated place in the pass. */
static void turn_order(const struct deq_pass *p, int qm, uint64_t *keys)
{
	int n = p->n, i;

	for (int k = 0; k < n; k++) {
		uint64_t rot = (uint64_t)(k >= qm ? k - qm : k - qm + n);
		uint64_t behind = (uint64_t)(DEQ_CREDIT_MAX -
					     clamp_credit(pass_job(p, k, &i)->credit));

		keys[k] = behind << 32 | rot;
	}
	qsort(keys, (size_t)n, sizeof(*keys), key_cmp);
}

/* Set every job's allotment, availability and credit, walking jobs in turn
 * order: leftovers to the first r of the m deprived ones, which then move
 * to the back of the queue. */
static void allot_counts(const struct deq_pass *p, int qm, int L, int m,
			 const uint64_t *keys, struct deq_work *wk)
{
	int P = p->procs;
	int64_t r = P - wk->sum[L];
	int64_t k = 0;                         /* deprived jobs seen */
	int counted = 0;

	memset(wk->tree, 0, (size_t)(p->cap + 2) * sizeof(wk->tree[0]));
	for (int t = 0; t < p->n; t++) {
		int at = (int)(keys[t] & 0xffffffffu) + qm, i;
		struct deq_job *j;
		int c, old_allot, old_avail;

		if (at >= p->n)
			at -= p->n;
		j = pass_job(p, at, &i);
		c = capped(j, p->cap);
		old_allot = j->allotment;
		old_avail = j->availability;
		j->changed = 0;
		if (c > L) {
			/* queue position afterwards, 0 = front */
			int64_t pos = k < r ? m - r + k : k - r;

			j->allotment = k < r ? L + 1 : L;
			j->availability = j->allotment;
			j->credit = m - pos;
			k++;
		} else {
			int l2 = counterfactual_level(wk->sum, L, c, P);

			j->allotment = c;
			j->credit = 0;
			if (l2 >= P) {
				j->availability = P;
			} else {
				/* deprived at l2 with r2 leftovers: is it
				 * among the first r2 in turn order? */
				int64_t r2 = (int64_t)P + c - wk->sum[l2] - l2;
				int ahead = counted - tree_upto(wk->tree, l2);

				j->availability = l2 + (ahead < r2 ? 1 : 0);
			}
		}
		if (j->allotment != old_allot || j->availability != old_avail)
			mark_changed(wk, j, i);
		tree_add(wk->tree, p->cap, c);
		counted++;
	}
}

/* Water-fill one pass: every job's allotment, availability and credit. */
static void share(const struct deq_pass *p, uint64_t q, uint64_t *keys,
		  struct deq_work *wk)
{
	int L, m, qm;

	if (p->n == 0)
		return;
	qm = (int)(q % (uint64_t)p->n);
	L = water_level(p, wk, &m);
	turn_order(p, qm, keys);
	allot_counts(p, qm, L, m, keys, wk);
}

/* The old slots of jobs that lost one to another job's claim. */
struct deq_saved {
	int job;
	struct deq_set old;
};

/* Whether saved[k] sorts before the job index at key. */
static int saved_below(const void *arr, size_t k, const void *key)
{
	return ((const struct deq_saved *)arr)[k].job < *(const int *)key;
}

/* Whether job i's old slots were saved (saved[] is in job order). */
static int is_saved(const struct deq_saved *saved, size_t n, int i)
{
	size_t at = search_first(saved, n, &i, saved_below);

	return at < n && saved[at].job == i;
}

/* The next free slot from a cursor over the complement of taken. */
static int next_free(const struct deq_set *taken, int P, int *w,
		     uint64_t *bits)
{
	int s;

	while (*bits == 0) {
		if (++*w >= words(P))
			return -1;
		*bits = ~taken->w[*w] & word_mask(*w, P);
	}
	s = *w * 64 + __builtin_ctzll(*bits);
	*bits &= *bits - 1;
	return s;
}

/* Give each job allotment slots: its own old ones first, then free ones. */
static void place_slots(int P, struct deq_job *jobs, int n,
			const int32_t *owner, struct deq_work *wk)
{
	struct deq_set taken;
	struct deq_saved *saved = NULL;
	size_t nsaved = 0, capsaved = 0;
	uint64_t bits;
	int w = 0;

	deq_set_clear(&taken);
	for (int i = 0; i < n; i++) {
		struct deq_set old = jobs[i].cpus;
		int keep = jobs[i].allotment, had = count_in(&old, words(P));
		int claimed = 0;

		deq_set_clear(&jobs[i].cpus);
		for (int v = 0; v < words(P) && keep > 0; v++) {
			uint64_t b = old.w[v];

			while (b != 0 && keep > 0) {
				int s = v * 64 + __builtin_ctzll(b);

				if (owner[s] == i) {
					deq_set_add(&jobs[i].cpus, s);
					deq_set_add(&taken, s);
					keep--;
				} else {
					claimed = 1;
				}
				b &= b - 1;
			}
		}
		if (claimed && wk->changed != NULL) {
			if (nsaved == capsaved) {
				size_t c = capsaved ? 2 * capsaved : 8;
				struct deq_saved *m = realloc(saved, c * sizeof(*m));

				if (m == NULL) {        /* say changed: safe */
					mark_changed(wk, &jobs[i], i);
					continue;
				}
				saved = m;
				capsaved = c;
			}
			saved[nsaved].job = i;
			saved[nsaved++].old = old;
		} else if (jobs[i].allotment - keep != had) {
			mark_changed(wk, &jobs[i], i);  /* lost old slots */
		}
	}
	bits = ~taken.w[0] & word_mask(0, P);
	for (int i = 0; i < n; i++) {
		int need = jobs[i].allotment - count_in(&jobs[i].cpus, words(P));

		if (need > 0 && (nsaved == 0 || !is_saved(saved, nsaved, i)))
			mark_changed(wk, &jobs[i], i);  /* takes new slots */
		while (need-- > 0) {
			int s = next_free(&taken, P, &w, &bits);

			if (s < 0)
				break;         /* cannot happen: sum <= P */
			deq_set_add(&jobs[i].cpus, s);
		}
	}
	for (size_t k = 0; k < nsaved; k++)
		if (memcmp(&saved[k].old, &jobs[saved[k].job].cpus,
			   sizeof(saved[k].old)) != 0)
			mark_changed(wk, &jobs[saved[k].job], saved[k].job);
	free(saved);
}

/* Allot P processors among n jobs for quantum q (see the top of file). */
int deq_allot(int P, struct deq_job *jobs, int n, uint64_t q)
{
	return deq_allot_changes(P, jobs, n, q, NULL, NULL);
}

/* deq_allot, listing the jobs whose results changed. */
int deq_allot_changes(int P, struct deq_job *jobs, int n, uint64_t q,
		      int *changed, int *nchanged)
{
	uint64_t stack_keys[DEQ_STACK_JOBS];
	struct deq_work wk;
	struct deq_pass all = { jobs, NULL, n, P, P };
	uint64_t *keys = stack_keys;

	if (nchanged != NULL)
		*nchanged = 0;
	if (!args_ok(P, jobs, n)) {
		errno = EINVAL;
		return -1;
	}
	if (n == 0)
		return 0;
	wk.changed = nchanged != NULL ? changed : NULL;
	wk.nchanged = 0;
	if (n > DEQ_STACK_JOBS) {
		keys = malloc((size_t)n * sizeof(*keys));
		if (keys == NULL) {
			errno = ENOMEM;
			return -1;
		}
	}
	claim_slots(P, jobs, n, wk.owner);
	share(&all, q, keys, &wk);
	place_slots(P, jobs, n, wk.owner, &wk);
	if (keys != stack_keys)
		free(keys);
	if (nchanged != NULL)
		*nchanged = wk.nchanged;
	return 0;
}

/* Whether the users and the jobs' users are acceptable. */
static int users_ok(const struct deq_job *jobs, int n,
		    const struct deq_user *users, int nusers)
{
	if (nusers < 0 || (nusers > 0 && users == NULL))
		return 0;
	for (int i = 0; i < n; i++)
		if (jobs[i].user < 0 || jobs[i].user >= nusers)
			return 0;
	return 1;
}

/* deq_allot_users' scratch space: on the stack up to DEQ_STACK_JOBS jobs
 * and DEQ_STACK_USERS users, else on the heap (heap != NULL). */
struct deq_scratch {
	uint64_t *keys;            /* turn order, max(n, nusers) */
	int32_t *order;            /* job indices grouped by user, n */
	int32_t *start;            /* user u's jobs: order[start[u]..start[u+1]) */
	struct deq_job *ujobs;     /* the users as the jobs of the first pass */
	void *heap;
};

/* Point sc at the stack arrays, or at one allocation when they are too
 * small: 0, or -1 (ENOMEM). */
static int scratch_get(struct deq_scratch *sc, int n, int nusers)
{
	size_t nk = (size_t)(n > nusers ? n : nusers), nu = (size_t)nusers;
	char *m;

	sc->heap = NULL;
	if (n <= DEQ_STACK_JOBS && nusers <= DEQ_STACK_USERS)
		return 0;
	m = malloc(nu * sizeof(*sc->ujobs) + nk * sizeof(*sc->keys) +
		   ((size_t)n + nu + 1) * sizeof(*sc->order));
	if (m == NULL) {
		errno = ENOMEM;
		return -1;
	}
	sc->heap = m;
	sc->ujobs = (struct deq_job *)(void *)m;
	sc->keys = (uint64_t *)(void *)(m + nu * sizeof(*sc->ujobs));
	sc->order = (int32_t *)(void *)(sc->keys + nk);
	sc->start = sc->order + n;
	return 0;
}

/* The users' desires into ujobs[] (credits from users[]), and the jobs
 * grouped by user in index order into order[] and start[]. */
static void group_users(int P, const struct deq_job *jobs, int n,
			const struct deq_user *users, int nusers,
			struct deq_scratch *sc)
{
	for (int u = 0; u < nusers; u++) {
		memset(&sc->ujobs[u], 0, sizeof(sc->ujobs[u]));
		sc->ujobs[u].credit = users[u].credit;
		sc->start[u + 1] = 0;
	}
	sc->start[0] = 0;
	for (int i = 0; i < n; i++) {
		struct deq_job *uj = &sc->ujobs[jobs[i].user];
		int c = capped(&jobs[i], P);

		uj->desire = c < P - uj->desire ? uj->desire + c : P;
		sc->start[jobs[i].user + 1]++;
	}
	for (int u = 0; u < nusers; u++)
		sc->start[u + 1] += sc->start[u];
	for (int i = 0; i < n; i++)
		sc->order[sc->start[jobs[i].user]++] = i;
	for (int u = nusers; u > 0; u--)       /* back to the starts */
		sc->start[u] = sc->start[u - 1];
	sc->start[0] = 0;
}

/* DEQ among the users, then among each user's jobs (see the top of file). */
int deq_allot_users(int P, struct deq_job *jobs, int n, struct deq_user *users,
		    int nusers, uint64_t q, int *changed, int *nchanged)
{
	uint64_t stack_keys[DEQ_STACK_JOBS];
	int32_t stack_order[DEQ_STACK_JOBS], stack_start[DEQ_STACK_USERS + 1];
	struct deq_job stack_ujobs[DEQ_STACK_USERS];
	struct deq_scratch sc = { stack_keys, stack_order, stack_start,
				  stack_ujobs, NULL };
	struct deq_pass among = { NULL, NULL, nusers, P, P };
	struct deq_work wk;

	if (nchanged != NULL)
		*nchanged = 0;
	if (!args_ok(P, jobs, n) || !users_ok(jobs, n, users, nusers)) {
		errno = EINVAL;
		return -1;
	}
	if (scratch_get(&sc, n, nusers) < 0)
		return -1;
	wk.changed = NULL;              /* the users' pass lists nothing */
	wk.nchanged = 0;
	group_users(P, jobs, n, users, nusers, &sc);
	among.jobs = sc.ujobs;
	share(&among, q, sc.keys, &wk);
	for (int u = 0; u < nusers; u++) {
		users[u].desire = sc.ujobs[u].desire;
		users[u].allotment = sc.ujobs[u].allotment;
		users[u].availability = sc.ujobs[u].availability;
		users[u].credit = sc.ujobs[u].credit;
	}
	wk.changed = nchanged != NULL ? changed : NULL;
	claim_slots(P, jobs, n, wk.owner);
	for (int u = 0; u < nusers; u++) {
		int a = sc.ujobs[u].availability;
		struct deq_pass mine = { jobs, sc.order + sc.start[u],
					 sc.start[u + 1] - sc.start[u], a,
					 a < P ? a + 1 : P };

		share(&mine, q, sc.keys, &wk);
	}
	place_slots(P, jobs, n, wk.owner, &wk);
	free(sc.heap);
	if (nchanged != NULL)
		*nchanged = wk.nchanged;
	return 0;
}

/* Empty a set. */
void deq_set_clear(struct deq_set *s)
{
	memset(s, 0, sizeof(*s));
}

/* Add a slot (slots outside 0..DEQ_MAX_PROCS-1 are ignored). */
void deq_set_add(struct deq_set *s, int slot)
{
	if (slot >= 0 && slot < DEQ_MAX_PROCS)
		s->w[slot / 64] |= (uint64_t)1 << (slot % 64);
}

/* Remove a slot (slots outside 0..DEQ_MAX_PROCS-1 are ignored). */
void deq_set_del(struct deq_set *s, int slot)
{
	if (slot >= 0 && slot < DEQ_MAX_PROCS)
		s->w[slot / 64] &= ~((uint64_t)1 << (slot % 64));
}

/* Whether a slot is in the set (0 for slots out of range). */
int deq_set_has(const struct deq_set *s, int slot)
{
	if (slot < 0 || slot >= DEQ_MAX_PROCS)
		return 0;
	return (int)(s->w[slot / 64] >> (slot % 64) & 1);
}

/* The number of slots in the set (empty words, most of them when P is
 * small, cost no popcount: without POPCNT in the baseline instruction set
 * that is a call). */
int deq_set_count(const struct deq_set *s)
{
	int total = 0;

	for (int w = 0; w < DEQ_WORDS; w++)
		if (s->w[w] != 0)
			total += __builtin_popcountll(s->w[w]);
	return total;
}

/* Whether every slot of a is in b. */
int deq_set_subset(const struct deq_set *a, const struct deq_set *b)
{
	for (int w = 0; w < DEQ_WORDS; w++)
		if (a->w[w] & ~b->w[w])
			return 0;
	return 1;
}
