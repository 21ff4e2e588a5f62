/*
 * plot.h - `asteal history --plot`: the allotment history as an SVG step
 * chart a person reads at a glance.
 *
 * First the whole machine: every job's allotment stacked, each in its
 * colour (the jobs without a panel in grey), against a line at P, with
 * the mean CPUs allotted and the share of P; it shows at a glance whether
 * the CPUs were shared out and kept full.  Then one panel per job,
 * stacked, all sharing one time axis (seconds, minutes
 * or hours since the first record's start, whose wall-clock time labels
 * the axis).  In each panel, in the job's colour, the allotment is a
 * filled step area and the desire a dashed step line; the y axis counts
 * CPUs from 0 to max(desire, P), with light grid lines and, when the
 * desire goes above it, a grey line at P.  Time is drawn in 2-pixel steps,
 * each the time-weighted mean of its records (what is too short to see
 * averages out, and the legend says how long a step is); unrecorded
 * quanta count as allotment 0 and break the desire line when they fill a
 * step.  At most PLOT_MAX_JOBS panels: those of the jobs allotted the
 * most CPU time (the processor time they held, which each panel states),
 * the rest counted in the title, each panel in a colour of its own.  The file is self-contained SVG 1.1 (no fonts,
 * styles or images from elsewhere) and well-formed XML: job names are
 * escaped, and bytes that are not valid UTF-8 or XML are written as '?'.
 */
#ifndef ASTEAL_CLI_PLOT_H
#define ASTEAL_CLI_PLOT_H

#include <stddef.h>
#include <stdio.h>

#include "asteal.pb-c.h"

/* The most panels (jobs) one chart shows. */
#define PLOT_MAX_JOBS 12

/* What to draw: a history query's jobs (for their names; any order, any
 * extra ones) and allotment records (any order), and the daemon's CPUs. */
struct plot_input {
	const Asteal__JobRecord *const *jobs;
	size_t njobs;
	const Asteal__AllotmentRecord *const *recs;
	size_t nrecs;
	int ncpus;            /* P; 0 if unknown */
};

/* Write the chart to f: 0, or -1 with errno (ENOMEM, or a write error of
 * f).  No records make a valid chart that says so. */
int plot_write(FILE *f, const struct plot_input *in);

/* Write the chart to the file at path (created or truncated): 0, or -1
 * with errno (the file's, or ENOMEM). */
int plot_history(const char *path, const struct plot_input *in);

#endif
