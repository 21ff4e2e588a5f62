/*
 * schedpage.c - the pages asteald shares with its jobs (proto/page.h,
 * daemon/jobpage.c), as the job scheduler uses them: made when a job's
 * Hello asks, passed with its Welcome, dropped when it leaves, declined
 * by a job that cannot use it; and its eventfd, which its last leaving
 * worker signals, read for the revocation that is done, as a Released
 * would say it.  The job's Feedback in the page is read at each tick, and
 * the allotments of a job that reads them there are written into its
 * page (with the futex wakes of the slots they add) instead of sent as
 * Allots, both by schedtick.c.
 *
 * A page job's eventfd is watched for its life (a job may finish a
 * revocation whenever its workers reach a safe point).  What the job
 * signals costs the daemon a read of the eventfd and of the page's parked
 * part: a job that signals for nothing (the same record again) is
 * ignored, and one that writes a bad record is refused as a bad Released
 * is (schedtick.c: an Error, a log line once, dropped beyond a rate).
 * A job signals once per revocation, at most a few times a quantum; one
 * that signals more than PAGE_WAKE_MAX times between two ticks is not
 * watched until the next tick (one log line per job), which watches it
 * again (its signals meanwhile wake the loop once then, and a record
 * written meanwhile is read then): a job signalling in a tight loop cost
 * the daemon, which runs at a real-time priority, a tenth of a CPU taken
 * from the other jobs with the same record, more with a new one each
 * time, each refused (bench/pagehostile.sh).
 *
 * A revocation that takes only slots the job marks idle in its page (no
 * thread of it runs there: the OpenMP layer's free slots and those held
 * by serial code) is done as it is written: no thread of the job may pass
 * a safe point to see it for a long time.  It is told to the core as a
 * Released would be, from the eventfd's callback made active (not from
 * inside the core's delivery, which is under way); the parked record the
 * job writes for it when it applies the allotment later is then no news.
 *
 * A job that cannot use the page its Welcome carried (mapping it failed:
 * a seccomp filter, no memory; a layout it does not know) says so with a
 * PageDeclined: its page is dropped, and what was written there (a grant
 * at its join) goes again as an Allot, as every allotment after it.
 */
#include "scheduler_int.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include <event2/event.h>

#include "fdlater.h"
#include "log.h"
#include "page.h"
#include "qtime.h"

/* Signals a job's eventfd may give between two ticks before it is
 * watched at the next tick only. */
#define PAGE_WAKE_MAX 8

/* A job signalled its eventfd: past PAGE_WAKE_MAX times since the tick,
 * stop watching it until the next. */
static void wake_count(struct sched_job *j)
{
	if (++j->wakes <= PAGE_WAKE_MAX || j->wake_muted)
		return;
	if (event_del(j->wake_ev) < 0)
		return;
	j->wake_muted = 1;
	if (!j->wake_logged) {
		j->wake_logged = 1;
		log_warn("job %llu pid %d: its eventfd signalled more than %d times "
		         "in a quantum: read at ticks only until the next (said "
		         "once per job)", (unsigned long long)j->core.id, (int)j->pid,
		         PAGE_WAKE_MAX);
	}
}

/* At a tick: watch a job's eventfd again if it signalled too often
 * (a count left in it wakes the loop once). */
void sched__page_wake_tick(struct sched_job *j)
{
	if (j->wake_ev == NULL)
		return;
	j->wakes = 0;
	if (j->wake_muted && event_add(j->wake_ev, NULL) == 0)
		j->wake_muted = 0;
}

/* A page job's eventfd is readable: the revocation its page's parked
 * part now records is done. */
