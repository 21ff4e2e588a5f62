/*
 * record.c - an allotment record's quanta, processor-quanta and mean
 * allotment (see record.h).
 */
#include "record.h"

/* The quanta of a record. */
uint64_t record_quanta(const Asteal__AllotmentRecord *r)
{
	return r->last_quantum >= r->first_quantum ?
	       r->last_quantum - r->first_quantum + 1 : 1;
}

/* A record's processor-quanta. */
uint64_t record_cpu_quanta(const Asteal__AllotmentRecord *r)
{
	return r->cpu_quanta > 0 ? r->cpu_quanta
	                         : (uint64_t)r->allotment * record_quanta(r);
}

/* A record's mean allotment over its quanta. */
double record_mean(const Asteal__AllotmentRecord *r)
{
	return (double)record_cpu_quanta(r) / (double)record_quanta(r);
}

/* Whether a record is a range of turns. */
int record_turns(const Asteal__AllotmentRecord *r)
{
	return record_cpu_quanta(r) != (uint64_t)r->allotment * record_quanta(r);
}
