/*
 * watch.c - `asteal jobs --watch`: the running jobs refreshed every
 * interval until q, Ctrl-C, SIGTERM or SIGHUP (exit 0).
 *
 * On a terminal the table (the default form) takes the whole screen as
 * top does, drawn with ncursesw on the alternate screen: a line about the
 * daemon, a status line, the column names and as many jobs as fit, then
 * how many more are not shown.  A resize (SIGWINCH) draws it again at the
 * new size.  Every way out (q, a signal, an error) gives the terminal back
 * as it was; what was said on stderr meanwhile (held in a memfd while the
 * screen is ours) is said after that.  Elsewhere (standard output a pipe
 * or a file, a terminal ncurses does not know; --json, --csv, --parsable)
 * frames follow one another: a table after a blank line and the line
 * about the daemon, JSON an array a line.
 *
 * When the daemon goes away (a restart), the watch stays: the screen says
 * so above the jobs last seen (elsewhere one line on stderr), connects
 * again with backoff (client_retry: at least every half second) and goes
 * on once a daemon answers.  A peer there that answers what no asteald
 * says (or refuses us) ends it, after the terminal is given back.
 */
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "cli.h"
#include "client.h"
#include "frame.h"
#include "qtime.h"
#include "query.h"
#include "table.h"
#include "watch.h"

#include <term.h>   /* last: its capability macros (lines, ...) */

/* The signals that stop the watch (SIGWINCH, caught beside them, redraws). */
static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP };
#define NSTOP ((int)(sizeof(stop_sigs) / sizeof(stop_sigs[0])))

/* Written by the signal handler: a byte per signal, read by the loop. */
static int sig_pipe[2] = { -1, -1 };

/* One watch: what it asks, its connection, the jobs last seen, and the
 * terminal. */
struct watch {
	const struct cli *g;
	const struct query_args *a;
	const uint64_t *ids;
	size_t nids;
	double interval;
	struct client *c;           /* NULL while the daemon is away */
	struct client_retry retry;
	uint64_t gone_ns;           /* when it went away (wall clock); 0: here */
	/* the jobs last seen, as the screen shows them */
	char *text;                 /* the table: a line each (names, jobs) */
	size_t text_len;
	struct query_jobs_sum sum;
	int ncpus;
	uint64_t seen_ns;           /* when they were asked for */
	/* the terminal */
	SCREEN *scr;                /* NULL: frames one after another */
	int in_fd;                  /* keys come from here; -1: none */
	int raw;                    /* stdin in non-canonical mode (frames) */
	struct termios saved;
	int err_fd;                 /* stderr's lines held; -1: none held */
	int err_saved;              /* the real stderr meanwhile */
};

/* A signal came: wake the loop with its number. */
static void on_signal(int sig)
{
	int e = errno;
	unsigned char b = (unsigned char)sig;

	if (write(sig_pipe[1], &b, 1) < 0) {
		/* the pipe is full: the loop wakes anyway */
	}
	errno = e;
}

/* Catch the stop signals and SIGWINCH on the self-pipe, ignore SIGPIPE
 * (a reader gone is EPIPE), keeping the old actions in old (NSTOP + 2):
 * 0, or -1 after a message. */
static int signals_catch(struct sigaction *old)
{
	struct sigaction sa;
	int i;

	if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		cli_error("pipe: %s", strerror(errno));
		return -1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;      /* no SA_RESTART: poll wakes */
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NSTOP; i++)
		sigaction(stop_sigs[i], &sa, &old[i]);
	sigaction(SIGWINCH, &sa, &old[NSTOP]);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, &old[NSTOP + 1]);
	return 0;
}

/* Put back the actions signals_catch found, and close the self-pipe. */
static void signals_restore(const struct sigaction *old)
{
	int i;

	for (i = 0; i < NSTOP; i++)
		sigaction(stop_sigs[i], &old[i], NULL);
	sigaction(SIGWINCH, &old[NSTOP], NULL);
	sigaction(SIGPIPE, &old[NSTOP + 1], NULL);
	close(sig_pipe[0]);
	close(sig_pipe[1]);
	sig_pipe[0] = sig_pipe[1] = -1;
}

