/*
 * svg.c - the SVG plot writer (see svg.h): ranges, "nice" ticks on linear
 * and log axes, and the drawing itself.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "svg.h"

#define W 720.0
#define H 480.0
#define ML 80.0   /* margins */
#define MR 30.0
#define MT 40.0
#define MB 60.0

static const char *const colors[SVG_MAX_SERIES] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
	"#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
};

/* Add a series to a plot. */
void svg_add(struct svg_plot *p, const char *name, const double *x,
	     const double *y, int n, enum svg_style style)
{
	if (p->ns >= SVG_MAX_SERIES)
		return;
	p->s[p->ns++] = (struct svg_series){ name, x, y, n, style };
}

/* An axis: its data range (log10 of it on log axes) and pixel span. */
struct axis {
	int log;
	double lo, hi;      /* in axis units (log10 for log axes) */
	double p0, p1;      /* pixels for lo and hi */
};

/* A value in axis units, or NAN when it cannot be shown. */
static double ax_unit(const struct axis *a, double v)
{
	if (a->log)
		return v > 0 ? log10(v) : NAN;
	return v;
}

/* The pixel of a value. */
static double ax_pix(const struct axis *a, double v)
{
	double u = ax_unit(a, v);

	return a->p0 + (u - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
}

/* A 1-2-5 step giving about `want` intervals over span. */
static double nice_step(double span, int want)
{
	double raw = span / want, mag = pow(10, floor(log10(raw)));
	double f = raw / mag;

	return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

/* Set an axis's range from the data (or the given limits). */
static void ax_range(struct axis *a, const struct svg_plot *p, int isx,
		     double gmin, double gmax)
{
	double lo = INFINITY, hi = -INFINITY;

	if (gmin != 0 || gmax != 0) {
		lo = ax_unit(a, gmin);
		hi = ax_unit(a, gmax);
	} else {
		for (int s = 0; s < p->ns; s++)
			for (int i = 0; i < p->s[s].n; i++) {
				double u = ax_unit(a, isx ? p->s[s].x[i] : p->s[s].y[i]);

				if (isfinite(u)) {
					lo = u < lo ? u : lo;
					hi = u > hi ? u : hi;
				}
			}
	}
	if (!isfinite(lo) || !isfinite(hi)) {
		lo = 0;
		hi = 1;
	}
	if (hi - lo < 1e-12) {
		double d = a->log ? 0.5 : (fabs(lo) > 0 ? fabs(lo) * 0.1 : 1);

		lo -= d;
		hi += d;
	}
	if (a->log) {
		lo = floor(lo);
		hi = ceil(hi);
	} else if (gmin == 0 && gmax == 0) {
		double st = nice_step(hi - lo, 6);

		lo = floor(lo / st) * st;
		hi = ceil(hi / st) * st;
	}
	a->lo = lo;
	a->hi = hi;
}

/* Escape text for SVG. */
static void put_text(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else
			fputc(*s, f);
	}
}

/* Format a tick label compactly. */
static void tick_label(char *buf, size_t n, double v)
{
	if (fabs(v) < 1e-12)
		v = 0;
	if (v != 0 && (fabs(v) >= 1e6 || fabs(v) < 1e-3))
		snprintf(buf, n, "%.0e", v);
	else
		snprintf(buf, n, "%g", v);
}

/* Draw an axis's ticks, labels and grid lines. */
static void draw_ticks(FILE *f, const struct axis *a, int isx)
{
	char lab[32];

	if (a->log) {
		int decades = (int)(a->hi - a->lo);

		for (int e = (int)a->lo; e <= (int)a->hi; e++) {
			for (int m = 1; m < 10; m++) {
				double v = m * pow(10, e), u = log10(v);

				if (u > a->hi + 1e-9)
					break;
				int major = m == 1, label = major ||
					(decades <= 2 && (m == 2 || m == 5));
				double px = ax_pix(a, v);

				if (isx)
					fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='%s'/>\n",
						px, MT, px, H - MB, major ? "#ddd" : "#f2f2f2");
				else
					fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='%s'/>\n",
						ML, px, W - MR, px, major ? "#ddd" : "#f2f2f2");
				if (!label)
					continue;
				tick_label(lab, sizeof(lab), v);
				if (isx)
					fprintf(f, "<text x='%.1f' y='%.1f' text-anchor='middle'>%s</text>\n",
						px, H - MB + 18, lab);
				else
					fprintf(f, "<text x='%.1f' y='%.1f' text-anchor='end'>%s</text>\n",
						ML - 6, px + 4, lab);
			}
		}
		return;
	}
	double st = nice_step(a->hi - a->lo, 6);

	for (double v = ceil(a->lo / st - 1e-9) * st; v <= a->hi + st * 1e-9; v += st) {
		double px = ax_pix(a, v);

		tick_label(lab, sizeof(lab), v);
		if (isx)
			fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#ddd'/>\n"
				"<text x='%.1f' y='%.1f' text-anchor='middle'>%s</text>\n",
				px, MT, px, H - MB, px, H - MB + 18, lab);
		else
			fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#ddd'/>\n"
				"<text x='%.1f' y='%.1f' text-anchor='end'>%s</text>\n",
				ML, px, W - MR, px, ML - 6, px + 4, lab);
	}
}

