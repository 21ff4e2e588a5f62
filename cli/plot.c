/*
 * plot.c - the allotment history as an SVG step chart (see plot.h).
 *
 * Above the jobs' panels, the whole machine's: the same buckets' mean
 * allotments of every job, stacked in the panels' colours (the jobs not
 * shown in grey on top), against P.
 *
 * The records are sorted by job and start, grouped into panels (the
 * PLOT_MAX_JOBS jobs with the most CPU time, shown in id order), and each
 * panel's time axis is cut into NBUCKETS buckets of 2 px.  A bucket gets
 * the time-weighted mean allotment and desire of the records overlapping
 * it, and the paths are steps over the buckets: a record wider than a
 * bucket draws exactly (to 2 px), while thousands of 10 ms quanta in one
 * bucket draw as their mean, not as a solid block of spikes; and the
 * file's size depends on the chart's width, not on the number of records.
 * Points are rounded to 0.1 px, and repeated points and collinear runs
 * merged.  Colours come from a fixed palette of PLOT_MAX_JOBS, chosen by
 * job id, so that a job keeps its colour from one chart to the next,
 * unless a job shown before it in the chart took that colour: then it
 * takes the next one free, and no two panels look alike.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"
#include "record.h"
#include "table.h"

/* Geometry, in pixels. */
#define W 960.0                 /* the whole chart's width */
#define ML 64.0                 /* left margin: y labels */
#define MR 24.0                 /* right margin */
#define PW (W - ML - MR)        /* a panel's drawing width */
#define TOP 96.0                /* the first panel's top */
#define HEAD 24.0               /* a panel's title line */
#define PH 96.0                 /* a panel's drawing height */
#define HEADROOM 8.0            /* above ymax, so a line there shows */
#define GAP 14.0                /* between panels */
#define FOOT 56.0               /* x tick labels and the axis label */
#define NAME_MAX_BYTES 64       /* job names longer than this are cut */
#define NBUCKETS 436            /* time buckets: 2 px each */

/* Twelve colours told apart on white (Tableau 10, a dark indigo and an
 * olive), one for each panel a chart can have. */
static const char *const palette[PLOT_MAX_JOBS] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
	"#393b79", "#637939",
};
#define NPALETTE (sizeof(palette) / sizeof(palette[0]))

/* One job's panel: its records (sorted by start) and scale. */
struct panel {
	uint64_t id;
	const char *name;
	const Asteal__AllotmentRecord *const *recs;
	size_t n;
	unsigned ymax, ystep;       /* y axis: 0..ymax CPUs, a label every ystep */
	double mean_a, mean_d;      /* time-weighted means */
	uint64_t cpu_ns;            /* the CPU time it was allotted: what
	                               ranks the panels */
	const char *colour;
};

/* The time axis: instants t0..t1 (ns) drawn in a unit with ticks. */
struct xaxis {
	uint64_t t0, t1;
	double unit_ns;             /* 1e9 (seconds), 60e9 (minutes), ... */
	const char *unit;
	double step;                /* between ticks, in units */
	int decimals;               /* of the tick labels */
};

/* A path being built: points in pixels; a NaN x starts a new subpath. */
struct pts {
	double *xy;
	size_t n, cap;              /* points (pairs) */
};

/* Order records by job, then start, then first quantum. */
static int cmp_rec(const void *a, const void *b)
{
	const Asteal__AllotmentRecord *x = *(const Asteal__AllotmentRecord *const *)a;
	const Asteal__AllotmentRecord *y = *(const Asteal__AllotmentRecord *const *)b;

	if (x->job_id != y->job_id)
		return x->job_id < y->job_id ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	if (x->first_quantum != y->first_quantum)
		return x->first_quantum < y->first_quantum ? -1 : 1;
	return 0;
}

/* Order panels by CPU time, most first (then by id). */
static int cmp_panel_cpu(const void *a, const void *b)
{
	const struct panel *x = a, *y = b;

	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns > y->cpu_ns ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* A record's CPU time: the time its allotted processors were held (the
 * daemon's allotted time), or, when it measured none (a job not linked
 * with libasteal), its mean allotment times its duration. */
