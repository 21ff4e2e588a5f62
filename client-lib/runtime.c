/*
 * runtime.c - libasteal's public entry points: options and environment,
 * starting and stopping the process's runtime, root tasks, statistics, and
 * the report of a fiber stack overflow.
 */
#include "runtime.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "allot.h"
#include "quantum.h"
#include "qtime.h"
#include "quantum.h"
#include "summary.h"
#include "worker.h"

#define ALTSTACK_SIZE (64 * 1024)

static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static struct runtime *_Atomic the_rt;

static struct sigaction old_segv;
static int segv_installed;
static char overflow_msg[200];
static size_t overflow_len;

/* Fill *o with the defaults. */
void asteal_options_init(asteal_options *o)
{
	o->workers = 0;
	o->stack_size = 0;
	o->ready_limit = -1;
}

/* Parse "123", "64K", "16M" or "1G" into bytes; -1 on anything else. */
static int parse_size(const char *s, unsigned long long *out)
{
	char *end;
	unsigned long long v;

	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return -1;
	switch (*end) {
	case 'K': case 'k': v <<= 10; end++; break;
	case 'M': case 'm': v <<= 20; end++; break;
	case 'G': case 'g': v <<= 30; end++; break;
	default: break;
	}
	if (*end != '\0')
		return -1;
	*out = v;
	return 0;
}

/* Read an environment variable as a number in [min, max]; 1 when set and
 * valid, 0 when unset, -1 (with a message) when invalid. */
static int env_number(const char *name, unsigned long long min,
                      unsigned long long max, unsigned long long *out)
{
	const char *s = getenv(name);

	if (s == NULL || *s == '\0')
		return 0;
	if (parse_size(s, out) < 0 || *out < min || *out > max) {
		fprintf(stderr, "asteal: %s=%s: expected a number from %llu to %llu\n",
		        name, s, min, max);
		errno = EINVAL;
		return -1;
	}
	return 1;
}

/* Resolve options and environment into the runtime's settings. */
static int resolve_options(const asteal_options *o, int *workers,
                           size_t *stack, int64_t *limit)
{
	unsigned long long v;
	int r;
	long cpus;

	*workers = o->workers;
	if (*workers < 0 || *workers > RT_MAX_WORKERS)
		return worker_report_misuse("asteal_start", "workers must be from 1 "
		                            "to 1024", EINVAL);
	if (*workers == 0) {
		r = env_number("ASTEAL_WORKERS", 1, RT_MAX_WORKERS, &v);
		if (r < 0)
			return -1;
		cpus = sysconf(_SC_NPROCESSORS_ONLN);
		*workers = r > 0 ? (int)v : (cpus > 0 ? (int)cpus : 1);
		if (*workers > RT_MAX_WORKERS)
			*workers = RT_MAX_WORKERS;
	}
	*stack = o->stack_size;
	if (*stack == 0) {
		r = env_number("ASTEAL_STACK_SIZE", 64 << 10, 1ull << 32, &v);
		if (r < 0)
			return -1;
		*stack = r > 0 ? (size_t)v : RT_DEFAULT_STACK;
	} else if (*stack < (64 << 10)) {
		return worker_report_misuse("asteal_start", "stack_size must be at "
		                            "least 64 KiB", EINVAL);
	}
	r = o->ready_limit;
	if (r < 0) {
		int e = env_number("ASTEAL_READY_LIMIT", 0, 1 << 20, &v);
		if (e < 0)
			return -1;
		r = e > 0 ? (int)v : RT_DEFAULT_READY_LIMIT;
	}
	*limit = r == 0 ? INT64_MAX : r;
	return 0;
}

/* SIGSEGV: say so when a fiber ran into its guard page, then let the
 * previous disposition (usually: die with SIGSEGV) take the fault. */
static void segv_handler(int sig, siginfo_t *si, void *uc)
{
	struct worker *w = worker_self();

	if (w != NULL && fiber_guard_hit(w->cur, si->si_addr)) {
		ssize_t n = write(STDERR_FILENO, overflow_msg, overflow_len);
		(void)n;
	}
	if ((old_segv.sa_flags & SA_SIGINFO) && old_segv.sa_sigaction != NULL) {
		old_segv.sa_sigaction(sig, si, uc);
		return;
	}
	if (old_segv.sa_handler == SIG_DFL || old_segv.sa_handler == SIG_IGN) {
		signal(SIGSEGV, SIG_DFL);   /* the fault repeats and kills us */
		return;
	}
	old_segv.sa_handler(sig);
}

