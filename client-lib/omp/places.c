/*
 * places.c - the place list: OMP_PLACES (an abstract name, "threads",
 * "cores", "sockets", "ll_caches", "numa_domains", optionally with a
 * count, or an explicit list of {...} places with intervals, strides and
 * '!' exclusions), GOMP_CPU_AFFINITY, or one place per processor when
 * OMP_PROC_BIND asks for binding without places; parsed with libgomp 12's
 * rules and messages (env.c calls it in libgomp's order).  Places are
 * processor sets restricted to the process's affinity mask, as libgomp
 * restricts them (except GOMP_CPU_AFFINITY's, which libgomp keeps
 * whole); the topology comes from sysfs.  api.c answers
 * omp_get_num_places and friends from here.
 *
 * Nothing here calls the core.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "env.h"

#define MAX_PLACES 65536

/* Processor sets: the process's mask and the places, setsize bytes each. */
static size_t setsize;
static unsigned long maxcpu;            /* bits in a set */
static cpu_set_t *procmask;
static cpu_set_t **places;
static int nplaces;

/* Skip white space. */
static const char *ws(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* Report an invalid value the way libgomp words it. */
static void invalid(const char *name)
{
	omp_gomp_error("Invalid value for environment variable %s", name);
}

/* A new, empty processor set. */
static cpu_set_t *set_new(void)
{
	cpu_set_t *s = CPU_ALLOC(maxcpu);

	if (s != NULL)
		CPU_ZERO_S(setsize, s);
	return s;
}

/* Free the place list. */
static void places_free(void)
{
	for (int i = 0; i < nplaces; i++)
		CPU_FREE(places[i]);
	free(places);
	places = NULL;
	nplaces = 0;
}

/* Append a place (taking the set); false when out of memory or too many. */
static bool places_add(cpu_set_t *s)
{
	cpu_set_t **np;

	if (s == NULL || nplaces >= MAX_PLACES)
		goto fail;
	np = realloc(places, (size_t)(nplaces + 1) * sizeof *places);
	if (np == NULL)
		goto fail;
	places = np;
	places[nplaces++] = s;
	return true;
fail:
	if (s != NULL)
		CPU_FREE(s);
	return false;
}

/* Add len processors from num, stride apart, to s (libgomp's messages). */
static bool add_cpus(cpu_set_t *s, unsigned long num, unsigned long len, long stride)
{
	long long c = (long long)num;

	for (unsigned long k = 0; k < len; k++, c += stride) {
		if (c < 0 || (unsigned long long)c >= maxcpu) {
			if (k == 0)
				omp_gomp_error("Logical CPU number %lu out of range", num);
			else
				omp_gomp_error("Logical CPU number %lld+%ld out of range",
				               c - stride, stride);
			return false;
		}
		CPU_SET_S((size_t)c, setsize, s);
	}
	return true;
}

/* One place of an explicit OMP_PLACES list: ['!']{res,...}[:len[:stride]];
 * fills s when building. */
static bool parse_place(const char **sp, cpu_set_t *s, bool *neg,
                        unsigned long *len, long *stride)
{
	const char *p = ws(*sp), *start;
	bool any_neg = false;
	char *end;

	*neg = false;
	if (*p == '!') {
		*neg = true;
		p = ws(p + 1);
	}
	if (*p != '{')
		return false;
	start = ws(p + 1);
	for (int pass = 0; pass < (any_neg ? 2 : 1); pass++) {
		p = start;
		for (;;) {
			bool this_neg = *p == '!';
			unsigned long num, n = 1;
			long st = 1;

			if (this_neg) {
				any_neg = true;
				p = ws(p + 1);
			}
			errno = 0;
			num = strtoul(p, &end, 10);
			if (errno != 0 || end == p)
				return false;
			p = ws(end);
			if (*p == ':') {
				p = ws(p + 1);
				errno = 0;
				n = strtoul(p, &end, 10);
				if (errno != 0 || n == 0 || end == p)
					return false;
				p = ws(end);
				if (*p == ':') {
					p = ws(p + 1);
					errno = 0;
					st = strtol(p, &end, 10);
					if (errno != 0 || end == p)
						return false;
					p = ws(end);
				}
			}
			if (this_neg && n != 1)
				return false;
			if (s != NULL && pass == (int)this_neg) {
				if (!this_neg) {
					if (!add_cpus(s, num, n, st))
						return false;
				} else if (num >= maxcpu || !CPU_ISSET_S(num, setsize, s)) {
					omp_gomp_error("Logical CPU %lu to be removed is not in the set",
					               num);
					return false;
				} else {
					CPU_CLR_S(num, setsize, s);
				}
			}
			if (*p == '}')
				break;
			if (*p != ',')
				return false;
			p = ws(p + 1);
		}
	}
	p = ws(p + 1);
	*len = 1;
	*stride = 1;
	if (*p == ':') {
		p = ws(p + 1);
		errno = 0;
		*len = strtoul(p, &end, 10);
		if (errno != 0 || end == p || *len == 0 || *len >= MAX_PLACES)
			return false;
		p = ws(end);
		if (*p == ':') {
			p = ws(p + 1);
			errno = 0;
			*stride = strtol(p, &end, 10);
			if (errno != 0 || end == p)
				return false;
			p = ws(end);
		}
	}
	if (*neg && *len != 1)
		return false;
	*sp = p;
	return true;
}

/* Keep only the processors of the process's mask; drop empty places. */
static bool places_finalize(void)
{
	int n = 0, before = nplaces;

	for (int i = 0; i < nplaces; i++) {
		CPU_AND_S(setsize, places[i], places[i], procmask);
		if (CPU_COUNT_S(setsize, places[i]) == 0)
			CPU_FREE(places[i]);
		else
			places[n++] = places[i];
	}
	nplaces = n;
	if (n == 0) {
		omp_gomp_error("None of the places contain usable logical CPUs");
		return false;
	}
	if (n < before)
		omp_gomp_error("Number of places reduced from %d to %d because some "
		               "places didn't contain any usable logical CPUs",
		               before, n);
	return true;
}

/* Read a sysfs processor list ("0-3,8") into s; false when unreadable. */
static bool read_cpulist(const char *path, cpu_set_t *s)
{
	FILE *f = fopen(path, "r");
	unsigned long a, b;
	int c = 0;

	if (f == NULL)
		return false;
	while (fscanf(f, "%lu", &a) == 1) {
		b = a;
		c = fgetc(f);
		if (c == '-') {
			if (fscanf(f, "%lu", &b) != 1)
				break;
			c = fgetc(f);
		}
		for (; a <= b && a < maxcpu; a++)
			CPU_SET_S(a, setsize, s);
		if (c != ',')
			break;
	}
	fclose(f);
	return true;
}

/* The processors sharing cpu's level (2 core, 3 socket, 4 last-level
 * cache, 5 NUMA node) with it, into s. */
static bool level_siblings(int level, unsigned long cpu, cpu_set_t *s)
{
	char path[128];
	int best = -1, best_lv = -1;

	switch (level) {
	case 2:
	case 3:
		snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%lu/topology/%s",
		         cpu, level == 2 ? "thread_siblings_list" : "core_siblings_list");
		return read_cpulist(path, s);
	case 4:
		for (int i = 0; i < 16; i++) {
			int lv = -1;
			snprintf(path, sizeof path,
			         "/sys/devices/system/cpu/cpu%lu/cache/index%d/level", cpu, i);
			FILE *f = fopen(path, "r");
			if (f == NULL)
				break;
			if (fscanf(f, "%d", &lv) == 1 && lv > best_lv) {
				best_lv = lv;
				best = i;
			}
			fclose(f);
		}
		if (best < 0)
			return false;
		snprintf(path, sizeof path,
		         "/sys/devices/system/cpu/cpu%lu/cache/index%d/shared_cpu_list", cpu, best);
		return read_cpulist(path, s);
	default:
		for (int node = 0, misses = 0; misses < 64; node++) {
			snprintf(path, sizeof path, "/sys/devices/system/node/node%d/cpulist", node);
			CPU_ZERO_S(setsize, s);
			if (!read_cpulist(path, s)) {
				misses++;
				continue;
			}
			if (CPU_ISSET_S(cpu, setsize, s))
				return true;
		}
		CPU_ZERO_S(setsize, s);
		CPU_OR_S(setsize, s, s, procmask);      /* no NUMA: one domain */
		return true;
	}
}