static void on_wake(evutil_socket_t fd, short what, void *arg)
{
	struct sched_job *j = arg;
	struct page_parked pp;
	uint64_t n;
	int64_t seq;

	(void)what;
	if (j->idle_pending) {
		j->idle_pending = 0;
		j->sched->idle_revocations++;
		sched_released(j->sched, j, j->idle_q, j->idle_at);
	}
	if (read(fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		return;
	wake_count(j);
	seq = page_parked_read(jobpage_page(j->page), &pp);
	if (seq < 0 || seq == j->parked_seq)
		return;                 /* torn (it signals again) or no news */
	j->parked_seq = seq;
	if (pp.quantum == j->idle_q && j->idle_at != 0)
		return;                 /* done when written (above) */
	sched_released(j->sched, j, pp.quantum, pp.at_ns);
}

/* Make the page a job's Hello asked for. */
void sched__page_make(struct sched *s, struct sched_job *j,
                      const Asteal__Hello *hello)
{
	char why[160];
	int allot = hello->page_allot;

	j->page = jobpage_create(allot, why, sizeof(why));
	if (j->page == NULL) {
		s->pages_failed++;
		log_warn("job %llu '%s': no page, it sends messages: %s",
		         (unsigned long long)j->core.id, j->name, why);
		return;
	}
	j->sched = s;
	j->page_seq = -1;
	j->parked_seq = 0;
	j->page_gen = 0;
	j->page_allotted = 0;
	j->idle_q = j->idle_at = 0;
	j->idle_pending = 0;
	j->wakes = j->wake_muted = j->wake_logged = 0;
	if (allot) {
		j->wake_ev = event_new(s->base, jobpage_wake_fd(j->page),
		                       EV_READ | EV_PERSIST, on_wake, j);
		if (j->wake_ev == NULL || event_add(j->wake_ev, NULL) < 0) {
			log_warn("job %llu '%s': no page, it sends messages: its "
			         "eventfd cannot be watched",
			         (unsigned long long)j->core.id, j->name);
			if (j->wake_ev != NULL)
				event_free(j->wake_ev);
			j->wake_ev = NULL;
			jobpage_free(j->page);
			j->page = NULL;
			s->pages_failed++;
			return;
		}
		s->page_allot_jobs++;
	}
	s->page_jobs++;
}

/* Drop a job's page. */
void sched__page_drop(struct sched *s, struct sched_job *j)
{
	if (j->page == NULL)
		return;
	if (j->wake_ev != NULL) {
		event_free(j->wake_ev);
		j->wake_ev = NULL;
		s->page_allot_jobs--;
		/* Its deletion reaches epoll at the loop's next dispatch (the
		 * changelist): its number stays taken until then. */
		fdlater_close(s->base, jobpage_take_wake(j->page));
	}
	jobpage_free(j->page);
	j->page = NULL;
	s->page_jobs--;
}

/* The page's descriptors, for the Welcome. */
int sched_job_page_fds(const struct sched_job *j, int fds[2])
{
	return j->page != NULL ? jobpage_fds(j->page, fds) : 0;
}

/* The Welcome went with the page, or without it. */
void sched_job_page_sent(struct sched *s, struct sched_job *j, int sent)
{
	if (j->page == NULL)
		return;
	if (sent) {
		jobpage_sent(j->page);
	} else {
		sched__page_drop(s, j);
		s->pages_failed++;
	}
}

/* The job cannot use the page its Welcome carried. */
int sched_job_page_declined(struct sched *s, struct sched_job *j,
                            const char *why)
{
	struct core_allot ca;
	int written;

	if (j->page == NULL)
		return 0;               /* none (or declined already) */
	written = j->page_gen != 0;
	log_warn("job %llu '%s' pid %d: it cannot use its page (%.120s): it "
	         "sends messages", (unsigned long long)j->core.id, j->name,
	         (int)j->pid, why != NULL ? why : "");
	s->pages_declined++;
	sched__page_drop(s, j);
	if (!written)
		return 1;               /* the next allotment goes as an Allot */
	ca.set = &j->core.sent;
	ca.allotment = deq_set_count(&j->core.sent);
	ca.availability = core_deq(s->core, &j->core)->availability;
	ca.quantum = j->core.allot_q;
	ca.decided = j->core.decided;
	(void)sched__allot_send(s, j, &ca);
	return 1;
}