/* While the screen is ours, hold what is said on stderr (when it is a
 * terminal: the screen's) in a memfd, to say it once the terminal is
 * given back. */
static void err_hold(struct watch *w)
{
	w->err_fd = w->err_saved = -1;
	if (!isatty(STDERR_FILENO))
		return;
	w->err_fd = memfd_create("asteal-watch-stderr", MFD_CLOEXEC);
	w->err_saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (w->err_fd < 0 || w->err_saved < 0 ||
	    dup2(w->err_fd, STDERR_FILENO) < 0) {
		if (w->err_fd >= 0)
			close(w->err_fd);
		if (w->err_saved >= 0)
			close(w->err_saved);
		w->err_fd = w->err_saved = -1;
	}
}

/* Forget what stderr held so far (a try to connect that failed, and is
 * tried again, is not worth saying at the end). */
static void err_forget(struct watch *w)
{
	if (w->err_fd >= 0 && ftruncate(w->err_fd, 0) == 0)
		lseek(w->err_fd, 0, SEEK_SET);
}

/* Give stderr back and say on it what it held. */
static void err_release(struct watch *w)
{
	char buf[4096];
	ssize_t n;

	if (w->err_fd < 0)
		return;
	fflush(stderr);
	dup2(w->err_saved, STDERR_FILENO);
	close(w->err_saved);
	lseek(w->err_fd, 0, SEEK_SET);
	while ((n = read(w->err_fd, buf, sizeof(buf))) > 0)
		if (write(STDERR_FILENO, buf, (size_t)n) != n)
			break;
	close(w->err_fd);
	w->err_fd = w->err_saved = -1;
}

/* Take the terminal for the screen (ncursesw on the alternate screen,
 * keys one at a time without echo, no cursor): 0, or -1 when ncurses
 * cannot drive it (then frames follow one another, said once). */
static int screen_start(struct watch *w)
{
	const char *term = getenv("TERM"), *cup, *why = "is unknown";

	use_tioctl(TRUE);               /* the window's size, not $LINES */
	w->scr = newterm(NULL, stdout, stdin);
	if (w->scr != NULL) {
		/* a terminal without cursor addressing (dumb) shows no screen */
		cup = tigetstr("cup");
		if (cup != NULL && cup != (const char *)-1)
			why = NULL;
		else
			why = "cannot move the cursor";
		if (why != NULL) {
			endwin();
			delscreen(w->scr);
			w->scr = NULL;
		}
	}
	if (why != NULL) {
		cli_error("jobs --watch: the terminal type '%s' %s: frames follow "
		          "one another", term != NULL ? term : "", why);
		return -1;
	}
	cbreak();
	noecho();
	leaveok(stdscr, TRUE);
	curs_set(0);
	w->in_fd = STDIN_FILENO;
	err_hold(w);
	return 0;
}

/* Give the terminal back as it was (the normal screen, its modes), then
 * say what stderr held meanwhile. */
static void screen_stop(struct watch *w)
{
	if (w->scr == NULL)
		return;
	endwin();
	delscreen(w->scr);
	w->scr = NULL;
	err_release(w);
}

/* Draw n bytes of s on line y from its left, no wider than the screen
 * (by display width: a wide character takes two columns; what does not
 * decode or print shows as '?'), with attributes attr to the line's end. */
static void put_line(int y, const char *s, size_t n, attr_t attr)
{
	mbstate_t st;
	wchar_t wc;
	size_t k;
	int col = 0, wd;

	if (y < 0 || y >= LINES)
		return;
	memset(&st, 0, sizeof(st));
	move(y, 0);
	while (n > 0 && col < COLS) {
		k = mbrtowc(&wc, s, n, &st);
		if (k == 0 || k == (size_t)-1 || k == (size_t)-2) {
			memset(&st, 0, sizeof(st));
			k = 1;
			wd = -1;
		} else {
			wd = wcwidth(wc);
		}
		if (wd < 0) {
			wd = 1;
			if (col + wd > COLS)
				break;
			addch('?');
		} else {
			if (col + wd > COLS)
				break;
			addnstr(s, (int)k);
		}
		col += wd;
		s += k;
		n -= k;
	}
	if (attr != A_NORMAL)
		mvchgat(y, 0, -1, attr, 0, NULL);
}