/* Places by topology level (1 threads .. 5 numa_domains), at most count. */
static bool places_level(int level, unsigned long count)
{
	cpu_set_t *done = set_new();
	bool ok = done != NULL;

	for (unsigned long c = 0; ok && c < maxcpu && (unsigned long)nplaces < count; c++) {
		if (!CPU_ISSET_S(c, setsize, procmask) || CPU_ISSET_S(c, setsize, done))
			continue;
		cpu_set_t *s = set_new();
		if (s == NULL || (level > 1 && !level_siblings(level, c, s))) {
			if (s != NULL)
				CPU_FREE(s);
			ok = false;
			break;
		}
		CPU_SET_S(c, setsize, s);
		CPU_AND_S(setsize, s, s, procmask);
		CPU_OR_S(setsize, done, done, s);
		ok = places_add(s);
	}
	if (done != NULL)
		CPU_FREE(done);
	if (!ok || nplaces == 0) {
		places_free();
		omp_gomp_error("Error reading core/socket topology");
		return false;
	}
	return true;
}

/* OMP_PLACES: an abstract name or an explicit list; true when it made
 * the place list (only checked, not kept, when ignore). */
bool omp_places_parse(bool ignore)
{
	static const char *const levels[] = {
		"threads", "cores", "sockets", "ll_caches", "numa_domains",
	};
	const char *env = getenv("OMP_PLACES"), *p;
	unsigned long count = ULONG_MAX;
	char *end;
	size_t total = 0;

	if (env == NULL)
		return false;
	p = ws(env);
	if (*p == '\0')
		goto bad;
	for (int lv = 0; lv < 5; lv++) {
		size_t l = strlen(levels[lv]);
		if (strncasecmp(p, levels[lv], l) != 0)
			continue;
		p = ws(p + l);
		if (*p != '\0') {
			if (*p != '(')
				goto bad;
			p = ws(p + 1);
			errno = 0;
			count = strtoul(p, &end, 10);
			if (errno != 0 || end == p)
				goto bad;
			p = ws(end);
			if (*p != ')' || *ws(p + 1) != '\0')
				goto bad;
		}
		return !ignore && places_level(lv + 1, count);
	}
	for (;;) {
		cpu_set_t *s = ignore ? NULL : set_new();
		bool neg;
		unsigned long len;
		long stride;

		if (!ignore && s == NULL)
			goto bad;
		if (!parse_place(&p, s, &neg, &len, &stride)) {
			if (s != NULL)
				CPU_FREE(s);
			goto bad;
		}
		total += neg ? 0 : len;
		if (total > MAX_PLACES) {
			if (s != NULL)
				CPU_FREE(s);
			goto bad;
		}
		if (ignore) {
			/* syntax only */
		} else if (neg) {
			int i;
			for (i = 0; i < nplaces; i++)
				if (CPU_EQUAL_S(setsize, places[i], s))
					break;
			CPU_FREE(s);
			if (i == nplaces) {
				omp_gomp_error("Trying to remove a non-existing place from list of places");
				goto bad;
			}
			CPU_FREE(places[i]);
			memmove(&places[i], &places[i + 1],
			        (size_t)(nplaces - i - 1) * sizeof *places);
			nplaces--;
		} else {
			if (!places_add(s))
				goto bad;
			for (unsigned long k = 1; k < len; k++) {
				cpu_set_t *prev = places[nplaces - 1], *n = set_new();
				if (n == NULL)
					goto bad;
				for (unsigned long c = 0; c < maxcpu; c++) {
					if (!CPU_ISSET_S(c, setsize, prev))
						continue;
					long long d = (long long)c + stride;
					if (d < 0 || (unsigned long long)d >= maxcpu) {
						omp_gomp_error("Logical CPU number %lu+%ld out of range",
						               c, stride);
						CPU_FREE(n);
						goto bad;
					}
					CPU_SET_S((size_t)d, setsize, n);
				}
				if (!places_add(n))
					goto bad;
			}
		}
		if (*p == '\0')
			break;
		if (*p++ != ',')
			goto bad;
	}
	if (ignore)
		return false;
	if (nplaces == 0) {
		omp_gomp_error("All places have been removed");
		goto bad;
	}
	if (!places_finalize())
		goto bad;
	return true;
bad:
	places_free();
	invalid("OMP_PLACES");
	return false;
}

