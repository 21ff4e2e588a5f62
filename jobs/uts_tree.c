/*
 * uts_tree.c - the UTS trees of uts_tree.h: parameters of the known trees,
 * the SHA-1 splittable random numbers, and the child-count rules of the
 * reference UTS benchmark (written anew from its description).
 *
 * SHA-1 comes from libcrypto (OpenSSL 3).  The EVP interface costs about
 * twice the hash itself for a one-block message (each EVP_DigestInit_ex2
 * frees and allocates the provider's context), so each thread keeps one
 * context of the provider's SHA-1 and calls its init/update/final functions
 * directly, as found with OSSL_PROVIDER_query_operation (public, not
 * deprecated).  If that lookup fails or gives a wrong answer on a known
 * input, every hash goes through EVP with a per-thread EVP_MD_CTX instead.
 */
#include "uts_tree.h"
#include "common.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

/* The known trees.  T1, T1L, T3, T3L are the UTS sample trees; T1S and T3S
 * are small ones for tests, their counts established by the serial walk
 * and confirmed by the parallel ones. */
static const uts_params trees[] = {
	{ "T1", UTS_GEO, 4.0, 19, UTS_FIXED, 10, 0.0, 0, 4130071,
	  "-t 1 -a 3 -d 10 -b 4 -r 19" },
	{ "T1L", UTS_GEO, 4.0, 29, UTS_FIXED, 13, 0.0, 0, 102181082,
	  "-t 1 -a 3 -d 13 -b 4 -r 29" },
	{ "T3", UTS_BIN, 2000.0, 42, UTS_LINEAR, 0, 0.124875, 8, 4112897,
	  "-t 0 -b 2000 -q 0.124875 -m 8 -r 42" },
	{ "T3L", UTS_BIN, 2000.0, 7, UTS_LINEAR, 0, 0.200014, 5, 111345631,
	  "-t 0 -b 2000 -q 0.200014 -m 5 -r 7" },
	{ "T1S", UTS_GEO, 4.0, 19, UTS_FIXED, 8, 0.0, 0, 257042,
	  "-t 1 -a 3 -d 8 -b 4 -r 19" },
	{ "T3S", UTS_BIN, 200.0, 42, UTS_LINEAR, 0, 0.124, 8, 193585,
	  "-t 0 -b 200 -q 0.124 -m 8 -r 42" },
};

#define NTREES (sizeof(trees) / sizeof(trees[0]))

/* ------------------------------------------------------------------------
 * SHA-1.
 */

/* Where the hashes come from, set once by sha_setup. */
static struct {
	EVP_MD *md;                          /* the fetched SHA-1 */
	int direct;                          /* call the provider's functions */
	void *provctx;                       /* the provider's context */
	OSSL_FUNC_digest_newctx_fn *newctx;
	OSSL_FUNC_digest_freectx_fn *freectx;
	OSSL_FUNC_digest_init_fn *init;
	OSSL_FUNC_digest_update_fn *update;
	OSSL_FUNC_digest_final_fn *final;
} sha;

static pthread_once_t sha_once = PTHREAD_ONCE_INIT;
static pthread_key_t sha_key;                /* frees a thread's context */
static _Thread_local void *sha_ctx;          /* provider ctx or EVP_MD_CTX */

/* Print why SHA-1 is unavailable and abort (the trees cannot exist). */
static void sha_fail(const char *what)
{
	fprintf(stderr, "uts_tree: SHA-1 from libcrypto failed: %s\n", what);
	abort();
}

/* Free a thread's hashing context when the thread exits. */
static void sha_ctx_free(void *ctx)
{
	if (sha.direct)
		sha.freectx(ctx);
	else
		EVP_MD_CTX_free(ctx);
}

/* Nonzero when the colon-separated name list names contains "SHA1". */
static int names_sha1(const char *names)
{
	size_t len;

	while (*names != '\0') {
		len = strcspn(names, ":");
		if (len == 4 && strncmp(names, "SHA1", 4) == 0)
			return 1;
		names += len;
		if (*names == ':')
			names++;
	}
	return 0;
}

/* Take the functions of one digest implementation; nonzero if complete. */
static int sha_take(const OSSL_DISPATCH *d)
{
	for (; d->function_id != 0; d++) {
		switch (d->function_id) {
		case OSSL_FUNC_DIGEST_NEWCTX:
			sha.newctx = OSSL_FUNC_digest_newctx(d);
			break;
		case OSSL_FUNC_DIGEST_FREECTX:
			sha.freectx = OSSL_FUNC_digest_freectx(d);
			break;
		case OSSL_FUNC_DIGEST_INIT:
			sha.init = OSSL_FUNC_digest_init(d);
			break;
		case OSSL_FUNC_DIGEST_UPDATE:
			sha.update = OSSL_FUNC_digest_update(d);
			break;
		case OSSL_FUNC_DIGEST_FINAL:
			sha.final = OSSL_FUNC_digest_final(d);
			break;
		default:
			break;
		}
	}
	return sha.newctx && sha.freectx && sha.init && sha.update &&
	       sha.final;
}