/* The line about the daemon above the jobs sum says of (when: the time
 * they were asked for), into buf. */
static void head_line(const struct watch *w, const struct query_jobs_sum *sum,
                      const char *when, char *buf, size_t len)
{
	snprintf(buf, len, "asteald: %d CPU%s, %zu job%s, %u CPU%s allotted   %s   "
	         "every %gs, q to quit", w->ncpus, w->ncpus == 1 ? "" : "s",
	         sum->jobs, sum->jobs == 1 ? "" : "s", sum->allotted,
	         sum->allotted == 1 ? "" : "s", when, w->interval);
}

/* Draw the screen: the line about the daemon, the status line, the column
 * names and as many jobs as fit, then how many more are not shown. */
static void screen_draw(struct watch *w)
{
	char line[512], when[16];
	const char *p = w->text, *end = w->text + w->text_len, *nl;
	size_t nlines = 0, show, i, rows;
	struct tm tm;
	time_t t;
	int y, avail;

	erase();
	t = (time_t)(w->seen_ns / 1000000000u);
	if (w->seen_ns == 0 || localtime_r(&t, &tm) == NULL ||
	    strftime(when, sizeof(when), "%H:%M:%S", &tm) == 0)
		snprintf(when, sizeof(when), "-");
	head_line(w, &w->sum, when, line, sizeof(line));
	put_line(0, line, strlen(line), A_BOLD);
	if (w->gone_ns != 0) {
		t = (time_t)(w->gone_ns / 1000000000u);
		if (localtime_r(&t, &tm) == NULL ||
		    strftime(when, sizeof(when), "%H:%M:%S", &tm) == 0)
			snprintf(when, sizeof(when), "-");
		snprintf(line, sizeof(line), "asteald went away at %s; connecting "
		         "again to %s", when, w->g->socket);
		put_line(1, line, strlen(line), A_REVERSE);
	}
	for (nl = p; nl < end; nl++)
		nlines += *nl == '\n';
	avail = LINES - 2;
	show = avail <= 0 ? 0 : nlines <= (size_t)avail ? nlines : (size_t)avail - 1;
	for (i = 0, y = 2; i < show; i++, y++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		put_line(y, p, (size_t)(nl - p),
		         i == 0 && w->a->header ? A_REVERSE : A_NORMAL);
		p = nl + 1;
	}
	if (show < nlines && avail > 0) {
		rows = show - (show > 0 && w->a->header);
		snprintf(line, sizeof(line), "%zu more job%s not shown",
		         w->sum.jobs - rows, w->sum.jobs - rows == 1 ? "" : "s");
		put_line(y, line, strlen(line), A_BOLD);
	}
	refresh();
}

/* The terminal changed its size: take the new one and draw it all again. */
static void screen_resize(struct watch *w)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 &&
	    ws.ws_col > 0)
		resizeterm(ws.ws_row, ws.ws_col);
	clearok(curscr, TRUE);
	screen_draw(w);
}

/* Keys from stdin without a screen: only from our own terminal in the
 * foreground (then put in non-canonical mode, restored by keys_stop), or
 * from a pipe or file, which may say q too. */
static void keys_start(struct watch *w)
{
	struct termios raw;

	w->in_fd = -1;
	w->raw = 0;
	if (isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp() &&
	    tcgetattr(STDIN_FILENO, &w->saved) == 0) {
		raw = w->saved;
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		w->raw = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
		w->in_fd = STDIN_FILENO;
	} else if (!isatty(STDIN_FILENO)) {
		w->in_fd = STDIN_FILENO;
	}
}

/* Put stdin's terminal back as keys_start found it. */
static void keys_stop(struct watch *w)
{
	if (w->raw)
		tcsetattr(STDIN_FILENO, TCSANOW, &w->saved);
	w->raw = 0;
}

/* Read the keys waiting (read by hand, the screen's too: ncurses's getch
 * would refresh and report resizes of its own): 1 for q, else 0 (no
 * more keys to come: in_fd becomes -1, and only a signal stops it). */
