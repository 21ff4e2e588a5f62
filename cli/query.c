/*
 * query.c - the commands that ask asteald and print: `jobs` (the running
 * jobs, once or refreshed like top with --watch), `history` (allotment
 * records or jobs, every page of them, as a table, JSON or CSV, and an SVG
 * chart with --plot) and `status` (the daemon's own numbers).
 *
 * Output: aligned tables for people; with --json one JSON document (with
 * --watch, one per refresh and line: JSON Lines).  In JSON and CSV, keys
 * and columns are the protocol's field names in snake_case; instants are
 * integers of ns since the epoch (*_ns), and JSON adds them as ISO 8601
 * UTC strings (the same key without _ns); CSV has only the integers, and
 * an empty field where JSON has null.  Quantum classes are the words
 * inefficient, satisfied and deprived.
 *
 * `jobs --watch` keeps one connection, asks every interval and waits for
 * the next in poll() on the socket (the daemon going away ends it, exit
 * 69) and on stdin (q ends it; stdin is put in non-canonical mode only
 * when it is our terminal, and restored on every way out, SIGINT, SIGTERM
 * and SIGHUP included).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "client.h"
#include "frame.h"
#include "histdb.h"
#include "plot.h"
#include "qtime.h"
#include "table.h"

#define MAX_IDS 256                     /* the daemon's limit per request */
#define CPUS_LEN 8192                   /* a CPU list as text */

/* The output formats of `history`. */
enum format { FMT_TABLE, FMT_JSON, FMT_CSV };

/* Every page of a history query and the records they hold. */
struct hist {
	Asteal__Envelope **pages;
	size_t npages, cap;
	const Asteal__JobRecord **jobs;             /* by id, no repeats */
	size_t njobs, capj;
	const Asteal__AllotmentRecord **recs;       /* in the daemon's order */
	size_t nrecs, capr;
};

/* Set by SIGINT, SIGTERM and SIGHUP while `jobs --watch` runs. */
static volatile sig_atomic_t watch_signal;

/* ------------------------------------------------------------ helpers -- */

/* Milliseconds on the monotonic clock. */
static long long mono_ms(void)
{
	return (long long)(qtime_now_ns() / 1000000u);
}

/* Say a bad option (getopt returned o) and return CLI_USAGE. */
static int bad_option(const char *cmd, int o, char **argv)
{
	if (o == ':')
		return cli_usage(cmd, "option '%s' needs an argument", argv[optind - 1]);
	if (optopt > ' ' && optopt < 127)
		return cli_usage(cmd, "unknown option '-%c'", optopt);
	return cli_usage(cmd, "unknown option '%s'", argv[optind - 1]);
}

/* Parse the JOB arguments argv[first..argc) into ids (at most MAX_IDS):
 * their count, or -1 after a usage message. */
static int parse_ids(const char *cmd, int argc, char **argv, int first,
                     uint64_t *ids)
{
	unsigned long long id;
	int i, n = 0;

	if (argc - first > MAX_IDS) {
		cli_usage(cmd, "at most %d job ids", MAX_IDS);
		return -1;
	}
	for (i = first; i < argc; i++) {
		if (cli_job_id(cmd, argv[i], &id) < 0)
			return -1;
		ids[n++] = id;
	}
	return n;
}

/* The name of user uid (a small cache: tables repeat the same few), or
 * the number. */
static const char *user_name(uint32_t uid, char *buf, size_t len)
{
	static struct { uint32_t uid; char name[64]; int used; } cache[8];
	static unsigned next;
	struct passwd pw, *res = NULL;
	char pbuf[2048];
	unsigned i;

	for (i = 0; i < 8; i++)
		if (cache[i].used && cache[i].uid == uid) {
			snprintf(buf, len, "%s", cache[i].name);
			return buf;
		}
	if (getpwuid_r(uid, &pw, pbuf, sizeof(pbuf), &res) == 0 && res != NULL)
		snprintf(buf, len, "%s", pw.pw_name);
	else
		snprintf(buf, len, "%u", uid);
	i = next++ % 8;
	cache[i].uid = uid;
	cache[i].used = 1;
	snprintf(cache[i].name, sizeof(cache[i].name), "%s", buf);
	return buf;
}

/* A quantum class as a word, NULL when none. */
static const char *class_name(Asteal__QuantumClass c)
{
	switch (c) {
	case ASTEAL__QUANTUM_CLASS__INEFFICIENT:
		return "inefficient";
	case ASTEAL__QUANTUM_CLASS__SATISFIED:
		return "satisfied";
	case ASTEAL__QUANTUM_CLASS__DEPRIVED:
		return "deprived";
	default:
		return NULL;
	}
}

/* An unsigned number as text. */
static char *fmt_u64(char *buf, size_t len, uint64_t v)
{
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

/* A wall-clock instant as local "YYYY-MM-DD HH:MM:SS.mmm" ("-" for 0). */
static char *fmt_time_ms(char *buf, size_t len, uint64_t ns)
{
	size_t n;

	fmt_time(buf, len, ns);
	n = strlen(buf);
	if (ns != 0 && n > 1)
		snprintf(buf + n, len - n, ".%03u", (unsigned)(ns / 1000000u % 1000u));
	return buf;
}

/* A short duration (latencies): "850ns", "12.3us", "1.25ms", "2.00s". */
static char *fmt_short(char *buf, size_t len, uint64_t ns)
{
	static const char *const unit[] = { "us", "ms", "s" };
	double v = (double)ns;
	int u = -1;

	if (ns < 1000) {
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
		return buf;
	}
	while (u < 2 && v >= 1000) {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, "%.*f%s", v < 10 ? 2 : v < 100 ? 1 : 0, v, unit[u]);
	return buf;
}

/* A job's end as waitpid() reported it: "exit 3", "killed by SIGKILL",
 * or NULL when unknown. */
static const char *fmt_status(char *buf, size_t len, const Asteal__JobRecord *j)
{
	int st = j->wait_status;

	if (!j->status_known)
		return NULL;
	if (WIFEXITED(st)) {
		snprintf(buf, len, "exit %d", WEXITSTATUS(st));
	} else if (WIFSIGNALED(st)) {
		const char *name = sigabbrev_np(WTERMSIG(st));
		if (name != NULL)
			snprintf(buf, len, "killed by SIG%s%s", name,
			         WCOREDUMP(st) ? " (core dumped)" : "");
		else
			snprintf(buf, len, "killed by signal %d", WTERMSIG(st));
	} else {
		snprintf(buf, len, "status 0x%x", (unsigned)st);
	}
	return buf;
}

/* An instant as a JSON ISO 8601 UTC string (ms), null for 0. */
static void json_iso(FILE *f, uint64_t ns)
{
	time_t s = (time_t)(ns / 1000000000u);
	struct tm tm;
	char buf[48];

	if (ns == 0 || gmtime_r(&s, &tm) == NULL ||
	    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm) == 0) {
		fputs("null", f);
		return;
	}
	fprintf(f, "\"%s.%03uZ\"", buf, (unsigned)(ns / 1000000u % 1000u));
}

