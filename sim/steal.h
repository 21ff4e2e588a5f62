/*
 * steal.h - the simulated thread schedulers: randomized work stealing on
 * unit-time steps (paper, sections 2 and 4.1), in two flavours.
 *
 *   A-STEAL  one deque per allotted processor.  A processor that loses its
 *            allotment leaves its deque (with the frame it was running on
 *            top) muggable; a processor that runs out of work first mugs a
 *            muggable deque (one mug cycle, then it owns the whole deque),
 *            and only when there is none steals from a random other deque.
 *            Each quantum it reports a desire computed by the project's
 *            estimator (policy/estimator.h, the paper's Fig. 1).
 *   ABP      always P deques (P = the machine), one per process, as Arora,
 *            Blumofe and Plaxton have it; each quantum the allotted
 *            processors run processes chosen uniformly at random (the
 *            paper's benign adversary); no mugging, no feedback.  The
 *            deques are non-blocking: a thief steals from the bottom of a
 *            preempted process's deque as from a running one's.  What
 *            becomes of the node a process was running (its assigned node)
 *            when it is preempted is abp_preempted:
 *     stealable  it goes on top of its deque, where thieves reach it once
 *                the frames below are gone, as with A-STEAL;
 *     stuck      it stays with its process until a quantum's random choice
 *                picks that process again.  This is ABP with plain yield:
 *                the yield a thief makes between two throws is a hint the
 *                kernel, which chooses the running processes only at
 *                quantum boundaries, does not act on (the benign adversary,
 *                for which ABP needs no yield);
 *     yieldto    (asteal-sim's default: ABP as its paper analyses it) it
 *                stays with its process, and a thief whose throw finds
 *                the victim's deque empty while the victim is preempted
 *                and holds an assigned node yields to the victim (ABP's
 *                directed yield: the kernel runs the victim in the
 *                thief's place): from the next step on, the processor runs
 *                the victim's process, which resumes its assigned node, and
 *                the thief's process (empty deque, no node) is preempted.
 *                A yield to a preempted victim with no assigned node would
 *                swap one idle thief for another and is not modelled.
 *
 * Each step an allotted processor does one cycle: work (one node of its
 * current frame), steal (one attempt at the bottom of a random deque; an
 * empty victim is a wasted cycle) or mug.  Waste = steal + mug cycles.  A
 * thief's step is one throw in every ABP variant; the yield of yieldto
 * happens at the end of the failed throw and costs no step of its own, so
 * recovering a stuck node costs the one steal cycle that found it (counted
 * in `yields` as well as in `steal`).
 */
#ifndef ASTEAL_SIM_STEAL_H
#define ASTEAL_SIM_STEAL_H

#include "dag.h"
#include "estimator.h"
#include "rng.h"

enum steal_kind { STEAL_ASTEAL, STEAL_ABP };

/* ABP: what becomes of a preempted process's assigned node (see above). */
enum steal_abp { STEAL_ABP_STEALABLE, STEAL_ABP_STUCK, STEAL_ABP_YIELDTO };

struct steal_deque {
	int *items;    /* ready frames; bottom = items[lo], top = items[hi-1] */
	int lo, hi, cap;
	int cur;       /* the frame its processor is running, or -1 */
	int owner;     /* index into the job's processors, or -1 */
	int live_pos;  /* position in live[], or -1 when free */
	int mug_pos;   /* position in mug[], or -1 */
};

/* What some steps of a job did. */
struct steal_stats {
	long long work, steal, mug;  /* cycles */
	long long yields;            /* ABP yieldto: throws that yielded */
	long steps;                  /* steps run (fewer if the job finished) */
};

struct steal_job {
	enum steal_kind kind;
	int P;                      /* machine size: ABP's deques, max desire */
	struct dag dag;
	struct rng_state rng;
	struct steal_deque *dq;
	int ndq, free_dq;           /* free deques are chained through .owner */
	int *live, nlive;           /* deques that exist (victims) */
	int *mug, nmug;             /* A-STEAL: muggable deques */
	int *proc, *slot, nproc;    /* per allotted processor: deque, slot */
	int *perm;                  /* ABP: deque ids, for random selection */
	int root;                   /* A-STEAL: the root, until placed */
	enum steal_abp abp_preempted;  /* ABP: a preempted node's fate */
	int done, error;
	long long clock;            /* steps run so far */
	long long finish;           /* the step the root returned (1-based) */
	struct steal_stats total;
	struct est_params est;
	double desire;              /* A-STEAL's real-valued desire */
};

/* Set up a job: returns 0, or -1 when out of memory. */
int steal_job_init(struct steal_job *j, enum steal_kind kind, int P,
		   const struct dag_spec *spec, uint64_t seed,
		   const struct est_params *est);

/* Free a job's memory. */
void steal_job_free(struct steal_job *j);

/* The processors the job asks for next quantum (ABP: always P). */
int steal_request(const struct steal_job *j);

/* Give the job `a` anonymous processors for the next quantum (A-STEAL
 * keeps a random subset of its current ones). */
int steal_allot(struct steal_job *j, int a);

/* Give the job exactly the processor slots listed (n of them, each in
 * [0, P)): processors whose slot stays keep their deque. */
int steal_allot_slots(struct steal_job *j, const int *slots, int n);

/* Run up to `steps` steps on the current allotment; stop early when the
 * job finishes.  Returns 0, or -1 (out of memory: j->error). */
int steal_run(struct steal_job *j, long steps, struct steal_stats *out);

/* Close a quantum of length L with allotment a: A-STEAL computes its next
 * desire from q; returns the quantum's class (ABP: deprived, no change). */
enum est_class steal_feedback(struct steal_job *j, const struct steal_stats *q,
			      int a, long L);

/* A short name for a kind ("asteal", "abp"). */
const char *steal_kind_name(enum steal_kind k);

/* The name of an ABP variant ("stealable", "stuck", "yieldto"). */
const char *steal_abp_name(enum steal_abp a);

/* Parse an ABP variant's name: 0, or -1. */
int steal_abp_parse(const char *s, enum steal_abp *a);

#endif
