/*
 * test_service.c - asteald as a service shared by users who may be
 * hostile (issue: "a trusted multi-user service"), on a real daemon over
 * the raw protocol:
 * - cancel signals the job's process through the pidfd taken when it
 *   connected: a job whose process exited, leaving a child holding its
 *   connection, is not signalled even when its pid now belongs to another
 *   process (made so with ns_last_pid, as root), and the request says so;
 *   a live job is signalled;
 * - the Hello deadline is absolute: a peer trickling a byte at a time is
 *   cut off when it ends, and a frame above PROTO_MAX_HELLO_FRAME before
 *   the Hello is refused at once;
 * - per-uid limits (as root, with uids made up for children that
 *   setuid to them): a user's command-line connections, its connections
 *   before Hello, and the total are bounded with a BUSY Error that names
 *   the limit, while root's Status is always served (the descriptors:
 *   test_service_fds.c);
 * - a client that does not read its replies is dropped as soon as they
 *   pass CONN_MAX_OUTPUT, not after a write timeout;
 * - private data (as root, a client of another uid): others' jobs show
 *   without their command lines in Jobs and History; with
 *   --private-history they do not show at all, and waiting for one is
 *   refused as for a job that does not exist;
 * - a user who starts jobs faster than ADMIT_USER_JOB_RATE a second
 *   (after a burst) is refused, root is not;
 * - waits are bounded per connection (LAUNCH_CONN_WAITS, then BUSY), and
 *   each job's end answers its own waits, all of them, and no other;
 * - a History request looks at no more than HISTPAGE_SCAN rows,
 *   however few it selects: it answers in pages, empty ones too;
 * - every reply names its request (Envelope.request_id), a WaitReply or
 *   the Ok to a JobExit that comes later too, and Jobs and History replies too large for one frame
 *   come in pages.
 * Every wait is on a condition with a deadline.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <cmocka.h>

#include "admit.h"
#include "control.h"
#include "daemonutil.h"
#include "history.h"
#include "histpage.h"
#include "launch.h"
#include "request.h"

static struct tdaemon d;
static uint64_t secret_job;          /* root's job, for user_view */

/* Stop the daemon a test started: it must exit 0. */
static int stop(void **state)
{
	(void)state;
	return tdaemon_stop(&d);
}

/* Start the daemon with extra arguments (NULL-terminated). */
static void start(long nofile, ...)
{
	const char *args[32];
	va_list ap;
	int n = 0;

	va_start(ap, nofile);
	while (n < 31 && (args[n] = va_arg(ap, const char *)) != NULL)
		n++;
	va_end(ap);
	args[n] = NULL;
	assert_int_equal(tdaemon_start(&d, args, nofile), 0);
}

/* Expect an Error of code whose message contains text, then the end of
 * the stream; closes fd. */
static void expect_refused(int fd, Asteal__ErrorCode code, const char *text)
{
	struct frame_reader *r = frame_reader_new();
	Asteal__Envelope *m = tdaemon_next(fd, r, tdaemon_bound());

	assert_non_null(m);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_ERROR);
	assert_int_equal(m->error->code, code);
	if (strstr(m->error->message, text) == NULL)
		fail_msg("error '%s' does not say '%s'", m->error->message, text);
	frame_free(m);
	assert_null(tdaemon_next(fd, r, tdaemon_bound()));
	frame_reader_free(r);
	close(fd);
}

/* Expect the reply in m to be a Welcome (and free it). */
static void expect_welcome(Asteal__Envelope *m)
{
	assert_non_null(m);
	if (m->msg_case == ASTEAL__ENVELOPE__MSG_ERROR)
		fail_msg("refused: %s", m->error->message);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_WELCOME);
	frame_free(m);
}

/* A client connection that has its Welcome. */
static int client(void)
{
	Asteal__Envelope *m = NULL;
	int fd = tdaemon_connect(&d, 0, &m);

	assert_true(fd >= 0);
	expect_welcome(m);
	return fd;
}

/* Send a request on a fresh reader and return the reply (caller frees). */
static Asteal__Envelope *ask(int fd, Asteal__Envelope *req)
{
	struct frame_reader *r = frame_reader_new();
	Asteal__Envelope *m;

	assert_int_equal(frame_write_fd(fd, req), 0);
	m = tdaemon_next(fd, r, tdaemon_bound());
	frame_reader_free(r);
	assert_non_null(m);
	return m;
}

/* A client's Status is served. */
static void status_served(int fd)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *m;
	Asteal__StatusRequest sr = ASTEAL__STATUS_REQUEST__INIT;

	env.msg_case = ASTEAL__ENVELOPE__MSG_STATUS_REQUEST;
	env.status_request = &sr;
	m = ask(fd, &env);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_STATUS);
	frame_free(m);
}

