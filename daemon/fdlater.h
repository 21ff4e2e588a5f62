/*
 * fdlater.h - descriptors closed after the event loop's next dispatch:
 * what an fd whose events were just deleted needs, with an epoll
 * changelist that applies deletions only then (fdlater.c says why).
 * One event loop per process uses it at a time.
 */
#ifndef ASTEAL_FDLATER_H
#define ASTEAL_FDLATER_H

struct event_base;

/* Close fd for its peer now, and free its number after base's next
 * dispatch, or at fdlater_flush. */
void fdlater_close(struct event_base *base, int fd);

/* Close every number still waiting, and forget the loop (its owner frees
 * it next). */
void fdlater_flush(void);

/* The numbers waiting to be closed now: each is still one of our
 * descriptors (admit.c counts them). */
int fdlater_pending(void);

#endif
