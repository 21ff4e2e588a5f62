/*
 * profile.c - uniform, smooth and practical availability profiles (see
 * profile.h), including the simulated cluster behind the practical ones
 * and the calibration of its arrival rate, and profiles read from files.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

#define CLUSTER_WARMUP 2000      /* quanta before a profile starts */
#define CALIB_QUANTA 40000       /* quanta measured per calibration step */
#define QUEUE_SCAN 64            /* queued jobs tried per quantum */
#define QUEUE_MAX 16             /* arrivals beyond this are turned away */
#define PATIENCE 100             /* quanta a queued job waits at most */
#define DUR_MIN 1.0              /* cluster job lengths, quanta */
#define DUR_MAX 1000.0

/* Default options. */
void prof_opts_default(struct prof_opts *o)
{
	o->smooth_sigma = 1.0;
	o->cluster = 0;
}

/* A kind's name. */
const char *prof_kind_name(enum prof_kind k)
{
	switch (k) {
	case PROF_UNIFORM:
		return "uniform";
	case PROF_SMOOTH:
		return "smooth";
	case PROF_PRACTICAL:
		return "practical";
	case PROF_FILE:
		return "file";
	default:
		return "?";
	}
}

/* Parse a kind's name. */
int prof_kind_parse(const char *s, enum prof_kind *k)
{
	for (int i = 0; i < PROF_NBUILTIN; i++)
		if (strcmp(s, prof_kind_name((enum prof_kind)i)) == 0) {
			*k = (enum prof_kind)i;
			return 0;
		}
	return -1;
}

/* Swap two heap entries. */
static void cj_swap(struct prof_cjob *a, struct prof_cjob *b)
{
	struct prof_cjob t = *a;

	*a = *b;
	*b = t;
}

/* Start a cluster job of `size` processors lasting `dur` quanta. */
static int cluster_start(struct profile *p, int size, long dur)
{
	if (p->nrun == p->caprun) {
		int ncap = p->caprun ? 2 * p->caprun : 64;
		struct prof_cjob *n = realloc(p->run, (size_t)ncap * sizeof(*n));

		if (n == NULL)
			return -1;
		p->run = n;
		p->caprun = ncap;
	}
	int i = p->nrun++;

	p->run[i] = (struct prof_cjob){ .end = p->q + dur, .size = size };
	while (i > 0 && p->run[(i - 1) / 2].end > p->run[i].end) {
		cj_swap(&p->run[(i - 1) / 2], &p->run[i]);
		i = (i - 1) / 2;
	}
	p->used += size;
	return 0;
}

/* Finish the cluster jobs whose time is up. */
static void cluster_release(struct profile *p)
{
	while (p->nrun > 0 && p->run[0].end <= p->q) {
		p->used -= p->run[0].size;
		p->run[0] = p->run[--p->nrun];
		int i = 0;

		for (;;) {
			int l = 2 * i + 1, r = l + 1, m = i;

			if (l < p->nrun && p->run[l].end < p->run[m].end)
				m = l;
			if (r < p->nrun && p->run[r].end < p->run[m].end)
				m = r;
			if (m == i)
				break;
			cj_swap(&p->run[i], &p->run[m]);
			i = m;
		}
	}
}

/* A new cluster job's size: 30% serial, else a power of two up to C/4. */
static int cluster_size(struct profile *p)
{
	int kmax = 1;

	while ((1 << (kmax + 1)) <= p->C / 4)
		kmax++;
	if (rng_unit(&p->rng) < 0.3)
		return 1;
	return 1 << (1 + rng_below(&p->rng, (uint32_t)kmax));
}

/* Queue the arrivals of this quantum. */
static int cluster_arrive(struct profile *p)
{
	while (p->next_arrival < (double)(p->q + 1)) {
		int size = cluster_size(p);
		long dur = (long)rng_logu(&p->rng, DUR_MIN, DUR_MAX + 1);

		p->next_arrival += rng_expo(&p->rng, 1.0 / p->lambda);
		if (p->qlen >= QUEUE_MAX)
			continue;
		if (p->qlen == p->capq) {
			int ncap = p->capq ? 2 * p->capq : 64;
			struct prof_cjob *n = malloc((size_t)ncap * sizeof(*n));

			if (n == NULL)
				return -1;
			for (int i = 0; i < p->qlen; i++)
				n[i] = p->queue[(p->qhead + i) % p->capq];
			free(p->queue);
			p->queue = n;
			p->qhead = 0;
			p->capq = ncap;
		}
		p->queue[(p->qhead + p->qlen) % p->capq] =
			(struct prof_cjob){ .end = dur, .arr = p->q, .size = size };
		p->qlen++;
	}
	return 0;
}

/* Start queued jobs that fit, first come first served with backfilling;
 * drop those that waited too long. */