/* Cancel job id from client fd: the reply (caller frees). */
static Asteal__Envelope *cancel(int fd, uint64_t id)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	Asteal__CancelRequest cr = ASTEAL__CANCEL_REQUEST__INIT;

	cr.job_id = id;
	cr.signal = SIGTERM;
	env.msg_case = ASTEAL__ENVELOPE__MSG_CANCEL_REQUEST;
	env.cancel_request = &cr;
	return ask(fd, &env);
}

/* A forked job peer: connects, says Hello as a job, writes its job id to
 * the pipe, then (holder) forks a child that keeps the connection and
 * exits at once, or (not holder) waits for a signal. */
static pid_t fork_job(int holder, uint64_t *id, pid_t *kept)
{
	int p[2];
	uint64_t got[2] = { 0, 0 };
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		Asteal__Envelope *m = NULL;
		int fd = tdaemon_connect(&d, 2, &m);
		uint64_t out[2] = { 0, 0 };

		if (fd < 0 || m == NULL || m->msg_case != ASTEAL__ENVELOPE__MSG_WELCOME)
			_exit(1);
		out[0] = m->welcome->job_id;
		if (holder) {
			pid_t c = fork();

			if (c == 0) {           /* holds the connection */
				close(p[1]);
				pause();
				_exit(0);
			}
			out[1] = (uint64_t)c;
		}
		if (write(p[1], out, sizeof(out)) != sizeof(out))
			_exit(1);
		if (holder)
			_exit(0);
		pause();
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(read(p[0], got, sizeof(got)), sizeof(got));
	close(p[0]);
	*id = got[0];
	if (kept != NULL)
		*kept = (pid_t)got[1];
	return pid;
}

/* Fork a process that waits, hoping it gets pid want (ns_last_pid was set
 * just before); its pid. */
static pid_t fork_waiter(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		pause();
		_exit(0);
	}
	return pid;
}

/* Put the next pid the kernel hands out at want: 0, -1 when not allowed. */
static int next_pid(pid_t want)
{
	FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "w");
	int ok;

	if (f == NULL)
		return -1;
	ok = fprintf(f, "%d", (int)want - 1) > 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/* No signal to a recycled pid; a live job is signalled. */
static void test_cancel_by_pidfd(void **state)
{
	uint64_t id, live_id;
	pid_t job, held, other = -1, live;
	int fd, status;
	Asteal__Envelope *m;

	(void)state;
	start(0, (const char *)NULL);
	fd = client();
	/* Children of our children come back to us when those exit. */
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	job = fork_job(1, &id, &held);
	assert_int_equal(waitpid(job, &status, 0), job);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* The job's pid is free: give it to a process of ours (root may set
	 * the next pid; a few tries, as others may take it first). */
	for (int i = 0; i < 50 && other != job; i++) {
		if (next_pid(job) < 0)
			break;
		other = fork_waiter();
		if (other != job) {
			kill(other, SIGKILL);
			waitpid(other, NULL, 0);
		}
	}
	if (other != job) {
		print_message("pid %d not reused (ns_last_pid needs root): "
		              "checking only that the exited job is not "
		              "signalled\n", (int)job);
		other = fork_waiter();
	}
	m = cancel(fd, id);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_ERROR);
	assert_int_equal(m->error->code, ASTEAL__ERROR_CODE__NOT_FOUND);
	assert_non_null(strstr(m->error->message, "has exited"));
	frame_free(m);
	/* Neither the process now at that pid nor the one holding the
	 * connection got anything. */
	assert_int_equal(waitpid(other, &status, WNOHANG), 0);
	assert_int_equal(waitpid(held, &status, WNOHANG), 0);
	kill(other, SIGKILL);
	kill(held, SIGKILL);
	waitpid(other, NULL, 0);
	waitpid(held, NULL, 0);

	live = fork_job(0, &live_id, NULL);
	m = cancel(fd, live_id);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_CANCEL_REPLY);
	frame_free(m);
	assert_int_equal(waitpid(live, &status, 0), live);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	close(fd);
}

/* Whether fd has been closed by the daemon (end of stream or reset). */
static int closed_now(int fd)
{
	char buf[4096];
	ssize_t n;

	for (;;) {
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n > 0)
			continue;       /* an Error before the end */
		return n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
	}
}

/* The Hello deadline counts from the connect, however bytes trickle. */
static void test_hello_deadline(void **state)
{
	const uint8_t big[4] = { 0, 0, 0x40, 0 };   /* 16 KiB announced */
	const uint8_t slow[4] = { 0, 0, 0, 200 };   /* 200 bytes announced */
	const uint8_t zero = 0;
	double t0, end;
	int fd, cut = 0, sent = 0;

	(void)state;
	start(0, "--hello-timeout-ms", "600", (const char *)NULL);
	fd = tdaemon_dial(&d);
	assert_true(fd >= 0);
	t0 = test_now();
	end = t0 + tdaemon_bound();
	/* A byte every 100 ms, never a whole frame: a deadline renewed by
	 * each byte would never come. */
	while (!cut && test_now() < end) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		const uint8_t *b = sent < 4 ? &slow[sent] : &zero;

		sent++;
		if (send(fd, b, 1, MSG_NOSIGNAL) < 0)
			cut = 1;
		else if (poll(&pf, 1, 100) > 0 && closed_now(fd))
			cut = 1;
	}
	assert_true(cut);
	assert_true(test_now() - t0 >= 0.55);
	close(fd);
	assert_true(tdaemon_log_count(&d, "no hello in time", NULL) >= 1);

	fd = tdaemon_dial(&d);
	assert_true(fd >= 0);
	assert_int_equal(send(fd, big, sizeof(big), MSG_NOSIGNAL), (ssize_t)sizeof(big));
	expect_refused(fd, ASTEAL__ERROR_CODE__TOO_LARGE, "before the hello");
	status_served(client());
}

