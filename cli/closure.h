/*
 * closure.h - the libraries a program loads: the closure of its
 * DT_NEEDED entries, each library found as the dynamic linker would find
 * it and read with elffile.h, so that program.c can tell whether
 * libasteal, libgomp.so.1 or LLVM's libomp is among them (closure.c
 * gives the search order and the bounds).
 */
#ifndef ASTEAL_CLI_CLOSURE_H
#define ASTEAL_CLI_CLOSURE_H

#include "program.h"

/* Follow the closure of program p (its path, class and machine set) into
 * its links, via, gomp_versions, nobjects and truncated. */
void closure_walk(struct program *p);

#endif
