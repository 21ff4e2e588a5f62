/*
 * pagejob.h - a raw job peer of a test's daemon (daemonutil.h) that asks
 * for a page and maps it: what test_page.c and test_page_hostile.c drive
 * the page's protocol with, by hand.
 */
#ifndef ASTEAL_TEST_PAGEJOB_H
#define ASTEAL_TEST_PAGEJOB_H

#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>

#include "daemonutil.h"
#include "frame.h"
#include "page.h"

/* A raw job peer with its page (and eventfd, with page_allot). */
struct pagejob {
	int fd;                        /* its connection */
	struct frame_reader *r;
	struct page *pg;               /* mapped, or NULL */
	int pfd, wake;                 /* the page's and the eventfd's, or -1 */
	uint64_t t0, L;
};

/* Connect to dm as a job named name of `workers` workers whose Hello
 * asks for a page when page is set (and for page_allot when allot is),
 * and take its Welcome and descriptors; whether the Welcome carried a
 * page must be `expect`. */
static inline void pagejob_open(const struct tdaemon *dm, struct pagejob *j,
                                const char *name, uint32_t workers, int page,
                                int allot, int expect)
{
	Asteal__Envelope env, *m = NULL;
	Asteal__Hello h;
	double end = test_now() + tdaemon_bound();
	int passed[2] = { -1, -1 };

	memset(j, 0, sizeof(*j));
	j->fd = tdaemon_dial(dm);
	assert_true(j->fd >= 0);
	j->r = frame_reader_new();
	assert_non_null(j->r);
	frame_hello(&env, &h, ASTEAL__ROLE__JOB, name, workers, "test", "test");
	h.page = page;
	h.page_allot = allot;
	assert_int_equal(frame_write_fd(j->fd, &env), 0);
	while (frame_reader_next(j->r, &m) == 0) {
		struct pollfd pf = { .fd = j->fd, .events = POLLIN };

		assert_true(test_now() < end);
		if (poll(&pf, 1, 100) > 0)
			assert_true(frame_reader_fill_fd(j->r, j->fd, passed, 2) > 0);
	}
	assert_non_null(m);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_WELCOME);
	assert_int_equal(m->welcome->page, expect);
	j->t0 = m->welcome->t0_ns;
	j->L = (uint64_t)m->welcome->quantum_us * 1000u;
	frame_free(m);
	j->pfd = passed[0];
	j->wake = passed[1];
	if (!expect) {
		assert_int_equal(j->pfd, -1);
		return;
	}
	assert_true(j->pfd >= 0);
	assert_int_equal(j->wake >= 0, allot);
	j->pg = mmap(NULL, PAGE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, j->pfd, 0);
	assert_true(j->pg != MAP_FAILED);
	assert_int_equal(page_check(j->pg, NULL, 0), 0);
}

/* Close the job. */
static inline void pagejob_close(struct pagejob *j)
{
	if (j->pg != NULL)
		munmap(j->pg, PAGE_BYTES);
	if (j->pfd >= 0)
		close(j->pfd);
	if (j->wake >= 0)
		close(j->wake);
	frame_reader_free(j->r);
	close(j->fd);
}

#endif
