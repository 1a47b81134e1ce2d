/* tandem: the monitor, which runs a step until a count or the end of the input,
 * writes periodic checkpoints, and resumes from the newest complete one. */
#ifndef TANDEM_MONITOR_H
#define TANDEM_MONITOR_H

#include "tandem/step.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tdm_monitor tdm_monitor;

/* Called after every call of the step; a non-zero return stops the run (cancel). */
typedef int (*tdm_monitor_progress_fn)(const tdm_step_result *r, void *user);

/* Told, by tdm_monitor_restore, of a damaged checkpoint that it renamed aside before
 * trying the next older one: its path, the path it is kept under, and why it was
 * refused (the verification's message). */
typedef void (*tdm_monitor_damaged_fn)(const char *path, const char *kept_as, const char *reason,
                                       void *user);

typedef struct tdm_monitor_options {
    size_t size;                /* sizeof(tdm_monitor_options) */
    const char *checkpoint_dir; /* NULL: no checkpoints */
    uint64_t checkpoint_every;  /* global steps between checkpoints; 0: only
                                   tdm_monitor_save */
    size_t keep;                /* newest checkpoints kept; default 3 */
    tdm_monitor_progress_fn progress;
    void *progress_user;
    /* Extra state of the caller in each checkpoint (both or neither). restore_extra
     * runs before the step's state is restored, so that it can refuse a checkpoint
     * (of another configuration, say) before anything changes. */
    tdm_status (*save_extra)(tdm_checkpoint_writer *w, void *user);
    tdm_status (*restore_extra)(const tdm_checkpoint *c, void *user);
    void *extra_user;
    tdm_monitor_damaged_fn damaged; /* may be NULL */
    void *damaged_user;
    tdm_strategy *strategy; /* a multi-worker job's strategy: its chief alone reads and
                               writes checkpoint_dir, and restoring gives every other
                               process the chief's checkpoint (no shared directory
                               needed); they save nothing, but where the step's
                               train op shards the optimizer state they hold parts
                               of it: then creating the monitor is a collective of
                               the job, and the others take the chief's schedule
                               and join its saves. NULL: this process alone */
    /* A timeline of the global steps trace_first_step to trace_last_step in trace_path
     * (tdm_train_op_trace): the step must be a single-loss step. The file is written
     * when the window closes, and at the end of tdm_monitor_run_steps while it is
     * open. NULL: none */
    const char *trace_path;
    uint64_t trace_first_step, trace_last_step; /* default 1 and 20 */
} tdm_monitor_options;

#define TDM_MONITOR_OPTIONS_INIT                                                                   \
    {                                                                                              \
        .size = sizeof(tdm_monitor_options), .keep = 3, .trace_first_step = 1,                     \
        .trace_last_step = 20                                                                      \
    }

/* The monitor of a step (borrowed); a checkpoint directory needs a checkpointable
 * step. The directory is created if missing (one level) and locked until the monitor
 * is destroyed (or its process ends, however it ends): a second monitor on it, in this
 * process or another, fails with TDM_ERR_INVALID_STATE naming the holder (program,
 * pid, host and start), so two runs never replace each other's checkpoints. */
TDM_API tdm_status tdm_monitor_create(tdm_step *step, const tdm_monitor_options *opts,
                                      tdm_monitor **out);
TDM_API void tdm_monitor_destroy(tdm_monitor *m); /* NULL-safe */

/* Restores the newest usable checkpoint of the directory: *restored is 1 and
 * *global_step its step, or 0 when there is none. Every checkpoint newer than the one
 * restored was damaged: verified whole, each file that failed (a damaged or truncated
 * record, header or footer, no regular file, or a name, header and global step that
 * disagree) was renamed to <name>.damaged (never overwritten, never read again) and
 * reported through options.damaged. A checkpoint of a newer format version is
 * TDM_ERR_CORRUPT_DATA naming both versions; a checkpoint refused by restore_extra
 * or the step, or a file system error, is returned as it is: none of those falls
 * back. */
TDM_API tdm_status tdm_monitor_restore(tdm_monitor *m, int *restored, uint64_t *global_step);

/* Runs the step until n training steps ran (n 0: no limit) or the input ended:
 * both end normally, with *done (may be NULL) the steps run. A checkpoint is written
 * whenever the global step passes a multiple of checkpoint_every, and at the end of
 * the input. A progress callback asking to stop, or tdm_monitor_cancel, ends it with
 * TDM_ERR_CANCELLED after the step in progress. In a multi-worker job (options.strategy)
 * every process stops after the same global step: a stop asked in any process is
 * compared every 8 global steps and at the end of each call, every process then
 * returning TDM_ERR_CANCELLED (so a job stopped by a scheduler's SIGTERM checkpoints
 * once, at one step, rather than its processes waiting on each other). */
TDM_API tdm_status tdm_monitor_run_steps(tdm_monitor *m, uint64_t n, uint64_t *done);

/* Whether the input has ended. */
TDM_API int tdm_monitor_input_exhausted(const tdm_monitor *m);

/* The global step after the last step run or restored. */
TDM_API uint64_t tdm_monitor_global_step(const tdm_monitor *m);

/* Writes a checkpoint now (the directory must be set). In a multi-worker job
 * (options.strategy) only the chief writes; the others return TDM_OK, or where the
 * train op shards the optimizer state and the chief has a directory, send it their
 * parts: then every process calls it together. */
TDM_API tdm_status tdm_monitor_save(tdm_monitor *m);

/* Asks a run_steps in progress (on another thread) to stop after its current step
 * (in a multi-worker job, after the step at which the processes agree). Thread-safe. */
TDM_API void tdm_monitor_cancel(tdm_monitor *m);

/* 1 when the last run_steps stopped because another process of the multi-worker job
 * asked to, not this one. */
TDM_API int tdm_monitor_stopped_by_job(const tdm_monitor *m);

#ifdef __cplusplus
}
#endif

#endif
