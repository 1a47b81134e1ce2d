/* The monitor: runs a step, reports progress and writes periodic checkpoints into a
 * directory it holds locked for the run (monitor_restore.c restores them). */
#include <stdlib.h>
#include <string.h>

#include "checkpoint/checkpoint_files.h"
#include "checkpoint/path_links.h"
#include "base/error.h"
#include "distribute/variable_access.h"
#include "monitor/monitor_impl.h"
#include "train_op/train_op_impl.h"

/* Global steps between a multi-worker job's comparisons of a stop asked: a host
 * all-reduce of one float each time, and a stop that comes at most this many steps
 * after it was asked. */
#define STOP_AGREE_EVERY 8

static tdm_status check_options(const tdm_step *step, const tdm_monitor_options *o)
{
    const char *f = "tdm_monitor_create";
    if (o->size != sizeof *o)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: options.size is %zu, expected %zu: use "
                        "TDM_MONITOR_OPTIONS_INIT",
                        f, o->size, sizeof *o);
    if (o->checkpoint_dir && !tdm_step_checkpointable(step))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: checkpoints need a step with save and restore", f);
    if (!o->save_extra != !o->restore_extra)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: save_extra and restore_extra go together",
                        f);
    if (o->trace_path && !tdm_step_train_op(step))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: trace_path needs a single-loss step, whose train op it traces", f);
    return TDM_OK;
}

/* A multi-worker job whose train op shards the slots saves together, since every
 * process holds a part of them: the followers take the chief's schedule (whether it
 * checkpoints, and how often), so that they join each of its saves. */
static tdm_status share_schedule(tdm_monitor *m, const tdm_monitor_options *o)
{
    tdm_train_op *op = tdm_step_train_op(m->step);
    if (!o->strategy || tdm_strategy_num_workers(o->strategy) < 2 || !op || !op->shards)
        return TDM_OK;
    uint64_t plan[2] = {o->checkpoint_dir != NULL, o->checkpoint_every};
    tdm_status s = tdm_strategy_broadcast_host(o->strategy, plan, sizeof plan);
    if (s == TDM_OK && m->follower) {
        m->joins = plan[0] != 0;
        m->opts.checkpoint_every = plan[1];
    }
    return s == TDM_OK ? s : tdm_fail_context(s, "tdm_monitor_create: the chief's checkpoints");
}

tdm_status tdm_monitor_create(tdm_step *step, const tdm_monitor_options *opts, tdm_monitor **out)
{
    TDM_CHECK_ARG(out, "tdm_monitor_create");
    *out = NULL;
    TDM_CHECK_ARG(step, "tdm_monitor_create");
    TDM_CHECK_ARG(opts, "tdm_monitor_create");
    tdm_status s = check_options(step, opts);
    if (s != TDM_OK)
        return s;
    tdm_monitor *m = calloc(1, sizeof *m);
    if (!m || (opts->checkpoint_dir && !(m->dir = strdup(opts->checkpoint_dir)))) {
        free(m);
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_monitor_create: out of host memory");
    }
    m->step = step;
    m->opts = *opts;
    m->follower = opts->strategy && tdm_strategy_num_workers(opts->strategy) > 1 &&
                  !tdm_strategy_is_chief(opts->strategy);
    /* a multi-worker job's processes step together, so they can stop together (a
     * parameter-server job's workers step apart) */
    m->agrees = opts->strategy && tdm_strategy_num_workers(opts->strategy) > 1 &&
                !tdm_strategy_num_parameter_servers(opts->strategy);
    if (m->follower) { /* the chief's alone */
        free(m->dir);
        m->dir = NULL;
    }
    m->opts.checkpoint_dir = m->dir;
    m->opts.keep = opts->keep ? opts->keep : 3;
    m->lock = -1;
    s = share_schedule(m, opts);
    /* Held until destroyed: a second run in the directory would replace our files. */
    if (m->dir && s == TDM_OK)
        s = tdm_ckpt_os_make_dir(m->dir, "tdm_monitor_create");
    if (m->dir && s == TDM_OK)
        s = tdm_ckpt_os_lock_dir(m->dir, "tdm_monitor_create", &m->lock);
    if (opts->trace_path && s == TDM_OK)
        s = tdm_train_op_trace(tdm_step_train_op(step), opts->trace_path, opts->trace_first_step,
                               opts->trace_last_step);
    if (s != TDM_OK) {
        tdm_monitor_destroy(m);
        return s;
    }
    *out = m;
    return TDM_OK;
}

void tdm_monitor_destroy(tdm_monitor *m)
{
    if (!m)
        return;
    tdm_ckpt_os_unlock_dir(m->lock);
    free(m->dir);
    free(m);
}

static tdm_status write_checkpoint(tdm_monitor *m, tdm_checkpoint_writer *w)
{
    tdm_status s = tdm_step_save(m->step, w);
    if (s == TDM_OK && m->opts.save_extra)
        s = m->opts.save_extra(w, m->opts.extra_user);
    return s;
}

