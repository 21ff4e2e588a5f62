/*
 * depend.c - task dependences (depend: in, out, inout, mutexinoutset,
 * inoutset, and depobj objects), between sibling tasks: each parent keeps
 * a table from address to the last sibling that wrote it (out, inout) and
 * the siblings that read it since (in).  A new deferred task with
 * dependences gets an edge from each unfinished sibling it must follow
 * (a writer after the last writer and every reader since; a reader after
 * the last writer) and waits off the deques until its count of
 * predecessors reaches 0; the predecessor that ends last pushes it.
 * mutexinoutset and inoutset are kept as inout: a stronger order than
 * OpenMP asks, and a compliant one (libgomp does the same).
 *
 * A parent's table and its tasks' edges change under the table's lock:
 * the parent adds (creation), its children remove themselves (end).  The
 * count of a task being registered starts at 1, so that no predecessor
 * can push it before its registration is complete; registration drops
 * that 1 last.  A wait for dependences (an undeferred task, taskwait
 * depend) is a node without a task, on the waiting thread's stack.
 */
#include "layer.h"

#include <stdlib.h>
#include <string.h>

/* One task's (or one wait's) dependences and successors. */
struct omp_depnode {
	struct omp_task *task;          /* NULL: a wait (on a stack) */
	_Atomic long npred;             /* predecessors not ended (+1 while
	                                   registering) */
	struct omp_depnode **succ;      /* its successors (under the lock) */
	size_t nsucc, capsucc;
	size_t naddr;
	struct dep_addr { void *addr; int out; } a[];
};

/* What the table keeps per address. */
struct deprec {
	void *addr;
	struct omp_depnode *last_out;
	struct omp_depnode **readers;
	size_t nread, capread;
	struct deprec *next;            /* chain */
};

struct omp_dephash {
	pthread_mutex_t lock;
	struct deprec **bucket;
	size_t nbucket, count;
};

/* Grow a pointer array to hold one more. */
static void *grow(void *p, size_t *cap, size_t n, size_t elem)
{
	if (n < *cap)
		return p;
	*cap = *cap ? 2 * *cap : 4;
	p = realloc(p, *cap * elem);
	if (p == NULL)
		omp_fatal("out of memory for task dependences");
	return p;
}

/* The bucket of addr among n (a power of two). */
static size_t hash_n(const void *addr, size_t n)
{
	uint64_t x = (uint64_t)(uintptr_t)addr;

	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 32;
	return (size_t)(x & (n - 1));
}

/* The bucket of addr in h. */
static size_t hash(const struct omp_dephash *h, const void *addr)
{
	return hash_n(addr, h->nbucket);
}

/* The record of addr, made when insert (NULL otherwise when absent). */
static struct deprec *lookup(struct omp_dephash *h, void *addr, int insert)
{
	struct deprec *r;
	size_t b = hash(h, addr);