/* A JSON array of numbers. */
static void json_u32s(FILE *f, const uint32_t *v, size_t n)
{
	size_t i;

	fputc('[', f);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%u", i ? "," : "", v[i]);
	fputc(']', f);
}

/* A JSON number for a double (null when not finite). */
static void json_double(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.6g", v);
	else
		fputs("null", f);
}

/* A job's usage as JSON members, each after a comma: work_ns, steal_ns,
 * mug_ns, sleep_ns, preempted_ns, allotted_ns. */
static void json_usage(FILE *f, uint64_t work, uint64_t steal, uint64_t mug,
                       uint64_t sleep, uint64_t preempted, uint64_t allotted)
{
	fprintf(f, ",\"work_ns\":%llu,\"steal_ns\":%llu,\"mug_ns\":%llu,"
	        "\"sleep_ns\":%llu,\"preempted_ns\":%llu,\"allotted_ns\":%llu",
	        (unsigned long long)work, (unsigned long long)steal,
	        (unsigned long long)mug, (unsigned long long)sleep,
	        (unsigned long long)preempted, (unsigned long long)allotted);
}

/* Flush stdout: CLI_OK, or CLI_FAIL after a message. */
static int flush_out(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_error("writing the output: %s", strerror(errno));
		return CLI_FAIL;
	}
	return CLI_OK;
}

/* ---------------------------------------------------------------- jobs -- */

/* Order JobInfo pointers by id. */
static int cmp_jobinfo(const void *a, const void *b)
{
	const Asteal__JobInfo *x = *(const Asteal__JobInfo *const *)a;
	const Asteal__JobInfo *y = *(const Asteal__JobInfo *const *)b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Ask for the running jobs (ids: only these), page after page: 0 with
 * *reply (all its pages' jobs, sorted by id), or an exit code.  The
 * pages after the first give their jobs to the first one's array (each
 * decoded message is plain malloc'd memory, frame_free frees the
 * elements it finds in the array). */
static int jobs_fetch(struct client *c, const uint64_t *ids, size_t nids,
                      Asteal__Envelope **reply)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *m;
	Asteal__JobsRequest req = ASTEAL__JOBS_REQUEST__INIT;
	Asteal__Jobs *all;
	size_t cap;
	int r;

	req.ids = (uint64_t *)ids;
	req.n_ids = nids;
	env.msg_case = ASTEAL__ENVELOPE__MSG_JOBS_REQUEST;
	env.jobs_request = &req;
	r = client_call(c, &env, ASTEAL__ENVELOPE__MSG_JOBS, reply, CLIENT_REPLY_MS);
	if (r != 0)
		return r;
	all = (*reply)->jobs;
	cap = all->n_jobs;
	while (all->more) {
		if (all->n_jobs == 0 || all->jobs[all->n_jobs - 1]->id <= req.after) {
			cli_error("asteald sent a jobs page with more to follow "
			          "but no place after this one to go on from");
			r = CLI_FAIL;
			break;
		}
		req.after = all->jobs[all->n_jobs - 1]->id;
		if ((r = client_call(c, &env, ASTEAL__ENVELOPE__MSG_JOBS, &m,
		                     CLIENT_REPLY_MS)) != 0)
			break;
		for (size_t i = 0; i < m->jobs->n_jobs && r == 0; i++) {
			if (frame_grow(&all->jobs, sizeof(*all->jobs), all->n_jobs,
			               &cap, 64) < 0) {
				cli_error("out of memory");
				r = CLI_FAIL;
				/* the rest stay in m, which frees them */
				memmove(m->jobs->jobs, m->jobs->jobs + i,
				        (m->jobs->n_jobs - i) * sizeof(*m->jobs->jobs));
				m->jobs->n_jobs -= i;
				break;
			}
			all->jobs[all->n_jobs++] = m->jobs->jobs[i];
		}
		if (r == 0)
			m->jobs->n_jobs = 0;
		all->more = m->jobs->more;
		frame_free(m);
		if (r != 0)
			break;
	}
	if (r != 0) {
		frame_free(*reply);
		*reply = NULL;
		return r;
	}
	if (all->n_jobs > 1)
		qsort(all->jobs, all->n_jobs, sizeof(*all->jobs), cmp_jobinfo);
	return 0;
}

/* The status's line on each managed CPU's use by processes outside every
 * job over the last second ("others: 0 1% 1 97%"), or why there is none. */
static void print_others(const Asteal__Status *s)
{
	printf("%-16s", "other use:");
	if (s->n_cpu_others == 0 || s->n_cpu_others != s->n_cpus) {
		printf("not measured yet\n");
		return;
	}
	for (size_t i = 0; i < s->n_cpus; i++)
		printf("%scpu%u %.0f%%", i ? ", " : "", s->cpus[i],
		       s->cpu_others[i] * 100);
	printf(" (processes outside jobs, last second)\n");
}

/* Print the jobs as an aligned table: 0, or -1 when out of memory. */
static int jobs_table(FILE *f, const Asteal__Jobs *js, uint64_t now)
{
	static const char *const hdr[] = { ">ID", "NAME", "USER", ">PID", ">DESIRE",
		">ALLOT", "CPUS", "CAP", "HELD", ">AGE", ">EFF" };
	struct table *t = table_new(hdr, 11);
	char id[24], user[64], pid[16], des[16], all[16], cpus[CPUS_LEN], age[32],
	     eff[16], cap[24], held[16];
	size_t i;

	if (t == NULL)
		return -1;
	for (i = 0; i < js->n_jobs; i++) {
		const Asteal__JobInfo *j = js->jobs[i];
		int known = !j->unmanaged;
		const char *row[11] = { fmt_u64(id, sizeof(id), j->id), j->name,
			user_name(j->uid, user, sizeof(user)), pid, NULL, NULL, NULL,
			NULL, NULL,
			fmt_duration(age, sizeof(age), now > j->start_ns ? now - j->start_ns : 0),
			NULL };

		snprintf(pid, sizeof(pid), "%d", (int)j->pid);
		if (known) {
			snprintf(des, sizeof(des), "%u", j->desire);
			snprintf(all, sizeof(all), "%u", j->allotment);
			row[4] = des;
			row[5] = all;
			row[6] = fmt_cpus(cpus, sizeof(cpus), j->cpus, j->n_cpus);
			if (j->cpus_cap > 0) {
				snprintf(cap, sizeof(cap), "%u%s", j->cpus_cap,
				         j->rigid ? " rigid" : "");
				row[7] = cap;
			}
			if (*j->confinement != '\0') {
				/* "failed: why" is for --json; the table says failed */
				snprintf(held, sizeof(held), "%.*s",
				         (int)strcspn(j->confinement, ":"), j->confinement);
				row[8] = held;
			}
			if (j->rigid && j->allotted_ns > 0) {
				/* its CPU time against its allotment */
				snprintf(eff, sizeof(eff), "%.0f%%", 100.0 *
				         (double)j->cpu_ns / (double)j->allotted_ns);
				row[10] = eff;
			} else if (j->allotted_ns > 0 && isfinite(j->efficiency)) {
				snprintf(eff, sizeof(eff), "%.0f%%", j->efficiency * 100);
				row[10] = eff;
			}
		}
		if (table_add(t, row) < 0) {
			table_free(t);
			return -1;
		}
	}
	table_print(t, f);
	table_free(t);
	return 0;
}

