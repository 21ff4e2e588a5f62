/*
 * summary.c - the job's summary (summary.h, asteal_summary in asteal.h):
 * the mode and the workers, the quanta's totals from the link thread
 * (quantum_totals, quantum.c: usage, mean allotment, classes, the desire
 * and allotment now), or in static mode, with no quanta, the workers' own
 * totals; mugs and leaves from the workers' counters; and the percentiles
 * of the revocation latencies allot.c measured.  asteal_summary_get
 * returns it; ASTEAL_STATS=1 prints it on one line as the runtime stops.
 */
#include "summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qtime.h"
#include "quantum.h"
#include "settings.h"
#include "search.h"

/* The summary's usage fields from a sum. */
static void summary_usage(asteal_summary *s, const struct usage_sum *u)
{
	s->work_ns = u->work;
	s->steal_ns = u->steal;
	s->mug_ns = u->mug;
	s->sleep_ns = u->sleep;
	s->preempted_ns = u->preempted;
	s->leave_ns = u->leave;
	s->allotted_ns = u->allotted;
}

/* Fill the job-wide summary. */
void summary_fill(struct runtime *rt, asteal_summary *s)
{
	struct quantum_totals t;
	uint64_t *lat = NULL;
	size_t n;
	int i;

	memset(s, 0, sizeof(*s));
	s->mode = settings_mode_name(rt->mode);
	s->workers = rt->nworkers;
	for (i = 0; i < rt->nworkers; i++) {
		s->mugs += atomic_load(&rt->workers[i].st.mugs);
		s->leaves += atomic_load(&rt->workers[i].st.leaves);
	}
	if (quantum_totals(rt, &t) == 0) {
		s->quanta = t.quanta;
		s->skipped = t.skipped;
		s->mean_allotment = t.quanta ? (double)t.sum_allotment / t.quanta : 0;
		summary_usage(s, &t.total);
		s->desire = t.desire;
		s->allotment = t.allotment;
		s->job_id = t.job_id;
		s->inefficient = t.classes[EST_INEFFICIENT];
		s->satisfied = t.classes[EST_EFFICIENT_SATISFIED];
		s->deprived = t.classes[EST_EFFICIENT_DEPRIVED];
	} else {                /* static: no quanta, the workers' totals */
		struct usage_sum u = { 0 };
		struct usage_times zero = { { 0 }, { 0 } }, now_t;
		uint64_t now = qtime_now_ns();
		for (i = 0; i < rt->nworkers; i++) {
			usage_read(&rt->workers[i].usage, now, &now_t);
			usage_sum_add(&u, &zero, &now_t);
		}
		summary_usage(s, &u);
		s->allotment = rt->nworkers;
		s->mean_allotment = rt->nworkers;
		s->desire = rt->nworkers;
	}
	pthread_mutex_lock(&rt->park_lock);
	n = rt->nlatency;
	if (n > 0 && (lat = malloc(n * sizeof(*lat))) != NULL)
		memcpy(lat, rt->latency, n * sizeof(*lat));
	pthread_mutex_unlock(&rt->park_lock);
	if (lat != NULL) {
		qsort(lat, n, sizeof(*lat), search_cmp_u64);
		s->revocations = n;
		s->latency_p50_ns = lat[(n - 1) / 2];
		s->latency_p99_ns = lat[(size_t)ceil(0.99 * (double)n) - 1];
		s->latency_max_ns = lat[n - 1];
		free(lat);
	}
}

/* Print the summary when ASTEAL_STATS asks for it. */
void summary_print(struct runtime *rt)
{
	asteal_summary s;
	const char *e = getenv("ASTEAL_STATS");

	if (e == NULL || *e == '\0' || strcmp(e, "0") == 0)
		return;
	summary_fill(rt, &s);
	fprintf(stderr, "asteal: mode=%s workers=%d quanta=%llu idle=%llu "
	        "mean_allotment=%.2f "
	        "work_s=%.3f waste=%.1f%% (steal %.3f s, sleep %.3f s, mug %.3f s) "
	        "preempted_s=%.3f leave_s=%.3f mugs=%llu "
	        "revocations=%llu latency_us p50=%.1f p99=%.1f max=%.1f "
	        "skipped=%llu\n",
	        s.mode, s.workers, (unsigned long long)s.quanta,
	        (unsigned long long)(s.quanta - s.inefficient - s.satisfied -
	                             s.deprived), s.mean_allotment,
	        s.work_ns * 1e-9,
	        s.work_ns ? 100.0 * (double)(s.steal_ns + s.sleep_ns + s.mug_ns) /
	                    (double)s.work_ns : 0.0,
	        s.steal_ns * 1e-9, s.sleep_ns * 1e-9, s.mug_ns * 1e-9,
	        s.preempted_ns * 1e-9, s.leave_ns * 1e-9, (unsigned long long)s.mugs,
	        (unsigned long long)s.revocations, s.latency_p50_ns * 1e-3,
	        s.latency_p99_ns * 1e-3, s.latency_max_ns * 1e-3,
	        (unsigned long long)s.skipped);
}
