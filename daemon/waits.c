/*
 * waits.c - the clients waiting for jobs to end (see waits.h).
 *
 * Two hash tables of intrusive nodes, chained both ways so that a node
 * leaves in O(1): the waits by job id, and the waiters (a connection's
 * waits) by connection.  3 M waits once made every job end cost 14 ms
 * when each end scanned them all.
 */
#include <stdio.h>
#include <stdlib.h>

#include "conn.h"
#include "waits.h"

/* A node of a hash table (first in the structs the tables hold), chained
 * both ways so that it leaves in O(1). */
struct waits_node {
	uint64_t key;
	struct waits_node *next, **pprev;
};

/* A client's waits (one per connection that waits), by connection. */
struct waiter {
	struct waits_node node;             /* key: the connection */
	struct conn *conn;
	struct wait_req *waits;     /* its own, through next_own */
	int nwaits;
};

/* One wait, by job id, and in its waiter's list. */
struct wait_req {
	struct waits_node node;             /* key: the job id */
	struct waiter *owner;
	struct wait_req *next_own;
	uint64_t request_id;           /* the WaitRequest's, for the reply */
};

/* The chain of key in a table of n chains (n a power of two, > 0). */
static size_t bucket(uint64_t key, size_t n)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & (n - 1);
}

/* Put node x at the head of chain *head. */
static void chain_add(struct waits_node **head, struct waits_node *x)
{
	x->next = *head;
	if (*head != NULL)
		(*head)->pprev = &x->next;
	*head = x;
	x->pprev = head;
}

/* Add x to h, doubling h when it is as full as it has chains: -1 when
 * out of memory (x is then not added). */
static int hash_add(struct waits_hash *h, struct waits_node *x)
{
	if (h->count >= h->n) {
		size_t n = h->n == 0 ? 64 : 2 * h->n;
		struct waits_node **b = calloc(n, sizeof(*b));

		if (b == NULL)
			return -1;
		for (size_t i = 0; i < h->n; i++)
			while (h->b[i] != NULL) {
				struct waits_node *y = h->b[i];

				h->b[i] = y->next;
				chain_add(&b[bucket(y->key, n)], y);
			}
		free(h->b);
		h->b = b;
		h->n = n;
	}
	chain_add(&h->b[bucket(x->key, h->n)], x);
	h->count++;
	return 0;
}

/* Take x out of h. */
static void hash_del(struct waits_hash *h, struct waits_node *x)
{
	*x->pprev = x->next;
	if (x->next != NULL)
		x->next->pprev = x->pprev;
	h->count--;
}

/* The first node of key's chain in h (the caller checks the keys). */
static struct waits_node *hash_chain(const struct waits_hash *h, uint64_t key)
{
	return h->n > 0 ? h->b[bucket(key, h->n)] : NULL;
}

/* The waiter of connection c, made when make is set (NULL when it has
 * none, or out of memory). */
static struct waiter *waiter_of(struct waits *w, struct conn *c, int make)
{
	uint64_t key = (uint64_t)(uintptr_t)c;
	struct waiter *o;
	struct waits_node *x;

	for (x = hash_chain(&w->byconn, key); x != NULL; x = x->next)
		if (((struct waiter *)x)->conn == c)
			return (struct waiter *)x;
	if (!make || (o = calloc(1, sizeof(*o))) == NULL)
		return NULL;
	o->conn = c;
	o->node.key = key;
	if (hash_add(&w->byconn, &o->node) < 0) {
		free(o);
		return NULL;
	}
	return o;
}

/* Forget a waiter that has no wait left. */
static void waiter_put(struct waits *w, struct waiter *o)
{
	if (o->nwaits > 0)
		return;
	hash_del(&w->byconn, &o->node);
	free(o);
}

/* Take a wait out of both its lists and free it. */
static void wait_drop(struct waits *w, struct wait_req *q)
{
	struct wait_req **p;

	hash_del(&w->byjob, &q->node);
	for (p = &q->owner->waits; *p != q; p = &(*p)->next_own)
		;
	*p = q->next_own;
	q->owner->nwaits--;
	free(q);
}

/* Drop a waiter and all its waits (its connection went). */
static void waiter_drop(struct waits *w, struct waiter *o)
{
	while (o->waits != NULL)
		wait_drop(w, o->waits);
	waiter_put(w, o);
}


/* Free every wait and the tables. */
void waits_free(struct waits *w)
{
	for (size_t i = 0; i < w->byconn.n; i++)
		while (w->byconn.b[i] != NULL)
			waiter_drop(w, (struct waiter *)w->byconn.b[i]);
	free(w->byjob.b);
	free(w->byconn.b);
	*w = (struct waits){ { NULL, 0, 0 }, { NULL, 0, 0 } };
}

/* Connection c waits for job id. */
Asteal__ErrorCode waits_add(struct waits *w, struct conn *c, uint64_t id,
                            uint64_t request_id, int most, char *why, size_t whylen)
{
	struct waiter *o = waiter_of(w, c, 1);
	struct wait_req *q;

	if (o != NULL && o->nwaits >= most) {
		snprintf(why, whylen, "job %llu: this connection waits for %d jobs "
		         "already, the most it may", (unsigned long long)id, most);
		return ASTEAL__ERROR_CODE__BUSY;
	}
	if (o == NULL || (q = calloc(1, sizeof(*q))) == NULL) {
		if (o != NULL)
			waiter_put(w, o);
		snprintf(why, whylen, "out of memory");
		return ASTEAL__ERROR_CODE__INTERNAL;
	}
	q->owner = o;
	q->node.key = id;
	q->request_id = request_id;
	if (hash_add(&w->byjob, &q->node) < 0) {
		free(q);
		waiter_put(w, o);
		snprintf(why, whylen, "out of memory");
		return ASTEAL__ERROR_CODE__INTERNAL;
	}
	q->next_own = o->waits;
	o->waits = q;
	o->nwaits++;
	return 0;
}

/* Whether anyone waits for job id. */
int waits_for(const struct waits *w, uint64_t id)
{
	struct waits_node *x;

	for (x = hash_chain(&w->byjob, id); x != NULL && x->key != id; x = x->next)
		;
	return x != NULL;
}

/* Send rep to everyone waiting for job id, and forget their waits. */
void waits_answer(struct waits *w, uint64_t id, Asteal__WaitReply *rep)
{
	struct waits_node *x, *next;

	for (x = hash_chain(&w->byjob, id); x != NULL; x = next) {
		Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
		struct wait_req *q = (struct wait_req *)x;
		struct waiter *o = q->owner;

		next = x->next;
		if (x->key != id)
			continue;
		env.msg_case = ASTEAL__ENVELOPE__MSG_WAIT_REPLY;
		env.wait_reply = rep;
		env.request_id = q->request_id;
		conn_send(o->conn, &env);
		wait_drop(w, q);
		waiter_put(w, o);
	}
}

/* Connection c went: forget its waits. */
void waits_conn_gone(struct waits *w, struct conn *c)
{
	struct waiter *o = waiter_of(w, c, 0);

	if (o != NULL)
		waiter_drop(w, o);
}

/* Call answered(arg, id) with the job id of each wait. */
void waits_each(struct waits *w, int (*answered)(void *arg, uint64_t id), void *arg)
{
	for (size_t i = 0; i < w->byjob.n; i++) {
		struct waits_node *x = w->byjob.b[i];

		while (x != NULL) {
			if (answered(arg, x->key))
				x = w->byjob.b[i];      /* the chain changed */
			else
				x = x->next;
		}
	}
}