/* As another uid: n clients are welcomed and the next is refused naming
 * the per-user limit (0 when so); the connections stay open until the
 * process ends. */
static int user_clients(int n)
{
	Asteal__Envelope *m = NULL;
	int fd;

	for (int i = 0; i < n; i++) {
		fd = tdaemon_connect(&d, 0, &m);
		if (fd < 0 || m == NULL || m->msg_case != ASTEAL__ENVELOPE__MSG_WELCOME)
			return 10 + i;
		frame_free(m);
	}
	fd = tdaemon_connect(&d, 0, &m);
	if (fd < 0 || m == NULL || m->msg_case != ASTEAL__ENVELOPE__MSG_ERROR ||
	    m->error->code != ASTEAL__ERROR_CODE__BUSY ||
	    strstr(m->error->message, "--max-user-clients") == NULL)
		return 2;
	frame_free(m);
	close(fd);
	return 0;
}

/* As another uid: n connections that never say Hello, then one more
 * that is refused for it (0 when so). */
static int user_silent(int n)
{
	struct frame_reader *r = frame_reader_new();
	Asteal__Envelope *m;
	int fd;

	for (int i = 0; i < n; i++)
		if (tdaemon_dial(&d) < 0)
			return 10;
	fd = tdaemon_dial(&d);
	if (fd < 0)
		return 3;
	m = tdaemon_next(fd, r, tdaemon_bound());
	if (m == NULL || m->msg_case != ASTEAL__ENVELOPE__MSG_ERROR ||
	    strstr(m->error->message, "not said hello") == NULL)
		return 4;
	frame_free(m);
	frame_reader_free(r);
	return 0;
}

/* A user's connections are bounded; root always has room. */
static void test_user_limits(void **state)
{
	pid_t a, b, c;
	int ga, gb, gc, fd;

	(void)state;
	if (geteuid() != 0) {
		print_message("skipped: per-user limits need root to connect as "
		              "other uids (setuid)\n");
		skip();
	}
	start(0, "--max-user-clients", "3", "--max-clients", "5",
	      (const char *)NULL);
	a = tdaemon_as_uid(64991, user_clients, 3, &ga);   /* 3 of 5, the 4th refused */
	/* The second user has room for 2 more of the total: the next one
	 * is refused for the total. */
	b = tdaemon_as_uid(64992, user_clients, 2, &gb);
	assert_int_equal(tdaemon_finish_uid(b, gb), 2);
	fd = client();                          /* root: beyond the total */
	status_served(fd);
	c = tdaemon_as_uid(64993, user_silent, ADMIT_USER_PENDING, &gc);
	status_served(client());                /* root still */
	assert_int_equal(tdaemon_finish_uid(a, ga), 0);
	assert_int_equal(tdaemon_finish_uid(c, gc), 0);
	close(fd);
	assert_true(tdaemon_log_count(&d, "--max-user-clients", NULL) >= 1);
}

/* A client that stops reading is dropped when its replies pass the
 * output limit, at once. */
