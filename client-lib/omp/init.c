/*
 * init.c - starting the OpenMP layer: the environment at load time, the
 * hosted runtime and the calling thread's state on first use, the fork
 * child's fresh start, and the layer's two ways to give up (an entry point
 * it does not provide; a broken invariant).
 *
 * The runtime starts lazily, at the first entry point that needs a thread
 * state (a parallel region, a task, an omp_* query about teams): a program
 * that never enters OpenMP code never joins the daemon.  Its slots are
 * the CPUs the process may run on (omp_g.nprocs), or ASTEAL_WORKERS.
 */
#include "layer.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__thread struct omp_thr *omp_self __attribute__((tls_model("initial-exec")));
struct runtime *omp_rt;

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int started;
static int next_index;

/* Read the environment as the library loads (OMP_DISPLAY_ENV prints then). */
__attribute__((constructor)) static void omp_load(void)
{
	omp_env_init();
}

/* Say the layer cannot run this program further and exit. */
void omp_unsupported(const char *entry, const char *what)
{
	fprintf(stderr, "asteal: OpenMP: %s: %s is not supported by asteal's "
	        "libgomp layer (run with the system's libgomp: asteal run "
	        "--omp system)\n", entry, what);
	fflush(stderr);
	_exit(1);
}

/* A broken invariant of the layer: say what and abort. */
void omp_fatal(const char *fmt, ...)
{
	va_list ap;

	fputs("asteal: OpenMP layer: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* Stop the link thread at exit, so that the summary (ASTEAL_STATS) and the
 * trace are written and the daemon hears the job end. */
static void omp_exit(void)
{
	if (omp_rt != NULL && getpid() == (pid_t)atomic_load(&started))
		runtime_hosted_stop(omp_rt);
}

/* A forked child has none of its parent's threads: it starts afresh. */
static void omp_fork_child(void)
{
	omp_rt = NULL;
	atomic_store(&started, 0);
	pthread_mutex_init(&init_lock, NULL);
	next_index = 1;
	omp_self = NULL;
	omp_slot_fork_child();
	omp_team_fork_child();
}

/* Start the hosted runtime (once per process). */
static void omp_start(void)
{
	const char *w = getenv("ASTEAL_WORKERS");
	int n = omp_g.nprocs > 0 ? omp_g.nprocs : 1;
	struct runtime *rt;

	if (w != NULL && *w != '\0') {
		char *end;
		long v = strtol(w, &end, 10);
		if (*end == '\0' && v >= 1 && v <= RT_MAX_WORKERS)
			n = (int)v;
		else
			fprintf(stderr, "asteal: ASTEAL_WORKERS=%s: expected a number "
			        "from 1 to %d\n", w, RT_MAX_WORKERS);
	}
	rt = runtime_hosted_start(n, omp_slot_allot);
	if (rt == NULL)
		omp_fatal("cannot start the runtime: %s", strerror(errno));
	omp_rt = rt;
	atexit(omp_exit);
	pthread_atfork(NULL, NULL, omp_fork_child);
}

/* A new thread state: the pool's threads get theirs from pool.c, any other
 * thread (the initial one, or one the program made) here. */
static struct omp_thr *thr_new(void)
{
	struct omp_thr *t = calloc(1, sizeof(*t));

	if (t == NULL)
		omp_fatal("out of memory for a thread's state");
	pthread_mutex_lock(&init_lock);
	t->index = next_index++;
	pthread_mutex_unlock(&init_lock);
	t->pt = pthread_self();
	t->cpu = -1;
	t->last_slot = -1;
	t->limit = OMP_READY_LIMIT;
	t->rng = 0x9E3779B97F4A7C15ULL * (uint64_t)(t->index + 1);
	t->num_teams = 1;
	t->root.kind = OMP_TASK_IMPLICIT;
	t->root.icv = &omp_g.icv;
	t->task = &t->root;
	return t;
}

/* The calling thread's state, made now (the layer started first if need
 * be). */
struct omp_thr *omp_thr_first(void)
{
	struct omp_thr *t;

	if (atomic_load(&started) != (int)getpid()) {
		pthread_mutex_lock(&init_lock);
		if (atomic_load(&started) != (int)getpid()) {
			if (next_index == 0)
				next_index = 1;
			pthread_mutex_unlock(&init_lock);
			omp_start();
			pthread_mutex_lock(&init_lock);
			atomic_store(&started, (int)getpid());
		}
		pthread_mutex_unlock(&init_lock);
	}
	t = thr_new();
	omp_self = t;
	return t;
}

/* A pool thread's state (pool.c makes the thread). */
struct omp_thr *omp_thr_new_pool(void);
struct omp_thr *omp_thr_new_pool(void)
{
	return thr_new();
}
