/*
 * when.h - times written as people write them, for -S/-E (asteal(1),
 * TIMES), beyond the forms query.c parses itself: what GNU date's -d
 * takes (gnulib's parse_datetime: "1 hour ago", "now - 1 hour", "17:30",
 * "yesterday 10:00", ISO 8601 with fractions and a zone as asteal's own
 * JSON prints them, "2026-11-28 17:30 CET"), by running date(1) on the
 * string, an argument and never a shell's word.
 */
#ifndef ASTEAL_CLI_WHEN_H
#define ASTEAL_CLI_WHEN_H

#include <stdint.h>

/* The time s names, as date -d reads it, into *ns (since the epoch): 0,
 * or -1 when date(1) refuses it or cannot be run. */
int when_date(const char *s, uint64_t *ns);

#endif