/* Print the jobs as a JSON array, a line per job (nl "\n") or all on
 * one line (nl ""). */
static void jobs_json(FILE *f, const Asteal__Jobs *js, const char *nl)
{
	char user[64];
	size_t i;

	fputc('[', f);
	for (i = 0; i < js->n_jobs; i++) {
		const Asteal__JobInfo *j = js->jobs[i];

		fprintf(f, "%s%s{\"id\":%llu,\"name\":", i ? "," : "", nl,
		        (unsigned long long)j->id);
		json_string(f, j->name);
		fprintf(f, ",\"uid\":%u,\"user\":", j->uid);
		json_string(f, user_name(j->uid, user, sizeof(user)));
		fprintf(f, ",\"pid\":%d,\"command\":", (int)j->pid);
		json_string(f, j->command);
		fprintf(f, ",\"start_ns\":%llu,\"start\":", (unsigned long long)j->start_ns);
		json_iso(f, j->start_ns);
		fprintf(f, ",\"desire\":%u,\"allotment\":%u,\"availability\":%u,\"cpus\":",
		        j->desire, j->allotment, j->availability);
		json_u32s(f, j->cpus, j->n_cpus);
		fputs(",\"efficiency\":", f);
		json_double(f, j->efficiency);
		json_usage(f, j->work_ns, j->steal_ns, j->mug_ns, j->sleep_ns,
		           j->preempted_ns, j->allotted_ns);
		fprintf(f, ",\"workers\":%u,\"quantum_class\":", j->workers);
		json_string(f, class_name(j->quantum_class));
		fprintf(f, ",\"unmanaged\":%s,\"rigid\":%s,\"cpus_cap\":%u,"
		        "\"cpu_ns\":%llu,\"confinement\":", j->unmanaged ? "true" : "false",
		        j->rigid ? "true" : "false", j->cpus_cap,
		        (unsigned long long)j->cpu_ns);
		json_string(f, j->confinement);
		fputc('}', f);
	}
	fprintf(f, "%s]\n", js->n_jobs ? nl : "");
}

/* Stop `jobs --watch` (SIGINT, SIGTERM, SIGHUP). */
static void on_watch_signal(int sig)
{
	watch_signal = sig;
}

/* One refresh of `jobs --watch` into a string (free it): NULL when out of
 * memory. */
