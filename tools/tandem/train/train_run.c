/* tandem train: the epoch loop with its progress display, evaluation, checkpoints
 * and metrics after every epoch, and the plot and the saved model at the end. */
#include <stdio.h>

#include "checkpoint/output_file.h"
#include "metrics_file.h"
#include "plot_png.h"
#include "train_session.h"
#include "platform/tdm_host.h"
#include "platform/tdm_stop_signal.h"

#define STOPPED 1 /* run_epoch: a signal stopped the run */

static double now(void)
{
    return (double)tdm_host_now_ns() * 1e-9;
}

/* After every step: the bar; a stop signal stops the run after this step. */
int train_on_step(const tdm_step_result *r, void *user)
{
    train_session *ts = user;
    epoch_state *e = &ts->current;
    train_tensorboard_step(ts, r);
    e->steps += r->steps;
    e->examples += r->examples;
    e->loss_sum += r->loss * (double)r->steps;
    progress_step(&e->bar, e->epoch, e->steps, e->loss_sum / (double)e->steps, e->examples,
                  now() - e->start);
    return tdm_stop_signal_received() != 0;
}

static int fail(const char *what)
{
    fprintf(stderr, "\ntandem train: %s: %s\n", what, tdm_last_error());
    return -1;
}

/* The metrics so far, with the run's record as it stands (the first step makes the
 * choices that wait for it): rewritten whole before the run and after every epoch
 * where the file is replaced; a device or FIFO, written in place, gets them once,
 * after the run. */
static int write_metrics(const train_session *ts, int after_run)
{
    char err[512];
    const char *path = ts->opts->metrics;
    if (!path || tdm_output_replaces(path) == after_run)
        return 0;
    run_record record;
    train_run_record(ts, &record);
    int written =
        metrics_write(path, &record.run, ts->history, ts->epochs_done, err, sizeof err) == 0;
    train_run_record_free(&record);
    if (written)
        return 0;
    fprintf(stderr, "\ntandem train: %s\n", err);
    return -1;
}

static int run_epoch(train_session *ts, epoch_state *e)
{
    if (!ts->resumed_steps) { /* else the sums of the steps a stopped run saved */
        e->steps = e->examples = 0;
        e->loss_sum = 0.0;
    }
    size_t examples_before = e->examples;
    e->start = now();
    uint64_t steps = ts->data.steps_per_epoch - ts->resumed_steps, done = 0;
    ts->resumed_steps = 0;
    tdm_status s = tdm_monitor_run_steps(ts->monitor, steps, &done);
    int stopped = s == TDM_ERR_CANCELLED &&
                  (tdm_stop_signal_received() || tdm_monitor_stopped_by_job(ts->monitor));
    if (stopped && done < steps)
        return STOPPED;
    if (s != TDM_OK && !stopped)
        return fail("training");
    /* The rate counts training alone: a large test set would hide it otherwise. */
    double trained = now(), seconds = trained - e->start;
    tdm_evaluation ev;
    if (tdm_evaluator_run(ts->evaluator, ts->data.test, &ev) != TDM_OK)
        return fail("evaluation");
    double rate = (double)(e->examples - examples_before) / seconds;
    train_epoch *rec = &ts->history[ts->epochs_done++];
    *rec = (train_epoch){.epoch = e->epoch,
                         .train_loss = e->steps ? e->loss_sum / (double)e->steps : 0.0,
                         .test_loss = ev.loss,
                         .test_accuracy = ev.accuracy,
                         .seconds = seconds,
                         .examples_per_second = rate,
                         .eval_seconds = now() - trained,
                         .regression = train_is_regression(ts->opts, &ts->data),
                         .text = ts->data.text,
                         .test_mae = ev.mae,
                         .test_rmse = ev.rmse,
                         .test_r2 = ev.r2};
    progress_epoch(&e->bar, rec, e->steps);
    if (ts->opts->checkpoint_dir && tdm_monitor_save(ts->monitor) != TDM_OK)
        return fail("checkpoint");
    if (write_metrics(ts, 0) || train_tensorboard_epoch(ts, rec))
        return -1;
    return stopped ? STOPPED : 0;
}

/* Whether the run's processes stop together: one alone, or a multi-worker job, whose
 * processes agree on the step (a parameter-server job's workers step apart: there
 * SIGTERM and SIGHUP end each at once). */
