/*
 * cxx_task_copy.cpp - firstprivate of a class with a non-trivial copy
 * constructor on a task: gcc then passes a copy function (cpyfn, the
 * symbol *._omp_cpyfn.* the runner looks for with nm) to GOMP_task, which
 * the runtime must call to build the task's copy.  Checked: the copy
 * constructor ran for every task (counted), each task's copy holds the
 * values at the task's creation (later changes to the original do not
 * reach it, and the copy owns its own heap buffer), every copy is
 * destroyed, and deferred and undeferred (if(0)) tasks both work.
 */
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "check.h"

static long copies, destroyed, constructed;

/* A value with a heap buffer: copying it must go through its constructor. */
class Tracked {
public:
	/* A new value v, counted as constructed. */
	explicit Tracked(int v) : value(v), buf(new int[8])
	{
		for (int i = 0; i < 8; i++)
			buf[i] = v + i;
		ATOMIC_ADD(&constructed, 1);
	}
	/* The copy constructor: its own buffer, counted, and where it came from. */
	Tracked(const Tracked &o) : value(o.value), buf(new int[8])
	{
		std::memcpy(buf, o.buf, 8 * sizeof(int));
		copy_of = &o;
		ATOMIC_ADD(&copies, 1);
	}
	Tracked &operator=(const Tracked &) = delete;
	/* Free the buffer; count the object destroyed. */
	~Tracked()
	{
		delete[] buf;
		ATOMIC_ADD(&destroyed, 1);
	}
	/* Whether the object is whole and holds v. */
	bool holds(int v) const
	{
		if (value != v)
			return false;
		for (int i = 0; i < 8; i++)
			if (buf[i] != v + i)
				return false;
		return true;
	}
	/* Give the object (this copy only) the value v. */
	void set(int v)
	{
		value = v;
		for (int i = 0; i < 8; i++)
			buf[i] = v + i;
	}
	int value;
	int *buf;
	const Tracked *copy_of = nullptr;
};

/* Tasks with a firstprivate Tracked, the original changing between them. */
int main()
{
	int bad = 0, ran = 0, not_copied = 0;

#pragma omp parallel
#pragma omp single
	{
		Tracked t(0);
		for (int k = 0; k < 200; k++) {
			t.set(k * 10);
#pragma omp task firstprivate(t, k) shared(bad, ran, not_copied)
			{
				if (!t.holds(k * 10))
					ATOMIC_STORE(&bad, 1);
				if (t.copy_of == nullptr)
					ATOMIC_STORE(&not_copied, 1);
				t.set(-1);      /* the task's copy only */
				ATOMIC_ADD(&ran, 1);
			}
		}
		t.set(5);
#pragma omp task if (0) firstprivate(t) shared(bad, ran)
		{
			if (!t.holds(5))
				ATOMIC_STORE(&bad, 2);
			ATOMIC_ADD(&ran, 1);
		}
#pragma omp taskwait
		if (!t.holds(5))
			bad = 3;
	}
	CHECK(ran == 201, "%d of 201 tasks ran", ran);
	CHECK(bad != 1, "a task's firstprivate copy did not hold the value at its creation");
	CHECK(bad != 2, "an undeferred task's firstprivate copy was wrong");
	CHECK(bad != 3, "a task's change to its copy reached the original");
	CHECK(!not_copied, "a task's firstprivate object was not made by the copy constructor");
	CHECK(copies >= 201, "the copy constructor ran %ld times for 201 tasks", copies);
	CHECK(destroyed == copies + constructed, "%ld objects destroyed, %ld made", destroyed,
	      copies + constructed);
	return 0;
}
