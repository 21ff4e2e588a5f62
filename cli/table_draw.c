/*
 * table_draw.c - a table for people (table_write's TABLE_ALIGNED), drawn
 * by libsmartcols.
 *
 * Each cell is first made safe to show here (table__cell_cut: whatever
 * does not print becomes '?'; no value "-"; a cell of a column of fixed
 * width cut with '+'), then libsmartcols lays the columns out, two spaces
 * apart, the numbers' to the right, the last unpadded.  On a terminal
 * (the stream written is one; its width COLUMNS's when set, as lsblk's)
 * the table fits it: the columns that may give way (table_set_shrink)
 * are cut or wrapped by libsmartcols, which takes a column off each in
 * turn down to its header's width; the columns on the right that still
 * do not fit are left out whole (fit_terminal), so that no number is
 * ever cut.  Anywhere else nothing depends on a terminal: each column is
 * as wide as its widest cell (or header), or the width it was given.
 *
 * libsmartcols keeps every line it prints in memory, and measures every
 * cell twice as it lays them out and prints them.  So a table is handed
 * to it TABLE_PAGE lines at a time, every page with the widths measured
 * here over the whole table, held by the columns' names (column_name):
 * the pages align and the text is one table's.  On a terminal the widths
 * of the columns that give way come from libsmartcols itself, laying out
 * a line of each column's widest cell first (hold_widths), and their
 * cells are cut here to them.  The columns' wrap functions measure the
 * cells for it (chunk_width).
 */
#include <libsmartcols.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "table.h"
#include "table_int.h"

/* Between two columns. */
#define TABLE_SEP "  "
#define TABLE_SEP_LEN 2

/* The lines libsmartcols lays out and prints at a time. */
#define TABLE_PAGE 1024

/* One aligned table being drawn. */
struct draw {
	const struct table *t;
	FILE *f;
	int term;             /* f is a terminal */
	int named;            /* libsmartcols prints the header */
	int *width;           /* each column's, measured over the whole table */
	int *widest;          /* the row of each column's widest cell */
	int *held;            /* on a terminal, the width libsmartcols gave a
	                         column that gives way (hold_widths), its cells
	                         cut to it; 0: none */
};

/* Write s as a cell of a column of fixed width fixed shows it into out
 * (as table__cell_cut, but never NULL) and return the columns it takes:
 * whole when it fits, else cut with '+' as its last character, as sacct
 * cuts a field of --format NAME%N. */
static int cell_fit(char *out, const char *s, int fixed)
{
	int n = table__cell_cut(out, s, 0, -1);

	if (n <= fixed)
		return n;
	n = table__cell_cut(out, s, 0, fixed - 1);
	strcat(out, "+");
	return n + 1;
}

/* How column col of t gives way (enum table_shrink), 0 when it does
 * not: only on a terminal, and never with a fixed width. */
static int gives_way(const struct table *t, int col, int term)
{
	return term && t->width[col] == 0 ? t->shrink[col] : 0;
}

/* The text s shows as a cell of column col, newly allocated
 * (libsmartcols owns it then): NULL when out of memory. */
static char *aligned_text(const struct draw *d, int col, const char *s)
{
	char *out = malloc(strlen(s) + 2);

	if (out == NULL)
		return NULL;
	if (d->t->width[col] > 0)
		cell_fit(out, s, d->t->width[col]);
	else
		table__cell_cut(out, s, 0, d->held[col] > 0 ? d->held[col] : -1);
	return out;
}

/* Each column's width (d->width: the one it was given, else that of its
 * widest cell, or header when shown) and the row of a cell that wide
 * (d->widest; any when the header is wider). */
static void measure(struct draw *d, int header)
{
	const struct table *t = d->t;
	int i, r, w;

	for (i = 0; i < t->ncols; i++)
		d->width[i] = t->width[i] > 0 ? t->width[i]
		            : header ? table__cell_cut(NULL, t->headers[i], 0, -1) : 0;
	for (r = 0; r < t->rows; r++)
		for (i = 0; i < t->ncols; i++) {
			if (t->width[i] > 0)
				continue;
			w = table__cell_cut(NULL, table__shown(t->cells[r * t->ncols + i]),
			                    0, -1);
			if (w > d->width[i]) {
				d->width[i] = w;
				d->widest[i] = r;
			}
		}
}

/* The width of a cell (made safe: table__cell_cut measures it as it
 * shows), for libsmartcols: a column's wrap functions, when it has them,
 * tell it the width of each chunk of a cell, which spares it its own
 * multibyte pass over every cell (table__cell_cut takes printable ASCII
 * a byte a column); a cell is one chunk here, never wrapped. */
