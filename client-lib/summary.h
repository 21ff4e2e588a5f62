/*
 * summary.h - the job's adaptive scheduling summary (see summary.c):
 * asteal_summary_get's answer, and the line ASTEAL_STATS=1 prints.
 */
#ifndef ASTEAL_SUMMARY_H
#define ASTEAL_SUMMARY_H

#include "asteal.h"
#include "runtime.h"

/* Fill the job-wide summary (see asteal_summary in asteal.h). */
void summary_fill(struct runtime *rt, asteal_summary *s);

/* ASTEAL_STATS=1: the job's summary on stderr, as the runtime stops. */
void summary_print(struct runtime *rt);

#endif
