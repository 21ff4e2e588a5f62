/*
 * svg.h - a small SVG plot writer for the experiments' figures: one chart
 * with axes (linear or log10), ticks, tick labels, axis labels, a title, a
 * legend, and series drawn as lines or points.  No external tools.
 */
#ifndef ASTEAL_SIM_SVG_H
#define ASTEAL_SIM_SVG_H

#define SVG_MAX_SERIES 8

enum svg_style { SVG_LINE, SVG_POINTS, SVG_LINEPOINTS };

struct svg_series {
	const char *name;
	const double *x, *y;
	int n;
	enum svg_style style;
};

struct svg_plot {
	const char *title, *xlabel, *ylabel;
	int xlog, ylog;          /* log10 axes (non-positive values skipped) */
	double xmin, xmax;       /* both 0: automatic */
	double ymin, ymax;       /* both 0: automatic */
	struct svg_series s[SVG_MAX_SERIES];
	int ns;
};

/* Add a series to a plot (ignored beyond SVG_MAX_SERIES). */
void svg_add(struct svg_plot *p, const char *name, const double *x,
	     const double *y, int n, enum svg_style style);

/* Write the plot to path: 0, or -1 (errno set) when the file fails. */
int svg_write(const char *path, const struct svg_plot *p);

#endif
