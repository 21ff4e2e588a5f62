/*
 * plot.c - asteal-plot: draw a libasteal trace (ASTEAL_TRACE) as an SVG
 * step chart of desire, availability and allotment over time, so that a
 * person sees at a glance whether desire tracks the job's parallelism.
 *
 *   asteal-plot [--title T] TRACE.csv OUT.svg
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"

#define MAX_ROWS 1000000

/* A series as steps: each value holds until the next row's time. */
struct steps {
	double *x, *y;
	int n;
};

/* Append the step (t0 .. t1 at v) to s. */
static void step(struct steps *s, double t0, double t1, double v)
{
	s->x[s->n] = t0;
	s->y[s->n++] = v;
	s->x[s->n] = t1;
	s->y[s->n++] = v;
}

int main(int argc, char **argv)
{
	const char *title = "libasteal trace", *in, *out;
	struct steps d = { 0 }, a = { 0 }, p = { 0 };
	struct svg_plot plot;
	char line[512];
	FILE *f;
	int argi = 1, rows = 0;
	double prev_t = -1, prev_d = 0, prev_a = 0, prev_p = 0, qlen = 0.01;

	if (argc >= 3 && strcmp(argv[1], "--title") == 0) {
		title = argv[2];
		argi = 3;
	}
	if (argc - argi != 2) {
		fprintf(stderr, "usage: asteal-plot [--title T] TRACE.csv OUT.svg\n");
		return 2;
	}
	in = argv[argi];
	out = argv[argi + 1];
	f = fopen(in, "r");
	if (f == NULL) {
		fprintf(stderr, "asteal-plot: %s: %s\n", in, strerror(errno));
		return 1;
	}
	d.x = malloc(2 * MAX_ROWS * sizeof(double));
	d.y = malloc(2 * MAX_ROWS * sizeof(double));
	a.x = malloc(2 * MAX_ROWS * sizeof(double));
	a.y = malloc(2 * MAX_ROWS * sizeof(double));
	p.x = malloc(2 * MAX_ROWS * sizeof(double));
	p.y = malloc(2 * MAX_ROWS * sizeof(double));
	if (!d.x || !d.y || !a.x || !a.y || !p.x || !p.y) {
		fprintf(stderr, "asteal-plot: out of memory\n");
		return 1;
	}
	if (fgets(line, sizeof(line), f) == NULL ||
	    strncmp(line, "quantum,time_ns,desire,", 23) != 0) {
		fprintf(stderr, "asteal-plot: %s: not a libasteal trace (bad header)\n", in);
		return 1;
	}
	while (fgets(line, sizeof(line), f) != NULL && rows < MAX_ROWS) {
		unsigned long long q, t;
		int des, av, al;
		double dr;
		if (sscanf(line, "%llu,%llu,%d,%lf,%d,%d", &q, &t, &des, &dr, &av, &al) != 6) {
			fprintf(stderr, "asteal-plot: %s:%d: bad row\n", in, rows + 2);
			return 1;
		}
		if (prev_t >= 0) {
			double now = (double)t * 1e-9;
			qlen = now - prev_t;
			step(&d, prev_t, now, prev_d);
			step(&p, prev_t, now, prev_p);
			step(&a, prev_t, now, prev_a);
		}
		prev_t = (double)t * 1e-9;
		prev_d = des;
		prev_p = av;
		prev_a = al;
		rows++;
	}
	fclose(f);
	if (rows == 0) {
		fprintf(stderr, "asteal-plot: %s: no quanta\n", in);
		return 1;
	}
	step(&d, prev_t, prev_t + qlen, prev_d);
	step(&p, prev_t, prev_t + qlen, prev_p);
	step(&a, prev_t, prev_t + qlen, prev_a);
	memset(&plot, 0, sizeof(plot));
	plot.title = title;
	plot.xlabel = "time (s)";
	plot.ylabel = "processors";
	svg_add(&plot, "availability", p.x, p.y, p.n, SVG_LINE);
	svg_add(&plot, "desire", d.x, d.y, d.n, SVG_LINE);
	svg_add(&plot, "allotment", a.x, a.y, a.n, SVG_LINE);
	if (svg_write(out, &plot) < 0) {
		fprintf(stderr, "asteal-plot: %s: %s\n", out, strerror(errno));
		return 1;
	}
	printf("%s: %d quanta\n", out, rows);
	return 0;
}
