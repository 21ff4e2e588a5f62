/*
 * histgrant.c - asteald's history, its grants: free CPUs given to a job
 * holding none between two ticks (history_grant), checked and queued for
 * the next write beside the closed runs (histrun.c writes the queue); kept
 * apart from the runs, which hold only what DEQ decided.  What the
 * history's files share is in history_int.h.
 */
#include "history_int.h"
#include "cpulist.h"

#include <stdlib.h>
#include <string.h>


/* Free every grant still queued. */
void hist_grants_free(struct history *h)
{
	for (size_t i = 0; i < h->ngrants; i++)
		free(h->grants[i].cpus);
	free(h->grants);
	h->grants = NULL;
	h->ngrants = h->capgrants = h->grants_w = 0;
}

/* Check a grant's arguments; 0, or -1 with the message set. */
static int check_grant(struct history *h, int64_t quantum, int64_t at_ns,
		       int allotment, const char *cpus)
{
	int ids[CPULIST_MAX], n;
	char why[64];

	if (quantum < 0 || at_ns <= 0) {
		hist_seterr(h, "grant: bad quantum or time");
		return -1;
	}
	if (allotment < 1 || cpus == NULL) {
		hist_seterr(h, "grant: %s", cpus == NULL ? "NULL cpus" :
			    "allotment below 1");
		return -1;
	}
	if (strnlen(cpus, HIST_CPUS_MAX) >= HIST_CPUS_MAX) {
		hist_seterr(h, "grant: cpus too long");
		return -1;
	}
	n = cpulist_parse(cpus, ids, CPULIST_MAX, why, sizeof(why));
	if (n < 0) {
		hist_seterr(h, "grant: cpus '%s': %s", cpus, why);
		return -1;
	}
	if (n != allotment) {
		hist_seterr(h, "grant: cpus '%s' are %d CPUs, not the allotment"
			    " %d", cpus, n, allotment);
		return -1;
	}
	return 0;
}

/* Job job_id was granted free CPUs as it joined or woke: queue the grant for the
 * next write, its quantum on the history's base. */
int history_grant(struct history *h, int64_t job_id, int64_t quantum,
		  int64_t at_ns, int allotment, const char *cpus)
{
	struct grant *g;
	struct live *l;
	char *copy;

	if (h == NULL)
		return -1;
	if (check_grant(h, quantum, at_ns, allotment, cpus) < 0)
		return -1;
	if ((l = hist_live_get(h, job_id, "grant")) == NULL)
		return -1;
	if (l->lost)
		return 0;       /* nothing of it is kept */
	if (h->ngrants == h->capgrants) {
		struct grant *more = hist_queue_grow(h, h->grants, &h->capgrants,
						sizeof(*more), 16);

		if (more == NULL && h->capgrants >= h->qmax) {
			h->dropped++;
			hist_seterr(h, "grant: history queue full, dropped");
			return -1;
		}
		if (more == NULL) {
			hist_seterr(h, "grant: out of memory");
			return -1;
		}
		h->grants = more;
	}
	copy = strdup(cpus);
	if (copy == NULL) {
		hist_seterr(h, "grant: out of memory");
		return -1;
	}
	g = &h->grants[h->ngrants++];
	g->job = job_id;
	g->quantum = quantum + h->qbase;
	g->at_ns = at_ns;
	g->allotment = allotment;
	g->cpus = copy;
	return 0;
}
