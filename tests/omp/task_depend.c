/*
 * task_depend.c - task dependences (the depend array GOMP_task receives,
 * and GOMP_taskwait_depend): a chain of inout tasks on one variable runs
 * in creation order; readers (in) of a writer (out) start after it and
 * all finish before the next writer; mutexinoutset tasks never overlap and
 * sit between the out before them and the in after them; dependences on
 * array elements and sections, through an iterator, and through a depobj
 * (created, updated, destroyed); taskwait depend(in: x) returns once the
 * writer of x has finished.  Orders only where the dependences guarantee
 * them.
 */
#include "check.h"

#define CHAIN 200
#define READERS 20

/* A chain of inout tasks: sequential, in creation order. */
static void chain(void)
{
	int x = 0, log[CHAIN], next = 0;

#pragma omp parallel
#pragma omp single
	for (int t = 0; t < CHAIN; t++) {
#pragma omp task depend(inout: x) shared(x, log, next) firstprivate(t)
		{
			log[next++] = t;
			x++;
		}
	}
	CHECK(x == CHAIN && next == CHAIN, "inout chain: %d tasks ran, %d logged", x, next);
	for (int k = 0; k < CHAIN; k++)
		CHECK(log[k] == k, "inout chain: position %d held task %d", k, log[k]);
}

/* out, then readers, then out again: phases never mix. */
static void readers_writers(void)
{
	int x = 0, phase = 0, readers = 0, bad = 0;

#pragma omp parallel
#pragma omp single
	for (int round = 1; round <= 10; round++) {
#pragma omp task depend(out: x) shared(x, phase, readers, bad) firstprivate(round)
		{
			if (ATOMIC_LOAD(&readers) != (round - 1) * READERS)
				ATOMIC_STORE(&bad, 1);
			x = round;
			ATOMIC_STORE(&phase, round);
		}
		for (int r = 0; r < READERS; r++) {
#pragma omp task depend(in: x) shared(x, phase, readers, bad) firstprivate(round)
			{
				if (ATOMIC_LOAD(&phase) != round || x != round)
					ATOMIC_STORE(&bad, 2);
				ATOMIC_ADD(&readers, 1);
			}
		}
	}
	CHECK(bad != 1, "a writer (out) started before every reader (in) of the previous round "
	      "finished");
	CHECK(bad != 2, "a reader (in) started before its writer (out) finished, or after the "
	      "next one");
	CHECK(readers == 10 * READERS, "%d readers ran, expected %d", readers, 10 * READERS);
}

/* mutexinoutset: members exclude each other, between an out and an in. */
static void mutex_set(void)
{
	int x = 0, inside = 0, overlap = 0, members = 0, before = -1, after = -1;

#pragma omp parallel
#pragma omp single
	{
#pragma omp task depend(out: x) shared(x, before, members)
		{
			before = ATOMIC_LOAD(&members);
			x = 1;
		}
		for (int t = 0; t < 50; t++) {
#pragma omp task depend(mutexinoutset: x) shared(x, inside, overlap, members)
			{
				if (ATOMIC_ADD(&inside, 1) != 1)
					ATOMIC_STORE(&overlap, 1);
				x++;
				ATOMIC_ADD(&members, 1);
				ATOMIC_ADD(&inside, -1);
			}
		}
#pragma omp task depend(in: x) shared(after, members)
		after = ATOMIC_LOAD(&members);
	}
	CHECK(!overlap, "two mutexinoutset tasks on one variable ran at once");
	CHECK(before == 0, "the out task before a mutexinoutset set ran after %d members", before);
	CHECK(after == 50, "the in task after a mutexinoutset set saw %d of 50 members done",
	      after);
	CHECK(x == 51, "x after the mutexinoutset set: %d, expected 51", x);
}

/* Array elements, a section, an iterator and a depobj. */
static void forms(void)
{
	int a[4] = { 0 }, b[8] = { 0 }, sum = -1, sect = -1, objv = 0, objseen = -1;

#pragma omp parallel
#pragma omp single
	{
		for (int k = 0; k < 4; k++) {
#pragma omp task depend(out: a[k]) shared(a) firstprivate(k)
			a[k] = k + 1;
		}
#pragma omp task depend(iterator(j = 0:4), in: a[j]) shared(a, sum)
		sum = a[0] + a[1] + a[2] + a[3];
#pragma omp task depend(out: b[2:4]) shared(b)
		for (int k = 2; k < 6; k++)
			b[k] = 10 * k;
#pragma omp task depend(in: b[2:4]) shared(b, sect)
		sect = b[2] + b[5];

		omp_depend_t obj;
#pragma omp depobj(obj) depend(inout: objv)
#pragma omp task depend(depobj: obj) shared(objv)
		objv = 5;
#pragma omp depobj(obj) update(in)
#pragma omp task depend(depobj: obj) shared(objv, objseen)
		objseen = objv;
#pragma omp taskwait
#pragma omp depobj(obj) destroy
	}
	CHECK(sum == 10, "depend(iterator(...), in: a[j]) read %d, expected 10", sum);
	CHECK(sect == 70, "depend on the section b[2:4] read %d, expected 70", sect);
	CHECK(objseen == 5, "depend(depobj:) read %d, expected 5", objseen);
}

/* taskwait depend(in: x) waits for the writer of x. */
static void taskwait_depend(void)
{
	int seen = -1, x = 0, y = 0;

#pragma omp parallel
#pragma omp single
	{
#pragma omp task depend(out: x) shared(x)
		x = 99;
#pragma omp task depend(out: y) shared(y)
		y = 7;
#pragma omp taskwait depend(in: x)
		seen = x;
#pragma omp taskwait
	}
	CHECK(seen == 99, "after taskwait depend(in: x), x = %d, expected 99", seen);
	CHECK(y == 7, "y's writer did not run");
}

/* All of them. */
int main(void)
{
	chain();
	readers_writers();
	mutex_set();
	forms();
	taskwait_depend();
	return 0;
}
