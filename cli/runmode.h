/*
 * runmode.h - how the program of a job `asteal run` or `submit` starts
 * runs, chosen before it starts from what its file says it is linked with
 * (program.h): as it is (libasteal), on asteal's OpenMP layer (libgomp),
 * or as a rigid job; runmode.c says when and why.
 */
#ifndef ASTEAL_CLI_RUNMODE_H
#define ASTEAL_CLI_RUNMODE_H

#include "spawn.h"

/* The CPUs of a rigid job whose program is linked with neither libasteal
 * nor libgomp (or runs on the system's OpenMP) when no --cpus is given:
 * what most such programs use (a shell, a serial tool), as Slurm gives a
 * task one CPU without -c; counted in DEQ and held, where unmanaged it
 * would take CPUs from the adaptive jobs unseen. */
#define RUNMODE_RIGID_CPUS 1

/* Choose how sp's program runs, from what it is linked with: sp->layer
 * for one to run on the OpenMP layer, sp->cpus for a rigid job
 * (RUNMODE_RIGID_CPUS when none was given), and in sp->notice the line
 * that says so when it is not what the user may expect. */
void runmode_choose(struct spawn *sp);

#endif