static int stops_together(const train_session *ts)
{
    return tdm_strategy_num_workers(ts->strategy) == 1 ||
           !tdm_strategy_num_parameter_servers(ts->strategy);
}

/* Stopped by a signal, here or in another process of the job (which stopped after the
 * same step): the step reached kept in a checkpoint where there is a folder, and
 * said on stderr. The exit status a shell gives a process the signal killed. */
static int stop(train_session *ts)
{
    const train_options *o = ts->opts;
    int together = stops_together(ts);
    /* At an epoch's end, its checkpoint is saved already; inside one, the checkpoint
     * holds the part of the epoch done (in a job, the chief writes it, every process
     * taking part where the optimizer state is sharded). */
    ts->stopped = ts->current.steps < ts->data.steps_per_epoch;
    int saved = o->checkpoint_dir && together &&
                (!ts->stopped || tdm_monitor_save(ts->monitor) == TDM_OK);
    int sig = tdm_stop_signal_received();
    fprintf(stderr, "\ntandem train: %s: stopped after global step %llu",
            sig ? tdm_stop_signal_name() : "another process of the job asked to stop",
            (unsigned long long)tdm_monitor_global_step(ts->monitor));
    if (saved)
        fprintf(stderr, ", checkpoint saved in %s; --resume continues from it\n",
                o->checkpoint_dir);
    else if (o->checkpoint_dir && together)
        fprintf(stderr, "; its checkpoint failed: %s\n", tdm_last_error());
    else
        fprintf(stderr, "%s\n", o->checkpoint_dir ? "; the last epoch's checkpoint stands" : "");
    return 128 + (sig ? sig : 15); /* as SIGTERM, which the scheduler sent the job */
}

/* A file the run wrote, said once on stderr (stdout carries the progress), so that
 * a run that writes is never silent about where. */
static void said_written(const char *path, const char *option)
{
    fprintf(stderr, "tandem train: wrote %s (%s)\n", path, option);
}

/* After the run: the plot, and the model when the run completed. */
static int write_outputs(const train_session *ts, int completed)
{
    char err[512];
    const train_options *o = ts->opts;
    if (o->plot && plot_write_png(o->plot, ts->history, ts->epochs_done, err, sizeof err)) {
        fprintf(stderr, "tandem train: %s\n", err);
        return -1;
    }
    if (o->plot)
        said_written(o->plot, "--plot");
    if (completed && o->save && tdm_model_save(ts->model, o->save) != TDM_OK) {
        fprintf(stderr, "tandem train: --save: %s\n", tdm_last_error());
        return -1;
    }
    if (completed && o->save)
        said_written(o->save, "--save");
    return 0;
}

int train_session_run(train_session *ts)
{
    const train_options *o = ts->opts;
    epoch_state *e = &ts->current;
    int tty = o->progress >= 0 ? o->progress : tdm_host_is_terminal(stdout);
    progress_begin(&e->bar, stdout, tty, o->epochs, ts->data.steps_per_epoch);
    /* A parameter-server job's processes would stop at steps of their own and wait on
     * each other: there SIGTERM and SIGHUP end each at once, as before. */
    tdm_stop_signal_catch(stops_together(ts));
    int status = write_metrics(ts, 0) || train_tensorboard_open(ts) ? -1 : 0;
    while (status == 0 && ts->epochs_done < o->epochs) {
        e->epoch = ts->epochs_done + 1;
        status = run_epoch(ts, e);
    }
    tdm_stop_signal_release();
    if (status == STOPPED && ts->epochs_done == o->epochs)
        status = 0; /* the signal came with the last step: the run is complete */
    int stopped = status == STOPPED ? stop(ts) : 0;
    int after = write_metrics(ts, 1);
    /* A failed write of the metrics has said so and ended the run (status -1). */
    if (o->metrics && after == 0 && (status == 0 || status == STOPPED))
        said_written(o->metrics, "--metrics");
    int closed = train_tensorboard_close(ts);
    if (o->tensorboard && closed == 0 && (status == 0 || status == STOPPED))
        said_written(o->tensorboard, "--tensorboard");
    int failed = write_outputs(ts, status == 0) || status < 0 || after || closed;
    return stopped ? stopped : failed ? 1 : 0;
}