static int keys_read(struct watch *w)
{
	char keys[64];
	ssize_t k, i;

	k = read(w->in_fd, keys, sizeof(keys));
	if (k == 0 || (k < 0 && errno != EINTR && errno != EAGAIN))
		w->in_fd = -1;
	for (i = 0; i < k; i++)
		if (keys[i] == 'q' || keys[i] == 'Q')
			return 1;
	return 0;
}

/* Render the jobs of all that pass the filters into a new string *buf
 * (*len bytes; free it), their count and CPUs into *sum: 0, or CLI_FAIL
 * after a message. */
static int render(const struct watch *w, const Asteal__Jobs *all, uint64_t now,
                  char **buf, size_t *len, struct query_jobs_sum *sum)
{
	FILE *f;
	int ok;

	*buf = NULL;
	*len = 0;
	if ((f = open_memstream(buf, len)) == NULL) {
		cli_error("out of memory");
		return CLI_FAIL;
	}
	ok = query_jobs_render(f, w->a, all, now, sum) == 0 && !ferror(f);
	if (fclose(f) != 0 || !ok) {
		free(*buf);
		*buf = NULL;
		cli_error("out of memory");
		return CLI_FAIL;
	}
	return CLI_OK;
}

/* One frame without a screen, on stdout: a table after a blank line (and
 * for the aligned form, the line about the daemon), JSON an array a line.
 * 0, or an exit code; *stop when the watch ends (a reader that left,
 * which is no error). */
static int frame_print(struct watch *w, const Asteal__Jobs *all, uint64_t now,
                       int *stop)
{
	struct query_jobs_sum sum;
	char *buf, when[64], line[256];
	size_t len;
	int ok;

	if (render(w, all, now, &buf, &len, &sum) != 0)
		return CLI_FAIL;
	if (!w->a->json)
		putchar('\n');
	if (!w->a->json && w->a->style == TABLE_ALIGNED) {
		head_line(w, &sum, fmt_time(when, sizeof(when), now), line,
		          sizeof(line));
		printf("%s\n\n", line);
	}
	ok = fwrite(buf, 1, len, stdout) == len && fflush(stdout) == 0;
	free(buf);
	if (!ok) {
		*stop = 1;
		if (errno != EPIPE) {
			cli_error("writing the output: %s", strerror(errno));
			return CLI_FAIL;
		}
	}
	return CLI_OK;
}

/* Ask for the jobs and show them (on the screen, or as a frame): 0, or
 * an exit code (CLI_UNAVAILABLE: the daemon went away, nothing said);
 * *stop when the watch ends without an error. */
static int refresh_jobs(struct watch *w, int *stop)
{
	Asteal__Envelope *reply = NULL;
	uint64_t now;
	char *buf;
	size_t len;
	int r;

	if ((r = query_jobs_fetch(w->c, w->ids, w->nids, &reply)) != 0)
		return r;
	now = qtime_wall_ns();
	w->ncpus = client_ncpus(w->c);
	if (w->scr == NULL) {
		r = frame_print(w, reply->jobs, now, stop);
	} else if ((r = render(w, reply->jobs, now, &buf, &len, &w->sum)) == 0) {
		free(w->text);
		w->text = buf;
		w->text_len = len;
		w->seen_ns = now;
		screen_draw(w);
	}
	frame_free(reply);
	return r;
}

/* The daemon went away: say so (on the screen, else on stderr) and start
 * connecting again. */
static void lost(struct watch *w)
{
	client_close(w->c);
	w->c = NULL;
	w->gone_ns = qtime_wall_ns();
	client_retry_start(&w->retry);
	if (w->scr != NULL)
		screen_draw(w);
	else
		cli_error("asteald at %s went away; connecting again", w->g->socket);
}

/* Try to connect again when a try is due: 0 when connected (or not yet),
 * or an exit code after a message (an answer that is no protocol). */
