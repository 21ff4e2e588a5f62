/*
 * uts.c - Unbalanced Tree Search: count the nodes of a UTS tree
 * (uts_tree.h) depth first.  Each task makes the states of all its node's
 * children in an array on its own frame, spawns one task per child, syncs
 * and adds up the children's counts.  The trees are very unbalanced (T3L
 * is 111 million nodes and about 18,000 levels deep), so the job measures
 * load balancing of irregular, deep parallelism.
 *
 *   uts TREE [--serial] [--workers W]   (TREE: T1 T3 T1L T3L T1S T3S)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "asteal.h"
#include "common.h"
#include "uts_tree.h"

#define NAME "uts"

/* One subtree: its root node in, its node count out. */
struct uts_arg {
	uts_node node;
	uint64_t count;
};

/* The tree being walked (set before the walk, read-only during it). */
static const uts_params *tree;

static void uts_task(void *p);

/* The children of one node, for kids_body. */
struct uts_kids {
	const uts_node *parent;
	uint64_t *counts;       /* counts[i]: the subtree of child i */
};

/* Count the subtrees of children [lo, hi) of k->parent. */
static void kids_body(long lo, long hi, void *p)
{
	struct uts_kids *k = p;
	long i;

	for (i = lo; i < hi; i++) {
		struct uts_arg a;
		uts_child(tree, k->parent, (int)i, &a.node);
		uts_task(&a);
		k->counts[i] = a.count;
	}
}

/* Count the n children's subtrees in parallel and add them up.  The
 * children are a parallel loop, split in halves (asteal_for): a thief
 * takes half of the remaining siblings at once, not one child, which
 * matters on binomial trees where most children are leaves. */
static void uts_children(struct uts_arg *a, int n)
{
	uint64_t counts[n], count = 1;
	struct uts_kids k = { &a->node, counts };
	int i;

	asteal_for(0, n, 1, kids_body, &k);
	for (i = 0; i < n; i++)
		count += counts[i];
	a->count = count;
}

/* The task: count the subtree rooted at a->node. */
static void uts_task(void *p)
{
	struct uts_arg *a = p;
	int n = uts_num_children(tree, &a->node);

	if (n == 0)
		a->count = 1;
	else
		uts_children(a, n);
}

/* Count the tree in the mode of c, time it, report it and return the exit status. */
static int uts_main(const char *name, job_common *c)
{
	struct uts_arg root;
	char result[32];
	double t0, t1;
	int rc;

	job_runtime_start(NAME, c);
	t0 = job_now();
	uts_root(tree, &root.node);
	if (c->serial) {
		root.count = uts_count_serial(tree, &root.node);
	} else if (asteal_run(uts_task, &root) < 0) {
		perror(NAME ": asteal_run");
		exit(JOB_EXIT_WRONG);
	}
	t1 = job_now();
	snprintf(result, sizeof(result), "%" PRIu64, root.count);
	rc = job_report(NAME, name, result, c, t1 - t0,
	                uts_check(tree, root.count));
	job_runtime_stop(c);
	return rc;
}

/* Parse TREE and the common options, then count the tree. */
int main(int argc, char **argv)
{
	const char *name;
	job_common c;

	tree = uts_parse_args(NAME, argc, argv, &c, &name);
	return uts_main(name, &c);
}