static int cluster_schedule(struct profile *p)
{
	int scanned = 0, i = 0;

	while (i < p->qlen && scanned < QUEUE_SCAN && p->used < p->C) {
		int k = (p->qhead + i) % p->capq;
		struct prof_cjob cj = p->queue[k];

		scanned++;
		if (cj.size > p->C - p->used && p->q - cj.arr < PATIENCE) {
			i++;
			continue;
		}
		/* it fits, or it has waited long enough and leaves */
		if (cj.size <= p->C - p->used && cluster_start(p, cj.size, cj.end) < 0)
			return -1;
		/* remove entry i by shifting the earlier ones up */
		for (int m = i; m > 0; m--)
			p->queue[(p->qhead + m) % p->capq] =
				p->queue[(p->qhead + m - 1) % p->capq];
		p->qhead = (p->qhead + 1) % p->capq;
		p->qlen--;
	}
	return 0;
}

/* Advance the cluster one quantum: the free processors at its start. */
static int cluster_step(struct profile *p)
{
	cluster_release(p);
	if (cluster_arrive(p) < 0 || cluster_schedule(p) < 0)
		return -1;
	p->q++;
	return p->C - p->used;
}

/* Set up an empty cluster with arrival rate lambda. */
static void cluster_reset(struct profile *p, double lambda, uint64_t seed)
{
	p->nrun = 0;
	p->qlen = 0;
	p->qhead = 0;
	p->used = 0;
	p->q = 0;
	p->lambda = lambda;
	rng_seed(&p->rng, seed);
	p->next_arrival = rng_expo(&p->rng, 1.0 / lambda);
}

/* The cluster's mean free processors at arrival rate lambda. */
static double cluster_mean_free(struct profile *p, double lambda)
{
	double sum = 0;

	cluster_reset(p, lambda, 0x5eedca1b);
	for (long q = 0; q < CLUSTER_WARMUP + CALIB_QUANTA; q++) {
		int f = cluster_step(p);

		if (f < 0)
			return -1;
		if (q >= CLUSTER_WARMUP)
			sum += f;
	}
	return sum / CALIB_QUANTA;
}

/* Remembered calibrations (cluster size, mean) -> arrival rate. */
struct calib {
	int C;
	double mean, lambda;
};
static struct calib calib_cache[32];
static int calib_n;
static pthread_mutex_t calib_lock = PTHREAD_MUTEX_INITIALIZER;

/* The arrival rate that gives mean free processors `mean` on C. */
static double cluster_calibrate(struct profile *p, double mean)
{
	double lo = 1e-4, hi = 10.0;

	pthread_mutex_lock(&calib_lock);    /* one calibration at a time */
	for (int i = 0; i < calib_n; i++)
		if (calib_cache[i].C == p->C && calib_cache[i].mean == mean) {
			pthread_mutex_unlock(&calib_lock);
			return calib_cache[i].lambda;
		}

	for (int it = 0; it < 30; it++) {
		double mid = sqrt(lo * hi), f = cluster_mean_free(p, mid);

		if (f < 0) {
			pthread_mutex_unlock(&calib_lock);
			return -1;
		}
		if (f > mean)
			lo = mid;
		else
			hi = mid;
		if (hi / lo < 1.002)
			break;
	}
	double lambda = sqrt(lo * hi);

	if (calib_n < 32)
		calib_cache[calib_n++] = (struct calib){ p->C, mean, lambda };
	pthread_mutex_unlock(&calib_lock);
	return lambda;
}

/* Start a profile (see profile.h). */
int prof_init(struct profile *p, enum prof_kind kind, int P, double mean,
	      const struct prof_opts *o, uint64_t seed, const char **why)
{
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->P = P;
	rng_seed(&p->rng, seed);
	if (P < 1) {
		*why = "P must be at least 1";
		return -1;
	}
	if (mean > P) {
		*why = "the mean availability cannot exceed P";
		return -1;
	}
	switch (kind) {
	case PROF_UNIFORM:
		p->hi = mean > 0 ? (int)lround(2 * mean - 1) : P;
		if (p->hi > P)
			p->hi = P;
		if (p->hi < 1)
			p->hi = 1;
		return 0;
	case PROF_SMOOTH:
		p->sigma = o->smooth_sigma;
		if (!(p->sigma >= 0)) {
			*why = "the smooth profile's sigma must be >= 0";
			return -1;
		}
		p->cur = mean > 0 ? mean : (double)rng_range(&p->rng, 1, P);
		return 0;
	case PROF_FILE:
		p->trace = o->trace;
		if (p->trace == NULL || p->trace->n < 1) {
			*why = "no profile file";
			return -1;
		}
		return 0;
	case PROF_PRACTICAL:
		p->C = o->cluster > 0 ? o->cluster : (P > 512 ? P : 512);
		if (p->C < P) {
			*why = "the cluster must have at least P processors";
			return -1;
		}
		if (mean <= 0)
			mean = p->C / 8.0;
		if (mean < 1 || mean > p->C * 0.9) {
			*why = "practical profiles need a mean in [1, 0.9 * cluster]";
			return -1;
		}
		p->lambda = cluster_calibrate(p, mean);
		if (p->lambda < 0) {
			*why = "out of memory";
			return -1;
		}
		cluster_reset(p, p->lambda, seed);
		for (int q = 0; q < CLUSTER_WARMUP; q++)
			if (cluster_step(p) < 0) {
				*why = "out of memory";
				return -1;
			}
		return 0;
	default:
		*why = "unknown profile kind";
		return -1;
	}
}

