/*
 * pfor.h - the parallel loop's out-of-line parts (see pfor.c): a part
 * split off a loop, run as a task, and the split itself, which the
 * owner's chunk boundary calls when thieves want work (suspend.c).
 */
#ifndef ASTEAL_PFOR_H
#define ASTEAL_PFOR_H

#include <stdint.h>

#include "asteal.h"
#include "deque.h"

/* Run a part split off a loop (a task; p: its asteal__range). */
void pfor_task(void *p);

/* Split a part off the oldest loop frame with iterations left and push it
 * on d for thieves: dq_push's count of public entries before (0: wake a
 * sleeper), or -1 when nothing was pushed. */
int64_t pfor_promote(struct asteal__loops *ls, deque *d);

#endif