static uint64_t rec_cpu_ns(const Asteal__AllotmentRecord *r)
{
	if (r->usage != NULL && r->usage->allotted_ns > 0)
		return r->usage->allotted_ns;
	return r->end_ns > r->start_ns ?
	       (uint64_t)((double)(r->end_ns - r->start_ns) * record_mean(r)) : 0;
}

/* Give the first n panels their colours: by job id, the next free one
 * when a panel before took it. */
static void choose_colours(struct panel *pn, size_t n)
{
	int used[NPALETTE] = { 0 };
	size_t i, c;

	for (i = 0; i < n && i < NPALETTE; i++) {
		for (c = pn[i].id % NPALETTE; used[c]; c = (c + 1) % NPALETTE)
			;
		used[c] = 1;
		pn[i].colour = palette[c];
	}
}

/* Order panels by job id. */
static int cmp_panel_id(const void *a, const void *b)
{
	const struct panel *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Append a point (rounded to 0.1 px), merging what a line would not show. */
static int pt_add(struct pts *p, double x, double y)
{
	double *l, *q;

	x = round(x * 10) / 10;
	y = round(y * 10) / 10;
	if (p->n >= 1) {
		l = p->xy + 2 * (p->n - 1);
		if (l[0] == x && l[1] == y)
			return 0;
		if (p->n >= 2) {
			q = l - 2;          /* NaN (a break) compares unequal */
			if (q[1] == l[1] && l[1] == y) {
				l[0] = x;       /* a horizontal run goes on */
				return 0;
			}
			if (q[0] == l[0] && l[0] == x) {
				l[1] = y;       /* a vertical run goes on */
				return 0;
			}
		}
	}
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 256;
		double *xy = realloc(p->xy, cap * 2 * sizeof(*xy));
		if (xy == NULL)
			return -1;
		p->xy = xy;
		p->cap = cap;
	}
	p->xy[2 * p->n] = x;
	p->xy[2 * p->n + 1] = y;
	p->n++;
	return 0;
}

/* Start a new subpath (the next point is a move, not a line). */
static int pt_break(struct pts *p)
{
	if (p->n == 0 || isnan(p->xy[2 * (p->n - 1)]))
		return 0;
	return pt_add(p, NAN, NAN);
}

/* Write a path's d attribute: M, L and (when closed) Z. */
static void pt_write(FILE *f, const struct pts *p, int closed)
{
	int move = 1;
	size_t i;

	for (i = 0; i < p->n; i++) {
		double x = p->xy[2 * i], y = p->xy[2 * i + 1];

		if (isnan(x)) {
			move = 1;
			continue;
		}
		fprintf(f, "%s%c%.1f %.1f", i ? " " : "", move ? 'M' : 'L', x, y);
		move = 0;
	}
	if (closed)
		fputs(" Z", f);
}

/* The length of the valid UTF-8 character XML allows at s, or 0. */
static size_t utf8_char(const unsigned char *s)
{
	size_t n;

	if (s[0] < 0x80)
		return s[0] >= 0x20 || s[0] == '\t' ? (s[0] == 0x7f ? 0 : 1) : 0;
	n = table_utf8_len(s);
	if (n == 3 && s[0] == 0xef && s[1] == 0xbf && s[2] >= 0xbe)
		return 0;               /* U+FFFE/F */
	return n;
}

/* Write text as XML character data, at most max bytes of it ("..." when
 * cut); markup characters escaped, anything XML cannot hold as '?'. */
static void put_text(FILE *f, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)(s != NULL ? s : "");
	size_t used = 0, n;

	while (*p) {
		n = utf8_char(p);
		if (used + (n ? n : 1) > max) {
			fputs("...", f);
			return;
		}
		used += n ? n : 1;
		if (n == 0) {
			fputc('?', f);
			p++;
			continue;
		}
		switch (*p) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default: fwrite(p, 1, n, f); break;
		}
		p += n;
	}
}