static char *watch_frame(const struct cli *g, struct client *c,
                         const Asteal__Jobs *js, double interval, size_t *len)
{
	char *buf = NULL, when[64];
	FILE *f = open_memstream(&buf, len);
	Asteal__Jobs shown;
	struct winsize ws;
	unsigned allotted = 0;
	uint64_t now = qtime_wall_ns();
	size_t i, more = 0;
	int ok;

	if (f == NULL)
		return NULL;
	if (g->json) {
		jobs_json(f, js, "");
	} else {
		for (i = 0; i < js->n_jobs; i++)
			allotted += js->jobs[i]->unmanaged ? 0 : js->jobs[i]->allotment;
		if (g->tty)
			fputs("\033[H\033[2J", f);
		else
			fputc('\n', f);
		fprintf(f, "asteald: %d CPU%s, %zu job%s, %u CPU%s allotted   %s   "
		        "every %gs, q to quit\n\n", client_ncpus(c),
		        client_ncpus(c) == 1 ? "" : "s", js->n_jobs,
		        js->n_jobs == 1 ? "" : "s", allotted, allotted == 1 ? "" : "s",
		        fmt_time(when, sizeof(when), now), interval);
		/* on a terminal, no more rows than it has: the header stays */
		if (g->tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 &&
		    ws.ws_row > 6 && js->n_jobs > (size_t)ws.ws_row - 4) {
			shown = *js;
			shown.n_jobs = (size_t)ws.ws_row - 5;
			more = js->n_jobs - shown.n_jobs;
			js = &shown;
		}
		if (jobs_table(f, js, now) < 0) {
			fclose(f);
			free(buf);
			return NULL;
		}
		if (more > 0)
			fprintf(f, "(%zu more)\n", more);
	}
	ok = !ferror(f);
	if (fclose(f) != 0 || !ok) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Wait until deadline (monotonic ms) for a key, a signal or the daemon
 * going away: 0 to refresh, 1 to stop (q, a signal), or an exit code. */
static int watch_wait(struct client *c, int *in_fd, long long deadline)
{
	struct pollfd p[2];
	Asteal__Envelope *m;
	char keys[64];
	long long left;
	ssize_t k, i;
	int r;

	for (;;) {
		if (watch_signal)
			return 1;
		left = deadline - mono_ms();
		if (left <= 0)
			return 0;
		p[0].fd = client_fd(c);
		p[0].events = POLLIN;
		p[0].revents = 0;
		p[1].fd = *in_fd;
		p[1].events = POLLIN;
		p[1].revents = 0;
		r = poll(p, *in_fd >= 0 ? 2 : 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			cli_error("poll: %s", strerror(errno));
			return CLI_FAIL;
		}
		if (*in_fd >= 0 && p[1].revents) {
			k = read(*in_fd, keys, sizeof(keys));
			if (k == 0 || (k < 0 && errno != EINTR && errno != EAGAIN))
				*in_fd = -1;    /* no more keys: Ctrl-C or a signal ends it */
			for (i = 0; i < k; i++)
				if (keys[i] == 'q' || keys[i] == 'Q')
					return 1;
		}
		if (p[0].revents) {
			/* nothing is asked: the daemon closing (or chatter) */
			r = client_recv(c, &m, 0);
			if (r == 1)
				frame_free(m);
			else if (r > 1)
				return r;
		}
	}
}

/* `jobs --watch`: refresh until q, a signal, or the daemon goes away. */
static int jobs_watch(const struct cli *g, struct client *c, const uint64_t *ids,
                      size_t nids, double interval)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa, old[3], oldpipe;
	struct termios saved, raw;
	Asteal__Envelope *reply = NULL;
	int in_fd = -1, raw_mode = 0, code = CLI_OK, r;
	long long deadline;
	char *frame;
	size_t len, i;

	/* keys only from our own terminal, and only in the foreground */
	if (isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp() &&
	    tcgetattr(STDIN_FILENO, &saved) == 0) {
		raw = saved;
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		raw_mode = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
		in_fd = STDIN_FILENO;
	} else if (!isatty(STDIN_FILENO)) {
		in_fd = STDIN_FILENO;   /* a pipe or file may say q too */
	}
	watch_signal = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_watch_signal;       /* no SA_RESTART: poll wakes */
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
	sa.sa_handler = SIG_IGN;               /* a closed pipe: EPIPE, not death */
	sigaction(SIGPIPE, &sa, &oldpipe);

	for (;;) {
		deadline = mono_ms() + (long long)(interval * 1000 + 0.5);
		if ((r = jobs_fetch(c, ids, nids, &reply)) != 0) {
			code = r;
			break;
		}
		frame = watch_frame(g, c, reply->jobs, interval, &len);
		frame_free(reply);
		if (frame == NULL) {
			cli_error("out of memory");
			code = CLI_FAIL;
			break;
		}
		r = fwrite(frame, 1, len, stdout) == len && fflush(stdout) == 0;
		free(frame);
		if (!r) {
			if (errno != EPIPE) {   /* a reader that left is no error */
				cli_error("writing the output: %s", strerror(errno));
				code = CLI_FAIL;
			}
			break;
		}
		r = watch_wait(c, &in_fd, deadline);
		if (r != 0) {
			code = r == 1 ? CLI_OK : r;
			break;
		}
	}

	if (raw_mode)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	for (i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	sigaction(SIGPIPE, &oldpipe, NULL);
	return code;
}

/* `asteal jobs [--watch] [--interval SECONDS] [JOB...]`. */
int query_jobs(const struct cli *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "watch", no_argument, NULL, 'w' },
		{ "interval", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = argv[0];
	uint64_t ids[MAX_IDS];
	Asteal__Envelope *reply = NULL;
	struct client *c = NULL;
	double interval = 1;
	int watch = 0, have_interval = 0, nids, o, r;
	char *end;
	size_t i, k;

	while ((o = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (o) {
		case 'w':
			watch = 1;
			break;
		case 'i':
			errno = 0;
			interval = strtod(optarg, &end);
			if (end == optarg || *end != '\0' || errno != 0 || !isfinite(interval) ||
			    interval < 0.1 || interval > 3600)
				return cli_usage(cmd, "bad interval '%s' (seconds, 0.1 to 3600)",
				                 optarg);
			have_interval = 1;
			break;
		default:
			return bad_option(cmd, o, argv);
		}
	}
	if (have_interval && !watch)
		return cli_usage(cmd, "--interval goes with --watch");
	if ((nids = parse_ids(cmd, argc, argv, optind, ids)) < 0)
		return CLI_USAGE;
	if ((r = client_open(g->socket, &c)) != 0)
		return r;
	if (watch) {
		r = jobs_watch(g, c, ids, (size_t)nids, interval);
		client_close(c);
		return r;
	}
	r = jobs_fetch(c, ids, (size_t)nids, &reply);
	client_close(c);
	if (r != 0)
		return r;
	if (g->json) {
		jobs_json(stdout, reply->jobs, "\n");
	} else if (jobs_table(stdout, reply->jobs, qtime_wall_ns()) < 0) {
		frame_free(reply);
		cli_error("out of memory");
		return CLI_FAIL;
	}
	/* a job named but not running: said, and the exit status says it */
	for (i = 0; i < (size_t)nids; i++) {
		for (k = 0; k < reply->jobs->n_jobs && reply->jobs->jobs[k]->id != ids[i]; k++)
			;
		if (k == reply->jobs->n_jobs) {
			cli_error("job %llu is not running", (unsigned long long)ids[i]);
			r = CLI_FAIL;
		}
	}
	frame_free(reply);
	o = flush_out();
	return r != 0 ? r : o;
}

/* ------------------------------------------------------------- history -- */

/* Parse a time argument (asteal(1), TIMES) into *ns: 0, or -1. */
static int parse_time(const char *s, uint64_t now, uint64_t *ns)
{
	static const char *const fmts[] = { "%Y-%m-%d", "%Y-%m-%dT%H:%M",
		"%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S" };
	const char *p;
	size_t i;

	if (strcmp(s, "now") == 0) {
		*ns = now;
		return 0;
	}
	if (s[0] == '-') {              /* -30s, -1.5h: before now */
		double v, mult;
		int digits = 0, dots = 0;

		for (p = s + 1; (*p >= '0' && *p <= '9') || *p == '.'; p++) {
			if (*p == '.')
				dots++;
			else
				digits++;
		}
		if (digits == 0 || dots > 1 || p[0] == '\0' || p[1] != '\0')
			return -1;
		mult = *p == 's' ? 1e9 : *p == 'm' ? 60e9 : *p == 'h' ? 3600e9
		     : *p == 'd' ? 86400e9 : 0;
		v = strtod(s + 1, NULL) * mult;
		if (mult == 0 || !(v <= (double)now))
			return -1;
		*ns = now - (uint64_t)v;
		return 0;
	}
	if (s[0] == '@') {              /* @EPOCH[.FRACTION] */
		uint64_t sec = 0, frac = 0, scale = 100000000u;

		for (p = s + 1; *p >= '0' && *p <= '9'; p++) {
			if (sec > 10000000000ull)       /* year 2286: enough */
				return -1;
			sec = sec * 10 + (uint64_t)(*p - '0');
		}
		if (p == s + 1)
			return -1;
		if (*p == '.')
			for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10)
				frac += (uint64_t)(*p - '0') * scale;
		if (*p != '\0')
			return -1;
		*ns = sec * 1000000000u + frac;
		return 0;
	}
	if (s[0] < '0' || s[0] > '9')
		return -1;
	for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		struct tm tm, asked;
		time_t t;

		memset(&tm, 0, sizeof(tm));
		p = strptime(s, fmts[i], &tm);
		if (p == NULL || *p != '\0')
			continue;
		tm.tm_isdst = -1;
		asked = tm;
		t = mktime(&tm);
		/* 2026-02-31 is no day: mktime would make it March 3 */
		if (t == (time_t)-1 || t < 0 || tm.tm_year != asked.tm_year ||
		    tm.tm_mon != asked.tm_mon || tm.tm_mday != asked.tm_mday)
			return -1;
		*ns = (uint64_t)t * 1000000000u;
		return 0;
	}
	return -1;
}

