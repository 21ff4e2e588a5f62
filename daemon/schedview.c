/*
 * schedview.c - what the command line sees of asteald's job scheduler and
 * does to it (see scheduler.h): the Status and Jobs replies, the owner of
 * a running job, Cancel, the counts of jobs and clients.  The design is
 * described at the top of scheduler.c and core/core.h; what the scheduler's files share
 * is in scheduler_int.h.
 */
#include "scheduler_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "confine.h"
#include "conn.h"
#include "cpulist.h"
#include "deq.h"
#include "exchange.h"
#include "log.h"
#include "proto.h"
#include "qtime.h"
#include "samples.h"
#include "search.h"

/* Fill a Status reply. */
void sched_status(struct sched *s, Asteal__Status *st)
{
	uint64_t now = qtime_now_ns();

	st->protocol_version = PROTO_VERSION;
	st->cpus = s->cpus_u32;
	st->n_cpus = (size_t)s->P;
	st->quantum_us = (uint32_t)s->conf->quantum_us;
	st->jobs = (uint32_t)core_njobs(s->core);
	st->ticks = s->ticks;
	st->uptime_ns = now - s->started;
	st->clients = (uint32_t)s->clients;
	st->t0_ns = s->t0;
	st->quantum = sched__quantum_now(s, now);
	st->offset_us = (uint32_t)(s->offset / 1000u);
	st->skipped_ticks = s->skipped;
	samples_pct(&s->tick, &st->tick_p50_ns, &st->tick_p99_ns, &st->tick_max_ns);
	samples_pct(&s->deq_time, &st->deq_p50_ns, &st->deq_p99_ns, &st->deq_max_ns);
	samples_pct(&s->wake, &st->wake_p50_ns, &st->wake_p99_ns, &st->wake_max_ns);
	samples_pct(&s->revoke, &st->revoke_p50_ns, &st->revoke_p99_ns,
	            &st->revoke_max_ns);
	st->changes_per_tick = samples_mean(&s->changes);
	st->sends_per_tick = samples_mean(&s->sends);
	st->feedbacks = s->feedbacks;
	st->bad_feedbacks = s->bad;
	st->allots = s->allots;
	st->grants = s->grants;
	st->silent_jobs = (uint32_t)core_nsilent(s->core);
	st->page_jobs = (uint32_t)s->page_jobs;
	st->pages_read = s->pages_read;
	st->pages_torn = s->pages_torn;
	st->page_allot_jobs = (uint32_t)s->page_allot_jobs;
	st->pages_written = s->pages_written;
	st->futex_wakes = s->futex_wakes;
	st->idle_revocations = s->idle_revocations;
	st->socket_jobs = 0;
	for (int i = 0; i < core_njobs(s->core); i++) {
		const struct sched_job *j = sched__job(core_job_at(s->core, i));

		st->socket_jobs += j->conn != NULL && j->page == NULL;
	}
	st->pages_failed = s->pages_failed;
	st->pages_declined = s->pages_declined;
	st->revocations = s->revocations;
	st->handover = (char *)conf_handover_name(s->conf->handover);
	st->share = (char *)conf_share_name(s->conf->share);
	history_health(s->hist, &s->health);    /* kept until the reply is sent */
	st->history_state = s->health.state;
	st->history_pending = (uint64_t)s->health.pending;
	st->history_dropped = (uint64_t)s->health.dropped;
	st->confine = (char *)conf_confine_name(s->confine != NULL
	                                        ? s->confine_mode : CONF_CONFINE_OFF);
	st->confine_how = (char *)(s->confine != NULL ? confine_how(s->confine) : "");
	if (s->confine != NULL) {
		int n = confine_others(s->confine, s->others, s->P);

		st->cpu_others = s->others;
		st->n_cpu_others = n > 0 ? (size_t)n : 0;
	}
}

/* Whether ids[i] sorts before the id at key. */
static int id_below(const void *arr, size_t i, const void *key)
{
	return ((const uint64_t *)arr)[i] < *(const uint64_t *)key;
}

/* Whether id is among ids, sorted (all when n == 0). */
int sched_id_wanted(uint64_t id, const uint64_t *ids, size_t n)
{
	size_t at;

	if (n == 0)
		return 1;
	at = search_first(ids, n, &id, id_below);
	return at < n && ids[at] == id;
}

/* A JobInfo with its identity filled (the strings borrowed), its Usage
 * (zeros) and room for ncpus CPU ids after it, freed with free(); NULL
 * when out of memory. */
Asteal__JobInfo *sched_info_new(uint64_t id, const char *name, uid_t uid,
                                pid_t pid, const char *command,
                                uint64_t start_ns, size_t ncpus)
{
	Asteal__JobInfo *ji = calloc(1, sizeof(*ji) + sizeof(Asteal__Usage) +
	                                ncpus * sizeof(uint32_t));

	if (ji == NULL)
		return NULL;
	asteal__job_info__init(ji);
	ji->id = id;
	ji->name = (char *)name;
	ji->uid = (uint32_t)uid;
	ji->pid = pid;
	ji->command = (char *)command;
	ji->start_ns = start_ns;
	ji->usage = (Asteal__Usage *)(ji + 1);
	asteal__usage__init(ji->usage);
	ji->cpus = (uint32_t *)(ji->usage + 1);
	return ji;
}