static void test_slow_reader_dropped(void **state)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	Asteal__StatusRequest sr = ASTEAL__STATUS_REQUEST__INIT;
	uint8_t frame[64];
	size_t len = 0;
	double t0, end;
	int fd, dropped = 0;

	(void)state;
	start(0, (const char *)NULL);
	fd = client();
	env.msg_case = ASTEAL__ENVELOPE__MSG_STATUS_REQUEST;
	env.status_request = &sr;
	assert_int_equal(frame_encode(&env, frame, sizeof(frame), &len), 0);
	/* Ask and never read: its replies pile up in the daemon until it
	 * says it drops us; the end must come at once then, not after a
	 * write timeout (2 s). */
	end = test_now() + tdaemon_bound();
	while (tdaemon_log_count(&d, "does not read its replies", NULL) == 0) {
		struct pollfd pf = { .fd = fd, .events = POLLOUT };

		assert_true(test_now() < end);
		if (poll(&pf, 1, 20) > 0 && !(pf.revents & (POLLHUP | POLLERR)))
			for (int i = 0; i < 256; i++)
				if (send(fd, frame, len, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
					break;
	}
	t0 = test_now();
	end = t0 + (test_sanitized() ? 1.5 : 1.0);
	while (!dropped && test_now() < end) {
		struct pollfd pf = { .fd = fd, .events = POLLOUT };

		if (poll(&pf, 1, 20) > 0 &&
		    ((pf.revents & (POLLHUP | POLLERR)) ||
		     (send(fd, frame, len, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 &&
		      errno != EAGAIN)))
			dropped = 1;
	}
	print_message("the end came %.3f s after the daemon said it drops us\n",
	              test_now() - t0);
	assert_true(dropped);
	assert_int_equal(tdaemon_log_count(&d, "does not read its replies", NULL), 1);
	close(fd);
	status_served(client());
}

/* Send a WaitRequest for job id. */
static void send_wait(int fd, uint64_t id)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT;
	Asteal__WaitRequest wr = ASTEAL__WAIT_REQUEST__INIT;

	wr.job_id = id;
	env.msg_case = ASTEAL__ENVELOPE__MSG_WAIT_REQUEST;
	env.wait_request = &wr;
	assert_int_equal(frame_write_fd(fd, &env), 0);
}

/* Waits are bounded per connection and answered by job. */
static void test_waits(void **state)
{
	enum { PER = LAUNCH_CONN_WAITS / 2 };
	struct frame_reader *r;
	Asteal__Envelope *m;
	uint64_t a, b;
	pid_t ja, jb;
	int fd, status, got_a = 0;

	(void)state;
	start(0, (const char *)NULL);
	ja = fork_job(0, &a, NULL);
	jb = fork_job(0, &b, NULL);
	fd = client();
	r = frame_reader_new();
	for (int i = 0; i < PER; i++) {
		send_wait(fd, a);
		send_wait(fd, b);
	}
	send_wait(fd, a);               /* one over the bound */
	m = tdaemon_next(fd, r, tdaemon_bound());
	assert_non_null(m);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_ERROR);
	assert_int_equal(m->error->code, ASTEAL__ERROR_CODE__BUSY);
	frame_free(m);
	/* Job a ends: its PER waits are answered, b's are not. */
	kill(ja, SIGKILL);
	assert_int_equal(waitpid(ja, &status, 0), ja);
	while (got_a < PER) {
		m = tdaemon_next(fd, r, tdaemon_bound());
		assert_non_null(m);
		assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_WAIT_REPLY);
		assert_int_equal(m->wait_reply->job_id, a);
		got_a++;
		frame_free(m);
	}
	/* There is room again: one more wait, for b. */
	send_wait(fd, b);
	kill(jb, SIGKILL);
	assert_int_equal(waitpid(jb, &status, 0), jb);
	for (int i = 0; i < PER + 1; i++) {
		m = tdaemon_next(fd, r, tdaemon_bound());
		assert_non_null(m);
		assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_WAIT_REPLY);
		assert_int_equal(m->wait_reply->job_id, b);
		frame_free(m);
	}
	frame_reader_free(r);
	status_served(fd);
	close(fd);
}

/* As another uid: what it sees of root's job secret_job: 0 when it does
 * not show at all, 10 + the number of views (Jobs, History) that show it
 * without its command line, or 1..9 for a failure (6: a wait for it was
 * not refused though it does not show). */
static int user_view(int wait_refused)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *m = NULL;
	Asteal__JobsRequest jr = ASTEAL__JOBS_REQUEST__INIT;
	Asteal__HistoryRequest hr = ASTEAL__HISTORY_REQUEST__INIT;
	Asteal__WaitRequest wr = ASTEAL__WAIT_REQUEST__INIT;
	struct frame_reader *r = frame_reader_new();
	int fd = tdaemon_connect(&d, 0, &m), shown = 0;

	if (fd < 0 || m == NULL || m->msg_case != ASTEAL__ENVELOPE__MSG_WELCOME)
		return 1;
	frame_free(m);
	env.msg_case = ASTEAL__ENVELOPE__MSG_JOBS_REQUEST;
	env.jobs_request = &jr;
	if (frame_write_fd(fd, &env) < 0 || (m = tdaemon_next(fd, r, 10)) == NULL ||
	    m->msg_case != ASTEAL__ENVELOPE__MSG_JOBS)
		return 2;
	for (size_t i = 0; i < m->jobs->n_jobs; i++) {
		if (m->jobs->jobs[i]->id != secret_job)
			continue;
		shown++;
		if (strstr(m->jobs->jobs[i]->command, "hunter2") != NULL)
			return 3;
	}
	frame_free(m);
	hr.jobs_only = 1;
	env.msg_case = ASTEAL__ENVELOPE__MSG_HISTORY_REQUEST;
	env.history_request = &hr;
	if (frame_write_fd(fd, &env) < 0 || (m = tdaemon_next(fd, r, 10)) == NULL ||
	    m->msg_case != ASTEAL__ENVELOPE__MSG_HISTORY)
		return 4;
	for (size_t i = 0; i < m->history->n_jobs; i++) {
		if (m->history->jobs[i]->id != secret_job)
			continue;
		shown++;
		if (strstr(m->history->jobs[i]->command, "hunter2") != NULL)
			return 5;
	}
	frame_free(m);
	if (wait_refused) {
		wr.job_id = secret_job;
		env.msg_case = ASTEAL__ENVELOPE__MSG_WAIT_REQUEST;
		env.wait_request = &wr;
		if (frame_write_fd(fd, &env) < 0 ||
		    (m = tdaemon_next(fd, r, 10)) == NULL ||
		    m->msg_case != ASTEAL__ENVELOPE__MSG_ERROR ||
		    m->error->code != ASTEAL__ERROR_CODE__NOT_FOUND)
			return 6;
		frame_free(m);
	}
	frame_reader_free(r);
	close(fd);
	return shown > 0 ? 10 + shown : 0;
}

