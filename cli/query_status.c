/*
 * query_status.c - `asteal status`: the daemon's own numbers, as lines
 * for people or one JSON object.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "client.h"
#include "frame.h"
#include "query.h"
#include "table.h"

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
	char cpus[QUERY_CPUS_LEN];
	int o, r;

	while ((o = getopt_long(argc, argv, ":", opts, NULL)) != -1)
		return query_bad_option(argv[0], o, argv);
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
		const struct { const char *key; uint64_t v; } n[] = {
			{ "ncpus", s->n_cpus }, { "quantum_us", s->quantum_us },
			{ "offset_us", s->offset_us }, { "jobs", s->jobs },
			{ "clients", s->clients }, { "ticks", s->ticks },
			{ "skipped_ticks", s->skipped_ticks }, { "quantum", s->quantum },
		}, more[] = {
			{ "feedbacks", s->feedbacks }, { "bad_feedbacks", s->bad_feedbacks },
			{ "allots", s->allots }, { "grants", s->grants },
			{ "silent_jobs", s->silent_jobs }, { "revocations", s->revocations },
			{ "page_jobs", s->page_jobs }, { "pages_read", s->pages_read },
			{ "pages_torn", s->pages_torn },
			{ "page_allot_jobs", s->page_allot_jobs },
			{ "pages_written", s->pages_written },
			{ "futex_wakes", s->futex_wakes },
			{ "idle_revocations", s->idle_revocations },
			{ "socket_jobs", s->socket_jobs },
			{ "pages_failed", s->pages_failed },
			{ "pages_declined", s->pages_declined },
			{ "t0_ns", s->t0_ns }, { "uptime_ns", s->uptime_ns },
			{ "tick_p50_ns", s->tick_p50_ns }, { "tick_p99_ns", s->tick_p99_ns },
			{ "tick_max_ns", s->tick_max_ns }, { "deq_p50_ns", s->deq_p50_ns },
			{ "deq_p99_ns", s->deq_p99_ns }, { "deq_max_ns", s->deq_max_ns },
			{ "wake_p50_ns", s->wake_p50_ns }, { "wake_p99_ns", s->wake_p99_ns },
			{ "wake_max_ns", s->wake_max_ns },
			{ "revoke_p50_ns", s->revoke_p50_ns },
			{ "revoke_p99_ns", s->revoke_p99_ns },
			{ "revoke_max_ns", s->revoke_max_ns },
		};
		struct json w;
		size_t i;

		json_start(&w, stdout);
		json_object(&w, NULL);
		json_str(&w, "daemon_version", s->daemon_version);
		json_uint(&w, "protocol_version", s->protocol_version);
		json_u32s(&w, "cpus", s->cpus, s->n_cpus);
		for (i = 0; i < sizeof(n) / sizeof(n[0]); i++)
			json_uint(&w, n[i].key, n[i].v);
		json_real(&w, "changes_per_tick", s->changes_per_tick);
		json_real(&w, "sends_per_tick", s->sends_per_tick);
		for (i = 0; i < sizeof(more) / sizeof(more[0]); i++)
			json_uint(&w, more[i].key, more[i].v);
		json_str(&w, "handover", s->handover);
		json_str(&w, "share", s->share);
		json_str(&w, "history_state", s->history_state);
		json_uint(&w, "history_pending", s->history_pending);
		json_uint(&w, "history_dropped", s->history_dropped);
		json_str(&w, "confine", s->confine);
		json_str(&w, "confine_how", s->confine_how);
		json_array(&w, "cpu_others", 0);
		for (i = 0; i < s->n_cpu_others; i++)
			json_real(&w, NULL, s->cpu_others[i]);
		json_end(&w);
		json_end(&w);
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
		printf("%-16s%llu Allots, %llu of them grants (free CPUs at once to a "
		       "job holding none)\n", "allots:", (unsigned long long)s->allots,
		       (unsigned long long)s->grants);
		printf("%-16s%llu messages (%llu refused); %u jobs silent\n",
		       "feedbacks:", (unsigned long long)s->feedbacks,
		       (unsigned long long)s->bad_feedbacks, s->silent_jobs);
		printf("%-16s%u jobs write theirs in a page; %llu pages read with "
		       "news, %llu found being written\n", "pages:", s->page_jobs,
		       (unsigned long long)s->pages_read,
		       (unsigned long long)s->pages_torn);
		printf("%-16s%u jobs read theirs in a page; %llu written there, "
		       "%llu futex wakes\n", "page allots:", s->page_allot_jobs,
		       (unsigned long long)s->pages_written,
		       (unsigned long long)s->futex_wakes);
		printf("%-16s%u jobs send messages alone; %llu pages not made or "
		       "sent, %llu declined by their job\n", "no page:",
		       s->socket_jobs, (unsigned long long)s->pages_failed,
		       (unsigned long long)s->pages_declined);
		printf("%-16s%llu, handover %s; %llu of idle slots\n", "revocations:",
		       (unsigned long long)s->revocations, s->handover,
		       (unsigned long long)s->idle_revocations);
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
	return query_flush();
}