/* Fill a Jobs reply. */
int sched_jobs(struct sched *s, const uint64_t *ids, size_t n, Asteal__Jobs *out)
{
	int njobs = core_njobs(s->core);
	size_t k = 0;

	asteal__jobs__init(out);
	if (njobs == 0)
		return 0;
	out->jobs = calloc((size_t)njobs, sizeof(*out->jobs));
	if (out->jobs == NULL)
		return -1;
	for (int i = 0; i < njobs; i++) {
		struct sched_job *j = sched__job(core_job_at(s->core, i));
		const struct deq_job *d = core_deq(s->core, &j->core);
		Asteal__JobInfo *ji;
		struct usage_totals t = j->tot;

		if (!sched_id_wanted(j->core.id, ids, n))
			continue;
		ji = sched_info_new(j->core.id, j->name, j->core.uid, j->pid, j->command,
		                    j->start_ns, CPULIST_MAX);
		if (ji == NULL) {
			out->n_jobs = k;
			sched_jobs_free(out);
			return -1;
		}
		ji->desire = (uint32_t)d->desire;
		ji->allotment = (uint32_t)d->allotment;
		ji->availability = (uint32_t)d->availability;
		ji->n_cpus = (size_t)sched__slot_cpus(s, &d->cpus, ji->cpus);
		/* Since its start: what it used before this connection
		 * (its history's, its time away) and since. */
		for (int u = 0; u < USAGE_N; u++)
			t.ns[u] += j->before.ns[u];
		ji->efficiency = t.ns[USAGE_ALLOTTED] ?
			(double)(t.ns[USAGE_WORK] + t.ns[USAGE_MUG]) /
			(double)t.ns[USAGE_ALLOTTED] : 0;
		exchange_usage_msg(ji->usage, &t);
		ji->workers = (uint32_t)j->workers;
		ji->quantum_class = exchange_class_wire(j->cls);
		ji->cpus_cap = (uint32_t)j->core.cap;
		ji->rigid = j->core.rigid != 0;
		if (j->confined) {
			confine_state(s->confine, j->core.id, j->confstate,
			              sizeof(j->confstate));
			ji->confinement = j->confstate;
			confine_usage(s->confine, j->core.id, &ji->cpu_ns);
		}
		out->jobs[k++] = ji;
	}
	out->n_jobs = k;
	return 0;
}

/* Free what sched_jobs allocated. */
void sched_jobs_free(Asteal__Jobs *out)
{
	size_t i;

	for (i = 0; i < out->n_jobs; i++)
		free(out->jobs[i]);
	free(out->jobs);
	out->jobs = NULL;
	out->n_jobs = 0;
}

/* Whether job id is connected, and its owner. */
int sched_job_owner(const struct sched *s, uint64_t id, uid_t *uid)
{
	const struct sched_job *j = sched__find(s, id);

	if (j == NULL)
		return -1;
	if (uid != NULL)
		*uid = j->core.uid;
	return 0;
}

/* Signal a running job on behalf of uid, never by a bare pid. */
int sched_cancel(struct sched *s, uint64_t id, uid_t uid, int sig,
                 char *why, size_t whylen)
{
	struct sched_job *j = sched__find(s, id);

	if (j == NULL) {
		snprintf(why, whylen, "job %llu: no such running job",
		         (unsigned long long)id);
		return ASTEAL__ERROR_CODE__NOT_FOUND;
	}
	if (uid != 0 && uid != j->core.uid) {
		snprintf(why, whylen, "job %llu: not yours (only its owner or "
		         "root may cancel it)", (unsigned long long)id);
		return ASTEAL__ERROR_CODE__PERMISSION;
	}
	if (j->conn == NULL) {
		snprintf(why, whylen, "job %llu: not connected, and its supervisor "
		         "is gone", (unsigned long long)id);
		return ASTEAL__ERROR_CODE__NOT_FOUND;
	}
	if (conn_signal(j->conn, sig) < 0) {
		if (errno != ESRCH) {
			snprintf(why, whylen, "job %llu: %s", (unsigned long long)id,
			         strerror(errno));
			return ASTEAL__ERROR_CODE__INTERNAL;
		}
		snprintf(why, whylen, "job %llu: its process (pid %d) has exited; "
		         "whatever still holds its connection is not signalled",
		         (unsigned long long)id, (int)j->pid);
		log_warn("job %llu: cancel for uid %d: pid %d has exited, no signal "
		         "sent", (unsigned long long)id, (int)uid, (int)j->pid);
		return ASTEAL__ERROR_CODE__NOT_FOUND;
	}
	log_info("job %llu: signal %d sent for uid %d", (unsigned long long)id,
	         sig, (int)uid);
	return 0;
}

/* Jobs connected now. */
int sched_njobs(const struct sched *s)
{
	return core_njobs(s->core);
}

/* Command-line clients connected now. */
void sched_set_clients(struct sched *s, int clients)
{
	s->clients = clients;
}