/* The availability of the next quantum, in [1, P]. */
int prof_next(struct profile *p)
{
	int a;

	switch (p->kind) {
	case PROF_UNIFORM:
		a = (int)rng_range(&p->rng, 1, p->hi);
		break;
	case PROF_FILE:
		a = p->trace->v[p->pos];
		if (++p->pos == p->trace->n)
			p->pos = 0;
		break;
	case PROF_SMOOTH:
		a = (int)lround(p->cur);
		p->cur += p->sigma * rng_normal(&p->rng);
		while (p->cur < 1 || p->cur > p->P) {
			if (p->cur < 1)
				p->cur = 2 - p->cur;
			if (p->cur > p->P)
				p->cur = 2.0 * p->P - p->cur;
			if (p->P == 1)
				p->cur = 1;
		}
		break;
	default:
		a = cluster_step(p);
		if (a < 0)
			a = 1;      /* out of memory: keep the job going */
		break;
	}
	if (a < 1)
		a = 1;
	if (a > p->P)
		a = p->P;
	return a;
}

/* Free a profile's memory. */
void prof_free(struct profile *p)
{
	free(p->run);
	free(p->queue);
	p->run = NULL;
	p->queue = NULL;
}

/* One line of a profile file: 1 and the value, 0 for a comment, or -1
 * with the reason in *why. */
static int trace_line(const char *s, int *val, const char **why)
{
	long v = 0;
	int digits = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '#')
		return 0;
	while (*s >= '0' && *s <= '9') {
		if (v <= PROF_FILE_MAX)
			v = v * 10 + (*s - '0');
		digits++;
		s++;
	}
	while (*s == ' ' || *s == '\t')
		s++;
	if (digits == 0 || *s != '\0') {
		*why = digits || *s ? "not a whole number of processors" : "empty line";
		return -1;
	}
	if (v < 1 || v > PROF_FILE_MAX) {
		*why = "availability out of [1, 1000000]";
		return -1;
	}
	*val = (int)v;
	return 1;
}

/* Read a profile file (see profile.h). */
int prof_trace_read(const char *path, struct prof_trace *t, char *err,
		    int errlen)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	long lineno = 0, cap_v = 0;
	const char *why = NULL;
	int val;

	*t = (struct prof_trace){ 0 };
	if (f == NULL) {
		snprintf(err, (size_t)errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if ((size_t)len != strlen(line)) {
			why = "a NUL byte";
			break;
		}
		int rc = trace_line(line, &val, &why);

		if (rc < 0)
			break;
		if (rc == 0)
			continue;
		if (t->n == cap_v) {
			long ncap = cap_v ? 2 * cap_v : 1024;
			int *nv = realloc(t->v, (size_t)ncap * sizeof(int));

			if (nv == NULL) {
				why = "out of memory";
				break;
			}
			t->v = nv;
			cap_v = ncap;
		}
		t->v[t->n++] = val;
	}
	if (why == NULL && ferror(f))
		snprintf(err, (size_t)errlen, "%s: read error", path);
	else if (why)
		snprintf(err, (size_t)errlen, "%s, line %ld: %s", path, lineno, why);
	else if (t->n == 0)
		snprintf(err, (size_t)errlen, "%s: no availabilities (one whole number "
			 "per line)", path);
	int bad = why != NULL || ferror(f) || t->n == 0;

	free(line);
	fclose(f);
	if (bad) {
		prof_trace_free(t);
		return -1;
	}
	return 0;
}

/* The mean availability a job on P processors sees over the whole file. */
double prof_trace_mean(const struct prof_trace *t, int P)
{
	double s = 0;

	for (long i = 0; i < t->n; i++)
		s += t->v[i] < P ? t->v[i] : P;
	return t->n > 0 ? s / (double)t->n : 0;
}

/* Free a file's availabilities. */
void prof_trace_free(struct prof_trace *t)
{
	free(t->v);
	*t = (struct prof_trace){ 0 };
}