/* A 1-2-5 step giving at most `want` intervals over span (> 0). */
static double nice_step(double span, int want)
{
	double raw = span / want, mag = pow(10, floor(log10(raw)));
	double r = raw / mag;

	return (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * mag;
}

/* Choose the time axis's unit and ticks for t0..t1. */
static void x_axis(struct xaxis *ax, uint64_t t0, uint64_t t1)
{
	double span_s;

	if (t1 <= t0)
		t1 = t0 + 1000000;      /* 1 ms: something to draw */
	ax->t0 = t0;
	ax->t1 = t1;
	span_s = (double)(t1 - t0) / 1e9;
	if (span_s < 300) {
		ax->unit_ns = 1e9;
		ax->unit = "seconds";
	} else if (span_s < 3 * 3600) {
		ax->unit_ns = 60e9;
		ax->unit = "minutes";
	} else if (span_s < 3 * 86400) {
		ax->unit_ns = 3600e9;
		ax->unit = "hours";
	} else {
		ax->unit_ns = 86400e9;
		ax->unit = "days";
	}
	ax->step = nice_step((double)(t1 - t0) / ax->unit_ns, 10);
	ax->decimals = ax->step >= 1 ? 0 : (int)ceil(-log10(ax->step) - 1e-9);
}

/* The y pixel of a CPU count in a panel whose drawing starts at top. */
static double y_pix(const struct panel *pn, double top, double v)
{
	return top + PH - v / pn->ymax * (PH - HEADROOM);
}

/* A panel's y axis: 0 to at least top CPUs, in nice steps. */
static void scale_to(struct panel *pn, unsigned top)
{
	pn->ystep = top <= 6 ? 1 : (unsigned)nice_step(top, 5);
	if (pn->ystep < 1)
		pn->ystep = 1;
	pn->ymax = (top + pn->ystep - 1) / pn->ystep * pn->ystep;
}

/* A panel's y scale and means, from its records and P. */
static void panel_scale(struct panel *pn, int ncpus)
{
	unsigned top = ncpus > 0 ? (unsigned)ncpus : 1;
	double sa = 0, sd = 0, dur = 0;
	size_t i;

	for (i = 0; i < pn->n; i++) {
		const Asteal__AllotmentRecord *r = pn->recs[i];
		double d = r->end_ns > r->start_ns ? (double)(r->end_ns - r->start_ns) : 0;

		if (r->desire > top)
			top = r->desire;
		/* a run of turns held one more at times */
		unsigned hi = r->allotment + (unsigned)record_turns(r);

		if (hi > top)
			top = hi;
		sa += d * record_mean(r);
		sd += d * r->desire;
		dur += d;
	}
	if (dur > 0) {
		pn->mean_a = sa / dur;
		pn->mean_d = sd / dur;
	} else {
		for (i = 0, sa = sd = 0; i < pn->n; i++) {
			sa += record_mean(pn->recs[i]);
			sd += pn->recs[i]->desire;
		}
		pn->mean_a = pn->n ? sa / (double)pn->n : 0;
		pn->mean_d = pn->n ? sd / (double)pn->n : 0;
	}
	scale_to(pn, top);
}

/* The buckets' sums over a panel's records (buf: 3 * NBUCKETS, cleared
 * here): the time-weighted allotment, then desire, then the time the
 * records cover; the buckets touched are first .. last (none: first >
 * last). */
static void bucket_sums(const struct panel *pn, const struct xaxis *ax,
                        double *buf, size_t *first_out, size_t *last_out)
{
	double *sa = buf, *sd = buf + NBUCKETS, *cov = buf + 2 * NBUCKETS;
	double span = (double)(ax->t1 - ax->t0), dt = span / NBUCKETS;
	size_t i, k, first = NBUCKETS, last = 0;

	memset(buf, 0, 3 * NBUCKETS * sizeof(*buf));
	for (k = 0; k < pn->n; k++) {
		const Asteal__AllotmentRecord *r = pn->recs[k];
		double s = r->start_ns > ax->t0 ? (double)(r->start_ns - ax->t0) : 0;
		double e = r->end_ns > ax->t0 ? (double)(r->end_ns - ax->t0) : 0;
		size_t i0, i1;

		if (e > span)
			e = span;
		if (e <= s)
			continue;
		i0 = (size_t)(s / dt);
		i1 = (size_t)(e / dt);
		if (i1 >= NBUCKETS)
			i1 = NBUCKETS - 1;
		if (i0 > i1)
			i0 = i1;
		for (i = i0; i <= i1; i++) {
			double lo = s > (double)i * dt ? s : (double)i * dt;
			double hi = e < (double)(i + 1) * dt ? e : (double)(i + 1) * dt;
			if (hi <= lo)
				continue;
			sa[i] += (hi - lo) * record_mean(r);
			sd[i] += (hi - lo) * r->desire;
			cov[i] += hi - lo;
		}
		if (i0 < first)
			first = i0;
		if (i1 > last)
			last = i1;
	}
	*first_out = first;
	*last_out = last;
}

/* Bucket i's mean allotment, unrecorded time counting as 0 (records may
 * overlap a little at their ends: never above what they hold). */
static double bucket_mean(const double *sa, const double *cov, size_t i,
                          double dt)
{
	return sa[i] / (cov[i] > dt ? cov[i] : dt);
}

/* Build a panel's allotment area and desire line over the buckets.  Each
 * bucket holds the time-weighted means of what the records say during
 * it: the allotment counting unrecorded time (gaps, before the start,
 * after the end) as 0, the desire over the recorded time only (none: the
 * line breaks).  A record longer than a bucket thus draws exactly (to a
 * bucket's width), and quanta too short to see average out instead of
 * piling up into a misleading solid block.  The area spans the buckets
 * from the job's first record to its last.  buf holds 3 * NBUCKETS. */
static int panel_paths(const struct panel *pn, const struct xaxis *ax,
                       double top, struct pts *area, struct pts *desire,
                       double *buf)
{
	double *sa = buf, *sd = buf + NBUCKETS, *cov = buf + 2 * NBUCKETS;
	double dt = (double)(ax->t1 - ax->t0) / NBUCKETS, bw = PW / NBUCKETS;
	size_t i, first, last;
	int rc = 0;

	area->n = desire->n = 0;
	bucket_sums(pn, ax, buf, &first, &last);
	if (first > last)
		return 0;               /* nothing long enough to draw */
	rc |= pt_add(area, ML + (double)first * bw, y_pix(pn, top, 0));
	for (i = first; i <= last && rc == 0; i++) {
		double x0 = ML + (double)i * bw, x1 = x0 + bw;

		rc |= pt_add(area, x0, y_pix(pn, top, bucket_mean(sa, cov, i, dt)));
		rc |= pt_add(area, x1, y_pix(pn, top, bucket_mean(sa, cov, i, dt)));
		if (cov[i] > 0) {
			rc |= pt_add(desire, x0, y_pix(pn, top, sd[i] / cov[i]));
			rc |= pt_add(desire, x1, y_pix(pn, top, sd[i] / cov[i]));
		} else {
			rc |= pt_break(desire);
		}
	}
	rc |= pt_add(area, ML + (double)(last + 1) * bw, y_pix(pn, top, 0));
	return rc;
}

/* A job's name among the records of in, or NULL. */
static const char *job_name(const struct plot_input *in, uint64_t id)
{
	size_t i;

	for (i = 0; i < in->njobs; i++)
		if (in->jobs[i]->id == id)
			return in->jobs[i]->name;
	return NULL;
}

/* The SVG prologue: header, background and the title lines. */
static void write_head(FILE *f, double height, const char *title,
                       size_t hidden, const char *sub)
{
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
	        "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
	        "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" "
	        "font-size=\"12\">\n", W, height, W, height);
	fprintf(f, "<title>%s</title>\n", title);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" "
	        "fill=\"#ffffff\"/>\n", W, height);
	fprintf(f, "<text x=\"%.0f\" y=\"30\" font-size=\"18\" font-weight=\"bold\" "
	        "fill=\"#222222\">%s", ML, title);
	if (hidden > 0)
		fprintf(f, "<tspan dx=\"8\" font-weight=\"normal\" font-size=\"14\" "
		        "fill=\"#555555\">(%zu more job%s not shown)</tspan>",
		        hidden, hidden == 1 ? "" : "s");
	fputs("</text>\n", f);
	fprintf(f, "<text x=\"%.0f\" y=\"52\" fill=\"#444444\">%s</text>\n", ML, sub);
}

