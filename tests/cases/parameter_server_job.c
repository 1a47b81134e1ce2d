/* The parameter-server strategy across processes, under mpirun:
 *   parameter_server_job SCENARIO DIGITS_CSV MODE
 * The last rank is the parameter server (Adam, on its first SCENARIO device); the
 * others are workers, each training the digits MLP on its shard of the data on its
 * SCENARIO devices (rank r: 1 + r % 2 of them).
 *   MODE  train        every worker's loss falls and its test accuracy passes 85 %;
 *                      the server applied one push per worker step, and a worker's
 *                      last global step counts the other workers' steps too;
 *         ordered      as train, with the pushes in turn (ordered_pushes): worker
 *                      r's last global step is exactly (STEPS - 1) * workers + r + 1;
 *         refuse       worker 1 builds a wider model: the server refuses it alone
 *                      (TDM_ERR_REMOTE naming the variable), worker 0 trains;
 *         lost_server  the server exits before serving: the workers fail with
 *                      TDM_ERR_TIMEOUT naming its rank and role within the 2 s bound;
 *         lost_worker  worker 1 exits after joining, in a job that tolerates lost
 *                      workers: the server drops it once it has been silent 2 s, and
 *                      serves worker 0's pushes alone to the end.
 * Each surviving rank prints "rank R: PASS" or its failures (mpi_ranks_pass.sh). */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"

#define TIMEOUT_S 2.0
#define STEPS 60

static tdm_model *make_model(tdm_strategy *s, size_t hidden)
{
    tdm_layer layers[] = {TDM_DENSE(hidden, TDM_ACT_RELU, 0.0f),
                          TDM_DENSE(10, TDM_ACT_LINEAR, 0.0f)};
    tdm_model_options mo = TDM_MODEL_OPTIONS_INIT;
    mo.input_features = 64;
    mo.layers = layers;
    mo.layer_count = 2;
    mo.seed = 11;
    tdm_model *m = NULL;
    CHECK_OK(tdm_model_create(s, &mo, &m));
    return m;
}

static tdm_optimizer *make_optimizer(tdm_strategy *s)
{
    tdm_optimizer_options oo = TDM_OPTIMIZER_OPTIONS_INIT;
    oo.kind = TDM_OPT_ADAM;
    oo.learning_rate.initial = 0.01f;
    tdm_optimizer *opt = NULL;
    CHECK_OK(tdm_optimizer_create(s, &oo, &opt));
    return opt;
}

/* The server: serves until every worker is done (or, in the fault modes, fails). */
static void serve(tdm_strategy *s, const char *mode, size_t rank)
{
    if (!strcmp(mode, "lost_server")) {
        printf("rank %zu: leaving without serving\n", rank);
        fflush(stdout);
        _exit(0);
    }
    tdm_model *m = make_model(s, 32);
    tdm_optimizer *opt = make_optimizer(s);
    double t0 = test_seconds();
    tdm_status st = opt && m ? tdm_optimizer_serve(opt) : TDM_ERR_INVALID_STATE;
    fprintf(stderr, "rank %zu (server): %s after %.2f s: %s\n", rank, tdm_status_str(st),
            test_seconds() - t0, st ? tdm_last_error() : "");
    size_t workers = tdm_strategy_num_workers(s);
    CHECK_OK(st);
    /* One optimizer step per push of every worker that joined and stayed. */
    size_t joined = !strcmp(mode, "refuse") || !strcmp(mode, "lost_worker") ? workers - 1 : workers;
    CHECK(opt && tdm_optimizer_iterations(opt) == joined * STEPS);
    tdm_optimizer_destroy(opt);
    tdm_model_destroy(m);
}

static tdm_dataset *shard_of(const char *path, size_t workers, size_t index, tdm_dataset **test)
{
    tdm_dataset *all = NULL, *train = NULL;
    CHECK_OK(tdm_dataset_from_csv(path, NULL, &all));
    CHECK_OK(tdm_dataset_split(all, 0.8, &train, test));
    float mean[64], std[64];
    CHECK_OK(tdm_dataset_feature_stats(train, mean, std));
    CHECK_OK(tdm_dataset_standardize(train, mean, std));
    CHECK_OK(tdm_dataset_standardize(*test, mean, std));
    CHECK_OK(tdm_dataset_shard(train, workers, index));
    CHECK_OK(tdm_dataset_shuffle(train, 7 + index));
    CHECK_OK(tdm_dataset_batch(train, 32, 0));
    CHECK_OK(tdm_dataset_repeat(train, -1));
    CHECK_OK(tdm_dataset_batch(*test, 512, 0));
    tdm_dataset_destroy(all);
    return train;
}