/* Draw one series. */
static void draw_series(FILE *f, const struct axis *ax, const struct axis *ay,
			const struct svg_series *s, const char *color)
{
	int open = 0;

	if (s->style != SVG_POINTS) {
		for (int i = 0; i < s->n; i++) {
			double ux = ax_unit(ax, s->x[i]), uy = ax_unit(ay, s->y[i]);

			if (!isfinite(ux) || !isfinite(uy)) {
				if (open)
					fputs("'/>\n", f);
				open = 0;
				continue;
			}
			if (!open)
				fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='1.8' points='",
					color);
			fprintf(f, "%.1f,%.1f ", ax_pix(ax, s->x[i]), ax_pix(ay, s->y[i]));
			open = 1;
		}
		if (open)
			fputs("'/>\n", f);
	}
	if (s->style == SVG_LINE)
		return;
	fprintf(f, "<g fill='%s' fill-opacity='0.6'>\n", color);
	for (int i = 0; i < s->n; i++) {
		double ux = ax_unit(ax, s->x[i]), uy = ax_unit(ay, s->y[i]);

		if (!isfinite(ux) || !isfinite(uy))
			continue;
		fprintf(f, "<circle cx='%.1f' cy='%.1f' r='2.2'/>\n",
			ax_pix(ax, s->x[i]), ax_pix(ay, s->y[i]));
	}
	fputs("</g>\n", f);
}

/* Write the plot to path (see svg.h). */
int svg_write(const char *path, const struct svg_plot *p)
{
	struct axis ax = { .log = p->xlog, .p0 = ML, .p1 = W - MR };
	struct axis ay = { .log = p->ylog, .p0 = H - MB, .p1 = MT };
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -1;
	ax_range(&ax, p, 1, p->xmin, p->xmax);
	ax_range(&ay, p, 0, p->ymin, p->ymax);
	fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='%.0f' height='%.0f' "
		"font-family='sans-serif' font-size='12'>\n"
		"<rect width='100%%' height='100%%' fill='white'/>\n", W, H);
	fprintf(f, "<defs><clipPath id='plot'><rect x='%.1f' y='%.1f' width='%.1f' height='%.1f'/></clipPath></defs>\n",
		ML, MT, W - ML - MR, H - MT - MB);
	draw_ticks(f, &ax, 1);
	draw_ticks(f, &ay, 0);
	fprintf(f, "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='none' stroke='black'/>\n",
		ML, MT, W - ML - MR, H - MT - MB);
	fprintf(f, "<text x='%.1f' y='%.1f' text-anchor='middle' font-size='15'>", W / 2, MT - 14);
	put_text(f, p->title);
	fprintf(f, "</text>\n<text x='%.1f' y='%.1f' text-anchor='middle'>", (ML + W - MR) / 2, H - 16);
	put_text(f, p->xlabel);
	fprintf(f, "</text>\n<text transform='translate(18,%.1f) rotate(-90)' text-anchor='middle'>",
		(MT + H - MB) / 2);
	put_text(f, p->ylabel);
	fputs("</text>\n<g clip-path='url(#plot)'>\n", f);
	for (int s = 0; s < p->ns; s++)
		draw_series(f, &ax, &ay, &p->s[s], colors[s]);
	fputs("</g>\n", f);
	/* the legend, top right */
	double lw = 0;

	for (int s = 0; s < p->ns; s++) {
		double w = 7.0 * (double)strlen(p->s[s].name ? p->s[s].name : "");

		lw = w > lw ? w : lw;
	}
	if (p->ns > 0) {
		double x0 = W - MR - lw - 44, y0 = MT + 8;

		fprintf(f, "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='white' fill-opacity='0.85' stroke='#999'/>\n",
			x0, y0, lw + 36, 18.0 * p->ns + 6);
		for (int s = 0; s < p->ns; s++) {
			double y = y0 + 15 + 18.0 * s;

			if (p->s[s].style == SVG_POINTS)
				fprintf(f, "<circle cx='%.1f' cy='%.1f' r='3' fill='%s'/>\n",
					x0 + 14, y - 4, colors[s]);
			else
				fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='%s' stroke-width='2'/>\n",
					x0 + 6, y - 4, x0 + 24, y - 4, colors[s]);
			fprintf(f, "<text x='%.1f' y='%.1f'>", x0 + 30, y);
			put_text(f, p->s[s].name);
			fputs("</text>\n", f);
		}
	}
	fputs("</svg>\n", f);
	int bad = ferror(f);

	if (fclose(f) != 0 || bad)
		return -1;
	return 0;
}