/* The legend under the title: what the fill, the dashes and P mean, and
 * that the lines are averaged over steps of slice_ns. */
static void write_legend(FILE *f, int show_p, uint64_t slice_ns)
{
	double y = 74, x = ML;
	char slice[32];

	fmt_short(slice, sizeof(slice), slice_ns);

	fprintf(f, "<g font-size=\"12\" fill=\"#333333\">\n"
	        "<rect x=\"%.0f\" y=\"%.0f\" width=\"22\" height=\"12\" fill=\"#555555\" "
	        "fill-opacity=\"0.35\" stroke=\"#555555\" stroke-width=\"1.2\"/>\n"
	        "<text x=\"%.0f\" y=\"%.0f\">allotment (filled): CPUs held, "
	        "averaged over %s</text>\n", x, y - 10, x + 28, y, slice);
	x += 350;
	fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#555555\" "
	        "stroke-width=\"1.8\" stroke-dasharray=\"6 4\"/>\n"
	        "<text x=\"%.0f\" y=\"%.0f\">desire (dashed): CPUs asked for</text>\n",
	        x, y - 4, x + 22, y - 4, x + 28, y);
	x += 250;
	if (show_p)
		fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" "
		        "stroke=\"#333333\" stroke-width=\"1\" stroke-dasharray=\"2 3\"/>\n"
		        "<text x=\"%.0f\" y=\"%.0f\">P: all the CPUs asteald shares</text>\n",
		        x, y - 4, x + 22, y - 4, x + 28, y);
	fputs("</g>\n", f);
}