static size_t chunk_width(const struct libscols_column *cl, const char *s,
                          void *data)
{
	(void)cl;
	(void)data;
	return (size_t)table__cell_cut(NULL, s, 0, -1);
}

/* The chunk after s in a cell: none, a cell is one (chunk_width). */
static char *chunk_next(const struct libscols_column *cl, char *s, void *data)
{
	(void)cl;
	(void)s;
	(void)data;
	return NULL;
}

/* The name of column col, newly allocated (NULL: none, or out of memory
 * when *err): its header when d->named (else no text), padded to the
 * column's width when that is to be held (the column does not give way,
 * or hold_widths gave it one), so that libsmartcols, which makes a
 * column at least as wide as its name, even when it does not print the
 * names, makes this one that wide on every page; not a left-aligned last
 * column, whose width shows nowhere and whose padding would end the
 * header line. */
static char *column_name(const struct draw *d, int col, int *err)
{
	const struct table *t = d->t;
	int width = d->held[col] > 0 ? d->held[col] : d->width[col];
	int pad = (d->held[col] > 0 || !gives_way(t, col, d->term)) &&
	          (t->right[col] || col < t->ncols - 1);
	char *s = aligned_text(d, col, d->named ? t->headers[col] : ""), *p;
	size_t n, add;
	int w;

	*err = s == NULL;
	if (s == NULL || !pad || (w = table__cell_cut(NULL, s, 0, -1)) >= width) {
		if (s != NULL && *s == '\0' && !d->named) {
			free(s);            /* nothing to pad: no name at all */
			s = NULL;
		}
		return s;
	}
	n = strlen(s);
	add = (size_t)(width - w);
	if ((p = malloc(n + add + 1)) == NULL) {
		*err = 1;
	} else if (t->right[col]) {
		memset(p, ' ', add);
		memcpy(p + add, s, n + 1);
	} else {
		memcpy(p, s, n);
		memset(p + n, ' ', add);
		p[n + add] = '\0';
	}
	free(s);
	return p;
}

/* Add column col to tb, as wide as column_name holds it, cut or wrapped
 * on a terminal when it gives way, its cells measured by chunk_width
 * unless they wrap: 0, or -1 when out of memory. */
static int add_column(const struct draw *d, struct libscols_table *tb, int col)
{
	int how = gives_way(d->t, col, d->term), err, ok;
	int flags = SCOLS_FL_WRAP | (d->t->right[col] ? SCOLS_FL_RIGHT : 0) |
	            (how == TABLE_SHRINK_CUT ? SCOLS_FL_TRUNC : 0);
	struct libscols_column *cl;
	char *name = column_name(d, col, &err);

	if (err)
		return -1;
	cl = scols_table_new_column(tb, name, 0, flags);
	/* a column that wraps is measured by libsmartcols, which wraps it */
	ok = cl != NULL && (how == TABLE_SHRINK_WRAP ||
	     scols_column_set_wrapfunc(cl, chunk_width, chunk_next, NULL) == 0);
	free(name);
	return ok ? 0 : -1;
}

/* Add a line of cells to tb (NULL: no value): 0, or -1 when out of
 * memory. */
static int add_line(const struct draw *d, struct libscols_table *tb,
                    char *const *cells)
{
	struct libscols_line *ln = scols_table_new_line(tb, NULL);
	int i;

	if (ln == NULL)
		return -1;
	for (i = 0; i < d->t->ncols; i++) {
		char *s = aligned_text(d, i, table__shown(cells[i]));
		if (s == NULL || scols_line_refer_data(ln, (size_t)i, s) != 0) {
			free(s);
			return -1;
		}
	}
	return 0;
}

/* On a terminal: leave out the columns on the right that would not fit
 * it even with every column that gives way as narrow as libsmartcols
 * cuts it (its header's width, 1 without one; the others as wide as
 * measured), so that libsmartcols can fit what is left. */
static void fit_terminal(const struct draw *d, struct libscols_table *tb)
{
	const struct table *t = d->t;
	size_t term = scols_table_get_termwidth(tb), need = 0, *least;
	int i;

	if ((least = calloc((size_t)t->ncols, sizeof(*least))) == NULL)
		return;
	for (i = 0; i < t->ncols; i++) {
		least[i] = !gives_way(t, i, 1) ? (size_t)d->width[i]
		         : d->named ? (size_t)table__cell_cut(NULL, t->headers[i], 0, -1)
		         : 1;
		need += least[i] + (i > 0 ? TABLE_SEP_LEN : 0);
	}
	for (i = t->ncols - 1; i > 0 && need > term; i--) {
		struct libscols_column *cl = scols_table_get_column(tb, (size_t)i);
		scols_column_set_flags(cl, scols_column_get_flags(cl) | SCOLS_FL_HIDDEN);
		need -= least[i] + TABLE_SEP_LEN;
	}
	free(least);
}

