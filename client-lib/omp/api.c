/*
 * api.c - the omp_* routines that concern neither teams nor tasks (those
 * are the core's: teamapi.c, task.c), with libgomp 12's answers:
 *  - time: omp_get_wtime/wtick on CLOCK_MONOTONIC;
 *  - processors and places: omp_get_num_procs is the process's CPUs at
 *    startup (omp_g.nprocs: a team thread is pinned to its slot's CPU, so
 *    its own mask would say 1); places come from places.c; there is no place
 *    partitioning, so a thread's partition is every place;
 *  - the affinity format (%t %T %L %n %N %a %H %P %i %A, with libgomp's
 *    widths, justification and fatal errors);
 *  - devices: the host is the only one (omp_get_num_devices() == 0, the
 *    initial device is number 0); the target memory routines work on host
 *    memory for it and fail for any other number as libgomp fails, fatally
 *    under OMP_TARGET_OFFLOAD=mandatory;
 *  - the error directive (GOMP_error/GOMP_warning), pause, teams ICVs.
 * The memory allocators are alloc.c's.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <omp.h>

#include "layer.h"
#include "gomp.h"
#include "env.h"

#define HOST_DEVICE 0                  /* the initial device's number */

/* ---- time, processors, places ---- */

/* omp_get_wtime: seconds on the monotonic clock. */
OMP_API double omp_get_wtime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* omp_get_wtick: the monotonic clock's resolution. */
OMP_API double omp_get_wtick(void)
{
	struct timespec ts;

	if (clock_getres(CLOCK_MONOTONIC, &ts) != 0)
		return 1e-9;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* omp_get_num_procs: the CPUs the process may run on. */
OMP_API int omp_get_num_procs(void)
{
	return omp_g.nprocs > 0 ? omp_g.nprocs : 1;
}

/* omp_get_proc_bind: the current task's bind-var. */
OMP_API omp_proc_bind_t omp_get_proc_bind(void)
{
	return (omp_proc_bind_t)omp_icv()->bind;
}

/* omp_get_num_places: the places of OMP_PLACES (or binding). */
OMP_API int omp_get_num_places(void)
{
	return omp_env_num_places();
}

/* omp_get_place_num_procs: the processors of a place; 0 for no place. */
OMP_API int omp_get_place_num_procs(int place_num)
{
	return omp_env_place_num_procs(place_num);
}

/* omp_get_place_proc_ids: the processor numbers of a place. */
OMP_API void omp_get_place_proc_ids(int place_num, int *ids)
{
	omp_env_place_proc_ids(place_num, ids);
}

/* omp_get_place_num: the place the calling thread is bound to, or -1. */
OMP_API int omp_get_place_num(void)
{
	return omp_env_current_place();
}

/* omp_get_partition_num_places: every place (no partitioning). */
OMP_API int omp_get_partition_num_places(void)
{
	return omp_env_num_places();
}

/* omp_get_partition_place_nums: 0 .. places - 1. */
OMP_API void omp_get_partition_place_nums(int *place_nums)
{
	int n = omp_env_num_places();

	for (int i = 0; i < n; i++)
		place_nums[i] = i;
}

/* ---- affinity format ---- */

static char *format_owned;             /* the buffer omp_set_affinity_format made */

/* omp_set_affinity_format: the new affinity-format-var. */
OMP_API void omp_set_affinity_format(const char *format)
{
	size_t len = strlen(format);
	char *p = omp_gomp_malloc(len + 1);

	memcpy(p, format, len + 1);
	omp_g.affinity_format = p;
	free(format_owned);
	format_owned = p;
}

/* omp_get_affinity_format: copy it (truncated, terminated); its length. */
OMP_API size_t omp_get_affinity_format(char *buffer, size_t size)
{
	const char *f = omp_g.affinity_format;
	size_t len = strlen(f);

	if (size > 0) {
		size_t n = len < size ? len : size - 1;
		memcpy(buffer, f, n);
		buffer[n] = '\0';
	}
	return len;
}

/* The output of one format: a buffer that counts what does not fit. */
struct out {
	char *buf;
	size_t size, len;
};

/* Append n bytes of s. */
static void out_str(struct out *o, const char *s, size_t n)
{
	if (o->len < o->size) {
		size_t room = o->size - o->len;
		memcpy(o->buf + o->len, s, n < room ? n : room);
	}
	if (o->len + n < o->len)
		omp_gomp_fatal("overflow in omp_capture_affinity");
	o->len += n;
}

/* Append n copies of c. */
static void out_rep(struct out *o, char c, size_t n)
{
	while (n-- > 0)
		out_str(o, &c, 1);
}

/* Append a field: a number (zero-padding after a sign or 0x) or a text,
 * right- or left-justified in width w (SIZE_MAX: no width). */
static void out_field(struct out *o, const char *s, bool num, bool zero, bool right,
                      size_t w)
{
	size_t l = strlen(s), skip = 0;

	if (w == SIZE_MAX || l >= w) {
		out_str(o, s, l);
	} else if (zero && num) {
		if (s[0] == '-')
			skip = 1;
		else if (s[0] == '0' && s[1] == 'x')
			skip = 2;
		out_str(o, s, skip);
		out_rep(o, '0', w - l);
		out_str(o, s + skip, l - skip);
	} else if (right) {
		out_rep(o, ' ', w - l);
		out_str(o, s, l);
	} else {
		out_str(o, s, l);
		out_rep(o, ' ', w - l);
	}
}

/* Expand an affinity format for the calling thread; the full length. */
static size_t format_affinity(char *buffer, size_t size, const char *format)
{
	static const struct { const char *name; char c; } longs[] = {
		{ "team_num", 't' }, { "num_teams", 'T' }, { "nesting_level", 'L' },
		{ "thread_num", 'n' }, { "num_threads", 'N' }, { "ancestor_tnum", 'a' },
		{ "host", 'H' }, { "process_id", 'P' }, { "native_thread_id", 'i' },
		{ "thread_affinity", 'A' },
	};
	struct out o = { buffer, size, 0 };
	const char *p = format;
	char tmp[512];

	while (*p != '\0') {
		bool zero = false, right = false;
		size_t w = SIZE_MAX;
		char c;

		if (*p != '%') {
			const char *q = strchr(p, '%');
			size_t n = q != NULL ? (size_t)(q - p) : strlen(p);
			out_str(&o, p, n);
			p += n;
			continue;
		}
		p++;
		if (*p == '%') {
			out_str(&o, "%", 1);
			p++;
			continue;
		}
		if (*p == '0') {
			zero = true;
			if (*++p != '.')
				omp_gomp_fatal("leading zero not followed by dot in affinity format");
		}
		if (*p == '.') {
			right = true;
			p++;
		}
		if (*p >= '1' && *p <= '9') {
			char *end;
			w = strtoul(p, &end, 10);
			p = end;
		} else if (zero || right) {
			omp_gomp_fatal("leading zero or right justification in affinity "
			               "format requires size");
		}
		c = *p;
		if (c == '{') {
			size_t i;
			for (i = 0; i < sizeof longs / sizeof longs[0]; i++) {
				size_t l = strlen(longs[i].name);
				if (strncmp(p + 1, longs[i].name, l) == 0 && p[l + 1] == '}') {
					c = longs[i].c;
					p += l + 1;
					break;
				}
			}
			if (c == '{') {
				const char *q = strchr(p + 1, '}');
				if (q != NULL)
					omp_gomp_fatal("unsupported long type name '%.*s' in "
					               "affinity format", (int)(q - (p + 1)), p + 1);
				omp_gomp_fatal("unterminated long type name '%s' in affinity format",
				               p + 1);
			}
		}
		switch (c) {
		case 't': snprintf(tmp, sizeof tmp, "%d", omp_get_team_num()); break;
		case 'T': snprintf(tmp, sizeof tmp, "%d", omp_get_num_teams()); break;
		case 'L': snprintf(tmp, sizeof tmp, "%d", omp_get_level()); break;
		case 'n': snprintf(tmp, sizeof tmp, "%d", omp_get_thread_num()); break;
		case 'N': snprintf(tmp, sizeof tmp, "%d", omp_get_num_threads()); break;
		case 'a':
			snprintf(tmp, sizeof tmp, "%d",
			         omp_get_ancestor_thread_num(omp_get_level() - 1));
			break;
		case 'P': snprintf(tmp, sizeof tmp, "%d", (int)getpid()); break;
		case 'i':
			snprintf(tmp, sizeof tmp, "0x%lx", (unsigned long)pthread_self());
			break;
		case 'H':
			if (gethostname(tmp, sizeof tmp - 1) != 0)
				strcpy(tmp, "node");
			tmp[sizeof tmp - 1] = '\0';
			out_field(&o, tmp, false, false, right, w);
			p++;
			continue;
		case 'A': {
			size_t need = omp_env_affinity_string(tmp, sizeof tmp);
			char *a = need < sizeof tmp ? tmp : omp_gomp_malloc(need + 1);
			if (a != tmp)
				omp_env_affinity_string(a, need + 1);
			out_field(&o, a, false, false, right, w);
			if (a != tmp)
				free(a);
			p++;
			continue;
		}
		default:
			omp_gomp_fatal("unsupported type %c in affinity format", c);
		}
		out_field(&o, tmp, true, zero, right, w);
		p++;
	}
	return o.len;
}

/* omp_capture_affinity: the expanded format (the affinity-format-var for
 * a NULL or empty one) into buffer, terminated; its full length. */
OMP_API size_t omp_capture_affinity(char *buffer, size_t size, const char *format)
{
	size_t ret = format_affinity(buffer, size,
	                             format != NULL && *format != '\0'
	                             ? format : omp_g.affinity_format);

	if (size > 0)
		buffer[ret < size ? ret : size - 1] = '\0';
	return ret;
}

/* omp_display_affinity: the expanded format and a newline, on stderr. */
OMP_API void omp_display_affinity(const char *format)
{
	char buf[512], *b = buf;
	size_t ret = omp_capture_affinity(buf, sizeof buf, format);

	if (ret >= sizeof buf) {
		b = omp_gomp_malloc(ret + 1);
		omp_capture_affinity(b, ret + 1, format);
	}
	b[ret] = '\n';
	fwrite(b, 1, ret + 1, stderr);
	if (b != buf)
		free(b);
}

/* ---- devices ---- */

/* omp_get_default_device: the current task's default-device-var. */
OMP_API int omp_get_default_device(void)
{
	return omp_icv()->default_device;
}

/* omp_set_default_device: negative numbers become 0 (as libgomp). */
OMP_API void omp_set_default_device(int device_num)
{
	omp_icv_mut()->default_device = device_num >= 0 ? device_num : 0;
}

/* omp_get_num_devices: no offload devices. */
OMP_API int omp_get_num_devices(void)
{
	return 0;
}

/* omp_get_device_num: code runs on the initial device. */
OMP_API int omp_get_device_num(void)
{
	return HOST_DEVICE;
}

/* omp_get_initial_device: the host's number (the number of devices). */
OMP_API int omp_get_initial_device(void)
{
	return HOST_DEVICE;
}

/* omp_is_initial_device: always. */
OMP_API int omp_is_initial_device(void)
{
	return 1;
}

/* A device number in a memory routine: true for the host; false for a
 * device that does not exist, fatal under OMP_TARGET_OFFLOAD=mandatory
 * for a non-negative one (libgomp resolves those, and fails there). */
static bool dev_host(int device_num)
{
	if (device_num == HOST_DEVICE)
		return true;
	if (device_num > 0 && omp_g.target_offload == 1)
		omp_gomp_fatal("OMP_TARGET_OFFLOAD is set to MANDATORY, but device not found");
	return false;
}

/* omp_target_alloc: host memory for the host, else NULL. */
OMP_API void *omp_target_alloc(size_t size, int device_num)
{
	return dev_host(device_num) ? malloc(size) : NULL;
}

/* omp_target_free: free host memory. */
OMP_API void omp_target_free(void *device_ptr, int device_num)
{
	if (device_ptr != NULL && dev_host(device_num))
		free(device_ptr);
}

/* omp_target_is_present: host memory is always present on the host. */
OMP_API int omp_target_is_present(const void *ptr, int device_num)
{
	return ptr == NULL || dev_host(device_num);
}

/* omp_target_memcpy: host to host; EINVAL for another device. */
OMP_API int omp_target_memcpy(void *dst, const void *src, size_t length,
                              size_t dst_offset, size_t src_offset,
                              int dst_device_num, int src_device_num)
{
	if (!dev_host(dst_device_num) || !dev_host(src_device_num))
		return EINVAL;
	memcpy((char *)dst + dst_offset, (const char *)src + src_offset, length);
	return 0;
}

/* Copy a num_dims-dimensional sub-volume (host to host); 0 or EINVAL. */
static int rect_copy(char *dst, const char *src, size_t elem, int num_dims,
                     const size_t *volume, const size_t *dst_off, const size_t *src_off,
                     const size_t *dst_dim, const size_t *src_dim)
{
	size_t dslice = elem, sslice = elem, d, s, len;

	if (num_dims == 1) {
		if (__builtin_mul_overflow(elem, volume[0], &len)
		    || __builtin_mul_overflow(elem, dst_off[0], &d)
		    || __builtin_mul_overflow(elem, src_off[0], &s))
			return EINVAL;
		memcpy(dst + d, src + s, len);
		return 0;
	}
	for (int i = 1; i < num_dims; i++)
		if (__builtin_mul_overflow(dslice, dst_dim[i], &dslice)
		    || __builtin_mul_overflow(sslice, src_dim[i], &sslice))
			return EINVAL;
	if (__builtin_mul_overflow(dslice, dst_off[0], &d)
	    || __builtin_mul_overflow(sslice, src_off[0], &s))
		return EINVAL;
	for (size_t j = 0; j < volume[0]; j++, d += dslice, s += sslice) {
		int r = rect_copy(dst + d, src + s, elem, num_dims - 1, volume + 1,
		                  dst_off + 1, src_off + 1, dst_dim + 1, src_dim + 1);
		if (r != 0)
			return r;
	}
	return 0;
}

/* omp_target_memcpy_rect: INT_MAX for the dimensions query (both NULL);
 * a host-to-host rectangular copy; EINVAL for another device. */
OMP_API int omp_target_memcpy_rect(void *dst, const void *src, size_t element_size,
                                   int num_dims, const size_t *volume,
                                   const size_t *dst_offsets, const size_t *src_offsets,
                                   const size_t *dst_dimensions,
                                   const size_t *src_dimensions,
                                   int dst_device_num, int src_device_num)
{
	if (dst == NULL && src == NULL)
		return INT_MAX;
	if (!dev_host(dst_device_num) || !dev_host(src_device_num))
		return EINVAL;
	if (num_dims < 1)
		return 0;
	return rect_copy(dst, src, element_size, num_dims, volume, dst_offsets,
	                 src_offsets, dst_dimensions, src_dimensions);
}

/* omp_target_associate_ptr: nothing to associate with; EINVAL. */
OMP_API int omp_target_associate_ptr(const void *host_ptr, const void *device_ptr,
                                     size_t size, size_t device_offset, int device_num)
{
	(void)host_ptr, (void)device_ptr, (void)size, (void)device_offset;
	if (device_num != HOST_DEVICE)
		dev_host(device_num);
	return EINVAL;
}

/* omp_target_disassociate_ptr: nothing is associated; EINVAL. */
OMP_API int omp_target_disassociate_ptr(const void *ptr, int device_num)
{
	(void)ptr;
	if (device_num != HOST_DEVICE)
		dev_host(device_num);
	return EINVAL;
}

/* ---- ICVs and the rest ---- */

/* omp_get_max_task_priority: OMP_MAX_TASK_PRIORITY. */
OMP_API int omp_get_max_task_priority(void)
{
	return omp_g.max_task_priority;
}

/* omp_get_supported_active_levels: libgomp's 255. */
OMP_API int omp_get_supported_active_levels(void)
{
	return omp_g.supported_levels;
}

/* Release what the host keeps between regions: nothing to do, but not
 * allowed inside a parallel region (-1 there, as libgomp). */
static int pause_host(void)
{
	return omp_get_level() > 0 ? -1 : 0;
}

/* omp_pause_resource: the host pauses; a device that does not exist is -1. */
OMP_API int omp_pause_resource(omp_pause_resource_t kind, int device_num)
{
	(void)kind;
	return device_num == HOST_DEVICE ? pause_host() : -1;
}

/* omp_pause_resource_all: as the host's. */
OMP_API int omp_pause_resource_all(omp_pause_resource_t kind)
{
	(void)kind;
	return pause_host();
}

/* omp_display_env: the OMP_DISPLAY_ENV block, verbose when asked. */
OMP_API void omp_display_env(int verbose)
{
	omp_env_display(verbose != 0);
}

/* omp_get_num_teams: the league's size; 1 outside teams. */
OMP_API int omp_get_num_teams(void)
{
	struct omp_thr *t = omp_self;

	return t != NULL && t->num_teams > 0 ? (int)t->num_teams : 1;
}

/* omp_get_team_num: the team's number in its league; 0 outside teams. */
OMP_API int omp_get_team_num(void)
{
	struct omp_thr *t = omp_self;

	return t != NULL && t->num_teams > 0 ? (int)t->team_num : 0;
}

/* omp_set_num_teams: nteams-var (negative values are ignored). */
OMP_API void omp_set_num_teams(int num_teams)
{
	if (num_teams >= 0)
		omp_g.nteams = num_teams;
}

/* omp_get_max_teams: nteams-var. */
OMP_API int omp_get_max_teams(void)
{
	return omp_g.nteams;
}

/* omp_set_teams_thread_limit: teams-thread-limit-var (negatives ignored). */
OMP_API void omp_set_teams_thread_limit(int thread_limit)
{
	if (thread_limit >= 0)
		omp_g.teams_thread_limit = thread_limit;
}

/* omp_get_teams_thread_limit: teams-thread-limit-var. */
OMP_API int omp_get_teams_thread_limit(void)
{
	return omp_g.teams_thread_limit;
}

/* ---- the error directive ---- */

/* GOMP_warning: "error directive encountered[: message]" (a length of
 * SIZE_MAX means a terminated string). */
OMP_API void GOMP_warning(const char *msg, size_t msglen)
{
	if (msg == NULL) {
		omp_gomp_error("error directive encountered");
		return;
	}
	fputs("\nlibgomp: error directive encountered: ", stderr);
	fwrite(msg, 1, msglen == SIZE_MAX ? strlen(msg) : msglen, stderr);
	fputc('\n', stderr);
}

/* GOMP_error: the same as a fatal error: exit status 1. */
OMP_API void GOMP_error(const char *msg, size_t msglen)
{
	if (msg == NULL)
		omp_gomp_fatal("fatal error: error directive encountered");
	fputs("\nlibgomp: fatal error: error directive encountered: ", stderr);
	fwrite(msg, 1, msglen == SIZE_MAX ? strlen(msg) : msglen, stderr);
	fputc('\n', stderr);
	exit(EXIT_FAILURE);
}