/* Install the overflow reporter once per process. */
static void install_segv(size_t stack)
{
	struct sigaction sa;

	overflow_len = (size_t)snprintf(overflow_msg, sizeof(overflow_msg),
	    "asteal: fiber stack overflow: a task used more than its %zu KiB "
	    "stack (guard page hit); raise ASTEAL_STACK_SIZE\n", stack >> 10);
	if (overflow_len >= sizeof(overflow_msg))
		overflow_len = sizeof(overflow_msg) - 1;
	if (segv_installed)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = segv_handler;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, &old_segv) == 0)
		segv_installed = 1;
}

/* Free everything a (possibly half-built) runtime holds. */
static void rt_free(struct runtime *rt)
{
	int i, n = atomic_load(&rt->ndeques);
	fiber *f, *next;

	for (i = 0; i < rt->nworkers; i++) {
		struct worker *w = &rt->workers[i];
		for (f = w->pool; f != NULL; f = next) {
			next = f->next;
			fiber_destroy(f);
		}
		if (w->cur != NULL && w->cur != &w->native)
			fiber_destroy(w->cur);
		if (w->altstack != NULL)
			munmap(w->altstack, ALTSTACK_SIZE);
	}
	for (f = rt->free_fibers; f != NULL; f = next) {
		next = f->next;
		fiber_destroy(f);
	}
	for (i = 0; i < n; i++)
		dq_destroy(rt->deques[i]);
	free(rt->deques);
	free(rt->workers);
	free(rt->latency);
	quantum_page_free(rt);
	quantum_free(rt);
	pthread_mutex_destroy(&rt->lock);
	pthread_mutex_destroy(&rt->park_lock);
	pthread_mutex_destroy(&rt->page_apply);
	free(rt);
}

/* Allocate the runtime, its deques, first fibers and workers (no threads;
 * hosted: slots, without fibers or signal stacks). */
