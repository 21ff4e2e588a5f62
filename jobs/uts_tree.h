/*
 * uts_tree.h - Unbalanced Tree Search (UTS) trees, as in the UTS benchmark
 * of Olivier et al. (LCPC 2006): every node carries a 20-byte SHA-1 state;
 * a child's state is SHA-1(parent state || child index as 4 big-endian
 * bytes), and a node's number of children is drawn from the low 31 bits
 * of its own state (geometric or binomial distribution).  The tree is thus
 * fixed by a handful of parameters, and can be walked in any order, by any
 * number of threads, without shared state.
 *
 * Known trees (uts_find):
 *   T1   geometric, fixed shape  -t 1 -a 3 -d 10 -b 4 -r 19     4,130,071 nodes
 *   T1L  geometric, fixed shape  -t 1 -a 3 -d 13 -b 4 -r 29   102,181,082 nodes
 *   T3   binomial                -t 0 -b 2000 -q 0.124875 -m 8 -r 42
 *                                                              4,112,897 nodes
 *   T3L  binomial                -t 0 -b 2000 -q 0.200014 -m 5 -r 7
 *                                                            111,345,631 nodes
 *   T1S  geometric, fixed shape  -t 1 -a 3 -d 8 -b 4 -r 19        257,042 nodes
 *   T3S  binomial                -t 0 -b 200 -q 0.124 -m 8 -r 42   193,585 nodes
 * T1S and T3S are small trees for tests (well under 0.1 s serial); their
 * counts come from the serial walk and agree with the parallel ones.
 *
 * Usable from C and C++.  The functions are thread-safe; each thread keeps
 * its own SHA-1 context (freed when the thread exits).
 */
#ifndef JOBS_UTS_TREE_H
#define JOBS_UTS_TREE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Child-count distribution (the UTS -t option; hybrid and balanced trees
 * are not supported). */
typedef enum uts_type {
	UTS_BIN = 0,                /* binomial: m children with probability q */
	UTS_GEO = 1                 /* geometric with mean set by the shape */
} uts_type;

/* Shape of the geometric trees' mean branching factor over depth (-a). */
typedef enum uts_shape {
	UTS_LINEAR = 0,             /* b0 * (1 - depth / gen_mx) */
	UTS_EXPDEC = 1,             /* b0 * depth ^ (-log b0 / log gen_mx) */
	UTS_CYCLIC = 2,             /* b0 ^ sin(2 pi depth / gen_mx), 0 past 5 gen_mx */
	UTS_FIXED = 3               /* b0 above depth gen_mx, 0 from there on */
} uts_shape;

/* The parameters of one tree. */
typedef struct uts_params {
	const char *name;           /* "T1", "T3L", ... */
	uts_type type;              /* -t */
	double b0;                  /* -b: root branching factor */
	int seed;                   /* -r: root seed */
	uts_shape shape;            /* -a (geometric) */
	int gen_mx;                 /* -d (geometric): depth limit */
	double q;                   /* -q (binomial): probability of m children */
	int m;                      /* -m (binomial): children of an inner node */
	uint64_t nodes;             /* expected node count */
	const char *options;        /* the UTS command-line options, for humans */
} uts_params;

/* One tree node: its SHA-1 state and its depth (the root has height 0). */
typedef struct uts_node {
	unsigned char state[20];
	int32_t height;
} uts_node;

/* Most children a non-root node can have (the UTS cap). */
#define UTS_MAX_CHILDREN 100

/* The known tree called name (case-sensitive), or NULL. */
const uts_params *uts_find(const char *name);

/* The known trees' names separated by spaces, for usage messages. */
const char *uts_tree_names(void);

struct job_common;

/* Parse "TREE [--serial] [--workers N]" for program prog: fills *c, sets
 * *name to the tree's name and returns its parameters; prints usage and
 * exits 2 on bad arguments. */
const uts_params *uts_parse_args(const char *prog, int argc, char **argv,
                                 struct job_common *c, const char **name);

/* Fill *root with the root node of tree p. */
void uts_root(const uts_params *p, uts_node *root);

/* Number of children of node n of tree p. */
int uts_num_children(const uts_params *p, const uts_node *n);

/* Fill *child with child i (0-based) of node parent of tree p. */
void uts_child(const uts_params *p, const uts_node *parent, int i,
               uts_node *child);

/* Number of nodes in the subtree rooted at n, by serial depth-first
 * recursion (the baseline every parallel version is compared with). */
uint64_t uts_count_serial(const uts_params *p, const uts_node *n);

/* Nonzero when nodes is the expected node count of tree p. */
int uts_check(const uts_params *p, uint64_t nodes);

/* Stack for a depth-first walk with OpenMP or TBB, which run tasks on
 * their threads' own stacks, nested as deep as the tree: T3L (17,844
 * levels) needs 12 to 16 MiB with either; this leaves a wide margin (and
 * TBB stops stealing on a thread whose stack is half used). */
#define UTS_STACK_BYTES ((size_t)256 << 20)

/* Run fn(arg) on a new thread with a stack of stack_bytes and wait for it;
 * threads created later with default attributes (an OpenMP team) get such
 * stacks too.  Returns 0, or -1 with a message on stderr. */
int uts_call_on_stack(void (*fn)(void *), void *arg, size_t stack_bytes);

#ifdef __cplusplus
}
#endif

#endif
