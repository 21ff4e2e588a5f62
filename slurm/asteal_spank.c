/*
 * asteal_spank.c - a SPANK plugin that points every Slurm job step at the
 * node's asteald, so that the jobs Slurm puts on a node share its CPUs
 * through asteald (docs/cluster.md).
 *
 * In each task of a step (slurm_spank_task_init, in slurmstepd, as the
 * job's user just before exec), when the node has an asteald socket, it
 * sets in the task's environment:
 *
 *   ASTEAL_SOCKET    the socket (default /run/asteal/asteald.sock; the
 *                    plugstack.conf argument socket=PATH changes it);
 *   ASTEAL_JOB_NAME  slurm-JOBID.STEP as sacct prints a step's JobID:
 *                    slurm-42.batch, slurm-42.0, slurm-42.extern,
 *                    slurm-42.interactive; an array task is
 *                    slurm-ARRAYID_TASKID.STEP;
 *   ASTEAL_WORKERS   the task's CPUs (below): libasteal starts that many
 *                    workers, and a job's desire never exceeds its
 *                    workers (the daemon refuses a larger one), so this
 *                    caps what the job may ask asteald for at what Slurm
 *                    gave it.  A value the user set that is a number no
 *                    larger is kept; anything else is replaced.
 *
 * The option --asteal=off|on (sbatch, salloc, srun; default on) turns it
 * off for a job: off leaves the environment alone.  A node without the
 * socket, or one the user may not connect to, is left alone with one
 * debug line.  The plugin never fails a job for its own problems: every
 * callback returns ESPANK_SUCCESS then, with a slurm_error line saying
 * why; only a bad --asteal value is refused (a user's mistake, told at
 * submission).  Load it as "optional" in plugstack.conf, so that a node
 * where it cannot be loaded runs jobs anyway.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

SPANK_PLUGIN(asteal, 1);

#define ASTEAL_SPANK_SOCKET "/run/asteal/asteald.sock"

/* The plugin's settings: plugstack.conf's socket=PATH (a Unix socket's
 * path, so shorter than sun_path), and --asteal. */
static char spank_socket[sizeof(((struct sockaddr_un *)0)->sun_path)] =
	ASTEAL_SPANK_SOCKET;
static int spank_off;

/* Check --asteal's value and keep it: 0, or -1 (Slurm then refuses the
 * submission with its own line after ours). */
static int spank_opt_asteal(int val, const char *optarg, int remote)
{
	(void)val;
	(void)remote;
	if (optarg != NULL && strcmp(optarg, "off") == 0) {
		spank_off = 1;
		return 0;
	}
	if (optarg != NULL && strcmp(optarg, "on") == 0) {
		spank_off = 0;
		return 0;
	}
	slurm_error("asteal: --asteal=%s: expected off or on",
	            optarg != NULL ? optarg : "");
	return -1;
}

static struct spank_option spank_opt = {
	"asteal", "off|on",
	"Share this node's CPUs through asteald (on, the default) or not "
	"(off: the job's environment is left alone).",
	1, 0, spank_opt_asteal,
};

/* Read plugstack.conf's arguments: 0, or -1 when one was refused (each
 * named in a slurm_error line; the others still count). */
static int spank_args(int ac, char **av)
{
	int rc = 0;

	for (int i = 0; i < ac; i++) {
		if (strncmp(av[i], "socket=", 7) == 0 && av[i][7] == '/' &&
		    strlen(av[i] + 7) < sizeof(spank_socket)) {
			snprintf(spank_socket, sizeof(spank_socket), "%s", av[i] + 7);
			continue;
		}
		slurm_error("asteal: plugstack.conf argument '%s' ignored: "
		            "expected socket=/ABSOLUTE/PATH (under %zu bytes)",
		            av[i], sizeof(spank_socket));
		rc = -1;
	}
	return rc;
}

/* Register --asteal (in every context, as SPANK asks, so that sbatch
 * --help lists it) and read the plugin's arguments. */
int slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_err_t e = spank_option_register(sp, &spank_opt);

	if (e != ESPANK_SUCCESS)
		slurm_error("asteal: cannot register --asteal: %s",
		            spank_strerror(e));
	(void)spank_args(ac, av);
	return ESPANK_SUCCESS;
}

/* The step's name in sacct's form, "slurm-JOBID.STEP", into buf: 0, or -1
 * with a slurm_error line. */
static int spank_job_name(spank_t sp, char *buf, size_t len)
{
	uint32_t job = 0, step = 0, array = 0, task = 0;
	char job_part[32], step_part[16];
	spank_err_t e;

	if ((e = spank_get_item(sp, S_JOB_ID, &job)) != ESPANK_SUCCESS ||
	    (e = spank_get_item(sp, S_JOB_STEPID, &step)) != ESPANK_SUCCESS) {
		slurm_error("asteal: cannot read the job and step ids: %s",
		            spank_strerror(e));
		return -1;
	}
	/* An array task is ARRAYID_TASKID in sacct, whatever its own id.
	 * Another job's array id is 0 (batch step) or its own id with the
	 * task id NO_VAL (an srun step). */
	if (spank_get_item(sp, S_JOB_ARRAY_ID, &array) == ESPANK_SUCCESS &&
	    array != 0 &&
	    spank_get_item(sp, S_JOB_ARRAY_TASK_ID, &task) == ESPANK_SUCCESS &&
	    task != NO_VAL && task != INFINITE)
		snprintf(job_part, sizeof(job_part), "%u_%u", array, task);
	else
		snprintf(job_part, sizeof(job_part), "%u", job);
	switch (step) {
	case SLURM_BATCH_SCRIPT:
		snprintf(step_part, sizeof(step_part), "batch");
		break;
	case SLURM_EXTERN_CONT:
		snprintf(step_part, sizeof(step_part), "extern");
		break;
	case SLURM_INTERACTIVE_STEP:
		snprintf(step_part, sizeof(step_part), "interactive");
		break;
	default:
		snprintf(step_part, sizeof(step_part), "%u", step);
		break;
	}
	snprintf(buf, len, "slurm-%s.%s", job_part, step_part);
	return 0;
}

