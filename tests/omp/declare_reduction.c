/*
 * declare_reduction.c - user-defined reductions (declare reduction): a
 * struct combined member by member with an initializer expression, a
 * min-with-location struct combined by a function with an initializer
 * function, a gcd on int, and an operator name reused for two types; used
 * on a combined parallel for (dynamic), a parallel and a for inside one,
 * and a taskloop.  Results equal the serial ones, whatever the team size.
 */
#include "check.h"

#define N 1000

struct cx {
	long re, im;
};

struct minloc {
	double v;
	int at;
};

/* Keep the smaller value, the lower index on a tie. */
static void minloc_combine(struct minloc *out, const struct minloc *in)
{
	if (in->v < out->v || (in->v == out->v && in->at < out->at))
		*out = *in;
}

/* The identity of minloc: no value yet. */
static void minloc_init(struct minloc *p)
{
	p->v = 1e300;
	p->at = -1;
}

/* Greatest common divisor (gcd(0, x) = x). */
static int gcd(int a, int b)
{
	while (b) {
		int t = a % b;
		a = b;
		b = t;
	}
	return a;
}

#pragma omp declare reduction(cadd: struct cx: omp_out.re += omp_in.re, omp_out.im += omp_in.im) \
	initializer(omp_priv = { 0, 0 })
#pragma omp declare reduction(mloc: struct minloc: minloc_combine(&omp_out, &omp_in)) \
	initializer(minloc_init(&omp_priv))
#pragma omp declare reduction(g: int: omp_out = gcd(omp_out, omp_in)) initializer(omp_priv = 0)
#pragma omp declare reduction(g: long: omp_out = omp_out > omp_in ? omp_out : omp_in) \
	initializer(omp_priv = -1)

/* The value whose minimum is sought: -1 at 617 and 800, above 0 elsewhere. */
static double value(int i)
{
	return i == 617 || i == 800 ? -1.0 : (double)((i * 37) % 101) + 1.0;
}

/* Each reduction on each construct. */
int main(void)
{
	struct cx c = { 5, -5 };
	struct minloc m;
	int g = 0;
	long lg = -1;

	minloc_init(&m);
#pragma omp parallel for schedule(dynamic, 9) reduction(cadd: c) reduction(mloc: m) \
	reduction(g: g, lg)
	for (int i = 0; i < N; i++) {
		c.re += i;
		c.im -= 2 * i;
		struct minloc here = { value(i), i };
		minloc_combine(&m, &here);
		g = gcd(g, 36 * (i % 7 + 1));
		lg = lg > i ? lg : i;
	}
	CHECK(c.re == 5 + (long)N * (N - 1) / 2 && c.im == -5 - (long)N * (N - 1),
	      "reduction(cadd): {%ld, %ld}", c.re, c.im);
	CHECK(m.at == 617 && m.v == -1.0, "reduction(mloc): value %g at %d, expected -1 at 617",
	      m.v, m.at);
	CHECK(g == 36, "reduction(g: int) gcd %d, expected 36", g);
	CHECK(lg == N - 1, "reduction(g: long) max %ld", lg);

	struct cx t = { 0, 0 };
	int n = 0;
#pragma omp parallel reduction(cadd: t) reduction(+: n)
	{
		t.re += 1;
		t.im += omp_get_thread_num();
		n++;
#pragma omp for reduction(cadd: c)
		for (int i = 0; i < 10; i++)
			c.re -= i;
	}
	CHECK(t.re == n && t.im == (long)n * (n - 1) / 2, "reduction(cadd) on parallel: {%ld, "
	      "%ld} for %d threads", t.re, t.im, n);
	CHECK(c.re == 5 + (long)N * (N - 1) / 2 - 45, "reduction(cadd) on for in a region: %ld",
	      c.re);

	struct cx tl = { 0, 0 };
#pragma omp parallel
#pragma omp single
#pragma omp taskloop reduction(cadd: tl) grainsize(16)
	for (int i = 0; i < N; i++) {
		tl.re += i;
		tl.im += 1;
	}
	CHECK(tl.re == (long)N * (N - 1) / 2 && tl.im == N, "reduction(cadd) on taskloop: {%ld, "
	      "%ld}", tl.re, tl.im);
	return 0;
}