/* GOMP_CPU_AFFINITY: processors "a[-b[:s]]" separated by commas or
 * spaces, one place each (not filtered by the mask, as libgomp). */
bool omp_places_cpu_affinity(bool ignore)
{
	const char *env = getenv("GOMP_CPU_AFFINITY"), *p;
	unsigned long beg, fin, step;
	char *end;

	if (env == NULL)
		return false;
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1 && ignore)
			return false;
		p = ws(env);
		while (*p != '\0') {
			errno = 0;
			beg = strtoul(p, &end, 0);
			if (errno != 0 || end == p || beg >= 65536)
				goto bad;
			fin = beg;
			step = 1;
			p = end;
			if (*p == '-') {
				errno = 0;
				fin = strtoul(p + 1, &end, 0);
				if (errno != 0 || end == p + 1 || fin >= 65536 || fin < beg)
					goto bad;
				p = end;
				if (*p == ':') {
					errno = 0;
					step = strtoul(p + 1, &end, 0);
					if (errno != 0 || end == p + 1 || step == 0 || step >= 65536)
						goto bad;
					p = end;
				}
			}
			for (unsigned long c = beg; pass == 1 && c <= fin; c += step) {
				if (c >= maxcpu)
					continue;
				cpu_set_t *s = set_new();
				if (s != NULL)
					CPU_SET_S(c, setsize, s);
				if (!places_add(s))
					goto bad;
			}
			p = ws(p);
			if (*p == ',')
				p = ws(p + 1);
		}
	}
	return nplaces > 0;
