/*
 * tbb_uts.cpp - the uts job (jobs/uts.c) written with oneTBB task groups,
 * for comparison with libasteal: depth first, one task per child node, the
 * children's states in an array on the parent's frame, a wait, then the
 * sum of the children's counts.
 *
 *   tbb_uts TREE [--serial] [--workers N]   (N threads, default all cores)
 */
#include <cinttypes>
#include <cstdio>

#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/task_group.h>

#include "common.h"
#include "uts_tree.h"

#define NAME "tbb-uts"

/* The tree being walked (set before the walk, read-only during it). */
static const uts_params *tree;

static uint64_t tbb_count(const uts_node *node);

/* Make the n children of node, count each in its own task, add up. */
static uint64_t tbb_children(const uts_node *node, int n)
{
	uts_node kids[n];
	uint64_t counts[n];
	uint64_t total = 1;
	tbb::task_group g;

	for (int i = 0; i < n; i++) {
		const uts_node *kid = &kids[i];
		uint64_t *out = &counts[i];

		uts_child(tree, node, i, &kids[i]);
		g.run([kid, out] { *out = tbb_count(kid); });
	}
	g.wait();
	for (int i = 0; i < n; i++)
		total += counts[i];
	return total;
}

/* Nodes in the subtree rooted at node. */
static uint64_t tbb_count(const uts_node *node)
{
	int n = uts_num_children(tree, node);

	return n == 0 ? 1 : tbb_children(node, n);
}

/* One walk of the whole tree: thread count in, node count out. */
struct tbb_walk_arg {
	int threads;
	uint64_t count;
};

/* Count the whole tree with a->threads threads (this one included). */
static void tbb_walk(void *p)
{
	tbb_walk_arg *a = static_cast<tbb_walk_arg *>(p);
	tbb::global_control threads(
	    tbb::global_control::max_allowed_parallelism, a->threads);
	tbb::global_control stack(tbb::global_control::thread_stack_size,
	                          UTS_STACK_BYTES);
	uts_node root;

	uts_root(tree, &root);
	a->count = tbb_count(&root);
}

/* Count the tree in the mode of c, time it, report it and return the exit status. */
static int tbb_uts_main(const char *name, job_common *c)
{
	tbb_walk_arg walk = { c->workers, 0 };
	char result[32];
	uint64_t count;
	double t0, t1;

	if (!c->serial && c->workers == 0)
		c->workers = walk.threads = tbb::info::default_concurrency();
	t0 = job_now();
	if (c->serial) {
		uts_node root;

		uts_root(tree, &root);
		count = uts_count_serial(tree, &root);
	} else {
		/* Tasks nest on the threads' stacks as deep as the tree. */
		if (uts_call_on_stack(tbb_walk, &walk, UTS_STACK_BYTES) < 0)
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
	return tbb_uts_main(name, &c);
}