/* One panel at vertical position y0 (its title line's top). */
static int write_panel(FILE *f, const struct panel *pn, const struct xaxis *ax,
                       double y0, int ncpus, struct pts *area, struct pts *desire,
                       double *buf)
{
	const char *col = pn->colour;
	double top = y0 + HEAD, v;
	char cpu[32];
	unsigned k;

	if (panel_paths(pn, ax, top, area, desire, buf) < 0)
		return -1;
	fprintf(f, "<g>\n<rect x=\"%.0f\" y=\"%.0f\" width=\"11\" height=\"11\" "
	        "fill=\"%s\"/>\n", ML, y0 + 6, col);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"13\" font-weight=\"bold\" "
	        "fill=\"#222222\">job %llu<tspan dx=\"5\" font-weight=\"normal\">", ML + 17,
	        y0 + 16, (unsigned long long)pn->id);
	put_text(f, pn->name != NULL ? pn->name : "?", NAME_MAX_BYTES);
	fputs("</tspan></text>\n", f);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" fill=\"#555555\" "
	        "text-anchor=\"end\">mean allotment %.2f, mean desire %.2f CPUs; "
	        "%s of CPU allotted; %zu record%s</text>\n", W - MR, y0 + 16, pn->mean_a,
	        pn->mean_d, fmt_duration(cpu, sizeof(cpu), pn->cpu_ns), pn->n,
	        pn->n == 1 ? "" : "s");
	fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" "
	        "fill=\"#ffffff\" stroke=\"#bbbbbb\"/>\n", ML, top, PW, PH);
	/* grid: time ticks, then CPU ticks with their labels */
	fputs("<g stroke=\"#eeeeee\" stroke-width=\"1\">", f);
	for (v = ax->step; v * ax->unit_ns < (double)(ax->t1 - ax->t0) * (1 - 1e-9); v += ax->step) {
		double x = ML + v * ax->unit_ns / (double)(ax->t1 - ax->t0) * PW;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\"/>", x, top,
		        x, top + PH);
	}
	fputs("</g>\n<g stroke=\"#dddddd\" stroke-width=\"1\">", f);
	for (k = pn->ystep; k <= pn->ymax; k += pn->ystep)
		fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\"/>", ML,
		        y_pix(pn, top, k), W - MR, y_pix(pn, top, k));
	fputs("</g>\n<g font-size=\"10\" fill=\"#555555\" text-anchor=\"end\">", f);
	for (k = 0; k <= pn->ymax; k += pn->ystep)
		fprintf(f, "<text x=\"%.0f\" y=\"%.1f\">%u</text>", ML - 6,
		        y_pix(pn, top, k) + 3.5, k);
	fputs("</g>\n", f);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"10\" fill=\"#555555\" "
	        "text-anchor=\"middle\" transform=\"rotate(-90 %.0f %.0f)\">CPUs</text>\n",
	        ML - 36, top + PH / 2, ML - 36, top + PH / 2);
	/* the data: the allotment's area, then the desire over it */
	fprintf(f, "<path fill=\"%s\" fill-opacity=\"0.35\" stroke=\"%s\" "
	        "stroke-width=\"1.2\" stroke-linejoin=\"miter\" d=\"", col, col);
	pt_write(f, area, 1);
	fprintf(f, "\"/>\n<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\" "
	        "stroke-dasharray=\"6 4\" d=\"", col);
	pt_write(f, desire, 0);
	fputs("\"/>\n", f);
	if (ncpus > 0 && (unsigned)ncpus < pn->ymax)
		fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" "
		        "stroke=\"#333333\" stroke-width=\"1\" stroke-dasharray=\"2 3\"/>"
		        "<text x=\"%.0f\" y=\"%.1f\" font-size=\"10\" fill=\"#333333\" "
		        "text-anchor=\"end\">P = %d</text>\n", ML, y_pix(pn, top, ncpus),
		        W - MR, y_pix(pn, top, ncpus), W - MR - 4,
		        y_pix(pn, top, ncpus) - 3, ncpus);
	fputs("</g>\n", f);
	return 0;
}

