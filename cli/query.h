/*
 * query.h - what the query commands (`jobs`, `history`, `status`; one
 * file each, query_*.c) share: option and argument parsing, times, and
 * the words and flushing of their output.
 */
#ifndef ASTEAL_CLI_QUERY_H
#define ASTEAL_CLI_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include "asteal.pb-c.h"

#define QUERY_MAX_IDS 256               /* the daemon's limit per request */
#define QUERY_CPUS_LEN 8192             /* a CPU list as text */

/* Milliseconds on the monotonic clock. */
long long query_mono_ms(void);

/* Say a bad option (getopt returned o) and return CLI_USAGE. */
int query_bad_option(const char *cmd, int o, char **argv);

/* Parse the JOB arguments argv[first..argc) into ids (at most
 * QUERY_MAX_IDS): their count, or -1 after a usage message. */
int query_parse_ids(const char *cmd, int argc, char **argv, int first,
                    uint64_t *ids);

/* A quantum class as a word, NULL when none. */
const char *query_class_name(Asteal__QuantumClass c);

/* A job's end as waitpid() reported it: "exit 3", "killed by SIGKILL",
 * or NULL when unknown. */
const char *query_exit_text(char *buf, size_t len, const Asteal__JobRecord *j);

/* Flush stdout: CLI_OK, or CLI_FAIL after a message. */
int query_flush(void);

/* Parse a time argument (asteal(1), TIMES) into *ns: 0, or -1. */
int query_parse_time(const char *s, uint64_t now, uint64_t *ns);

#endif
