/*
 * table_int.h - what table.c (a table's cells, its parsable and CSV
 * forms) and table_draw.c (its aligned form, drawn by libsmartcols)
 * share; private to the two.
 */
#ifndef ASTEAL_CLI_TABLE_INT_H
#define ASTEAL_CLI_TABLE_INT_H

#include <stdio.h>

#include "table.h"

struct table {
	int ncols;
	char **headers;
	int *right;
	int *width;           /* a fixed width (table_set_width), 0: none */
	int *shrink;          /* how it gives way on a terminal (enum
	                         table_shrink), 0: never */
	char **cells;         /* rows * ncols; NULL: no value */
	int rows, cap;
};

/* Write s as a cell shows it into out (room for strlen(s) + 2 bytes, the
 * last for a '+'; NULL: only measure) and return the columns it takes on
 * a terminal: each character of the locale's encoding that prints, as it
 * is, at its display width (wcwidth: 2 for 日, 0 for a combining accent);
 * anything else (a byte that is no character, a control character such
 * as ESC, one the terminal cannot print) as one '?', as is the byte sep
 * (the --parsable separator), so that no cell moves the cursor or the
 * columns.  With max >= 0, no more than max columns: it stops before the
 * first character that does not fit. */
int table__cell_cut(char *out, const char *s, int sep, int max);

/* A cell as shown: its value, or "-" when it has none. */
const char *table__shown(const char *s);

/* Print t aligned on f (table_write's TABLE_ALIGNED): 0, or -1 when out
 * of memory. */
int table__draw(const struct table *t, FILE *f, int header);

#endif
