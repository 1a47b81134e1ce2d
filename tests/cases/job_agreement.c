/* tdm_strategy_check_agreement under mpirun: job_agreement SCENARIO MODE
 *   MODE  workers: a multi-worker job; servers: a parameter-server job (its last rank
 *         serves).
 * Every rank checks, in turn: the same items (TDM_OK); rank 1 with another value of
 * "b" (and rank 2, where there is one, with another of "a"): every rank names rank 1,
 * "b" and both values; rank 1 without "c"; rank 1 with an extra "d"; an item without
 * a value, refused alike everywhere before anything is sent; and the same items
 * again, TDM_OK: a refusal leaves the job able to go on. A strategy of one process
 * agrees with itself. First, a job whose rank 1 waits by another deadline is refused
 * whatever the items, naming it (mpirun's MPMD form once left a server waiting
 * minutes for a worker the chief had dropped). */
#include <string.h>

#include "harness.h"

#define TIMEOUT_S 30.0

static const tdm_agreement_item same[] = {{"a", "1"}, {"b", "2"}, {"c", "3"}};

static void check_agreement(tdm_strategy *s, size_t rank)
{
    CHECK_OK(tdm_strategy_check_agreement(s, same, 3));

    tdm_agreement_item other[] = {same[0], same[1], same[2], {"d", "4"}};
    other[1].value = rank == 1 ? "20" : other[1].value;
    other[0].value = rank == 2 ? "10" : other[0].value;
    CHECK_FAILS(tdm_strategy_check_agreement(s, other, 3), TDM_ERR_INVALID_ARGUMENT,
                "rank 1 differs from rank 0 in b: 20 against 2");

    CHECK_FAILS(tdm_strategy_check_agreement(s, same, rank == 1 ? 2 : 3), TDM_ERR_INVALID_ARGUMENT,
                "rank 1 differs from rank 0 in c: (none) against 3");

    tdm_agreement_item extra[] = {same[0], same[1], same[2], {"d", "4"}};
    CHECK_FAILS(tdm_strategy_check_agreement(s, extra, rank == 1 ? 4 : 3), TDM_ERR_INVALID_ARGUMENT,
                "rank 1 differs from rank 0 in d: 4 against (none)");

    tdm_agreement_item no_value[] = {{"a", NULL}};
    CHECK_FAILS(tdm_strategy_check_agreement(s, no_value, 1), TDM_ERR_INVALID_ARGUMENT,
                "item 0 has no value");

    CHECK_OK(tdm_strategy_check_agreement(s, same, 3));
}

/* A strategy of one process has no other to differ from; no strategy is refused. */
static void check_alone(tdm_device *dev, size_t rank)
{
    tdm_strategy *one = NULL;
    tdm_agreement_item mine[] = {{"rank", rank ? "not the chief" : "the chief"}};
    CHECK_OK(tdm_strategy_create_one_device(dev, NULL, &one));
    CHECK_OK(tdm_strategy_check_agreement(one, mine, 1));
    tdm_strategy_destroy(one);
    CHECK_FAILS(tdm_strategy_check_agreement(NULL, mine, 1), TDM_ERR_INVALID_ARGUMENT,
                "'s' is NULL");
}

void test_case_job_agreement(const test_run *run)
{
    size_t rank = test_mpi_rank();
    tdm_context *ctx = test_context(test_scenario_backends(run->argv[0]));
    tdm_device *devs[3];
    tdm_strategy_options o;
    if (!test_mpi_start(ctx, run->argv[0], rank, TIMEOUT_S, devs, &o)) {
        tdm_context_destroy(ctx);
        return;
    }
    tdm_strategy *s = NULL;
    int workers = !strcmp(run->argv[1], "workers");
    tdm_strategy_options late = o;
    late.collective_timeout = rank == 1 ? TIMEOUT_S + 1 : TIMEOUT_S;
    if (workers)
        CHECK_OK(tdm_strategy_create_multi_worker(ctx, devs, 1, &late, &s));
    else
        CHECK_OK(tdm_strategy_create_parameter_server_job(ctx, devs, 1, 1, &late, &s));
    if (s)
        CHECK_FAILS(tdm_strategy_check_agreement(s, same, 3), TDM_ERR_INVALID_ARGUMENT,
                    "rank 1 differs from rank 0 in the job's deadline (collective_timeout, "
                    "TDM_COLLECTIVE_TIMEOUT): 31 s against 30 s");
    tdm_strategy_destroy(s);
    s = NULL;
    if (workers)
        CHECK_OK(tdm_strategy_create_multi_worker(ctx, devs, 1, &o, &s));
    else
        CHECK_OK(tdm_strategy_create_parameter_server_job(ctx, devs, 1, 1, &o, &s));
    if (s)
        check_agreement(s, rank);
    check_alone(devs[0], rank);
    tdm_strategy_destroy(s);
    tdm_context_destroy(ctx);
    if (test_failures == 0)
        printf("rank %zu: PASS\n", rank);
}