/* Hash len bytes with the provider functions on ctx; nonzero on success. */
static int sha_direct(void *ctx, const unsigned char *in, size_t len,
                      unsigned char out[20])
{
	size_t outl = 0;

	return sha.init(ctx, NULL) && sha.update(ctx, in, len) &&
	       sha.final(ctx, out, &outl, 20) && outl == 20;
}

/* Nonzero when the provider functions hash a test input as EVP does. */
static int sha_direct_agrees(void)
{
	static const unsigned char in[24] = "uts: known-answer test";
	unsigned char want[20], got[20];
	unsigned int n = 0;
	void *ctx;
	int ok;

	if (!EVP_Digest(in, sizeof in, want, &n, sha.md, NULL) || n != 20)
		sha_fail("EVP_Digest");
	ctx = sha.newctx(sha.provctx);
	if (ctx == NULL)
		return 0;
	ok = sha_direct(ctx, in, sizeof in, got) && memcmp(want, got, 20) == 0;
	sha.freectx(ctx);
	return ok;
}

/* Look for the provider functions of the fetched SHA-1. */
static void sha_find_direct(void)
{
	const OSSL_PROVIDER *prov = EVP_MD_get0_provider(sha.md);
	const OSSL_ALGORITHM *a;
	int no_cache = 0;

	if (prov == NULL)
		return;
	a = OSSL_PROVIDER_query_operation(prov, OSSL_OP_DIGEST, &no_cache);
	for (; a != NULL && a->algorithm_names != NULL; a++) {
		if (!names_sha1(a->algorithm_names))
			continue;
		if (!sha_take(a->implementation))
			return;
		sha.provctx = OSSL_PROVIDER_get0_provider_ctx(prov);
		sha.direct = sha_direct_agrees();
		return;
	}
}

/* Fetch SHA-1 and choose how to call it (once per process). */
static void sha_setup(void)
{
	sha.md = EVP_MD_fetch(NULL, "SHA1", NULL);
	if (sha.md == NULL)
		sha_fail("EVP_MD_fetch(SHA1)");
	if (pthread_key_create(&sha_key, sha_ctx_free) != 0)
		sha_fail("pthread_key_create");
	sha_find_direct();
}

/* The calling thread's hashing context, made on first use. */
static void *sha_thread_ctx(void)
{
	void *ctx;

	pthread_once(&sha_once, sha_setup);
	ctx = sha.direct ? sha.newctx(sha.provctx) : (void *)EVP_MD_CTX_new();
	if (ctx == NULL)
		sha_fail("no hashing context");
	if (pthread_setspecific(sha_key, ctx) != 0)
		sha_fail("pthread_setspecific");
	sha_ctx = ctx;
	return ctx;
}

/* out = SHA-1 of the len bytes at in. */
static void sha1(const unsigned char *in, size_t len, unsigned char out[20])
{
	void *ctx = sha_ctx;
	unsigned int n = 0;

	if (ctx == NULL)
		ctx = sha_thread_ctx();
	if (sha.direct) {
		if (!sha_direct(ctx, in, len, out))
			sha_fail("provider digest");
		return;
	}
	if (!EVP_DigestInit_ex2(ctx, sha.md, NULL) ||
	    !EVP_DigestUpdate(ctx, in, len) ||
	    !EVP_DigestFinal_ex(ctx, out, &n) || n != 20)
		sha_fail("EVP digest");
}

/* Store v in 4 bytes, most significant first. */
static void put_be32(unsigned char *b, uint32_t v)
{
	b[0] = (unsigned char)(v >> 24);
	b[1] = (unsigned char)(v >> 16);
	b[2] = (unsigned char)(v >> 8);
	b[3] = (unsigned char)v;
}

/* The node's random number: the state's last 4 bytes, big-endian, as a
 * non-negative 31-bit integer. */
static uint32_t node_rand(const uts_node *n)
{
	const unsigned char *s = n->state;
	uint32_t v = (uint32_t)s[16] << 24 | (uint32_t)s[17] << 16 |
	             (uint32_t)s[18] << 8 | (uint32_t)s[19];

	return v & 0x7fffffffu;
}

/* The node's random number scaled onto [0, 1). */
static double node_prob(const uts_node *n)
{
	return (double)node_rand(n) / 2147483648.0;
}

/* ------------------------------------------------------------------------
 * Trees.
 */

/* The known tree called name, or NULL. */
const uts_params *uts_find(const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < NTREES; i++)
		if (strcmp(trees[i].name, name) == 0)
			return &trees[i];
	return NULL;
}

/* The known trees' names, for usage messages. */
const char *uts_tree_names(void)
{
	return "T1 T3 T1L T3L T1S T3S";
}

/* Fill *root: SHA-1 of 16 zero bytes followed by the seed (big-endian). */
void uts_root(const uts_params *p, uts_node *root)
{
	unsigned char in[20] = { 0 };

	put_be32(in + 16, (uint32_t)p->seed);
	sha1(in, sizeof in, root->state);
	root->height = 0;
}