/* A libsmartcols table for d, its columns added (and on a terminal,
 * those that do not fit it left out): NULL when out of memory. */
static struct libscols_table *new_table(const struct draw *d)
{
	struct libscols_table *tb = scols_new_table();
	int fd = fileno(d->f), i;
	const char *cols = getenv("COLUMNS");
	struct winsize ws;

	if (tb == NULL)
		return NULL;
	scols_table_set_stream(tb, d->f);
	scols_table_set_column_separator(tb, TABLE_SEP);
	scols_table_enable_noencoding(tb, 1);       /* made safe here */
	scols_table_set_termforce(tb, d->term ? SCOLS_TERMFORCE_ALWAYS
	                                      : SCOLS_TERMFORCE_NEVER);
	/* the terminal f is, unless COLUMNS says (libsmartcols reads it) */
	if (d->term && (cols == NULL || *cols == '\0') &&
	    ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		scols_table_set_termwidth(tb, ws.ws_col);
	scols_table_enable_noheadings(tb, !d->named);
	for (i = 0; i < d->t->ncols; i++)
		if (add_column(d, tb, i) != 0) {
			scols_unref_table(tb);
			return NULL;
		}
	if (d->term)
		fit_terminal(d, tb);
	return tb;
}

/* On a terminal: the widths libsmartcols gives the columns that give way
 * in the whole table, into d->held: it lays out one line of each
 * column's widest cell, which has every column as wide as the whole
 * table would (printed into memory, then dropped).  0, or -1 when out of
 * memory. */
static int hold_widths(struct draw *d)
{
	const struct table *t = d->t;
	struct libscols_table *tb = new_table(d);
	char **row = calloc((size_t)t->ncols, sizeof(*row)), *text = NULL;
	int i, rc = -1;

	if (tb == NULL || row == NULL)
		goto out;
	for (i = 0; i < t->ncols; i++)
		row[i] = t->cells[d->widest[i] * t->ncols + i];
	if (add_line(d, tb, row) != 0 || scols_print_table_to_string(tb, &text) != 0)
		goto out;
	for (i = 0; i < t->ncols; i++) {
		struct libscols_column *cl = scols_table_get_column(tb, (size_t)i);
		if (gives_way(t, i, d->term) && !scols_column_is_hidden(cl))
			d->held[i] = (int)scols_column_get_width(cl);
	}
	rc = 0;
out:
	free(text);
	free(row);
	scols_unref_table(tb);
	return rc;
}

/* Whether a column of t wraps on a terminal: then it is drawn in one
 * piece (libsmartcols wraps it; asteal show's short tables). */
static int wraps(const struct table *t)
{
	int i;

	for (i = 0; i < t->ncols; i++)
		if (gives_way(t, i, 1) == TABLE_SHRINK_WRAP)
			return 1;
	return 0;
}

/* Print t aligned on f by libsmartcols, TABLE_PAGE lines at a time. */
int table__draw(const struct table *t, FILE *f, int header)
{
	struct draw d = { .t = t, .f = f };
	struct libscols_table *tb = NULL;
	int fd = fileno(f), r = 0, end, page = TABLE_PAGE, rc = -1;
	/* libsmartcols prints no header without lines: an empty table's
	 * header is a line of its own */
	int alone = header && t->rows == 0;

	d.term = fd >= 0 && isatty(fd);
	d.named = header && t->rows > 0;
	d.width = calloc((size_t)t->ncols, sizeof(*d.width));
	d.widest = calloc((size_t)t->ncols, sizeof(*d.widest));
	d.held = calloc((size_t)t->ncols, sizeof(*d.held));
	if (d.width == NULL || d.widest == NULL || d.held == NULL)
		goto out;
	measure(&d, header);
	if (d.term && wraps(t))
		page = t->rows;
	else if (d.term && t->rows > page && hold_widths(&d) != 0)
		goto out;
	if ((tb = new_table(&d)) == NULL)
		goto out;
	if (alone && (add_line(&d, tb, t->headers) != 0 || scols_print_table(tb) != 0))
		goto out;
	while (r < t->rows) {
		end = t->rows - r > page ? r + page : t->rows;
		for (; r < end; r++)
			if (add_line(&d, tb, t->cells + r * t->ncols) != 0)
				goto out;
		if (scols_print_table(tb) != 0)
			goto out;
		scols_table_remove_lines(tb);
		scols_table_enable_noheadings(tb, 1);
	}
	rc = 0;
out:
	free(d.width);
	free(d.widest);
	free(d.held);
	scols_unref_table(tb);
	return rc;
}