	for (r = h->bucket[b]; r != NULL; r = r->next)
		if (r->addr == addr)
			return r;
	if (!insert)
		return NULL;
	if (h->count >= 2 * h->nbucket) {
		size_t i, n = h->nbucket * 4;
		struct deprec **nb = calloc(n, sizeof(*nb)), *next;
		if (nb == NULL)
			omp_fatal("out of memory for task dependences");
		for (i = 0; i < h->nbucket; i++)
			for (r = h->bucket[i]; r != NULL; r = next) {
				size_t k = hash_n(r->addr, n);
				next = r->next;
				r->next = nb[k];
				nb[k] = r;
			}
		free(h->bucket);
		h->bucket = nb;
		h->nbucket = n;
		b = hash(h, addr);
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		omp_fatal("out of memory for task dependences");
	r->addr = addr;
	r->next = h->bucket[b];
	h->bucket[b] = r;
	h->count++;
	return r;
}

/* Drop addr's record if it holds nothing any more. */
static void prune(struct omp_dephash *h, struct deprec *rec)
{
	struct deprec **p;

	if (rec->last_out != NULL || rec->nread != 0)
		return;
	for (p = &h->bucket[hash(h, rec->addr)]; *p != NULL; p = &(*p)->next)
		if (*p == rec) {
			*p = rec->next;
			h->count--;
			free(rec->readers);
			free(rec);
			return;
		}
}

/* Count depend's entries (libgomp's two layouts, gomp.h's GOMP_task). */
static size_t dep_count(void **depend)
{
	return (uintptr_t)depend[0] != 0 ? (uintptr_t)depend[0] : (uintptr_t)depend[1];
}

/* Read depend into a[] (writers first), returning how many. */
static size_t dep_parse(void **depend, struct dep_addr *a)
{
	size_t n = 0, i;

	if ((uintptr_t)depend[0] != 0) {
		size_t total = (uintptr_t)depend[0], nout = (uintptr_t)depend[1];
		for (i = 0; i < total; i++) {
			a[n].addr = depend[2 + i];
			a[n++].out = i < nout;
		}
		return n;
	} else {
		size_t total = (uintptr_t)depend[1], nout = (uintptr_t)depend[2];
		size_t nmutex = (uintptr_t)depend[3], nin = (uintptr_t)depend[4];
		size_t normal = nout + nmutex + nin;
		for (i = 0; i < normal; i++) {
			a[n].addr = depend[5 + i];
			a[n++].out = i < nout + nmutex;
		}
		for (i = normal; i < total; i++) {
			void **d = depend[5 + i];       /* an omp_depend_t */
			uintptr_t kind = (uintptr_t)d[1];
			if (kind < 1 || kind > 5)
				omp_fatal("unknown dependence type %d in a depend object",
				          (int)kind);
			a[n].addr = d[0];
			a[n++].out = kind != 1;     /* in: 1; the rest as inout */
		}
	}
	return n;
}

/* Make node follow pred (under the lock). */
static void edge(struct omp_depnode *pred, struct omp_depnode *node)
{
	pred->succ = grow(pred->succ, &pred->capsucc, pred->nsucc, sizeof(*pred->succ));
	pred->succ[pred->nsucc++] = node;
	atomic_fetch_add(&node->npred, 1);
}

/* Add node's edges from the table (and, record, enter node in it). */
static void link_node(struct omp_dephash *h, struct omp_depnode *node, int record)
{
	size_t i, j;

	for (i = 0; i < node->naddr; i++) {
		struct deprec *rec;
		int dup = 0;
		/* The same address twice: the first (writers come first) rules. */
		for (j = 0; j < i; j++)
			if (node->a[j].addr == node->a[i].addr)
				dup = 1;
		if (dup)
			continue;
		rec = lookup(h, node->a[i].addr, record);
		if (rec == NULL)
			continue;
		if (rec->last_out != NULL)
			edge(rec->last_out, node);
		if (node->a[i].out) {
			for (j = 0; j < rec->nread; j++)
				edge(rec->readers[j], node);
			if (record) {
				rec->nread = 0;
				rec->last_out = node;
			}
		} else if (record) {
			rec->readers = grow(rec->readers, &rec->capread, rec->nread,
			                    sizeof(*rec->readers));
			rec->readers[rec->nread++] = node;
		}
	}
}

/* The parent's table, made on first use (by the parent's own thread). */
static struct omp_dephash *table(struct omp_task *parent)
{
	struct omp_dephash *h = parent->dephash;

