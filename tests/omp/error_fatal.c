/*
 * error_fatal.c - the error directive at execution time with
 * severity(fatal) (GOMP_error): the runtime prints the message on stderr
 * and ends the program with status 1, so the statement after it never
 * runs.  The runner runs this one apart: it expects exit status 1, the
 * message on stderr, and nothing on stdout.
 */
#include <stdio.h>

/* Reach the directive from inside a region, as a program would. */
int main(void)
{
#pragma omp parallel
#pragma omp master
	{
#pragma omp error at(execution) severity(fatal) message("error_fatal: expected fatal error")
		puts("FAIL error_fatal: the program went on after a fatal error directive");
	}
	puts("FAIL error_fatal: the program went on after a fatal error directive");
	return 0;
}