static int reconnect(struct watch *w)
{
	int r;

	if (client_retry_due_ms(&w->retry) > 0)
		return 0;
	err_forget(w);
	r = client_retry(w->g->socket, &w->c, &w->retry);
	if (r == CLI_UNAVAILABLE)
		return 0;
	if (r != 0)
		return r;
	client_set_quiet(w->c, 1);
	w->gone_ns = 0;
	return 0;
}

/* Wait up to timeout_ms for a signal, a key or the daemon: 0 to go on, 1
 * to stop (q, SIGINT, SIGTERM, SIGHUP), or an exit code. */
static int wait_events(struct watch *w, int timeout_ms)
{
	struct pollfd p[3];
	Asteal__Envelope *m = NULL;
	unsigned char sigs[16];
	ssize_t n, i;
	int r, resize = 0;

	p[0].fd = sig_pipe[0];
	p[1].fd = w->in_fd;
	p[2].fd = w->c != NULL ? client_fd(w->c) : -1;
	for (i = 0; i < 3; i++) {
		p[i].events = POLLIN;
		p[i].revents = 0;
	}
	r = poll(p, 3, timeout_ms);
	if (r < 0 && errno == EINTR)
		return 0;               /* the signal's byte is in the pipe */
	if (r < 0) {
		cli_error("poll: %s", strerror(errno));
		return CLI_FAIL;
	}
	if (p[0].revents & POLLIN) {
		n = read(sig_pipe[0], sigs, sizeof(sigs));
		for (i = 0; i < n; i++) {
			if (sigs[i] != SIGWINCH)
				return 1;
			resize = 1;
		}
		if (resize && w->scr != NULL)
			screen_resize(w);
	}
	if (w->in_fd >= 0 && p[1].revents != 0 && keys_read(w))
		return 1;
	if (w->c != NULL && p[2].revents != 0) {
		/* nothing is asked: the daemon stopping or closing */
		r = client_recv(w->c, &m, 0);
		if (r == 1 && client_gone(0, m))
			r = CLI_UNAVAILABLE;
		frame_free(m);
		if (r == CLI_UNAVAILABLE)
			lost(w);
		else if (r > 1)
			return r;
	}
	return 0;
}

/* Refresh every interval, waiting out the daemon's absences, until q, a
 * signal or an error: the exit code. */
static int watch_loop(struct watch *w)
{
	long long now, next = 0, every = (long long)(w->interval * 1000 + 0.5);
	int r, stop = 0, timeout;

	for (;;) {
		if (w->c == NULL) {
			if ((r = reconnect(w)) != 0)
				return r;
			if (w->c != NULL)
				next = 0;       /* back: ask at once */
		}
		now = query_mono_ms();
		if (w->c != NULL && now >= next) {
			next = now + every;
			r = refresh_jobs(w, &stop);
			if (r == CLI_UNAVAILABLE)
				lost(w);
			else if (r != 0 || stop)
				return r;
		}
		if (w->c != NULL) {
			now = query_mono_ms();
			timeout = next > now ? (int)(next - now) : 0;
		} else {
			timeout = client_retry_due_ms(&w->retry);
		}
		if ((r = wait_events(w, timeout)) != 0)
			return r == 1 ? CLI_OK : r;
	}
}

/* `asteal jobs --watch`. */
int watch_jobs(const struct cli *g, const struct query_args *a,
               struct client *c, const uint64_t *ids, size_t nids,
               double interval)
{
	struct sigaction old[NSTOP + 2];
	struct watch w;
	int r;

	memset(&w, 0, sizeof(w));
	w.g = g;
	w.a = a;
	w.ids = ids;
	w.nids = nids;
	w.interval = interval;
	w.c = c;
	w.ncpus = client_ncpus(c);
	w.in_fd = w.err_fd = w.err_saved = -1;
	client_set_quiet(c, 1);
	if (signals_catch(old) < 0) {
		client_close(c);
		return CLI_FAIL;
	}
	/* the whole screen for the table on a terminal; else frames */
	if (!(g->tty && !a->json && a->style == TABLE_ALIGNED) ||
	    screen_start(&w) < 0)
		keys_start(&w);
	r = watch_loop(&w);
	screen_stop(&w);
	keys_stop(&w);
	signals_restore(old);
	client_close(w.c);
	free(w.text);
	return r;
}