/* The whole machine at y0: in each bucket, each shown job's mean
 * allotment stacked in its colour, lowest id at the bottom, the jobs not
 * shown above them in grey, against P.  buf holds 5 * NBUCKETS. */
static int write_machine(FILE *f, const struct panel *pn, size_t shown,
                         size_t npn, const struct xaxis *ax, double y0,
                         int ncpus, struct pts *band, double *buf)
{
	double *lo = buf + 3 * NBUCKETS, *total = buf + 4 * NBUCKETS;
	double dt = (double)(ax->t1 - ax->t0) / NBUCKETS, bw = PW / NBUCKETS;
	double top = y0 + HEAD, most = 0, sum = 0;
	struct panel m = { 0 };
	size_t i, b, first, last;
	int rc = 0;

	memset(total, 0, NBUCKETS * sizeof(*total));
	for (i = 0; i < npn; i++) {
		bucket_sums(&pn[i], ax, buf, &first, &last);
		for (b = first; b <= last && b < NBUCKETS; b++)
			total[b] += bucket_mean(buf, buf + 2 * NBUCKETS, b, dt);
	}
	for (b = 0; b < NBUCKETS; b++) {
		most = total[b] > most ? total[b] : most;
		sum += total[b];
	}
	scale_to(&m, (unsigned)ceil(most - 1e-9) > (unsigned)ncpus
	         ? (unsigned)ceil(most - 1e-9) : (unsigned)(ncpus > 0 ? ncpus : 1));
	fprintf(f, "<g id=\"machine\">\n<text x=\"%.0f\" y=\"%.0f\" font-size=\"13\" "
	        "font-weight=\"bold\" fill=\"#222222\">all jobs<tspan dx=\"5\" "
	        "font-weight=\"normal\">their allotments stacked", ML, y0 + 16);
	if (ncpus > 0)
		fprintf(f, " against the P = %d CPUs", ncpus);
	fprintf(f, "</tspan></text>\n<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" "
	        "fill=\"#555555\" text-anchor=\"end\">mean %.2f CPUs allotted", W - MR,
	        y0 + 16, sum / NBUCKETS);
	if (ncpus > 0)
		fprintf(f, ", %.0f%% of P", 100 * sum / NBUCKETS / ncpus);
	fprintf(f, "</text>\n<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" "
	        "fill=\"#ffffff\" stroke=\"#bbbbbb\"/>\n", ML, top, PW, PH);
	fputs("<g font-size=\"10\" fill=\"#555555\" text-anchor=\"end\">", f);
	for (unsigned k = 0; k <= m.ymax; k += m.ystep)
		fprintf(f, "<text x=\"%.0f\" y=\"%.1f\">%u</text>", ML - 6,
		        y_pix(&m, top, k) + 3.5, k);
	fprintf(f, "</g>\n<text x=\"%.0f\" y=\"%.0f\" font-size=\"10\" fill=\"#555555\" "
	        "text-anchor=\"middle\" transform=\"rotate(-90 %.0f %.0f)\">CPUs</text>\n",
	        ML - 36, top + PH / 2, ML - 36, top + PH / 2);
	/* the bands: each from the sum below it to the sum with it */
	memset(lo, 0, NBUCKETS * sizeof(*lo));
	for (i = 0; i < shown + (npn > shown) && rc == 0; i++) {
		const char *col = i < shown ? pn[i].colour : "#aaaaaa";
		size_t j = i, end = i < shown ? i + 1 : npn;

		memset(total, 0, NBUCKETS * sizeof(*total));
		for (; j < end; j++) {
			bucket_sums(&pn[j], ax, buf, &first, &last);
			for (b = first; b <= last && b < NBUCKETS; b++)
				total[b] += bucket_mean(buf, buf + 2 * NBUCKETS, b, dt);
		}
		band->n = 0;
		for (b = 0; b < NBUCKETS; b++) {
			rc |= pt_add(band, ML + (double)b * bw, y_pix(&m, top, lo[b] + total[b]));
			rc |= pt_add(band, ML + (double)(b + 1) * bw,
			             y_pix(&m, top, lo[b] + total[b]));
		}
		for (b = NBUCKETS; b-- > 0;) {
			rc |= pt_add(band, ML + (double)(b + 1) * bw, y_pix(&m, top, lo[b]));
			rc |= pt_add(band, ML + (double)b * bw, y_pix(&m, top, lo[b]));
			lo[b] += total[b];
		}
		if (i < shown)
			fprintf(f, "<path data-job=\"%llu\"", (unsigned long long)pn[i].id);
		else
			fputs("<path data-job=\"others\"", f);
		fprintf(f, " fill=\"%s\" fill-opacity=\"0.7\" stroke=\"none\" d=\"", col);
		pt_write(f, band, 1);
		fputs("\"/>\n", f);
	}
	if (ncpus > 0)
		fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" "
		        "stroke=\"#333333\" stroke-width=\"1\" stroke-dasharray=\"2 3\"/>"
		        "<text x=\"%.0f\" y=\"%.1f\" font-size=\"10\" fill=\"#333333\" "
		        "text-anchor=\"end\">P = %d</text>\n", ML, y_pix(&m, top, ncpus),
		        W - MR, y_pix(&m, top, ncpus), W - MR - 4,
		        y_pix(&m, top, ncpus) - 3, ncpus);
	fputs("</g>\n", f);
	return rc;
}

