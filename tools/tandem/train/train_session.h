/* tandem train: the objects of one training run, built from the options. */
#ifndef TANDEM_CLI_TRAIN_SESSION_H
#define TANDEM_CLI_TRAIN_SESSION_H

#include "fifo_hold.h"
#include "tandem/monitor.h"
#include "tandem/tandem.h"
#include "progress.h"
#include "train_data.h"
#include "train_report.h"

/* The epoch in progress, for the progress display. */
typedef struct epoch_state {
    progress bar;
    unsigned epoch;
    size_t steps, examples;
    double loss_sum, start;
} epoch_state;

#define RUN_OPTIONS 32

/* The run as its metrics file records it (train_run_info.c). */
typedef struct run_record {
    train_run run;
    char version[16];
    char device_text[MAX_SELECTED][320];
    const char *devices[MAX_SELECTED];
    const char *names[RUN_OPTIONS], *values[RUN_OPTIONS];
    char *owned[RUN_OPTIONS];
} run_record;

typedef struct train_session {
    const train_options *opts; /* the caller's, or worker_opts */
    train_options worker_opts; /* a multi-worker job's non-chief: no files written */
    train_data data;
    tdm_context *ctx;
    tdm_strategy *strategy;
    tdm_model *model;
    tdm_strategy *eval_strategy; /* --eval-devices, else NULL */
    tdm_evaluator *evaluator;    /* the model under eval_strategy, or the model itself */
    tdm_training *training; /* the optimizer, train op, step and monitor below, or NULL (a
                               parameter-server process: the optimizer alone, owned) */
    tdm_optimizer *optimizer;
    tdm_train_op *op;
    tdm_step *step;
    tdm_monitor *monitor;
    train_epoch *history; /* [opts->epochs] */
    unsigned epochs_done;
    uint64_t resumed_steps; /* steps of the next epoch that a resumed checkpoint holds */
    int stopped;            /* by a signal (platform/tdm_stop_signal.h) inside an epoch */
    epoch_state current;
    char refusal[2048]; /* why --resume refused a checkpoint's configuration */
    fifo_holds fifos;   /* --metrics and --trace where they stream into FIFOs */
    /* --tensorboard's train and validation runs, and a step's failed write, which the
     * epoch's end says */
    tdm_summary_writer *tensorboard[2];
    char tensorboard_error[512];
} train_session;

/* Builds everything; 0, or the exit status after printing why (the session is then
 * freed): 2 when the processes of a job were started with options or data that
 * differ, else 1. */
int train_session_open(const train_options *o, train_session *ts);

/* How replica r's layers compute, into text: its convolutions layer by layer,
 * ", convolutions conv0 direct, conv2 lowered", and with --mixed-precision its
 * products' precision, "; products conv0 f16, dense4 f32" (either "measured at the
 * first step" before it); empty where there is nothing to say. */
void train_describe_choices(const train_session *ts, size_t r, char *text, size_t size);
/* The same, printed. */
void train_print_choices(const train_session *ts, size_t r);
void train_session_close(train_session *ts);

/* Fills the record of the session's run. */
void train_run_record(const train_session *ts, run_record *r);
void train_run_record_free(run_record *r);

/* The monitor's options: the history of finished epochs in each checkpoint, the
 * progress callback, the trace (train_monitor.c). */
void train_monitor_options(train_session *ts, tdm_monitor_options *mo);
/* With --resume, restores the newest checkpoint; 0, or -1 after saying why. */
int train_monitor_resume(train_session *ts);

/* The monitor's progress callback (user: the session). */
int train_on_step(const tdm_step_result *r, void *user);

/* --tensorboard (train_tensorboard.c): open makes DIR/train and DIR/validation; step
 * writes a step's batch_loss with --tensorboard-every, a failure kept for the epoch's
 * end; epoch writes a finished epoch's scalars and flushes; close closes them. Open,
 * epoch and close: 0, or -1 after saying why. Each does nothing without the option. */
int train_tensorboard_open(train_session *ts);
void train_tensorboard_step(train_session *ts, const tdm_step_result *r);
int train_tensorboard_epoch(train_session *ts, const train_epoch *e);
int train_tensorboard_close(train_session *ts);

/* Runs the remaining epochs with progress output. The exit status: 0; 1 after
 * printing why; 128 + n after a signal n stopped the run (platform/tdm_stop_signal.h). */
int train_session_run(train_session *ts);

#endif
