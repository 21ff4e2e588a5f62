/*
 * when.c - times as GNU date's -d reads them (see when.h): date(1) run
 * with the string as its argument (the caller's environment, TZ
 * included), its output "SECONDS.NANOSECONDS" read back and checked;
 * its errors are not shown (the caller says the time is not one).
 */
#include "when.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Read all of fd (up to len - 1 bytes) into buf, NUL-terminated: the
 * bytes read, or -1. */
static ssize_t read_all(int fd, char *buf, size_t len)
{
	size_t n = 0;

	while (n + 1 < len) {
		ssize_t r = read(fd, buf + n, len - 1 - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	return (ssize_t)n;
}

/* "SECONDS.NANOSECONDS\n" into *ns: 0, or -1. */
static int parse_out(const char *s, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0;
	int digits = 0;

	if (*s == '-')
		return -1;              /* before 1970: not a history's */
	for (; *s >= '0' && *s <= '9'; s++, digits++)
		if ((sec = sec * 10 + (uint64_t)(*s - '0')) > 10000000000ull)
			return -1;
	if (digits == 0 || *s++ != '.')
		return -1;
	for (digits = 0; *s >= '0' && *s <= '9' && digits < 9; s++, digits++)
		frac = frac * 10 + (uint64_t)(*s - '0');
	if (digits != 9 || (*s != '\n' && *s != '\0'))
		return -1;
	*ns = sec * 1000000000u + frac;
	return 0;
}

/* Run date -d. */
int when_date(const char *s, uint64_t *ns)
{
	char *argv[] = { (char *)"date", (char *)"-d", (char *)s,
		(char *)"+%s.%N", NULL };
	char out[64];
	int p[2], status, rc = -1;
	pid_t pid;

	if (s[0] == '\0' || strlen(s) > 256 || pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {                 /* its errors are ours to say */
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (dup2(p[1], STDOUT_FILENO) < 0 ||
		    (null >= 0 && dup2(null, STDERR_FILENO) < 0))
			_exit(127);
		execvp("date", argv);
		_exit(127);
	}
	close(p[1]);
	if (pid > 0) {
		ssize_t n = read_all(p[0], out, sizeof(out));

		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (n > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
			rc = parse_out(out, ns);
	}
	close(p[0]);
	return rc;
}