/* The time axis under the last panel, whose drawing ends at y. */
static void write_xaxis(FILE *f, const struct xaxis *ax, double y)
{
	char when[64];
	double v, span = (double)(ax->t1 - ax->t0) / ax->unit_ns;

	fprintf(f, "<g font-size=\"11\" fill=\"#333333\" text-anchor=\"middle\">\n");
	for (v = 0; v <= span * (1 + 1e-9); v += ax->step) {
		double x = ML + v / span * PW;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" "
		        "stroke=\"#555555\"/><text x=\"%.1f\" y=\"%.0f\">%.*f</text>\n",
		        x, y, x, y + 5, x, y + 18, ax->decimals, v);
	}
	fmt_time(when, sizeof(when), ax->t0);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\">%s since %s "
	        "(local time)</text>\n</g>\n", ML + PW / 2, y + 40, ax->unit, when);
}

/* Write the chart. */
int plot_write(FILE *f, const struct plot_input *in)
{
	const Asteal__AllotmentRecord **recs = NULL;
	struct panel *pn = NULL;
	struct pts area = { 0 }, desire = { 0 };
	double *buckets = NULL;
	struct xaxis ax;
	size_t npn = 0, shown, hidden, i, j;
	uint64_t t0 = UINT64_MAX, t1 = 0;
	char sub[256], from[64], to[64], dur[32], on[40] = "";
	int show_p = 0, rc = -1;

	if (in->nrecs == 0) {
		write_head(f, 150, "asteal allotment history", 0,
		           "no allotment records in this period");
		fputs("</svg>\n", f);
		return ferror(f) ? -1 : 0;
	}
	recs = malloc(in->nrecs * sizeof(*recs));
	pn = calloc(in->nrecs, sizeof(*pn));
	buckets = malloc(5 * NBUCKETS * sizeof(*buckets));
	if (recs == NULL || pn == NULL || buckets == NULL) {
		errno = ENOMEM;
		goto out;
	}
	memcpy(recs, in->recs, in->nrecs * sizeof(*recs));
	qsort(recs, in->nrecs, sizeof(*recs), cmp_rec);
	for (i = 0; i < in->nrecs; i = j) {
		for (j = i + 1; j < in->nrecs && recs[j]->job_id == recs[i]->job_id; j++)
			;
		pn[npn].id = recs[i]->job_id;
		pn[npn].recs = recs + i;
		pn[npn].n = j - i;
		for (size_t k = i; k < j; k++)
			pn[npn].cpu_ns += rec_cpu_ns(recs[k]);
		npn++;
	}
	shown = npn;
	if (npn > PLOT_MAX_JOBS) {
		qsort(pn, npn, sizeof(*pn), cmp_panel_cpu);
		shown = PLOT_MAX_JOBS;
		qsort(pn, shown, sizeof(*pn), cmp_panel_id);
	}
	hidden = npn - shown;
	choose_colours(pn, shown);
	for (i = 0; i < shown; i++) {
		pn[i].name = job_name(in, pn[i].id);
		panel_scale(&pn[i], in->ncpus);
		if (in->ncpus > 0 && (unsigned)in->ncpus < pn[i].ymax)
			show_p = 1;
		for (j = 0; j < pn[i].n; j++) {
			if (pn[i].recs[j]->start_ns < t0)
				t0 = pn[i].recs[j]->start_ns;
			if (pn[i].recs[j]->end_ns > t1)
				t1 = pn[i].recs[j]->end_ns;
		}
	}
	x_axis(&ax, t0, t1);
	fmt_time(from, sizeof(from), ax.t0);
	fmt_time(to, sizeof(to), ax.t1);
	if (in->ncpus > 0)
		snprintf(on, sizeof(on), " on P = %d CPU%s", in->ncpus,
		         in->ncpus == 1 ? "" : "s");
	snprintf(sub, sizeof(sub), "%s to %s (%s), %zu job%s%s", from,
	         strncmp(from, to, 10) == 0 ? to + 11 : to,
	         fmt_duration(dur, sizeof(dur), ax.t1 - ax.t0), shown,
	         shown == 1 ? "" : "s", on);
	write_head(f, TOP + (double)(shown + 1) * (HEAD + PH + GAP) - GAP + FOOT,
	           "asteal allotment history", hidden, sub);
	write_legend(f, show_p, (ax.t1 - ax.t0) / NBUCKETS);
	if (write_machine(f, pn, shown, npn, &ax, TOP, in->ncpus, &area,
	                  buckets) < 0) {
		errno = ENOMEM;
		goto out;
	}
	for (i = 0; i < shown; i++)
		if (write_panel(f, &pn[i], &ax, TOP + (double)(i + 1) * (HEAD + PH + GAP),
		                in->ncpus, &area, &desire, buckets) < 0) {
			errno = ENOMEM;
			goto out;
		}
	write_xaxis(f, &ax, TOP + (double)(shown + 1) * (HEAD + PH + GAP) - GAP);
	fputs("</svg>\n", f);
	rc = ferror(f) ? -1 : 0;
out:
	free(area.xy);
	free(desire.xy);
	free(buckets);
	free(pn);
	free(recs);
	return rc;
}

/* Write the chart to a file. */
int plot_history(const char *path, const struct plot_input *in)
{
	FILE *f = fopen(path, "w");
	int rc, e;

	if (f == NULL)
		return -1;
	rc = plot_write(f, in);
	e = errno;
	if (fclose(f) != 0 && rc == 0)
		return -1;
	errno = e;
	return rc;
}
