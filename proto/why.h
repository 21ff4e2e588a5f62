/*
 * why.h - the one form of a failure's reason below the command line: a
 * fallible function takes a buffer `why` of `whylen` bytes (either may be
 * NULL/0: the caller does not want the reason), writes one line saying
 * what failed and why into it, and returns -1, with errno set where the
 * function is system-facing.  why_fail does all three in one call, so
 * that a failure reads `return why_fail(why, whylen, errno, "...", ...)`.
 * (The configuration's parser collects its errors with their file and
 * line instead, conf.c; the command line prints them, cli_error.)
 */
#ifndef ASTEAL_WHY_H
#define ASTEAL_WHY_H

#include <stddef.h>

/* Format a reason into why (when there is one), set errno to err unless
 * err is 0 (errno is then left as it is), and return -1. */
__attribute__((format(printf, 4, 5)))
int why_fail(char *why, size_t whylen, int err, const char *fmt, ...);

#endif