/* Others' command lines never show; --private-history hides their jobs. */
static void test_private_data(void **state)
{
	const char *const modes[2][2] = {
		{ NULL, NULL }, { "--private-history", NULL },
	};
	pid_t job, u;
	int go, status;

	(void)state;
	if (geteuid() != 0) {
		print_message("skipped: private data needs root to connect as "
		              "another uid (setuid)\n");
		skip();
	}
	for (int priv = 0; priv < 2; priv++) {
		assert_int_equal(tdaemon_start(&d, modes[priv], 0), 0);
		tdaemon_command = "job --password=hunter2";
		job = fork_job(0, &secret_job, NULL);
		tdaemon_command = "test";
		u = tdaemon_as_uid(64994, user_view, priv, &go);
		/* Without --private-history the job shows in Jobs and in
		 * History, without its command; with it, nowhere. */
		assert_int_equal(tdaemon_finish_uid(u, go), priv ? 0 : 12);
		kill(job, SIGKILL);
		assert_int_equal(waitpid(job, &status, 0), job);
		if (priv == 0)
			assert_int_equal(tdaemon_stop(&d), 0);
	}
}

/* Remove a history database made in a folder of its own (db names the
 * file in it; changed). */
static void remove_db(char *db)
{
	size_t n = strlen(db);

	unlink(db);
	strcat(db, "-wal");
	unlink(db);
	db[n] = '\0';
	strcat(db, "-shm");
	unlink(db);
	db[n] = '\0';
	strcat(db, ".lock");            /* the daemon's lock (claim.h) */
	unlink(db);
	*strrchr(db, '/') = '\0';
	assert_int_equal(rmdir(db), 0);
}

/* A History request with the filter `since` on a connection: the reply
 * (the test fails without one). */
static Asteal__Envelope *history_page(int fd, struct frame_reader *r,
                                      Asteal__HistoryRequest *hr)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *m;

	env.msg_case = ASTEAL__ENVELOPE__MSG_HISTORY_REQUEST;
	env.history_request = hr;
	assert_int_equal(frame_write_fd(fd, &env), 0);
	m = tdaemon_next(fd, r, tdaemon_bound());
	assert_non_null(m);
	if (m->msg_case == ASTEAL__ENVELOPE__MSG_ERROR)
		fail_msg("History refused: %s", m->error->message);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_HISTORY);
	return m;
}

/* Page through a history query from the start: the records it returned
 * in *records and the pages it took; each page holds at most the records
 * the daemon may look at for one, and every page of a query that selects
 * nothing is empty yet moves on. */
static int history_pages(int fd, uint64_t since_ns, int *records)
{
	struct frame_reader *r = frame_reader_new();
	Asteal__HistoryRequest hr = ASTEAL__HISTORY_REQUEST__INIT;
	Asteal__HistoryCursor after;
	int pages = 0, more = 1;

	hr.since_ns = since_ns;
	*records = 0;
	while (more) {
		Asteal__Envelope *m = history_page(fd, r, &hr);

		assert_true(m->history->n_allotments <= HISTPAGE_SCAN);
		*records += (int)m->history->n_allotments;
		more = m->history->more;
		assert_int_equal(frame_history_after(&hr, &after, m->history), more);
		frame_free(m);
		assert_true(++pages < 1000);
	}
	frame_reader_free(r);
	return pages;
}

/* A history query's time on the event loop is bounded whatever it
 * selects: over 6,000 runs of one running job, a window after all of them
 * is answered empty in a few pages (the runs before it passed over by the
 * index, not read); the whole history comes in pages of at most
 * HISTPAGE_SCAN rows (so at least 6000 / HISTPAGE_SCAN of them), each
 * going on from where the last stopped, each run once. */
