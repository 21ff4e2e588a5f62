/*
 * timelimit.c - a launched job's time limit (see timelimit.h): one
 * libevent timer per limited job, re-armed once, from the SIGTERM at the
 * limit to the SIGKILL after kill-wait.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/time.h>

#include <event2/event.h>

#include "timelimit.h"

/* A duration in nanoseconds as a timeval. */
static struct timeval tv_of(uint64_t ns)
{
	struct timeval tv;

	tv.tv_sec = (time_t)(ns / 1000000000u);
	tv.tv_usec = (suseconds_t)(ns % 1000000000u / 1000u);
	return tv;
}

/* The timer fired: SIGTERM (then wait for kill-wait), or SIGKILL. */
static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct timelimit *t = arg;
	struct timeval tv;

	(void)fd;
	(void)what;
	if (t->stage == TIMELIMIT_RUNNING) {
		t->stage = TIMELIMIT_TERMED;
		tv = tv_of((uint64_t)*t->kill_wait_s * 1000000000u);
		evtimer_add(t->ev, &tv);
		t->fire(t->arg, SIGTERM);       /* may stop t: last */
	} else if (t->stage == TIMELIMIT_TERMED) {
		t->stage = TIMELIMIT_KILLED;
		t->fire(t->arg, SIGKILL);
	}
}

/* Arm a limit. */
int timelimit_start(struct timelimit *t, struct event_base *base, int stage,
                    uint64_t left_ns, const int *kill_wait_s,
                    timelimit_fire_fn fire, void *arg)
{
	struct timeval tv;

	if (stage != TIMELIMIT_RUNNING && stage != TIMELIMIT_TERMED) {
		errno = EINVAL;
		return -1;
	}
	timelimit_stop(t);
	t->ev = evtimer_new(base, on_timer, t);
	if (t->ev == NULL) {
		errno = ENOMEM;
		return -1;
	}
	t->stage = stage;
	t->kill_wait_s = kill_wait_s;
	t->fire = fire;
	t->arg = arg;
	tv = tv_of(stage == TIMELIMIT_RUNNING ? left_ns
	           : (uint64_t)*kill_wait_s * 1000000000u);
	if (evtimer_add(t->ev, &tv) < 0) {
		timelimit_stop(t);
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/* Stop a limit. */
void timelimit_stop(struct timelimit *t)
{
	if (t->ev != NULL)
		event_free(t->ev);
	t->ev = NULL;
	t->stage = TIMELIMIT_OFF;
}

/* The time left. */
uint64_t timelimit_left(uint64_t start_ns, uint64_t limit_ns, uint64_t now_ns)
{
	uint64_t end = start_ns + limit_ns;

	return end > now_ns ? end - now_ns : 0;
}