bad:
	places_free();
	omp_gomp_error("Invalid value for enviroment variable GOMP_CPU_AFFINITY");
	return false;
}

/* Read the process's affinity mask (sized as the kernel wants it); the
 * number of processors in it. */
int omp_places_init(void)
{
	long conf = sysconf(_SC_NPROCESSORS_CONF);
	unsigned long bits = conf > 0 ? (unsigned long)conf : 1;

	for (;;) {
		setsize = CPU_ALLOC_SIZE(bits);
		maxcpu = 8 * setsize;
		procmask = set_new();
		if (procmask == NULL)
			break;
		if (sched_getaffinity(0, setsize, procmask) == 0)
			return CPU_COUNT_S(setsize, procmask);
		CPU_FREE(procmask);
		procmask = NULL;
		if (errno != EINVAL || bits >= (1ul << 20))
			break;
		bits *= 2;
	}
	/* No mask: every configured processor. */
	setsize = CPU_ALLOC_SIZE(bits);
	maxcpu = 8 * setsize;
	procmask = set_new();
	if (procmask == NULL) {
		fputs("asteal: out of memory reading the OpenMP environment\n", stderr);
		exit(EXIT_FAILURE);
	}
	for (unsigned long c = 0; c < bits; c++)
		CPU_SET_S(c, setsize, procmask);
	return CPU_COUNT_S(setsize, procmask);
}

