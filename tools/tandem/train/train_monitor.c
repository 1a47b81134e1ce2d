/* tandem train: the monitor, its checkpoints of the epoch history and the run's
 * configuration, and --resume. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train_config.h"
#include "train_session.h"

/* Per finished epoch: train loss, test loss, test accuracy (a regression's: R^2).
 * Times and a regression's errors are not kept, so
 * that a resumed run's checkpoints equal an uninterrupted run's byte for byte. */
#define HISTORY_COLUMNS 3

/* A run a signal stopped inside an epoch: the steps of it done and their sums, so
 * that the resumed run reports the epoch as a run never stopped would (the loss sum
 * bit for bit). */
static tdm_status save_epoch_part(tdm_checkpoint_writer *w, const epoch_state *e)
{
    uint64_t loss_bits;
    memcpy(&loss_bits, &e->loss_sum, sizeof loss_bits);
    tdm_status s = tdm_checkpoint_add_u64(w, "cli/epoch_steps", e->steps);
    if (s == TDM_OK)
        s = tdm_checkpoint_add_u64(w, "cli/epoch_examples", e->examples);
    return s == TDM_OK ? tdm_checkpoint_add_u64(w, "cli/epoch_loss_sum_bits", loss_bits) : s;
}

/* The part of an epoch a stopped run saved, where it saved one. */
static tdm_status restore_epoch_part(const tdm_checkpoint *c, train_session *ts)
{
    uint64_t steps = 0, examples = 0, loss_bits = 0;
    ts->resumed_steps = 0;
    tdm_status s = tdm_checkpoint_read_u64(c, "cli/epoch_steps", &steps);
    if (s == TDM_ERR_NOT_FOUND)
        return TDM_OK; /* saved at the end of an epoch */
    if (s == TDM_OK)
        s = tdm_checkpoint_read_u64(c, "cli/epoch_examples", &examples);
    if (s == TDM_OK)
        s = tdm_checkpoint_read_u64(c, "cli/epoch_loss_sum_bits", &loss_bits);
    if (s != TDM_OK)
        return s;
    if (steps >= ts->data.steps_per_epoch) {
        snprintf(ts->refusal, sizeof ts->refusal,
                 "cli/epoch_steps holds %llu, not fewer than the epoch's %llu steps",
                 (unsigned long long)steps, (unsigned long long)ts->data.steps_per_epoch);
        return TDM_ERR_INVALID_ARGUMENT;
    }
    ts->resumed_steps = steps;
    ts->current.steps = (size_t)steps;
    ts->current.examples = (size_t)examples;
    memcpy(&ts->current.loss_sum, &loss_bits, sizeof loss_bits);
    return TDM_OK;
}

static tdm_status save_history(tdm_checkpoint_writer *w, void *user)
{
    train_session *ts = user;
    size_t n = ts->epochs_done;
    float *h = malloc((n ? n : 1) * HISTORY_COLUMNS * sizeof *h);
    if (!h)
        return TDM_ERR_OUT_OF_MEMORY;
    for (size_t e = 0; e < n; e++) {
        h[e * HISTORY_COLUMNS] = (float)ts->history[e].train_loss;
        h[e * HISTORY_COLUMNS + 1] = (float)ts->history[e].test_loss;
        h[e * HISTORY_COLUMNS + 2] = (float)(ts->history[e].regression ? ts->history[e].test_r2
                                                                        : ts->history[e].test_accuracy);
    }
    tdm_status s = tdm_checkpoint_add(w, "cli/history", TDM_F32, &TDM_SHAPE(n, HISTORY_COLUMNS), h);
    free(h);
    if (s == TDM_OK && ts->stopped)
        s = save_epoch_part(w, &ts->current);
    return s == TDM_OK ? train_config_save(ts, w) : s;
}

/* Before the training state is restored: the configuration first, then the epochs
 * finished, as many as the history holds (a parameter-server job's global step
 * counts every worker's steps, so it tells no epoch). */