/* Child i: SHA-1 of the parent's state followed by i (big-endian). */
void uts_child(const uts_params *p, const uts_node *parent, int i,
               uts_node *child)
{
	unsigned char in[24];

	(void)p;
	memcpy(in, parent->state, 20);
	put_be32(in + 20, (uint32_t)i);
	sha1(in, sizeof in, child->state);
	child->height = parent->height + 1;
}

/* Mean branching factor of a geometric node at depth d (d > 0). */
static double geo_mean(const uts_params *p, int d)
{
	double depth = (double)d, mx = (double)p->gen_mx;

	switch (p->shape) {
	case UTS_EXPDEC:
		return p->b0 * pow(depth, -log(p->b0) / log(mx));
	case UTS_CYCLIC:
		if (depth > 5.0 * mx)
			return 0.0;
		return pow(p->b0, sin(2.0 * 3.141592653589793 * depth / mx));
	case UTS_FIXED:
		return d < p->gen_mx ? p->b0 : 0.0;
	case UTS_LINEAR:
	default:
		return p->b0 * (1.0 - depth / mx);
	}
}

/* Children of a geometric node: the inverse of the geometric distribution
 * whose mean is the shape's branching factor at the node's depth. */
static int geo_children(const uts_params *p, const uts_node *n)
{
	double b = n->height > 0 ? geo_mean(p, n->height) : p->b0;
	double prob, u, k;

	if (b <= 0.0)
		return 0;       /* log(1 - p) is -inf: no children */
	prob = 1.0 / (1.0 + b);
	u = node_prob(n);
	k = floor(log(1.0 - u) / log(1.0 - prob));
	return k > (double)UTS_MAX_CHILDREN ? UTS_MAX_CHILDREN : (int)k;
}

/* Children of a binomial node: floor(b0) at the root, else m with
 * probability q and none otherwise. */
static int bin_children(const uts_params *p, const uts_node *n)
{
	if (n->height == 0)
		return (int)floor(p->b0);
	if (node_prob(n) < p->q)
		return p->m > UTS_MAX_CHILDREN ? UTS_MAX_CHILDREN : p->m;
	return 0;
}

/* Number of children of node n of tree p. */
int uts_num_children(const uts_params *p, const uts_node *n)
{
	return p->type == UTS_BIN ? bin_children(p, n) : geo_children(p, n);
}

/* Nodes in the subtree rooted at n, by serial depth-first recursion. */
uint64_t uts_count_serial(const uts_params *p, const uts_node *n)
{
	int i, k = uts_num_children(p, n);
	uint64_t count = 1;
	uts_node child;

	for (i = 0; i < k; i++) {
		uts_child(p, n, i, &child);
		count += uts_count_serial(p, &child);
	}
	return count;
}

/* Nonzero when nodes is the expected node count of tree p. */
int uts_check(const uts_params *p, uint64_t nodes)
{
	return p->nodes == nodes;
}

/* ------------------------------------------------------------------------
 * Deep stacks for the OpenMP and TBB versions.
 */

/* What uts_call_on_stack hands to its thread. */
struct stack_call {
	void (*fn)(void *);
	void *arg;
};

/* The thread of uts_call_on_stack: make the call. */
static void *stack_call_main(void *p)
{
	struct stack_call *c = p;

	c->fn(c->arg);
	return NULL;
}

/* Run fn(arg) on a thread with a stack of stack_bytes and wait for it. */
int uts_call_on_stack(void (*fn)(void *), void *arg, size_t stack_bytes)
{
	struct stack_call c = { fn, arg };
	pthread_attr_t attr;
	pthread_t t;
	int err;

	err = pthread_attr_init(&attr);
	if (err == 0)
		err = pthread_attr_setstacksize(&attr, stack_bytes);
	if (err == 0)
		err = pthread_setattr_default_np(&attr);
	if (err == 0)
		err = pthread_create(&t, &attr, stack_call_main, &c);
	pthread_attr_destroy(&attr);
	if (err == 0)
		err = pthread_join(t, NULL);
	if (err != 0) {
		fprintf(stderr, "uts: cannot run on a %zu-byte stack: %s\n",
		        stack_bytes, strerror(err));
		return -1;
	}
	return 0;
}

/* Parse "TREE [--serial] [--workers N]" for program prog. */
const uts_params *uts_parse_args(const char *prog, int argc, char **argv,
                                 struct job_common *c, const char **name)
{
	const uts_params *p = NULL;
	char usage[128];

	snprintf(usage, sizeof(usage), "TREE [--serial] [--workers N]  (TREE: %s)",
	         uts_tree_names());
	argc = job_parse_common(prog, usage, argc, argv, c);
	if (argc != 2 || (p = uts_find(argv[1])) == NULL)
		job_usage(prog, usage);
	*name = argv[1];
	return p;
}
