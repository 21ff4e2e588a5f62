/*
 * omp_uts.c - the uts job (jobs/uts.c) written with OpenMP tasks, for
 * comparison with libasteal: depth first, one task per child node, the
 * children's states in an array on the parent's frame, a taskwait, then
 * the sum of the children's counts.
 *
 *   omp_uts TREE [--serial] [--workers N]   (N threads, default all cores)
 */
#include <inttypes.h>
#include <omp.h>
#include <stdio.h>

#include "common.h"
#include "uts_tree.h"

#define NAME "omp-uts"

/* The tree being walked (set before the walk, read-only during it). */
static const uts_params *tree;

static uint64_t omp_count(const uts_node *node);

/* Make the n children of node, count each in its own task, add up. */
static uint64_t omp_children(const uts_node *node, int n)
{
	uts_node kids[n];
	uint64_t counts[n];
	uint64_t total = 1;
	int i;

	for (i = 0; i < n; i++) {
		const uts_node *kid = &kids[i];
		uint64_t *out = &counts[i];

		uts_child(tree, node, i, &kids[i]);
#pragma omp task default(none) firstprivate(kid, out)
		*out = omp_count(kid);
	}
#pragma omp taskwait
	for (i = 0; i < n; i++)
		total += counts[i];
	return total;
}

/* Nodes in the subtree rooted at node. */
static uint64_t omp_count(const uts_node *node)
{
	int n = uts_num_children(tree, node);

	return n == 0 ? 1 : omp_children(node, n);
}

/* One walk of the whole tree: team size in, node count out. */
struct omp_walk_arg {
	int threads;
	uint64_t count;
};

/* Count the whole tree with a team of a->threads threads. */
static void omp_walk(void *p)
{
	struct omp_walk_arg *a = p;
	uint64_t count = 0;
	uts_node root;

	uts_root(tree, &root);
	omp_set_dynamic(0);
#pragma omp parallel num_threads(a->threads) default(none) shared(root, count)
#pragma omp single
	count = omp_count(&root);
	a->count = count;
}

/* Count the tree in the mode of c, time it, report it and return the exit status. */
static int omp_uts_main(const char *name, job_common *c)
{
	struct omp_walk_arg walk = { c->workers, 0 };
	char result[32];
	uint64_t count;
	uts_node root;
	double t0, t1;

	if (!c->serial && c->workers == 0)
		c->workers = walk.threads = omp_get_num_procs();
	t0 = job_now();
	if (c->serial) {
		uts_root(tree, &root);
		count = uts_count_serial(tree, &root);
	} else {
		/* Tasks nest on the threads' stacks as deep as the tree. */
		if (uts_call_on_stack(omp_walk, &walk, UTS_STACK_BYTES) < 0)
			return JOB_EXIT_WRONG;
		count = walk.count;
	}
	t1 = job_now();
	snprintf(result, sizeof(result), "%" PRIu64, count);
	return job_report(NAME, name, result, c, t1 - t0,
	                  uts_check(tree, count));
}

/* Parse TREE and the common options, then count the tree. */
int main(int argc, char **argv)
{
	const char *name;
	job_common c;

	tree = uts_parse_args(NAME, argc, argv, &c, &name);
	return omp_uts_main(name, &c);
}