static tdm_status restore_history(const tdm_checkpoint *c, void *user)
{
    train_session *ts = user;
    if (train_config_check(ts, c, ts->refusal, sizeof ts->refusal) != 0)
        return TDM_ERR_INVALID_ARGUMENT;
    tdm_dtype dtype;
    tdm_shape shape;
    tdm_status s = tdm_checkpoint_tensor_shape(c, "cli/history", &dtype, &shape);
    if (s != TDM_OK)
        return s;
    size_t n = shape.rank == 2 ? shape.dims[0] : 0;
    if (n > ts->opts->epochs)
        n = ts->opts->epochs;
    float *h = malloc((n ? n : 1) * HISTORY_COLUMNS * sizeof *h);
    if (!h)
        return TDM_ERR_OUT_OF_MEMORY;
    s = tdm_checkpoint_read(c, "cli/history", TDM_F32, &TDM_SHAPE(n, HISTORY_COLUMNS), h,
                            n * HISTORY_COLUMNS * sizeof *h);
    int regression = train_is_regression(ts->opts, &ts->data);
    for (size_t e = 0; s == TDM_OK && e < n; e++) {
        double score = h[e * HISTORY_COLUMNS + 2];
        ts->history[e] = (train_epoch){.epoch = (unsigned)e + 1,
                                       .train_loss = h[e * HISTORY_COLUMNS],
                                       .test_loss = h[e * HISTORY_COLUMNS + 1],
                                       .test_accuracy = regression ? 0.0 : score,
                                       .seconds = NAN,
                                       .examples_per_second = NAN,
                                       .eval_seconds = NAN,
                                       .regression = regression,
                                       .text = ts->data.text,
                                       .test_mae = NAN,
                                       .test_rmse = NAN,
                                       .test_r2 = regression ? score : 0.0};
    }
    if (s == TDM_OK)
        ts->epochs_done = (unsigned)n;
    free(h);
    return s == TDM_OK ? restore_epoch_part(c, ts) : s;
}

/* A damaged checkpoint that --resume passed over: said on stderr, where it is kept. */
static void on_damaged(const char *path, const char *kept_as, const char *reason, void *user)
{
    (void)user;
    fprintf(stderr,
            "tandem train: --resume: %s is damaged and was not used: %s\n"
            "tandem train: --resume: it is kept as %s; trying the next older checkpoint\n",
            path, reason, kept_as);
}

int train_monitor_resume(train_session *ts)
{
    if (!ts->opts->resume)
        return 0;
    int restored = 0;
    uint64_t step = 0;
    if (tdm_monitor_restore(ts->monitor, &restored, &step) != TDM_OK) {
        fprintf(stderr, "tandem train: --resume: %s\n",
                ts->refusal[0] ? ts->refusal : tdm_last_error());
        return -1;
    }
    if (restored)
        printf("resumed from global step %llu (epoch %u of %u) in %s\n", (unsigned long long)step,
               ts->epochs_done, ts->opts->epochs, ts->opts->checkpoint_dir);
    else
        printf("no checkpoint in %s: starting afresh\n", ts->opts->checkpoint_dir);
    return 0;
}

void train_monitor_options(train_session *ts, tdm_monitor_options *mo)
{
    const train_options *o = ts->opts;
    *mo = (tdm_monitor_options)TDM_MONITOR_OPTIONS_INIT;
    mo->checkpoint_dir = o->checkpoint_dir;
    mo->progress = train_on_step;
    mo->progress_user = ts;
    mo->save_extra = save_history;
    mo->restore_extra = restore_history;
    mo->extra_user = ts;
    mo->damaged = on_damaged;
    mo->strategy = ts->strategy; /* multi-worker: the chief's directory, for every process */
    mo->trace_path = o->trace;
    mo->trace_first_step = o->trace_steps[0];
    mo->trace_last_step = o->trace_steps[1];
}