static void test_history_bounded(void **state)
{
	enum { RUNS = 6000 };
	const int64_t t0 = 1700000000000000000LL, qns = 10000000;
	char db[64];
	struct history *h;
	struct history_job hj = { .name = "big", .uid = 0, .pid = 1,
	                          .command = "big", .start_ns = t0, .workers = 2 };
	int64_t job;
	int fd, n, pages;
	Asteal__Envelope *m = NULL;

	(void)state;
	snprintf(db, sizeof(db), "/tmp/asteal-hb.XXXXXX");
	assert_non_null(mkdtemp(db));
	strcat(db, "/h.db");
	h = history_open(db, NULL, NULL, 0);
	assert_non_null(h);
	job = history_job_begin(h, &hj);
	assert_true(job > 0);
	for (int q = 0; q < RUNS; q++) {
		struct history_quantum hq = {
			.quantum = q, .start_ns = t0 + q * qns,
			.end_ns = t0 + (q + 1) * qns, .desire = 1 + q % 2,
			.availability = 2, .allotment = 1 + q % 2, .cpus = "0",
		};

		assert_int_equal(history_allot(h, job, &hq), 0);
	}
	history_close(h);
	start(0, "--db", db, NULL);
	fd = tdaemon_connect(&d, 0, &m);
	expect_welcome(m);
	pages = history_pages(fd, (uint64_t)(t0 + 2 * RUNS * qns), &n);
	assert_int_equal(n, 0);
	assert_true(pages <= 4);
	pages = history_pages(fd, 0, &n);
	assert_int_equal(n, RUNS);
	assert_true(pages >= RUNS / HISTPAGE_SCAN);
	close(fd);
	assert_int_equal(tdaemon_stop(&d), 0);
	remove_db(db);
}

/* Send env as request `id`; its reply (the test fails without one),
 * which must name that request. */
static Asteal__Envelope *ask_as(int fd, struct frame_reader *r,
                                Asteal__Envelope *env, uint64_t id)
{
	Asteal__Envelope *m;

	env->request_id = id;
	assert_int_equal(frame_write_fd(fd, env), 0);
	m = tdaemon_next(fd, r, tdaemon_bound());
	assert_non_null(m);
	assert_int_equal(m->request_id, id);
	return m;
}

/* Send env as request `id` on fd, whose answer comes only once the job
 * connected on `job` has gone; ask a Status in between, answered under
 * its own id; close job and return the late answer (the caller frees),
 * which must name request id. */
static Asteal__Envelope *answer_when_gone(int fd, struct frame_reader *r,
                                          Asteal__Envelope *env, uint64_t id,
                                          int job)
{
	Asteal__Envelope st = ASTEAL__ENVELOPE__INIT, *m;
	Asteal__StatusRequest sr = ASTEAL__STATUS_REQUEST__INIT;

	env->request_id = id;
	assert_int_equal(frame_write_fd(fd, env), 0);
	st.msg_case = ASTEAL__ENVELOPE__MSG_STATUS_REQUEST;
	st.status_request = &sr;
	m = ask_as(fd, r, &st, id + 1);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_STATUS);
	frame_free(m);
	close(job);
	m = tdaemon_next(fd, r, tdaemon_bound());
	assert_non_null(m);
	assert_int_equal(m->request_id, id);
	return m;
}

/* Launch `n` jobs (unmanaged: no process connects) of this process's,
 * with command line cmd, from supervisor connections of their own, which
 * go in sup (LAUNCH_MAX_PER_CONN jobs each); the connections' count. */
static int launch_many(int n, const char *cmd, int *sup)
{
	struct frame_reader *r = frame_reader_new();
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *m = NULL;
	Asteal__Launch l = ASTEAL__LAUNCH__INIT;
	int nsup = 0;

	l.name = (char *)"j";
	l.command = (char *)cmd;
	l.pid = getpid();
	env.msg_case = ASTEAL__ENVELOPE__MSG_LAUNCH;
	env.launch = &l;
	for (int k = 0; k < n; k++) {
		if (k % LAUNCH_MAX_PER_CONN == 0) {
			sup[nsup] = tdaemon_connect(&d, 0, &m);
			expect_welcome(m);
			frame_reader_free(r);
			r = frame_reader_new();
			nsup++;
		}
		m = ask_as(sup[nsup - 1], r, &env, (uint64_t)k + 1);
		assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_LAUNCHED);
		frame_free(m);
	}
	frame_reader_free(r);
	return nsup;
}

/* Replies name their request and stay below a frame: with 2,048 jobs
 * launched (255-byte command lines) and 600 in the history with 4,000-byte
 * ones, so that one reply of each would pass PROTO_MAX_FRAME, Jobs and
 * History come in pages that hold them all; a refused request's Error
 * names it; and a WaitReply, which comes when its job ends, names the
 * WaitRequest while a Status asked in between was answered under its own
 * id. */