static void work(tdm_strategy *s, const char *path, const char *mode, size_t rank)
{
    size_t workers = tdm_strategy_num_workers(s);
    tdm_dataset *test = NULL, *train = shard_of(path, workers, rank, &test);
    int refused = !strcmp(mode, "refuse") && rank == 1;
    tdm_model *m = make_model(s, refused ? 48 : 32);
    tdm_optimizer *opt = make_optimizer(s);
    tdm_train_op_options to = TDM_TRAIN_OP_OPTIONS_INIT;
    to.loss_fn = tdm_model_loss;
    to.loss_user = m;
    to.optimizer = opt;
    to.seed = 3;
    tdm_train_op *op = NULL;
    tdm_status st = tdm_train_op_create(s, &to, &op);
    if (refused) {
        CHECK(st == TDM_ERR_REMOTE && strstr(tdm_last_error(), "dense0/kernel") &&
              strstr(tdm_last_error(), "another size"));
        fprintf(stderr, "rank %zu: refused as expected: %s\n", rank, tdm_last_error());
    } else if (!strcmp(mode, "lost_server")) {
        CHECK(st == TDM_ERR_TIMEOUT &&
              strstr(tdm_last_error(), "rank 2 (parameter server 0) stopped answering") != NULL);
        fprintf(stderr, "rank %zu: %s\n", rank, tdm_last_error());
    } else {
        CHECK_OK(st);
    }
    if (!strcmp(mode, "lost_worker") && rank == 1)
        _exit(0); /* joined, never says goodbye */
    double first = 0.0, last = 0.0;
    tdm_distributed_dataset *dist = NULL;
    tdm_distributed_iterator *it = NULL;
    if (op) {
        CHECK_OK(tdm_distribute_dataset(s, train, NULL, &dist));
        CHECK_OK(tdm_distributed_iterator_create(dist, &it));
    }
    for (size_t k = 0; op && it && k < STEPS; k++) {
        const tdm_distributed_batch *b = NULL;
        double loss = 0.0;
        CHECK_OK(tdm_distributed_iterator_next(it, &b));
        CHECK_OK(tdm_train_op_run(op, b, &loss));
        first = k == 0 ? loss : first;
        last = loss;
    }
    if (op) {
        tdm_evaluation ev = {0};
        CHECK_OK(tdm_model_evaluate(m, test, &ev));
        uint64_t step = tdm_train_op_global_step(op);
        fprintf(stderr, "rank %zu: loss %.4f -> %.4f, test accuracy %.4f, global step %llu\n", rank,
                first, last, ev.accuracy, (unsigned long long)step);
        CHECK(last < 0.5 * first && ev.accuracy > 0.85);
        CHECK(step >= STEPS && step <= workers * STEPS);
        if (!strcmp(mode, "ordered"))
            CHECK(step == (STEPS - 1) * workers + rank + 1);
    }
    tdm_distributed_iterator_destroy(it);
    tdm_distributed_dataset_destroy(dist);
    tdm_train_op_destroy(op); /* says goodbye */
    tdm_optimizer_destroy(opt);
    tdm_model_destroy(m);
    tdm_dataset_destroy(train);
    tdm_dataset_destroy(test);
}

void test_case_parameter_server_job(const test_run *run)
{
    size_t rank = test_mpi_rank();
    tdm_context *ctx = test_context(test_scenario_backends(run->argv[0]));
    tdm_device *devs[3];
    tdm_strategy_options o;
    /* the fault modes wait TIMEOUT_S for the rank that is gone; the others allow for a
     * slow first step (PoCL compiling its kernels under the sanitizers) */
    double timeout = strncmp(run->argv[2], "lost_", 5) == 0 ? TIMEOUT_S : 30.0;
    size_t have = test_mpi_start(ctx, run->argv[0], rank, timeout, devs, &o), local = 1 + rank % 2;
    if (!have) {
        tdm_context_destroy(ctx);
        return;
    }
    o.ordered_pushes = !strcmp(run->argv[2], "ordered");
    o.tolerate_lost_workers = !strcmp(run->argv[2], "lost_worker");
    tdm_strategy *s = NULL;
    CHECK_OK(tdm_strategy_create_parameter_server_job(ctx, devs, local < have ? local : have, 1, &o,
                                                      &s));
    if (s) {
        CHECK(tdm_strategy_num_parameter_servers(s) == 1);
        CHECK(tdm_strategy_is_chief(s) == (rank == 0));
        if (tdm_strategy_is_parameter_server(s))
            serve(s, run->argv[2], rank);
        else
            work(s, run->argv[1], run->argv[2], rank);
    }
    tdm_strategy_destroy(s);
    tdm_context_destroy(ctx);
    if (test_failures == 0)
        printf("rank %zu: PASS\n", rank);
}