	if (h == NULL) {
		h = calloc(1, sizeof(*h));
		if (h == NULL || (h->bucket = calloc(16, sizeof(*h->bucket))) == NULL)
			omp_fatal("out of memory for task dependences");
		h->nbucket = 16;
		pthread_mutex_init(&h->lock, NULL);
		parent->dephash = h;
	}
	return h;
}

/* Register a deferred task's dependences (layer.h). */
long omp_dep_add(struct omp_task *parent, struct omp_task *task, void **depend)
{
	size_t n = dep_count(depend);
	struct omp_depnode *node = malloc(sizeof(*node) + n * sizeof(node->a[0]));
	struct omp_dephash *h = table(parent);

	if (node == NULL)
		omp_fatal("out of memory for task dependences");
	node->task = task;
	atomic_init(&node->npred, 1);
	node->succ = NULL;
	node->nsucc = node->capsucc = 0;
	node->naddr = dep_parse(depend, node->a);
	task->dep = node;
	pthread_mutex_lock(&h->lock);
	link_node(h, node, 1);
	pthread_mutex_unlock(&h->lock);
	return atomic_fetch_sub(&node->npred, 1) - 1;
}

/* A task with dependences ended (layer.h). */
void omp_dep_done(struct omp_thr *t, struct omp_task *task)
{
	struct omp_depnode *node = task->dep;
	struct omp_dephash *h = task->parent->dephash;
	struct omp_task *ready[16], **more = NULL;
	size_t i, j, nready = 0, nmore = 0, capmore = 0;
	int waiter = 0;

	pthread_mutex_lock(&h->lock);
	for (i = 0; i < node->naddr; i++) {
		struct deprec *rec = lookup(h, node->a[i].addr, 0);
		if (rec == NULL)
			continue;
		if (rec->last_out == node)
			rec->last_out = NULL;
		for (j = 0; j < rec->nread; j++)
			if (rec->readers[j] == node) {
				rec->readers[j] = rec->readers[--rec->nread];
				break;
			}
		prune(h, rec);
	}
	for (i = 0; i < node->nsucc; i++) {
		struct omp_depnode *s = node->succ[i];
		struct omp_task *st = s->task;
		if (atomic_fetch_sub(&s->npred, 1) != 1)
			continue;
		/* s may be gone from here on if it is a wait. */
		if (st == NULL) {
			waiter = 1;
		} else if (nready < 16) {
			ready[nready++] = st;
		} else {
			more = grow(more, &capmore, nmore, sizeof(*more));
			more[nmore++] = st;
		}
	}
	pthread_mutex_unlock(&h->lock);
	free(node->succ);
	free(node);
	task->dep = NULL;
	for (i = 0; i < nready; i++)
		omp_task_push(t, ready[i]);
	for (i = 0; i < nmore; i++)
		omp_task_push(t, more[i]);
	free(more);
	if (waiter)
		omp_wake(task->team, 1);
}

/* Whether a wait's predecessors have all ended. */
static bool wait_done(void *p)
{
	struct omp_depnode *node = p;

	return atomic_load_explicit(&node->npred, memory_order_acquire) == 0;
}

/* Wait for the siblings these dependences name (layer.h). */
void omp_dep_wait(struct omp_thr *t, void **depend)
{
	struct omp_task *parent = t->task;
	struct omp_dephash *h = parent->dephash;
	size_t n = dep_count(depend);
	_Alignas(16) char buf[sizeof(struct omp_depnode) +
	                      (n > 0 ? n : 1) * sizeof(struct dep_addr)];
	struct omp_depnode *w = (struct omp_depnode *)buf;

	if (h == NULL || n == 0)
		return;
	w->task = NULL;
	atomic_init(&w->npred, 1);
	w->succ = NULL;
	w->nsucc = w->capsucc = 0;
	w->naddr = dep_parse(depend, w->a);
	pthread_mutex_lock(&h->lock);
	link_node(h, w, 0);
	pthread_mutex_unlock(&h->lock);
	if (atomic_fetch_sub(&w->npred, 1) != 1)
		omp_wait(t, wait_done, w, OMP_WAIT_TIED);
}

/* Free the table of a task whose children have all ended (layer.h). */
void omp_dep_free(struct omp_task *task)
{
	struct omp_dephash *h = task->dephash;
	size_t i;

	for (i = 0; i < h->nbucket; i++) {
		struct deprec *r, *next;
		for (r = h->bucket[i]; r != NULL; r = next) {
			next = r->next;
			free(r->readers);
			free(r);
		}
	}
	free(h->bucket);
	pthread_mutex_destroy(&h->lock);
	free(h);
	task->dephash = NULL;
}