static void test_reply_ids_and_sizes(void **state)
{
	enum { LIVE = 2048, PAST = 600 };
	static char cmd[4001], cmd255[256];
	const int64_t t0 = 1700000000000000000LL;
	char db[64];
	struct history *h;
	struct frame_reader *r = frame_reader_new();
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *m = NULL;
	Asteal__StatusRequest sr = ASTEAL__STATUS_REQUEST__INIT;
	Asteal__JobsRequest jr = ASTEAL__JOBS_REQUEST__INIT;
	Asteal__HistoryRequest hr = ASTEAL__HISTORY_REQUEST__INIT;
	Asteal__WaitRequest wr = ASTEAL__WAIT_REQUEST__INIT;
	Asteal__HistoryCursor after;
	uint64_t ids[PROTO_HISTORY_MAX_IDS + 1] = { 0 }, last = 0;
	int fd, job, sup[LIVE / LAUNCH_MAX_PER_CONN], nsup;
	int pages = 0, runs = 0, records = 0, more = 1;
	size_t seen = 0;

	(void)state;
	memset(cmd, 'x', sizeof(cmd) - 1);
	memset(cmd255, 'y', sizeof(cmd255) - 1);
	snprintf(db, sizeof(db), "/tmp/asteal-hr.XXXXXX");
	assert_non_null(mkdtemp(db));
	strcat(db, "/h.db");
	h = history_open(db, NULL, NULL, 0);
	assert_non_null(h);
	for (int k = 0; k < PAST; k++) {
		struct history_job hj = { .name = "old", .uid = 0, .pid = 1 + k,
		                          .command = cmd, .start_ns = t0 + k,
		                          .workers = 1 };
		struct history_quantum hq = { .quantum = k, .start_ns = t0 + k,
		                              .end_ns = t0 + k + 1, .desire = 1,
		                              .availability = 1, .allotment = 1,
		                              .cpus = "0" };
		int64_t id = history_job_begin(h, &hj);

		assert_true(id > 0);
		assert_int_equal(history_allot(h, id, &hq), 0);
		assert_int_equal(history_job_end(h, id, t0 + k + 1, NULL), 0);
	}
	history_close(h);
	start(0, "--db", db, "--retention-days", "0", NULL);
	nsup = launch_many(LIVE, cmd255, sup);
	job = tdaemon_connect(&d, 1, &m);
	expect_welcome(m);
	fd = tdaemon_connect(&d, 0, &m);
	expect_welcome(m);

	env.msg_case = ASTEAL__ENVELOPE__MSG_STATUS_REQUEST;
	env.status_request = &sr;
	m = ask_as(fd, r, &env, 41);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_STATUS);
	frame_free(m);

	/* Jobs: pages by id, each below a frame, together every job. */
	env.msg_case = ASTEAL__ENVELOPE__MSG_JOBS_REQUEST;
	env.jobs_request = &jr;
	while (more) {
		m = ask_as(fd, r, &env, 100 + (uint64_t)pages);
		assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_JOBS);
		assert_true(m->jobs->n_jobs > 0);
		for (size_t i = 0; i < m->jobs->n_jobs; i++) {
			assert_true(m->jobs->jobs[i]->id > last);
			last = m->jobs->jobs[i]->id;
		}
		seen += m->jobs->n_jobs;
		more = m->jobs->more;
		jr.after = last;
		frame_free(m);
		assert_true(++pages < 100);
	}
	assert_int_equal(seen, LIVE + 1);
	assert_true(pages > 1);

	/* History: runs with their jobs, then the jobs alone. */
	env.msg_case = ASTEAL__ENVELOPE__MSG_HISTORY_REQUEST;
	env.history_request = &hr;
	for (int jobs_only = 0; jobs_only < 2; jobs_only++) {
		hr.jobs_only = jobs_only;
		hr.after = NULL;
		records = 0;
		for (more = 1, pages = 0; more; pages++) {
			m = ask_as(fd, r, &env, 200 + (uint64_t)pages);
			assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_HISTORY);
			for (size_t i = 0; i < m->history->n_allotments; i++)
				runs += m->history->allotments[i]->job_id <= PAST;
			for (size_t i = 0; i < m->history->n_jobs; i++)
				records += strcmp(m->history->jobs[i]->name, "old") == 0;
			more = frame_history_after(&hr, &after, m->history);
			frame_free(m);
			assert_true(pages < 1000);
		}
		assert_int_equal(records, PAST);
		assert_true(pages > 4);
	}
	assert_int_equal(runs, PAST);

	/* A refused request's Error names it. */
	hr.after = NULL;
	hr.job_ids = ids;
	hr.n_job_ids = PROTO_HISTORY_MAX_IDS + 1;
	m = ask_as(fd, r, &env, 43);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_ERROR);
	assert_int_equal(m->error->code, ASTEAL__ERROR_CODE__INVALID);
	frame_free(m);

	/* A wait answered after a later request, each under its own id. */
	wr.job_id = last;               /* the connected job: the last id */
	env.msg_case = ASTEAL__ENVELOPE__MSG_WAIT_REQUEST;
	env.wait_request = &wr;
	m = answer_when_gone(fd, r, &env, 50, job);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_WAIT_REPLY);
	assert_int_equal(m->wait_reply->job_id, last);
	frame_free(m);
	frame_reader_free(r);
	close(fd);
	for (int k = 0; k < nsup; k++)
		close(sup[k]);
	assert_int_equal(tdaemon_stop(&d), 0);
	remove_db(db);
}

/* The Ok to a JobExit that comes when the job ends, later, names the
 * JobExit (the command line waits for that id: without it, `asteal run`
 * waited out its 10 s for every job still connected when its child's exit
 * was reported); a Status asked in between is answered under its own. */