static struct runtime *rt_create(int nworkers, size_t stack, int64_t limit,
                                 int hosted)
{
	struct runtime *rt = calloc(1, sizeof(*rt));
	uint64_t now;
	int i;

	if (rt == NULL)
		return NULL;
	pthread_mutex_init(&rt->lock, NULL);
	pthread_mutex_init(&rt->park_lock, NULL);
	pthread_mutex_init(&rt->page_apply, NULL);
	rt->page_wake = -1;
	rt->released_fd = -1;           /* quantum_config makes them */
	rt->roots_fd = -1;
	rt->hosted = hosted;
	rt->stack_size = stack;
	rt->ready_limit = limit;
	rt->deques = calloc(RT_MAX_DEQUES, sizeof(deque *));
	rt->workers = alloc_cl(sizeof(struct worker) * (size_t)nworkers);
	if (rt->deques == NULL || rt->workers == NULL || quantum_page_init(rt) < 0) {
		free(rt->deques);
		free(rt->workers);
		quantum_page_free(rt);
		free(rt);
		return NULL;
	}
	rt->nworkers = nworkers;
	for (i = 0; i < nworkers; i++) {
		struct worker *w = &rt->workers[i];
		deque *d = dq_create(RT_DEQUE_LOG_SIZE);
		if (d != NULL) {
			d->index = i;
			atomic_store(&d->state, DQ_OWNED);
			atomic_store(&d->owner, (void *)w);
			rt->deques[i] = d;
			atomic_store(&rt->ndeques, i + 1);
		}
		w->rt = rt;
		w->id = i;
		w->hot.id = (uint32_t)i;
		w->hot.dq = d != NULL ? &d->ends : NULL;
		atomic_store(&w->victim, d);
		w->limit = limit;
		atomic_store(&w->stocked, &w->stocked_init);
		w->stop_word = &asteal__no_stop;
		w->rng = 0x9E3779B97F4A7C15ULL * (uint64_t)(i + 1);
		w->cpu = -1;
		w->leave_ev = -1;
		if (!hosted) {
			w->cur = worker_fiber_new(rt);
			w->altstack = mmap(NULL, ALTSTACK_SIZE, PROT_READ | PROT_WRITE,
			                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (w->altstack == MAP_FAILED)
				w->altstack = NULL;
		}
		if (d == NULL || (!hosted && w->cur == NULL)) {
			rt_free(rt);
			return NULL;
		}
	}
	if (quantum_config(rt) < 0) {
		int e = errno;
		rt_free(rt);
		errno = e;
		return NULL;
	}
	/* Every worker's time counts from now: one in the first allotment
	 * is allotted even before its thread first runs (that wait is
	 * preempted time, as when the kernel keeps it off its processor); the
	 * others start parked, told to leave (no revocation), and are allotted
	 * from the moment an allotment recalls them. */
	now = qtime_now_ns();
	for (i = 0; i < nworkers; i++)
		usage_init(&rt->workers[i].usage, now,
		           i < rt->allotment ? WS_STEAL : WS_PARK);
	for (i = rt->allotment; i < nworkers; i++) {
		usage_leave(&rt->workers[i].usage, now);
		atomic_store(&rt->workers[i].hot.flags, RT_LEAVE);
		rt->workers[i].parked = hosted;   /* a slot nobody holds */
	}
	return rt;
}

/* Start the process's runtime. */
int asteal_start(const asteal_options *o)
{
	asteal_options defaults;
	struct runtime *rt;
	int nworkers, i, err = 0;
	size_t stack = 0;
	int64_t limit = 0;

	if (o == NULL) {
		asteal_options_init(&defaults);
		o = &defaults;
	}
	pthread_mutex_lock(&start_lock);
	if (atomic_load(&the_rt) != NULL) {
		pthread_mutex_unlock(&start_lock);
		return worker_report_misuse("asteal_start", "a runtime is already "
		                            "running in this process", EALREADY);
	}
	if (resolve_options(o, &nworkers, &stack, &limit) < 0) {
		pthread_mutex_unlock(&start_lock);
		return -1;
	}
	errno = ENOMEM;
	rt = rt_create(nworkers, stack, limit, 0);
	if (rt == NULL) {
		pthread_mutex_unlock(&start_lock);
		return -1;
	}
	install_segv(stack);
	for (i = 0; i < nworkers; i++) {
		err = pthread_create(&rt->workers[i].thread, NULL, worker_main,
		                     &rt->workers[i]);
		if (err != 0)
			break;
		usage_attach(&rt->workers[i].usage, rt->workers[i].thread);
	}
	if (i == nworkers && quantum_start(rt) < 0)
		err = errno;
	if (i < nworkers || err != 0) {
		worker_allot(rt, nworkers, NULL, qtime_now_ns(), RT_NO_TAG);
		atomic_store(&rt->stopping, 1);
		worker_wake_all(rt);
		while (i-- > 0)
			pthread_join(rt->workers[i].thread, NULL);
		rt_free(rt);
		pthread_mutex_unlock(&start_lock);
		errno = err;
		return -1;
	}
	atomic_store(&the_rt, rt);
	pthread_mutex_unlock(&start_lock);
	return 0;
}

static int rt_stats(struct runtime *rt, asteal_worker_stats *out, int n);

/* ASTEAL_STATS=1: one line per worker on stderr, as the runtime stops. */
static void print_stats(struct runtime *rt)
{
	const char *e = getenv("ASTEAL_STATS");
	asteal_worker_stats st[RT_MAX_WORKERS];
	int i, n;

	if (e == NULL || *e == '\0' || strcmp(e, "0") == 0)
		return;
	n = rt_stats(rt, st, RT_MAX_WORKERS);
	fprintf(stderr, "asteal: worker    tasks   pushed   steals/attempts    stolen  "
	        "suspends  sleeps  work_s  steal_s  sleep_s  preempt_s  leave_s\n");
	for (i = 0; i < n; i++)
		fprintf(stderr, "asteal: %6d %8llu %8llu %8llu/%-8llu %8llu %8llu %7llu "
		        "%7.3f %8.3f %8.3f %10.3f %8.3f\n",
		        i, (unsigned long long)st[i].tasks,
		        (unsigned long long)st[i].pushed,
		        (unsigned long long)st[i].steals,
		        (unsigned long long)st[i].steal_attempts,
		        (unsigned long long)st[i].stolen,
		        (unsigned long long)st[i].suspends,
		        (unsigned long long)st[i].sleeps, st[i].work_ns * 1e-9,
		        st[i].steal_ns * 1e-9, st[i].sleep_ns * 1e-9,
		        st[i].preempted_ns * 1e-9, st[i].leave_ns * 1e-9);
}

/* Stop the runtime and free its threads and memory. */
int asteal_stop(void)
{
	struct runtime *rt;
	int i;

	if (worker_self() != NULL)
		return worker_report_misuse("asteal_stop", "called from inside a "
		                            "task", EBUSY);
	pthread_mutex_lock(&start_lock);
	rt = atomic_load(&the_rt);
	if (rt == NULL) {
		pthread_mutex_unlock(&start_lock);
		return worker_report_misuse("asteal_stop", "no runtime is running",
		                            ESRCH);
	}
	if (atomic_load(&rt->running_roots) > 0) {
		pthread_mutex_unlock(&start_lock);
		return worker_report_misuse("asteal_stop", "tasks are still running "
		                            "(an asteal_run has not returned)", EBUSY);
	}
	quantum_stop(rt);
	print_stats(rt);
	summary_print(rt);
	atomic_store(&rt->stopping, 1);
	worker_wake_all(rt);
	for (i = 0; i < rt->nworkers; i++)
		pthread_join(rt->workers[i].thread, NULL);
	atomic_store(&the_rt, NULL);
	rt_free(rt);
	pthread_mutex_unlock(&start_lock);
	return 0;
}

/* Run fn(arg) as a root task and wait for it. */
int asteal_run(void (*fn)(void *), void *arg)
{
	struct runtime *rt;
	struct root r;
	int first = 0;

	if (fn == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (worker_self() != NULL) {
		fn(arg);
		return 0;
	}
	pthread_mutex_lock(&start_lock);
	rt = atomic_load(&the_rt);
	if (rt != NULL)
		first = atomic_fetch_add(&rt->running_roots, 1) == 0;
	pthread_mutex_unlock(&start_lock);
	if (rt == NULL)
		return worker_report_misuse("asteal_run", "no runtime is running "
		                            "(call asteal_start first)", ESRCH);
	memset(&r, 0, sizeof(r));
	asteal_group_init(&r.g);
	r.g.state = GROUP_ROOT;
	r.fn = fn;
	r.arg = arg;
	pthread_mutex_lock(&rt->lock);
	r.next = rt->roots;
	rt->roots = &r;
	atomic_fetch_add(&rt->nroots, 1);
	pthread_mutex_unlock(&rt->lock);
	worker_notify(rt);
	if (first)      /* the job had nothing to run: it wants a processor */
		quantum_root_started(rt);
	while (atomic_load_explicit(&r.done, memory_order_acquire) == 0)
		syscall(SYS_futex, (uint32_t *)&r.done, FUTEX_WAIT_PRIVATE, 0,
		        NULL, NULL, 0);
	return 0;       /* running_roots went down as the root ended (complete) */
}

/* Number of workers of the running runtime. */
int asteal_workers(void)
{
	struct runtime *rt = atomic_load(&the_rt);

	return rt != NULL ? rt->nworkers : 0;
}

/* Index of the calling worker, -1 outside tasks. */
int asteal_worker_id(void)
{
	struct worker *w = worker_self();

	return w != NULL ? w->id : -1;
}

/* Copy up to n workers' statistics into out. */
int asteal_stats(asteal_worker_stats *out, int n)
{
	return rt_stats(atomic_load(&the_rt), out, n);
}

/* Copy up to n of rt's workers' statistics into out. */
static int rt_stats(struct runtime *rt, asteal_worker_stats *out, int n)
{
	uint64_t now = qtime_now_ns();
	int i;

	if (rt == NULL || out == NULL)
		return 0;
	if (n > rt->nworkers)
		n = rt->nworkers;
	for (i = 0; i < n; i++) {
		struct worker *w = &rt->workers[i];
		struct wstats *s = &w->st;
		struct usage_times base, t;
		struct usage_sum u = { 0 };
		int k;

		usage_read(&w->usage, now, &t);
		for (k = 0; k < WS_COUNT; k++) {
			base.wall[k] = atomic_load_explicit(&s->base_wall[k],
			                                    memory_order_relaxed);
			base.cpu[k] = atomic_load_explicit(&s->base_cpu[k],
			                                   memory_order_relaxed);
		}
		usage_sum_add(&u, &base, &t);
		out[i].tasks = atomic_load_explicit(&s->tasks, memory_order_relaxed);
		out[i].pushed = atomic_load_explicit(&s->pushed, memory_order_relaxed);
		out[i].steal_attempts = atomic_load_explicit(&s->steal_attempts,
		                                             memory_order_relaxed);
		out[i].steals = atomic_load_explicit(&s->steals, memory_order_relaxed);
		out[i].stolen = atomic_load_explicit(&s->stolen, memory_order_relaxed);
		out[i].suspends = atomic_load_explicit(&s->suspends, memory_order_relaxed);
		out[i].sleeps = atomic_load_explicit(&s->sleeps, memory_order_relaxed);
		out[i].mugs = atomic_load_explicit(&s->mugs, memory_order_relaxed);
		out[i].leaves = atomic_load_explicit(&s->leaves, memory_order_relaxed);
		out[i].work_ns = u.work;
		out[i].steal_ns = u.steal;
		out[i].sleep_ns = u.sleep;
		out[i].mug_ns = u.mug;
		out[i].park_ns = u.park;
		out[i].preempted_ns = u.preempted;
		out[i].leave_ns = u.leave;
	}
	return n;
}

/* Zero every worker's statistics (the time counters keep growing for the
 * quantum accounting; their zero moves instead). */
void asteal_stats_reset(void)
{
	struct runtime *rt = atomic_load(&the_rt);
	uint64_t now = qtime_now_ns();
	int i, k;

	if (rt == NULL)
		return;
	for (i = 0; i < rt->nworkers; i++) {
		struct worker *w = &rt->workers[i];
		struct wstats *s = &w->st;
		struct usage_times t;
		atomic_store(&s->tasks, 0);
		atomic_store(&s->pushed, 0);
		atomic_store(&s->steal_attempts, 0);
		atomic_store(&s->steals, 0);
		atomic_store(&s->stolen, 0);
		atomic_store(&s->suspends, 0);
		atomic_store(&s->sleeps, 0);
		atomic_store(&s->mugs, 0);
		atomic_store(&s->leaves, 0);
		usage_read(&w->usage, now, &t);
		for (k = 0; k < WS_COUNT; k++) {
			atomic_store(&s->base_wall[k], t.wall[k]);
			atomic_store(&s->base_cpu[k], t.cpu[k]);
		}
	}
}

/* Fill *s with the job's adaptive scheduling summary. */
int asteal_summary_get(asteal_summary *s)
{
	struct runtime *rt;

	if (s == NULL) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&start_lock);
	rt = atomic_load(&the_rt);
	if (rt == NULL) {
		pthread_mutex_unlock(&start_lock);
		errno = ESRCH;
		return -1;
	}
	summary_fill(rt, s);
	pthread_mutex_unlock(&start_lock);
	return 0;
}

/* Start a hosted runtime of n slots: its link thread, and the program as
 * its one root task, in flight until the runtime stops (so the job is
 * never idle: d_1 = 1 at once). */
struct runtime *runtime_hosted_start(int n, void (*hook)(struct runtime *rt))
{
	struct runtime *rt;
	int e;

	if (n < 1)
		n = 1;
	if (n > RT_MAX_WORKERS)
		n = RT_MAX_WORKERS;
	errno = ENOMEM;
	rt = rt_create(n, RT_DEFAULT_STACK, RT_DEFAULT_READY_LIMIT, 1);
	if (rt == NULL)
		return NULL;
	rt->allot_hook = hook;
	atomic_store(&rt->running_roots, 1);
	if (quantum_start(rt) < 0) {
		e = errno;
		rt_free(rt);
		errno = e;
		return NULL;
	}
	quantum_root_started(rt);
	return rt;
}

/* Stop a hosted runtime: the link thread says goodbye and the summary is
 * printed (ASTEAL_STATS); its memory stays, as the layer's threads may
 * still read their slots until the process ends. */
void runtime_hosted_stop(struct runtime *rt)
{
	quantum_stop(rt);
	print_stats(rt);
	summary_print(rt);
}
