/*
 * loadcpu.h - the CPU time asteal-loadgen (bench/loadgen.c) measures over
 * its run: the daemon's user and system time (/proc/PID/stat), its own
 * (getrusage), and the host's steal (/proc/stat).
 */
#ifndef ASTEAL_LOADCPU_H
#define ASTEAL_LOADCPU_H

/* The user and system CPU seconds of process pid: 0, or -1 when
 * unreadable. */
int loadcpu_of(int pid, double *user, double *sys);

/* This process's CPU time in seconds, user and system. */
double loadcpu_own(void);

/* The host's steal and total time so far, in clock ticks (/proc/stat,
 * all CPUs); both 0 when unreadable. */
void loadcpu_steal(double *steal, double *total);

#endif
