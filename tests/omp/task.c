/*
 * task.c - explicit tasks (GOMP_task): tasks created by one thread are all
 * run by the team (counts exact after taskwait and after the region's
 * barrier); tasks created by every thread; if(0) tasks are undeferred
 * (done when the construct ends, no taskwait needed); final tasks report
 * omp_in_final and make their descendants final and included; untied,
 * mergeable and priority tasks run once each with the right data;
 * firstprivate is captured at creation, shared is shared; a detached task
 * (detach clause, omp_fulfill_event) completes only once its event is
 * fulfilled; omp_get_thread_num inside a task names a thread of the team.
 */
#include "check.h"

#define NT 500

/* One producer, the team consumes. */
static void one_producer(void)
{
	int done = 0, bad = 0, after_wait = -1;

#pragma omp parallel
	{
#pragma omp single
		{
			for (int t = 0; t < NT; t++) {
#pragma omp task firstprivate(t) shared(done, bad)
				{
					int me = omp_get_thread_num();
					int nt = omp_get_num_threads();
					if (me < 0 || me >= nt || t < 0 || t >= NT)
						ATOMIC_STORE(&bad, 1);
					ATOMIC_ADD(&done, 1);
				}
			}
#pragma omp taskwait
			after_wait = ATOMIC_LOAD(&done);
		}
	}
	CHECK(!bad, "a task saw a thread number outside its team or a wrong firstprivate");
	CHECK(after_wait == NT, "after taskwait %d of %d tasks were done", after_wait, NT);
	CHECK(done == NT, "after the region %d of %d tasks had run", done, NT);
}

/* Every thread produces; the barrier at the region's end completes them. */
static void all_produce(void)
{
	int done = 0, n = 0;

#pragma omp parallel
	{
#pragma omp single nowait
		n = omp_get_num_threads();
		for (int t = 0; t < 100; t++) {
#pragma omp task
			ATOMIC_ADD(&done, 1);
		}
	}
	CHECK(done == 100 * n, "%d threads created 100 tasks each: %d ran", n, done);
}

/* if(0) runs the task before the construct ends. */
static void undeferred(void)
{
	int bad = 0;

#pragma omp parallel
#pragma omp single
	for (int t = 0; t < 50; t++) {
		int x = 0;
#pragma omp task if (0) shared(x)
		x = t + 1;
		if (x != t + 1)
			bad = 1;
	}
	CHECK(!bad, "an if(0) task had not run when its construct ended");
}

/* final: omp_in_final in the task and its descendants, which are included. */
static void finals(void)
{
	int in_final = -1, child_final = -1, child_done = 0, not_final = -1;
	int outside = omp_in_final();

#pragma omp parallel
#pragma omp single
	{
#pragma omp task final(1) shared(in_final, child_final, child_done)
		{
			in_final = omp_in_final();
#pragma omp task shared(child_final, child_done)
			{
				child_final = omp_in_final();
				child_done = 1;
			}
			/* an included task has completed when its construct ends */
			if (!child_done)
				child_final = -2;
		}
#pragma omp task final(0) shared(not_final)
		not_final = omp_in_final();
#pragma omp taskwait
	}
	CHECK(outside == 0, "omp_in_final() %d outside any task", outside);
	CHECK(in_final == 1, "omp_in_final() %d in a final(1) task", in_final);
	CHECK(child_final != -2, "a task created in a final task was not included (not done at "
	      "once)");
	CHECK(child_final == 1, "omp_in_final() %d in the child of a final task", child_final);
	CHECK(not_final == 0, "omp_in_final() %d in a final(0) task", not_final);
}

/* untied, mergeable and priority tasks, and data sharing. */
static void kinds(void)
{
	int untied = 0, merged = 0, prio = 0, shared_v = 0;
	long sum = 0;

#pragma omp parallel
#pragma omp single
	{
		int fp = 5;
		for (int t = 0; t < 100; t++) {
#pragma omp task untied shared(untied)
			{
				ATOMIC_ADD(&untied, 1);
#pragma omp taskyield
				ATOMIC_ADD(&untied, 1);
			}
#pragma omp task mergeable shared(merged) firstprivate(fp)
			ATOMIC_ADD(&merged, fp);
#pragma omp task final(t % 2) mergeable shared(merged)
			ATOMIC_ADD(&merged, 1);
#pragma omp task priority(t % 5) shared(prio, sum)
			{
				ATOMIC_ADD(&prio, 1);
				ATOMIC_ADD(&sum, t);
			}
		}
		fp = 1000;      /* after creation: the tasks' copies keep 5 */
#pragma omp task shared(shared_v)
		shared_v = 1;
	}
	CHECK(untied == 200, "untied tasks: %d halves ran, expected 200", untied);
	CHECK(merged == 600, "mergeable tasks: %d, expected 600", merged);
	CHECK(prio == 100 && sum == 4950, "priority tasks: %d ran, sum %ld", prio, sum);
	CHECK(shared_v == 1, "a shared variable written by a task: %d", shared_v);
	CHECK(omp_get_max_task_priority() >= 0, "omp_get_max_task_priority() %d",
	      omp_get_max_task_priority());
}

/* A detached task completes when its event is fulfilled by another task:
 * a task depending on it starts only after the fulfilment. */
static void detached(void)
{
	int body = 0, fulfilled = 0, follower = -1, seen_body = -1, seen_fulfilled = -1, x = 0;

#pragma omp parallel
#pragma omp single
	{
		omp_event_handle_t ev;
#pragma omp task detach(ev) shared(body, x) depend(out: x)
		{
			x = 1;
			ATOMIC_STORE(&body, 1);
		}
#pragma omp task shared(follower, fulfilled, x) depend(in: x)
		follower = ATOMIC_LOAD(&fulfilled) * x;
#pragma omp task firstprivate(ev) shared(fulfilled)
		{
			ATOMIC_STORE(&fulfilled, 1);
			omp_fulfill_event(ev);
		}
#pragma omp taskwait
		seen_body = ATOMIC_LOAD(&body);
		seen_fulfilled = ATOMIC_LOAD(&fulfilled);
	}
	CHECK(seen_body == 1 && seen_fulfilled == 1, "after taskwait: the detached task's body "
	      "%s, its event %s", seen_body ? "ran" : "had not run", seen_fulfilled ? "fulfilled" :
	      "not fulfilled");
	CHECK(follower == 1, "a task depending on a detached task started before the event was "
	      "fulfilled (saw %d)", follower);
}

/* All of them. */
int main(void)
{
	one_producer();
	all_produce();
	undeferred();
	finals();
	kinds();
	detached();
	return 0;
}
