/*
 * record.h - what one allotment record of the history (asteal.proto's
 * AllotmentRecord: a range of quanta of one job) stands for, counted the
 * same way by every command: its quanta, the processor-quanta it was
 * allotted, its mean allotment, whether its quanta took turns.
 *
 * A range of turns (asteal(1), "history") is a deprived job's allotment
 * going up and down by one from quantum to quantum; the record keeps the
 * lower value as allotment and availability and the processor-quanta in
 * all as cpu_quanta, so that its mean allotment, and its mean
 * availability (a job in turns gets its whole availability every
 * quantum), is cpu_quanta over its quanta.
 */
#ifndef ASTEAL_CLI_RECORD_H
#define ASTEAL_CLI_RECORD_H

#include <stdint.h>

#include "asteal.pb-c.h"

/* The quanta of a record (at least 1). */
uint64_t record_quanta(const Asteal__AllotmentRecord *r);

/* A record's processor-quanta: its cpu_quanta, or (from a daemon that
 * sends none) its allotment times its quanta. */
uint64_t record_cpu_quanta(const Asteal__AllotmentRecord *r);

/* A record's mean allotment over its quanta: its processor-quanta over
 * its quanta. */
double record_mean(const Asteal__AllotmentRecord *r);

/* Whether a record is a range of turns (its mean is not its allotment). */
int record_turns(const Asteal__AllotmentRecord *r);

#endif