static void test_late_ok_named(void **state)
{
	struct frame_reader *r = frame_reader_new(), *jr = frame_reader_new();
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *m = NULL;
	Asteal__Launch l = ASTEAL__LAUNCH__INIT;
	Asteal__JobExit je = ASTEAL__JOB_EXIT__INIT;
	Asteal__Hello h;
	uint64_t id;
	int sup, job;

	(void)state;
	start(0, NULL);
	sup = tdaemon_connect(&d, 0, &m);
	expect_welcome(m);
	l.name = (char *)"late";
	l.pid = getpid();
	env.msg_case = ASTEAL__ENVELOPE__MSG_LAUNCH;
	env.launch = &l;
	m = ask_as(sup, r, &env, 70);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_LAUNCHED);
	id = m->launched->job_id;
	frame_free(m);
	/* The job connects under the launched id. */
	job = tdaemon_dial(&d);
	assert_true(job >= 0);
	frame_hello(&env, &h, ASTEAL__ROLE__JOB, "late", 1, "late", "test");
	h.job_id = id;
	assert_int_equal(frame_write_fd(job, &env), 0);
	m = tdaemon_next(job, jr, tdaemon_bound());
	assert_non_null(m);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_WELCOME);
	assert_int_equal(m->welcome->job_id, id);
	frame_free(m);
	/* Its exit is reported while it is still connected. */
	je.job_id = id;
	je.pid = getpid();
	env.msg_case = ASTEAL__ENVELOPE__MSG_JOB_EXIT;
	env.job_exit = &je;
	m = answer_when_gone(sup, r, &env, 71, job);
	assert_int_equal(m->msg_case, ASTEAL__ENVELOPE__MSG_OK);
	frame_free(m);
	frame_reader_free(r);
	frame_reader_free(jr);
	close(sup);
}

/* As another uid: job registrations, 50 at a time (Hellos all sent, then
 * the replies read, so that the rate the daemon sees does not depend on
 * how fast this machine turns a connection round), until one is refused
 * for the rate; 0 when one was, and no more were welcomed than the
 * bucket allows. */
static int user_spam(int most)
{
	enum { BATCH = 50 };
	struct frame_reader *r = frame_reader_new();
	double t0 = test_now();
	int welcomed = 0, refused = 0, fds[BATCH];

	for (int i = 0; i < most && !refused; i += BATCH) {
		for (int k = 0; k < BATCH; k++) {
			fds[k] = tdaemon_dial(&d);
			if (fds[k] < 0 || tdaemon_hello(fds[k], 1) < 0)
				return 1;
		}
		for (int k = 0; k < BATCH; k++) {
			Asteal__Envelope *m;

			frame_reader_free(r);
			r = frame_reader_new();
			m = tdaemon_next(fds[k], r, 10);
			if (m == NULL)
				return 4;
			refused += m->msg_case == ASTEAL__ENVELOPE__MSG_ERROR &&
			           strstr(m->error->message, "faster than") != NULL;
			welcomed += m->msg_case == ASTEAL__ENVELOPE__MSG_WELCOME;
			frame_free(m);
			close(fds[k]);
		}
	}
	frame_reader_free(r);
	if (!refused)
		return 3;
	return welcomed <= ADMIT_USER_JOB_BURST + BATCH +
	       (test_now() - t0) * ADMIT_USER_JOB_RATE ? 0 : 2;
}

/* A user who starts jobs too fast is refused; root is not. */
static void test_job_rate(void **state)
{
	pid_t u;
	int go;

	(void)state;
	if (geteuid() != 0) {
		print_message("skipped: the job rate needs root to connect as "
		              "another uid (setuid)\n");
		skip();
	}
	start(0, (const char *)NULL);
	u = tdaemon_as_uid(64995, user_spam, 20 * ADMIT_USER_JOB_BURST, &go);
	assert_int_equal(tdaemon_finish_uid(u, go), 0);
	for (int i = 0; i < ADMIT_USER_JOB_BURST + 50; i++) {
		Asteal__Envelope *m = NULL;
		int fd = tdaemon_connect(&d, 1, &m);

		assert_true(fd >= 0);
		expect_welcome(m);
		close(fd);
	}
	assert_true(tdaemon_log_count(&d, "faster than", NULL) >= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_cancel_by_pidfd, stop),
		cmocka_unit_test_teardown(test_hello_deadline, stop),
		cmocka_unit_test_teardown(test_user_limits, stop),
		cmocka_unit_test_teardown(test_slow_reader_dropped, stop),
		cmocka_unit_test_teardown(test_waits, stop),
		cmocka_unit_test_teardown(test_private_data, stop),
		cmocka_unit_test_teardown(test_job_rate, stop),
		cmocka_unit_test_teardown(test_history_bounded, stop),
		cmocka_unit_test_teardown(test_reply_ids_and_sizes, stop),
		cmocka_unit_test_teardown(test_late_ok_named, stop),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
