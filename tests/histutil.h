/*
 * histutil.h - helpers for the tests of the history's failures, the
 * module's (test_history) and the daemon's (test_histfail): a small
 * file system of the test's own to fill up, a file's bytes, and a page
 * in the middle of a database overwritten with garbage.  Include after
 * cmocka.h (failures are cmocka's).
 */
#ifndef HISTUTIL_H
#define HISTUTIL_H

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

/* Mount a tmpfs of `kib` KiB on dir, in a mount namespace of this
 * process's own (its children share it); 0, or -1 with why. */
static inline int hist_tiny_fs(const char *dir, int kib, char *why, size_t len)
{
	char opts[64];

	snprintf(opts, sizeof(opts), "size=%dk,mode=0755", kib);
	if (unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", dir, "tmpfs", 0, opts) < 0) {
		snprintf(why, len, "cannot mount a small tmpfs (%s): needs root"
			 " (CAP_SYS_ADMIN)", strerror(errno));
		return -1;
	}
	return 0;
}

/* Fill the file system of path with the file path; its size. */
static inline long hist_fill(const char *path)
{
	static char block[4096];
	long n = 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ssize_t w;

	assert_true(fd >= 0);
	while ((w = write(fd, block, sizeof(block))) > 0)
		n += w;
	assert_int_equal(errno, ENOSPC);
	close(fd);
	return n;
}

/* The bytes of the file at path (caller frees); *len its size. */
static inline char *hist_slurp(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	assert_non_null(buf);
	assert_int_equal(read(fd, buf, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}

/* Overwrite the page in the middle of the SQLite database at path (of
 * more than 10 pages; the page size is in its header) with garbage. */
static inline void hist_damage(const char *path)
{
	static unsigned char junk[65536];
	unsigned char hdr[18];
	long page, pages;
	FILE *fp = fopen(path, "r+");

	assert_non_null(fp);
	assert_int_equal(fread(hdr, 1, sizeof(hdr), fp), sizeof(hdr));
	page = hdr[16] << 8 | hdr[17];
	if (page == 1)
		page = 65536;
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	pages = ftell(fp) / page;
	assert_true(pages > 10);
	memset(junk, 0x5a, sizeof(junk));
	assert_int_equal(fseek(fp, pages / 2 * page, SEEK_SET), 0);
	assert_int_equal(fwrite(junk, 1, (size_t)page, fp), (size_t)page);
	fclose(fp);
}

/* The one file in dir (not a -wal or -shm) whose name starts with
 * prefix, into out (the test fails if there is none). */
static inline void hist_find(const char *dir, const char *prefix, char *out,
			     size_t len)
{
	char cmd[256];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls %s | grep '^%s' | grep -v -- '-wal$\\|-shm$'",
		 dir, prefix);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(out, (int)len, p));
	out[strcspn(out, "\n")] = '\0';
	pclose(p);
}

#endif
