/*
 * claim.h - what one asteald claims for itself on the machine: its history
 * database (one daemon per database: a lock, refused to a second) and its
 * CPUs (two daemons that allot the same CPU make their jobs contend for
 * it: found and warned about, not refused, for tests and demos run many
 * daemons at once).
 *
 * The database: a POSIX write lock (fcntl F_SETLK) on the file <db>.lock
 * beside it (after the symbolic links of its path), held as long as the
 * daemon runs; the kernel drops it when the process ends however it ends,
 * so a daemon that died leaves no stale lock (the file stays, with the
 * last holder's pid in it for people; the lock, not the file, counts).  A
 * second daemon learns the holder's pid from the kernel (F_GETLK).  The
 * lock is not inherited by the jobs the daemon forks.
 *
 * The CPUs: for each CPU it manages the daemon binds the abstract Unix
 * socket "asteal/cpu/N" (Linux's abstract namespace: one per network
 * namespace, so machine-wide unless a daemon runs in its own, as the
 * system service's PrivateNetwork= puts it; no file, gone when the
 * process ends) and listens on it; one taken already is another daemon's
 * CPU, and connecting to it tells which process holds it (SO_PEERCRED).
 * The daemon accepts and closes such connections on its event loop (and,
 * out of descriptors to accept them, leaves them waiting 100 ms instead
 * of waking for them again at once).  A
 * CPU whose name is taken stays unclaimed by the newcomer (a third daemon
 * hears only of the first).
 */
#ifndef ASTEAL_CLAIM_H
#define ASTEAL_CLAIM_H

#include <stddef.h>
#include <sys/types.h>

struct event_base;
struct claim;

/* A new claim holding nothing; NULL when out of memory. */
struct claim *claim_new(void);

/* Lock the database at db (":memory:" needs none) for this daemon's life:
 * 0; 1 when another process holds it, with why naming the file and the
 * holder's pid; -1 when the lock file cannot be made or locked, with why. */
int claim_db(struct claim *c, const char *db, char *why, size_t whylen);

/* Claim the n CPUs in cpus, answering other daemons' questions on base:
 * the number of them another daemon claimed already, with a warning in
 * warn naming those CPUs and the daemon(s) (its pid, uid and command
 * line); 0 with warn empty when none; -1 with warn when claiming failed
 * (no socket could be made; a note, not a reason to stop). */
int claim_cpus(struct claim *c, struct event_base *base, const int *cpus,
	       int n, char *warn, size_t warnlen);

/* Release everything (NULL is fine). */
void claim_free(struct claim *c);

#endif