/* Print a processor set the way libgomp prints a place: runs "n:len". */
static void print_place(FILE *f, const cpu_set_t *s)
{
	unsigned long run = 0;
	bool first = true;

	for (unsigned long c = 0; c <= maxcpu; c++) {
		if (c < maxcpu && CPU_ISSET_S(c, setsize, s)) {
			if (run++ == 0) {
				fprintf(f, first ? "%lu" : ",%lu", c);
				first = false;
			}
		} else {
			if (run > 1)
				fprintf(f, ":%lu", run);
			run = 0;
		}
	}
}


/* Bind without places: one place per processor (libgomp's default). */
void omp_places_default(void)
{
	if (nplaces == 0)
		places_level(1, ULONG_MAX);
}

/* Print the place list as OMP_DISPLAY_ENV shows it: {0:2},{2}. */
void omp_places_print(FILE *f)
{
	for (int i = 0; i < nplaces; i++) {
		fputc('{', f);
		print_place(f, places[i]);
		fputs(i + 1 == nplaces ? "}" : "},", f);
	}
}

/* The number of places. */
int omp_env_num_places(void)
{
	return nplaces;
}

/* The number of processors in place p. */
int omp_env_place_num_procs(int p)
{
	return p >= 0 && p < nplaces ? CPU_COUNT_S(setsize, places[p]) : 0;
}

/* The processor numbers of place p, ascending. */
void omp_env_place_proc_ids(int p, int *ids)
{
	if (p < 0 || p >= nplaces || ids == NULL)
		return;
	for (unsigned long c = 0; c < maxcpu; c++)
		if (CPU_ISSET_S(c, setsize, places[p]))
			*ids++ = (int)c;
}

/* The calling thread's affinity mask into a new set (NULL on failure). */
static cpu_set_t *thread_mask(void)
{
	cpu_set_t *s = set_new();

	if (s != NULL && pthread_getaffinity_np(pthread_self(), setsize, s) != 0) {
		CPU_FREE(s);
		s = NULL;
	}
	return s;
}

/* The first place holding every processor the calling thread may use. */
int omp_env_current_place(void)
{
	cpu_set_t *s, *t;
	int found = -1;

	if (nplaces == 0 || (s = thread_mask()) == NULL)
		return -1;
	t = set_new();
	for (int i = 0; t != NULL && i < nplaces && found < 0; i++) {
		CPU_AND_S(setsize, t, s, places[i]);
		if (CPU_EQUAL_S(setsize, t, s))
			found = i;
	}
	if (t != NULL)
		CPU_FREE(t);
	CPU_FREE(s);
	return found;
}

/* The calling thread's processors as "0-3,6", snprintf-style. */
size_t omp_env_affinity_string(char *buf, size_t size)
{
	cpu_set_t *s = thread_mask();
	size_t len = 0;
	char item[48];

	for (unsigned long c = 0; s != NULL && c < maxcpu; c++) {
		unsigned long e = c;
		int n;
		if (!CPU_ISSET_S(c, setsize, s))
			continue;
		while (e + 1 < maxcpu && CPU_ISSET_S(e + 1, setsize, s))
			e++;
		n = e == c ? snprintf(item, sizeof item, "%s%lu", len ? "," : "", c)
		           : snprintf(item, sizeof item, "%s%lu-%lu", len ? "," : "", c, e);
		if (len < size)
			memcpy(buf + len, item, (size_t)n < size - len ? (size_t)n : size - len);
		len += (size_t)n;
		c = e;
	}
	if (size > 0)
		buf[len < size ? len : size - 1] = '\0';
	if (s != NULL)
		CPU_FREE(s);
	return len;
}