/* The CPUs of this task: the step's CPUs on this node shared among the
 * step's tasks on this node, at least 1; 0 with a slurm_error line when
 * Slurm does not say.
 *
 * Why this and not another count: S_JOB_NCPUS is the step's CPUs on this
 * node (the whole allocation on the node for the batch step, which is
 * one task, so `sbatch -c 2` gives 2); an srun step of several tasks on
 * a node runs one libasteal job per task, and each task owns its share
 * of those CPUs, which is cpus-per-task when -c was given and what the
 * tasks really hold when it was not (S_STEP_CPUS_PER_TASK is then 1 even
 * when a task holds a whole core of 2 threads under CR_Core).
 * SLURM_CPUS_PER_TASK is unset without -c, and S_STEP_CPUS_PER_TASK is 1
 * under --overcommit; it is the fallback only when S_JOB_NCPUS fails. */
static unsigned spank_task_cpus(spank_t sp)
{
	uint16_t ncpus = 0;
	uint32_t tasks = 0, per_task = 0;

	if (spank_get_item(sp, S_JOB_NCPUS, &ncpus) == ESPANK_SUCCESS &&
	    ncpus > 0) {
		if (spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &tasks) !=
		    ESPANK_SUCCESS || tasks == 0)
			tasks = 1;
		return ncpus / tasks > 0 ? ncpus / tasks : 1;
	}
	if (spank_get_item(sp, S_STEP_CPUS_PER_TASK, &per_task) ==
	    ESPANK_SUCCESS && per_task > 0)
		return per_task;
	slurm_error("asteal: Slurm does not say how many CPUs this task has: "
	            "ASTEAL_WORKERS not set");
	return 0;
}

/* Set ASTEAL_WORKERS to cpus unless the user's value is a number from 1
 * to cpus. */
static void spank_set_workers(spank_t sp, unsigned cpus)
{
	char have[32], want[16];
	char *end;
	unsigned long v;
	spank_err_t e;

	e = spank_getenv(sp, "ASTEAL_WORKERS", have, sizeof(have));
	if (e == ESPANK_SUCCESS) {
		errno = 0;
		v = strtoul(have, &end, 10);
		if (errno == 0 && end != have && *end == '\0' && v >= 1 &&
		    v <= cpus)
			return;
		slurm_info("asteal: ASTEAL_WORKERS=%s replaced by this task's "
		           "%u CPUs", have, cpus);
	} else if (e == ESPANK_NOSPACE) {
		slurm_info("asteal: ASTEAL_WORKERS (a long value) replaced by "
		           "this task's %u CPUs", cpus);
	}
	snprintf(want, sizeof(want), "%u", cpus);
	if ((e = spank_setenv(sp, "ASTEAL_WORKERS", want, 1)) != ESPANK_SUCCESS)
		slurm_error("asteal: cannot set ASTEAL_WORKERS: %s",
		            spank_strerror(e));
}

/* In each task, as its user, before exec: point it at the node's asteald,
 * named after its step, capped at its CPUs. */
int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	char name[64];
	struct stat st;
	unsigned cpus;
	spank_err_t e;

	(void)ac;
	(void)av;
	if (!spank_remote(sp) || spank_off)
		return ESPANK_SUCCESS;
	if (stat(spank_socket, &st) < 0 || !S_ISSOCK(st.st_mode)) {
		slurm_debug("asteal: no asteald socket at %s: job left alone",
		            spank_socket);
		return ESPANK_SUCCESS;
	}
	if (access(spank_socket, W_OK) < 0) {
		slurm_debug("asteal: %s: %s: job left alone", spank_socket,
		            strerror(errno));
		return ESPANK_SUCCESS;
	}
	if (spank_job_name(sp, name, sizeof(name)) < 0)
		return ESPANK_SUCCESS;
	if ((e = spank_setenv(sp, "ASTEAL_SOCKET", spank_socket, 1)) !=
	    ESPANK_SUCCESS ||
	    (e = spank_setenv(sp, "ASTEAL_JOB_NAME", name, 1)) !=
	    ESPANK_SUCCESS) {
		slurm_error("asteal: cannot set the job's environment: %s",
		            spank_strerror(e));
		return ESPANK_SUCCESS;
	}
	cpus = spank_task_cpus(sp);
	if (cpus > 0)
		spank_set_workers(sp, cpus);
	slurm_debug("asteal: %s on %s, %u CPUs", name, spank_socket, cpus);
	return ESPANK_SUCCESS;
}
