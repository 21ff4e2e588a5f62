/*
 * suspend.h - suspension's functions the scheduler's loop calls (see
 * suspend.c; the slow paths of spawn, sync and poll are asteal.h's): the
 * enable rule's push of a ready fiber, and its resumption.
 */
#ifndef ASTEAL_SUSPEND_H
#define ASTEAL_SUSPEND_H

#include "fiber.h"

struct worker;

/* Push a ready fiber on the worker's deque (the enable rule). */
void suspend_make_ready(struct worker *w, fiber *f);

/* Resume a ready fiber on this worker, adopting the deque it kept. */
void suspend_resume(struct worker *w, fiber *f);

#endif
