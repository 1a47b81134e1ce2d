/* tandem train --tensorboard DIR: the epochs' scalars as Keras' TensorBoard callback
 * writes them, in TensorBoard event files (tandem/summary.h): DIR/train/ gets
 * epoch_loss and epoch_learning_rate, DIR/validation/ the evaluation's epoch_loss and
 * epoch_accuracy (a regression: epoch_mae, epoch_rmse, epoch_r2), the values the
 * metrics file gets, each at the epoch's index from 0 (Keras' step). With
 * --tensorboard-every N, DIR/train/ also gets batch_loss every N global steps: the
 * loss the step returns to the host for the progress display anyway. */
#include <stdio.h>
#include <string.h>

#include "train_session.h"

enum { TRAIN, VALIDATION };
static const char *const run_names[] = {"train", "validation"};

/* The first failure, said once at the epoch's end that follows it. */
static void keep_error(train_session *ts)
{
    if (!ts->tensorboard_error[0])
        snprintf(ts->tensorboard_error, sizeof ts->tensorboard_error, "%s", tdm_last_error());
}

int train_tensorboard_open(train_session *ts)
{
    const char *dir = ts->opts->tensorboard;
    for (int run = TRAIN; dir && run <= VALIDATION; run++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, run_names[run]);
        if (tdm_summary_open(path, &ts->tensorboard[run]) != TDM_OK) {
            fprintf(stderr, "tandem train: --tensorboard: %s\n", tdm_last_error());
            return -1;
        }
    }
    return 0;
}

void train_tensorboard_step(train_session *ts, const tdm_step_result *r)
{
    uint64_t every = ts->opts->tensorboard_every;
    if (!ts->tensorboard[TRAIN] || !every || r->global_step % every != 0)
        return;
    if (tdm_summary_scalar(ts->tensorboard[TRAIN], "batch_loss", (int64_t)r->global_step,
                           r->loss) != TDM_OK)
        keep_error(ts);
}

int train_tensorboard_epoch(train_session *ts, const train_epoch *e)
{
    tdm_summary_writer *train = ts->tensorboard[TRAIN], *validation = ts->tensorboard[VALIDATION];
    if (!train)
        return 0;
    int64_t step = (int64_t)e->epoch - 1;
    const char *tags[] = {"epoch_loss", "epoch_mae", "epoch_rmse", "epoch_r2"};
    const double values[] = {e->test_loss, e->test_mae, e->test_rmse, e->test_r2};
    tdm_status s = tdm_summary_scalar(train, "epoch_loss", step, e->train_loss);
    if (s == TDM_OK)
        s = tdm_summary_scalar(train, "epoch_learning_rate", step,
                               tdm_optimizer_learning_rate(ts->optimizer));
    size_t count = e->regression ? 4 : 1;
    for (size_t i = 0; s == TDM_OK && i < count; i++)
        s = tdm_summary_scalar(validation, tags[i], step, values[i]);
    if (s == TDM_OK && !e->regression)
        s = tdm_summary_scalar(validation, "epoch_accuracy", step, e->test_accuracy);
    if (s == TDM_OK)
        s = tdm_summary_flush(train);
    if (s == TDM_OK)
        s = tdm_summary_flush(validation);
    if (s != TDM_OK)
        keep_error(ts);
    if (!ts->tensorboard_error[0])
        return 0;
    fprintf(stderr, "\ntandem train: --tensorboard: %s\n", ts->tensorboard_error);
    return -1;
}

int train_tensorboard_close(train_session *ts)
{
    int failed = 0;
    for (int run = TRAIN; run <= VALIDATION; run++) {
        if (ts->tensorboard[run] && tdm_summary_close(ts->tensorboard[run]) != TDM_OK) {
            fprintf(stderr, "tandem train: --tensorboard: %s\n", tdm_last_error());
            failed = 1;
        }
        ts->tensorboard[run] = NULL;
    }
    return failed ? -1 : 0;
}