/* Order JobRecord pointers by id. */
static int cmp_jobrec(const void *a, const void *b)
{
	const Asteal__JobRecord *x = *(const Asteal__JobRecord *const *)a;
	const Asteal__JobRecord *y = *(const Asteal__JobRecord *const *)b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Free what hist_fetch collected. */
static void hist_free(struct hist *h)
{
	size_t i;

	for (i = 0; i < h->npages; i++)
		frame_free(h->pages[i]);
	free(h->pages);
	free(h->jobs);
	free(h->recs);
	memset(h, 0, sizeof(*h));
}

/* Fetch every page of a history query into h (jobs_only: jobs, else
 * allotment records and their jobs) from the daemon, or from the file
 * when db is not NULL (--db): 0, or an exit code. */
static int hist_fetch(struct client *c, struct histdb *db,
                      const uint64_t *ids, size_t nids,
                      uint64_t since, uint64_t until, int jobs_only,
                      struct hist *h)
{
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *m;
	Asteal__HistoryRequest req = ASTEAL__HISTORY_REQUEST__INIT;
	Asteal__HistoryCursor after = ASTEAL__HISTORY_CURSOR__INIT;
	const Asteal__History *p;
	size_t i, k;
	int r;

	req.job_ids = (uint64_t *)ids;
	req.n_job_ids = nids;
	req.since_ns = since;
	req.until_ns = until;
	req.jobs_only = jobs_only;
	env.msg_case = ASTEAL__ENVELOPE__MSG_HISTORY_REQUEST;
	env.history_request = &req;
	for (;;) {
		if ((r = db != NULL ? histdb_call(db, &env, &m)
		               : client_call(c, &env, ASTEAL__ENVELOPE__MSG_HISTORY, &m,
		                             CLIENT_REPLY_MS)) != 0)
			return r;
		if (frame_grow(&h->pages, sizeof(*h->pages), h->npages, &h->cap, 64) < 0) {
			frame_free(m);
			goto oom;
		}
		h->pages[h->npages++] = m;
		p = m->history;
		for (i = 0; i < p->n_jobs; i++) {
			if (frame_grow(&h->jobs, sizeof(*h->jobs), h->njobs, &h->capj, 64) < 0)
				goto oom;
			h->jobs[h->njobs++] = p->jobs[i];
		}
		for (i = 0; i < p->n_allotments && !jobs_only; i++) {
			if (frame_grow(&h->recs, sizeof(*h->recs), h->nrecs, &h->capr, 64) < 0)
				goto oom;
			h->recs[h->nrecs++] = p->allotments[i];
		}
		if (!p->more)
			break;
		if (!frame_history_after(&req, &after, p)) {
			cli_error("asteald sent a history page with more to follow "
			          "but no place after this one to go on from");
			return CLI_FAIL;
		}
	}
	/* each page names the jobs of its records: keep one of each */
	if (h->njobs > 1)
		qsort(h->jobs, h->njobs, sizeof(*h->jobs), cmp_jobrec);
	for (i = k = 0; i < h->njobs; i++)
		if (k == 0 || h->jobs[k - 1]->id != h->jobs[i]->id)
			h->jobs[k++] = h->jobs[i];
	h->njobs = k;
	return 0;
oom:
	cli_error("out of memory");
	return CLI_FAIL;
}

/* The job with id in h, or NULL. */
static const Asteal__JobRecord *hist_job(const struct hist *h, uint64_t id)
{
	size_t lo = 0, hi = h->njobs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (h->jobs[mid]->id == id)
			return h->jobs[mid];
		if (h->jobs[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The allotment records as a table (csv: raw values, for programs):
 * NULL when out of memory. */
static struct table *records_table(const struct hist *h, int csv)
{
	static const char *const hdr[] = { ">JOB", "NAME", ">FIRST", ">LAST",
		"START", ">DURATION", ">DESIRE", ">AVAIL", ">ALLOT", "CPUS", ">WORK",
		">STEAL", ">SLEEP", ">PREEMPTED", "CLASS" };
	static const char *const csv_hdr[] = { "job_id", "name", "first_quantum",
		"last_quantum", "start_ns", "end_ns", "desire", "availability",
		"allotment", "cpus", "work_ns", "steal_ns", "mug_ns", "sleep_ns",
		"preempted_ns", "allotted_ns", "quantum_class" };
	struct table *t = csv ? table_new(csv_hdr, 17) : table_new(hdr, 15);
	char v[17][40], cpus[CPUS_LEN];
	const char *row[17];
	size_t i;
	int k;

	for (k = 0; k < 17; k++)
		row[k] = v[k];
	for (i = 0; t != NULL && i < h->nrecs; i++) {
		const Asteal__AllotmentRecord *a = h->recs[i];
		const Asteal__JobRecord *j = hist_job(h, a->job_id);
		const char *cls = class_name(a->quantum_class);

		fmt_u64(v[0], 40, a->job_id);
		row[1] = j != NULL ? j->name : csv ? "" : NULL;
		fmt_u64(v[2], 40, a->first_quantum);
		fmt_u64(v[3], 40, a->last_quantum);
		snprintf(v[6], 40, "%u", a->desire);
		snprintf(v[7], 40, "%u", a->availability);
		snprintf(v[8], 40, "%u", a->allotment);
		row[9] = a->n_cpus || !csv ? fmt_cpus(cpus, sizeof(cpus), a->cpus, a->n_cpus) : "";
		if (csv) {
			fmt_u64(v[4], 40, a->start_ns);
			fmt_u64(v[5], 40, a->end_ns);
			fmt_u64(v[10], 40, a->work_ns);
			fmt_u64(v[11], 40, a->steal_ns);
			fmt_u64(v[12], 40, a->mug_ns);
			fmt_u64(v[13], 40, a->sleep_ns);
			fmt_u64(v[14], 40, a->preempted_ns);
			fmt_u64(v[15], 40, a->allotted_ns);
			row[16] = cls != NULL ? cls : "";
		} else {
			fmt_time_ms(v[4], 40, a->start_ns);
			fmt_duration(v[5], 40, a->end_ns > a->start_ns ? a->end_ns - a->start_ns : 0);
			fmt_duration(v[10], 40, a->work_ns);
			fmt_duration(v[11], 40, a->steal_ns);
			fmt_duration(v[12], 40, a->sleep_ns);
			fmt_duration(v[13], 40, a->preempted_ns);
			row[14] = cls;      /* the table's last column */
		}
		if (table_add(t, row) < 0) {
			table_free(t);
			t = NULL;
		}
	}
	return t;
}

/* The jobs as a table (csv: raw values): NULL when out of memory. */
static struct table *jobrecs_table(const struct hist *h, int csv)
{
	static const char *const hdr[] = { ">ID", "NAME", "USER", ">PID", "START",
		"END", "STATUS", ">WORK", ">STEAL", ">MUG", ">SLEEP", ">PREEMPTED" };
	static const char *const csv_hdr[] = { "id", "name", "uid", "user", "pid",
		"command", "start_ns", "end_ns", "status_known", "wait_status",
		"status", "work_ns", "steal_ns", "mug_ns", "sleep_ns", "preempted_ns",
		"workers", "allotted_ns" };
	struct table *t = csv ? table_new(csv_hdr, 18) : table_new(hdr, 12);
	char v[18][64], status[64];
	const char *row[18];
	size_t i;
	int k;

	for (k = 0; k < 18; k++)
		row[k] = v[k];
	for (i = 0; t != NULL && i < h->njobs; i++) {
		const Asteal__JobRecord *j = h->jobs[i];
		const char *st = fmt_status(status, sizeof(status), j);

		fmt_u64(v[0], 64, j->id);
		row[1] = j->name;
		if (csv) {
			snprintf(v[2], 64, "%u", j->uid);
			user_name(j->uid, v[3], 64);
			snprintf(v[4], 64, "%d", (int)j->pid);
			row[5] = j->command;
			fmt_u64(v[6], 64, j->start_ns);
			v[7][0] = '\0';
			if (j->end_ns != 0)
				fmt_u64(v[7], 64, j->end_ns);
			snprintf(v[8], 64, "%d", j->status_known ? 1 : 0);
			v[9][0] = '\0';
			if (j->status_known)
				snprintf(v[9], 64, "%d", (int)j->wait_status);
			row[10] = st != NULL ? st : "";
			fmt_u64(v[11], 64, j->work_ns);
			fmt_u64(v[12], 64, j->steal_ns);
			fmt_u64(v[13], 64, j->mug_ns);
			fmt_u64(v[14], 64, j->sleep_ns);
			fmt_u64(v[15], 64, j->preempted_ns);
			snprintf(v[16], 64, "%u", j->workers);
			fmt_u64(v[17], 64, j->allotted_ns);
		} else {
			user_name(j->uid, v[2], 64);
			snprintf(v[3], 64, "%d", (int)j->pid);
			fmt_time(v[4], 64, j->start_ns);
			if (j->end_ns != 0)
				fmt_time(v[5], 64, j->end_ns);
			else
				snprintf(v[5], 64, "running");
			row[6] = st;        /* NULL: unknown, "-" */
			fmt_duration(v[7], 64, j->work_ns);
			fmt_duration(v[8], 64, j->steal_ns);
			fmt_duration(v[9], 64, j->mug_ns);
			fmt_duration(v[10], 64, j->sleep_ns);
			fmt_duration(v[11], 64, j->preempted_ns);
		}
		if (table_add(t, row) < 0) {
			table_free(t);
			t = NULL;
		}
	}
	return t;
}

/* One job record as a JSON object. */
static void jobrec_json(FILE *f, const Asteal__JobRecord *j)
{
	char user[64], status[64];
	int st = j->wait_status;

	fprintf(f, "{\"id\":%llu,\"name\":", (unsigned long long)j->id);
	json_string(f, j->name);
	fprintf(f, ",\"uid\":%u,\"user\":", j->uid);
	json_string(f, user_name(j->uid, user, sizeof(user)));
	fprintf(f, ",\"pid\":%d,\"command\":", (int)j->pid);
	json_string(f, j->command);
	fprintf(f, ",\"start_ns\":%llu,\"start\":", (unsigned long long)j->start_ns);
	json_iso(f, j->start_ns);
	fprintf(f, ",\"end_ns\":%llu,\"end\":", (unsigned long long)j->end_ns);
	json_iso(f, j->end_ns);
	fprintf(f, ",\"running\":%s,\"status_known\":%s,\"wait_status\":",
	        j->end_ns ? "false" : "true", j->status_known ? "true" : "false");
	if (j->status_known)
		fprintf(f, "%d,\"exit_code\":", (int)st);
	else
		fputs("null,\"exit_code\":", f);
	if (j->status_known && WIFEXITED(st))
		fprintf(f, "%d,\"signal\":", WEXITSTATUS(st));
	else
		fputs("null,\"signal\":", f);
	if (j->status_known && WIFSIGNALED(st))
		fprintf(f, "%d,\"status\":", WTERMSIG(st));
	else
		fputs("null,\"status\":", f);
	json_string(f, fmt_status(status, sizeof(status), j));
	json_usage(f, j->work_ns, j->steal_ns, j->mug_ns, j->sleep_ns,
	           j->preempted_ns, j->allotted_ns);
	fprintf(f, ",\"workers\":%u}", j->workers);
}

/* One allotment record as a JSON object. */
static void record_json(FILE *f, const struct hist *h,
                        const Asteal__AllotmentRecord *a)
{
	const Asteal__JobRecord *j = hist_job(h, a->job_id);

	fprintf(f, "{\"job_id\":%llu,\"name\":", (unsigned long long)a->job_id);
	json_string(f, j != NULL ? j->name : NULL);
	fprintf(f, ",\"first_quantum\":%llu,\"last_quantum\":%llu,\"start_ns\":%llu,"
	        "\"start\":", (unsigned long long)a->first_quantum,
	        (unsigned long long)a->last_quantum, (unsigned long long)a->start_ns);
	json_iso(f, a->start_ns);
	fprintf(f, ",\"end_ns\":%llu,\"end\":", (unsigned long long)a->end_ns);
	json_iso(f, a->end_ns);
	fprintf(f, ",\"desire\":%u,\"availability\":%u,\"allotment\":%u,\"cpus\":",
	        a->desire, a->availability, a->allotment);
	json_u32s(f, a->cpus, a->n_cpus);
	json_usage(f, a->work_ns, a->steal_ns, a->mug_ns, a->sleep_ns,
	           a->preempted_ns, a->allotted_ns);
	fputs(",\"quantum_class\":", f);
	json_string(f, class_name(a->quantum_class));
	fputc('}', f);
}

/* The history as one JSON object {"jobs": [...], "allotments": [...]},
 * an element per line. */
static void hist_json(FILE *f, const struct hist *h)
{
	size_t i;

	fputs("{\"jobs\":[", f);
	for (i = 0; i < h->njobs; i++) {
		fputs(i ? ",\n" : "\n", f);
		jobrec_json(f, h->jobs[i]);
	}
	fputs(h->njobs ? "\n],\"allotments\":[" : "],\"allotments\":[", f);
	for (i = 0; i < h->nrecs; i++) {
		fputs(i ? ",\n" : "\n", f);
		record_json(f, h, h->recs[i]);
	}
	fputs(h->nrecs ? "\n]}\n" : "]}\n", f);
}

/* Draw h's records to path: 0, or CLI_FAIL after a message. */
static int hist_plot(const char *path, const struct hist *h, int ncpus)
{
	struct plot_input in;

	in.jobs = (const Asteal__JobRecord *const *)h->jobs;
	in.njobs = h->njobs;
	in.recs = (const Asteal__AllotmentRecord *const *)h->recs;
	in.nrecs = h->nrecs;
	in.ncpus = ncpus;
	if (plot_history(path, &in) < 0) {
		cli_error("cannot write %s: %s", path, strerror(errno));
		return CLI_FAIL;
	}
	return CLI_OK;
}

/* `asteal history [JOB...] [--since T] [--until T] [--format F]
 * [--plot FILE.svg] [--jobs] [--db FILE]`. */
int query_history(const struct cli *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "since", required_argument, NULL, 's' },
		{ "until", required_argument, NULL, 'u' },
		{ "format", required_argument, NULL, 'f' },
		{ "plot", required_argument, NULL, 'p' },
		{ "jobs", no_argument, NULL, 'j' },
		{ "db", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = argv[0], *plot = NULL, *dbpath = NULL;
	struct histdb *db = NULL;
	uint64_t ids[MAX_IDS], since = 0, until = 0, now = qtime_wall_ns();
	struct hist h, hp;
	struct client *c = NULL;
	struct table *t;
	enum format fmt = g->json ? FMT_JSON : FMT_TABLE;
	int jobs = 0, fmt_given = g->json, nids, o, r;

	while ((o = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (o) {
		case 's':
		case 'u':
			if (parse_time(optarg, now, o == 's' ? &since : &until) < 0)
				return cli_usage(cmd, "bad time '%s' for --%s (now, -30s, -5m, "
				                 "-2h, -1d, @EPOCH, YYYY-MM-DD or "
				                 "YYYY-MM-DDTHH:MM[:SS])", optarg,
				                 o == 's' ? "since" : "until");
			break;
		case 'f':
			if (strcmp(optarg, "table") == 0)
				fmt = FMT_TABLE;
			else if (strcmp(optarg, "json") == 0)
				fmt = FMT_JSON;
			else if (strcmp(optarg, "csv") == 0)
				fmt = FMT_CSV;
			else
				return cli_usage(cmd, "unknown format '%s' (table, json or csv)",
				                 optarg);
			fmt_given = 1;
			break;
		case 'p':
			if (*optarg == '\0')
				return cli_usage(cmd, "--plot needs a file name");
			plot = optarg;
			break;
		case 'j':
			jobs = 1;
			break;
		case 'd':
			if (*optarg == '\0')
				return cli_usage(cmd, "--db needs a file name");
			dbpath = optarg;
			break;
		default:
			return bad_option(cmd, o, argv);
		}
	}
	if (since != 0 && until != 0 && since > until)
		return cli_usage(cmd, "--since is after --until");
	if ((nids = parse_ids(cmd, argc, argv, optind, ids)) < 0)
		return CLI_USAGE;
	if ((r = dbpath != NULL ? histdb_open(dbpath, &db)
	                        : client_open(g->socket, &c)) != 0)
		return r;
	memset(&h, 0, sizeof(h));
	memset(&hp, 0, sizeof(hp));
	r = hist_fetch(c, db, ids, (size_t)nids, since, until, jobs, &h);
	/* the chart needs allotment records: --jobs asks for them apart */
	if (r == 0 && plot != NULL && jobs)
		r = hist_fetch(c, db, ids, (size_t)nids, since, until, 0, &hp);
	/* a file does not say how many CPUs its daemon had (0: no P line) */
	if (r == 0 && plot != NULL)
		r = hist_plot(plot, jobs ? &hp : &h, db != NULL ? 0 : client_ncpus(c));
	client_close(c);
	histdb_close(db);
	hist_free(&hp);
	if (r != 0) {
		hist_free(&h);
		return r;
	}
	/* with --plot alone the chart is the output; a --format adds its own */
	if (plot == NULL || fmt_given) {
		if (fmt == FMT_JSON) {
			if (jobs)
				h.nrecs = 0;
			hist_json(stdout, &h);
		} else {
			t = jobs ? jobrecs_table(&h, fmt == FMT_CSV)
			         : records_table(&h, fmt == FMT_CSV);
			if (t == NULL) {
				hist_free(&h);
				cli_error("out of memory");
				return CLI_FAIL;
			}
			if (fmt == FMT_CSV)
				table_csv(t, stdout);
			else
				table_print(t, stdout);
			table_free(t);
		}
	}
	hist_free(&h);
	/* "plot: FILE" keeps out of JSON or CSV on stdout */
	if (plot != NULL)
		fprintf(fmt_given && fmt != FMT_TABLE ? stderr : stdout, "plot: %s\n", plot);
	return flush_out();
}

/* -------------------------------------------------------------- status -- */

/* One status line of percentiles, "-" when nothing was measured. */
static void print_pct(const char *label, uint64_t count, uint64_t p50,
                      uint64_t p99, uint64_t max)
{
	char a[32], b[32], d[32];

	if (count == 0) {
		printf("%-16s-\n", label);
		return;
	}
	printf("%-16sp50 %s, p99 %s, max %s\n", label, fmt_short(a, sizeof(a), p50),
	       fmt_short(b, sizeof(b), p99), fmt_short(d, sizeof(d), max));
}

/* `asteal status`. */
int query_status(const struct cli *g, int argc, char **argv)
{
	static const struct option opts[] = { { NULL, 0, NULL, 0 } };
	Asteal__Envelope env = ASTEAL__ENVELOPE__INIT, *m = NULL;
	Asteal__StatusRequest req = ASTEAL__STATUS_REQUEST__INIT;
	const Asteal__Status *s;
	struct client *c = NULL;
	char cpus[CPUS_LEN];
	int o, r;

	while ((o = getopt_long(argc, argv, ":", opts, NULL)) != -1)
		return bad_option(argv[0], o, argv);
	if (optind < argc)
		return cli_usage(argv[0], "no arguments expected, got '%s'", argv[optind]);
	if ((r = client_open(g->socket, &c)) != 0)
		return r;
	env.msg_case = ASTEAL__ENVELOPE__MSG_STATUS_REQUEST;
	env.status_request = &req;
	r = client_call(c, &env, ASTEAL__ENVELOPE__MSG_STATUS, &m, CLIENT_REPLY_MS);
	client_close(c);
	if (r != 0)
		return r;
	s = m->status;
	if (g->json) {
		fputs("{\"daemon_version\":", stdout);
		json_string(stdout, s->daemon_version);
		printf(",\"protocol_version\":%u,\"cpus\":", s->protocol_version);
		json_u32s(stdout, s->cpus, s->n_cpus);
		printf(",\"ncpus\":%zu,\"quantum_us\":%u,\"offset_us\":%u,"
		       "\"t0_ns\":%llu,\"jobs\":%u,\"clients\":%u,\"ticks\":%llu,"
		       "\"skipped_ticks\":%llu,\"quantum\":%llu,\"uptime_ns\":%llu,"
		       "\"tick_p50_ns\":%llu,\"tick_p99_ns\":%llu,\"tick_max_ns\":%llu,"
		       "\"deq_p50_ns\":%llu,\"deq_p99_ns\":%llu,\"deq_max_ns\":%llu,"
		       "\"wake_p50_ns\":%llu,\"wake_p99_ns\":%llu,\"wake_max_ns\":%llu,"
		       "\"changes_per_tick\":%.3f,\"sends_per_tick\":%.3f,"
		       "\"feedbacks\":%llu,\"bad_feedbacks\":%llu,\"allots\":%llu,"
		       "\"silent_jobs\":%u,\"revocations\":%llu,\"revoke_p50_ns\":%llu,"
		       "\"revoke_p99_ns\":%llu,\"revoke_max_ns\":%llu,\"handover\":",
		       s->n_cpus, s->quantum_us, s->offset_us,
		       (unsigned long long)s->t0_ns, s->jobs, s->clients,
		       (unsigned long long)s->ticks, (unsigned long long)s->skipped_ticks,
		       (unsigned long long)s->quantum, (unsigned long long)s->uptime_ns,
		       (unsigned long long)s->tick_p50_ns, (unsigned long long)s->tick_p99_ns,
		       (unsigned long long)s->tick_max_ns,
		       (unsigned long long)s->deq_p50_ns, (unsigned long long)s->deq_p99_ns,
		       (unsigned long long)s->deq_max_ns,
		       (unsigned long long)s->wake_p50_ns, (unsigned long long)s->wake_p99_ns,
		       (unsigned long long)s->wake_max_ns,
		       s->changes_per_tick, s->sends_per_tick,
		       (unsigned long long)s->feedbacks, (unsigned long long)s->bad_feedbacks,
		       (unsigned long long)s->allots, s->silent_jobs,
		       (unsigned long long)s->revocations,
		       (unsigned long long)s->revoke_p50_ns,
		       (unsigned long long)s->revoke_p99_ns,
		       (unsigned long long)s->revoke_max_ns);
		json_string(stdout, s->handover);
		fputs(",\"share\":", stdout);
		json_string(stdout, s->share);
		fputs(",\"history_state\":", stdout);
		json_string(stdout, s->history_state);
		printf(",\"history_pending\":%llu,\"history_dropped\":%llu",
		       (unsigned long long)s->history_pending,
		       (unsigned long long)s->history_dropped);
		fputs(",\"confine\":", stdout);
		json_string(stdout, s->confine);
		fputs(",\"confine_how\":", stdout);
		json_string(stdout, s->confine_how);
		fputs(",\"cpu_others\":[", stdout);
		for (size_t i = 0; i < s->n_cpu_others; i++) {
			fputs(i ? "," : "", stdout);
			json_double(stdout, s->cpu_others[i]);
		}
		fputs("]}\n", stdout);
	} else {
		printf("%-16s%s\n", "daemon:", s->daemon_version);
		printf("%-16s%u\n", "protocol:", s->protocol_version);
		printf("%-16s%s (%zu)\n", "cpus:", fmt_cpus(cpus, sizeof(cpus), s->cpus,
		       s->n_cpus), s->n_cpus);
		if (s->quantum_us % 1000 == 0)
			printf("%-16s%u ms\n", "quantum:", s->quantum_us / 1000);
		else
			printf("%-16s%u us\n", "quantum:", s->quantum_us);
		printf("%-16s%u, CPUs shared among %s\n", "jobs:", s->jobs,
		       strcmp(s->share, "job") == 0 ? "the jobs"
		       : strcmp(s->share, "user") == 0 ? "the users, then their jobs"
		       : s->share);
		printf("%-16s%u\n", "clients:", s->clients);
		printf("%-16s%llu (%llu skipped), %u us into each quantum\n", "ticks:",
		       (unsigned long long)s->ticks,
		       (unsigned long long)s->skipped_ticks, s->offset_us);
		printf("%-16s%s\n", "uptime:", fmt_duration(cpus, sizeof(cpus), s->uptime_ns));
		print_pct("tick time:", s->ticks, s->tick_p50_ns, s->tick_p99_ns,
		          s->tick_max_ns);
		print_pct("DEQ time:", s->ticks, s->deq_p50_ns, s->deq_p99_ns,
		          s->deq_max_ns);
		print_pct("timer late:", s->ticks, s->wake_p50_ns, s->wake_p99_ns,
		          s->wake_max_ns);
		printf("%-16s%.2f changed, %.2f Allots sent\n", "per tick:",
		       s->changes_per_tick, s->sends_per_tick);
		printf("%-16s%llu (%llu refused); %u jobs silent\n",
		       "feedbacks:", (unsigned long long)s->feedbacks,
		       (unsigned long long)s->bad_feedbacks, s->silent_jobs);
		printf("%-16s%llu, handover %s\n", "revocations:",
		       (unsigned long long)s->revocations, s->handover);
		print_pct("revoke time:", s->revocations, s->revoke_p50_ns,
		          s->revoke_p99_ns, s->revoke_max_ns);
		printf("%-16s%s; %llu waiting, %llu lost\n", "history:",
		       *s->history_state ? s->history_state : "unknown",
		       (unsigned long long)s->history_pending,
		       (unsigned long long)s->history_dropped);
		printf("%-16s%s, by %s\n", "confined jobs:",
		       strcmp(s->confine, "all") == 0 ? "all"
		       : strcmp(s->confine, "rigid") == 0 ? "rigid (--cpus)"
		       : strcmp(s->confine, "off") == 0 ? "none" : s->confine,
		       *s->confine_how ? s->confine_how : "nothing");
		print_others(s);
	}
	frame_free(m);
	return flush_out();
}
