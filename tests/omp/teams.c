/*
 * teams.c - the teams construct on the host (OpenMP 5.0, GOMP_teams_reg):
 * num_teams(k) gives at most k teams (at least one), each with its own
 * initial thread, omp_get_team_num in [0, teams) and each number once;
 * thread_limit bounds a parallel region inside a team; distribute shares
 * a loop among the teams (each iteration once), also as distribute
 * parallel for; a reduction on teams; omp_set_num_teams and
 * omp_set_teams_thread_limit (5.1) bound a teams construct without
 * clauses.
 */
#include "check.h"

#define N 1000
#define MAXTEAMS 16

/* The teams ICVs of OpenMP 5.1: omp_set_num_teams and
 * omp_set_teams_thread_limit read back and bound a teams construct that
 * has no clauses. */
static void icvs(void)
{
	int nt = 0, bad = 0;

	omp_set_num_teams(2);
	omp_set_teams_thread_limit(3);
	CHECK(omp_get_max_teams() == 2 && omp_get_teams_thread_limit() == 3, "omp_get_max_teams() "
	      "%d, omp_get_teams_thread_limit() %d after setting 2 and 3", omp_get_max_teams(),
	      omp_get_teams_thread_limit());
#pragma omp teams
	{
		if (omp_get_team_num() == 0)
			nt = omp_get_num_teams();
#pragma omp parallel num_threads(8)
		if (omp_get_num_threads() > 3)
			ATOMIC_STORE(&bad, 1);
	}
	CHECK(nt >= 1 && nt <= 2, "teams after omp_set_num_teams(2): %d teams", nt);
	CHECK(!bad, "a parallel region in a team had more threads than "
	      "omp_set_teams_thread_limit(3)");
}

/* Teams, their numbers and a parallel inside each. */
int main(void)
{
	int seen[MAXTEAMS] = { 0 }, nteams = 0, bad = 0, count[N] = { 0 };
	long sum = 0;

#pragma omp teams num_teams(3) thread_limit(2)
	{
		int t = omp_get_team_num(), nt = omp_get_num_teams();
		if (t < 0 || t >= nt || nt > 3 || nt < 1 || t >= MAXTEAMS)
			ATOMIC_STORE(&bad, 1);
		else
			ATOMIC_ADD(&seen[t], 1);
		if (t == 0)
			nteams = nt;
#pragma omp parallel
		{
			if (omp_get_num_threads() > 2)
				ATOMIC_STORE(&bad, 2);
			if (omp_get_team_num() != t)
				ATOMIC_STORE(&bad, 3);
		}
	}
	CHECK(bad != 1, "a team number out of range or a bad number of teams");
	CHECK(bad != 2, "a parallel region in a team with thread_limit(2) had more than 2 threads");
	CHECK(bad != 3, "omp_get_team_num() changed inside a parallel region of the team");
	for (int t = 0; t < nteams; t++)
		CHECK(seen[t] == 1, "team %d's initial thread ran %d times", t, seen[t]);

#pragma omp teams num_teams(4) reduction(+: sum)
	{
#pragma omp distribute
		for (int i = 0; i < N; i++) {
			ATOMIC_ADD(&count[i], 1);
			sum += i;
		}
	}
	CHECK(sum == (long)N * (N - 1) / 2, "teams reduction over distribute: %ld", sum);
	for (int i = 0; i < N; i++)
		CHECK(count[i] == 1, "distribute: iteration %d ran %d times", i, count[i]);

#pragma omp teams distribute parallel for num_teams(2)
	for (int i = 0; i < N; i++)
		ATOMIC_ADD(&count[i], 1);
	for (int i = 0; i < N; i++)
		CHECK(count[i] == 2, "teams distribute parallel for: iteration %d ran %d times", i,
		      count[i] - 1);
	icvs();
	return 0;
}