tdm_status tdm_monitor_save(tdm_monitor *m)
{
    TDM_CHECK_ARG(m, "tdm_monitor_save");
    if (m->follower) { /* the chief writes the job's checkpoints */
        tdm_status s = m->joins ? tdm_train_shard_save(tdm_step_train_op(m->step), NULL) : TDM_OK;
        if (s == TDM_OK && m->joins) {
            m->saved = 1;
            m->saved_step = m->global_step;
        }
        return s == TDM_OK ? s : tdm_fail_context(s, "tdm_monitor_save: the chief's checkpoint");
    }
    if (!m->dir)
        return tdm_fail(TDM_ERR_INVALID_STATE, "tdm_monitor_save: no checkpoint directory");
    tdm_checkpoint_writer *w = NULL;
    /* A parameter-server job: the servers' state first, whose step names the file. */
    tdm_train_op *op = tdm_step_train_op(m->step);
    tdm_status s = op ? tdm_train_remote_fetch(op, &m->global_step) : TDM_OK;
    if (s == TDM_OK)
        s = tdm_checkpoint_writer_create(m->dir, m->global_step, &w);
    if (s == TDM_OK)
        s = write_checkpoint(m, w);
    if (s == TDM_OK)
        s = tdm_checkpoint_commit(w);
    else
        tdm_checkpoint_writer_abort(w);
    if (s == TDM_OK)
        s = tdm_checkpoint_prune(m->dir, m->opts.keep);
    if (s == TDM_OK) {
        m->saved = 1;
        m->saved_step = m->global_step;
    }
    return s == TDM_OK ? s : tdm_fail_context(s, "tdm_monitor_save");
}

/* Whether the call just run crossed a multiple of checkpoint_every, or ended the
 * input with steps not yet saved. */
static int checkpoint_due(const tdm_monitor *m, uint64_t before, const tdm_step_result *r)
{
    uint64_t every = m->opts.checkpoint_every;
    if ((!m->dir && !m->joins) || (m->saved && m->saved_step == r->global_step))
        return 0;
    return r->end_of_input || (every && r->global_step / every != before / every);
}

static tdm_status one_call(tdm_monitor *m, tdm_step_result *r)
{
    uint64_t before = m->global_step;
    tdm_status s = tdm_step_run(m->step, r);
    if (s != TDM_OK)
        return s;
    m->global_step = r->global_step;
    m->exhausted = r->end_of_input;
    if (checkpoint_due(m, before, r))
        s = tdm_monitor_save(m);
    if (s == TDM_OK && m->opts.progress && m->opts.progress(r, m->opts.progress_user))
        tdm_monitor_cancel(m);
    return s;
}

/* A multi-worker job, at a point where every process is (a multiple of the steps
 * between comparisons, or the end of a run_steps, which every process calls with the
 * same n): whether any process asked to stop; if one did, every process cancels. */
static tdm_status agree_on_stop(tdm_monitor *m, int run_ends)
{
    if (!m->agrees || (!run_ends && m->global_step % STOP_AGREE_EVERY))
        return TDM_OK;
    int mine = atomic_load(&m->asked), any = 0;
    tdm_status s = tdm_strategy_job_any(m->opts.strategy, mine, &any);
    if (s == TDM_OK && any) {
        m->stopped_by_job = !mine;
        atomic_store(&m->cancel, 1);
    }
    return s == TDM_OK ? s : tdm_fail_context(s, "tdm_monitor_run_steps");
}

tdm_status tdm_monitor_run_steps(tdm_monitor *m, uint64_t n, uint64_t *done)
{
    TDM_CHECK_ARG(m, "tdm_monitor_run_steps");
    uint64_t ran = 0;
    tdm_status s = TDM_OK;
    atomic_store(&m->cancel, 0);
    m->stopped_by_job = 0;
    while (s == TDM_OK && !m->exhausted && (n == 0 || ran < n) && !atomic_load(&m->cancel)) {
        tdm_step_result r;
        s = one_call(m, &r);
        ran += r.steps;
        if (s == TDM_OK)
            s = agree_on_stop(m, m->exhausted || (n && ran >= n));
    }
    if (m->opts.trace_path) { /* the steps traced so far, also of a run that failed */
        if (s != TDM_OK)
            tdm_error_hold(); /* the run's failure stays the first cause */
        tdm_status w = tdm_train_op_trace_write(tdm_step_train_op(m->step));
        if (s != TDM_OK)
            tdm_error_release();
        s = s != TDM_OK ? s : w;
    }
    if (s == TDM_OK && atomic_load(&m->cancel))
        s = tdm_fail(TDM_ERR_CANCELLED, "tdm_monitor_run_steps: cancelled after %llu steps",
                     (unsigned long long)ran);
    if (done)
        *done = ran;
    return s;
}

int tdm_monitor_input_exhausted(const tdm_monitor *m)
{
    return m ? m->exhausted : 0;
}

uint64_t tdm_monitor_global_step(const tdm_monitor *m)
{
    return m ? m->global_step : 0;
}

void tdm_monitor_cancel(tdm_monitor *m)
{
    if (m)
        atomic_store(m->agrees ? &m->asked : &m->cancel, 1);
}

int tdm_monitor_stopped_by_job(const tdm_monitor *m)
{
    return m ? m->stopped_by_job : 0;
}
