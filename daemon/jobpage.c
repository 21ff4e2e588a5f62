/*
 * jobpage.c - the page asteald shares with one job (see jobpage.h).
 *
 * memfd_create with sealing allowed, sized to PAGE_BYTES, then sealed
 * against shrinking, growing and further seals: a job that truncated its
 * page would make the daemon's next read of it a SIGBUS.  The daemon maps
 * it shared and read-write (it writes the header, and later its half);
 * the descriptor goes to the job with the Welcome, and the daemon closes
 * its own copy once sent.  Costs one descriptor until then and one
 * mapping for the job's life; a job that reads its allotments there also
 * holds an eventfd for its life (nonblocking, the daemon's loop reads
 * it).
 */
#include "jobpage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

struct jobpage {
	int fd;
	int wake;                      /* the eventfd, or -1 */
	struct page *map;
};

/* A new page. */
struct jobpage *jobpage_create(int allot, char *why, size_t whylen)
{
	struct jobpage *p = calloc(1, sizeof(*p));
	int e;

	if (p == NULL) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	p->map = MAP_FAILED;
	p->wake = -1;
	p->fd = memfd_create("asteal-page", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (p->fd < 0) {
		snprintf(why, whylen, "memfd_create: %s", strerror(errno));
		goto fail;
	}
	if (ftruncate(p->fd, PAGE_BYTES) < 0 ||
	    fcntl(p->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
		snprintf(why, whylen, "sealing the page: %s", strerror(errno));
		goto fail;
	}
	p->map = mmap(NULL, PAGE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, 0);
	if (p->map == MAP_FAILED) {
		snprintf(why, whylen, "mapping the page: %s", strerror(errno));
		goto fail;
	}
	if (allot && (p->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		snprintf(why, whylen, "eventfd: %s", strerror(errno));
		goto fail;
	}
	page_init(p->map);
	return p;
fail:
	e = errno;
	jobpage_free(p);
	errno = e;
	return NULL;
}

/* Its descriptors, until sent. */
int jobpage_fds(const struct jobpage *p, int fds[2])
{
	if (p->fd < 0)
		return 0;
	fds[0] = p->fd;
	fds[1] = p->wake;
	return p->wake >= 0 ? 2 : 1;
}

/* The eventfd. */
int jobpage_wake_fd(const struct jobpage *p)
{
	return p->wake;
}

/* Hand the eventfd over to the caller. */
int jobpage_take_wake(struct jobpage *p)
{
	int fd = p->wake;

	p->wake = -1;
	return fd;
}

/* Whether allotments go through the page. */
int jobpage_allots(const struct jobpage *p)
{
	return p->wake >= 0;
}

/* Close the descriptor: the job has its own now. */
void jobpage_sent(struct jobpage *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}

/* The mapping. */
struct page *jobpage_page(const struct jobpage *p)
{
	return p->map;
}

/* Unmap and free. */
void jobpage_free(struct jobpage *p)
{
	if (p == NULL)
		return;
	if (p->map != MAP_FAILED)
		munmap(p->map, PAGE_BYTES);
	jobpage_sent(p);
	if (p->wake >= 0)
		close(p->wake);
	free(p);
}
