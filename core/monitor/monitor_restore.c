/* Restoring the newest usable checkpoint. Newest first, each file under a final name
 * is verified whole; one that is damaged, or whose name, header and global step
 * disagree (a forged or renamed file, which would otherwise hide every newer one),
 * is renamed aside, so that no later save can overwrite it, and reported before the
 * next older one is tried. A newer format version, a configuration the caller
 * refuses, or a failing device or disk stops the restore instead: those are not
 * damage, and falling back would hide them. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint/checkpoint_dir.h"
#include "checkpoint/checkpoint_memory.h"
#include "checkpoint/checkpoint_files.h"
#include "base/error.h"
#include "distribute/variable_access.h"
#include "monitor/monitor_impl.h"

static const char func[] = "tdm_monitor_restore";

/* The step inside: the train op's global step, else a plain input step's count. */
static tdm_status check_steps(const tdm_checkpoint *c, const char *path, uint64_t named)
{
    uint64_t header = tdm_checkpoint_step(c), inside = 0;
    const char *record = TDM_RECORD_GLOBAL_STEP;
    tdm_status s = tdm_checkpoint_read_u64(c, record, &inside);
    if (s == TDM_ERR_NOT_FOUND) {
        record = TDM_RECORD_INPUT_STEPS;
        s = tdm_checkpoint_read_u64(c, record, &inside);
    }
    if (s == TDM_ERR_NOT_FOUND) {
        s = TDM_OK; /* a step that keeps no global step */
        inside = header;
    }
    if (s == TDM_OK && header != named)
        s = tdm_fail(TDM_ERR_CORRUPT_DATA,
                     "%s is named for step %" PRIu64 ", but its header says step %" PRIu64, path,
                     named, header);
    else if (s == TDM_OK && inside != named)
        s = tdm_fail(TDM_ERR_CORRUPT_DATA,
                     "%s is named for step %" PRIu64
                     " (its header agrees), but '%s' holds %" PRIu64,
                     path, named, record, inside);
    return s;
}

/* The caller's state first: it may refuse a checkpoint of another configuration
 * before anything changes; then the step's. */
static tdm_status restore_state(tdm_monitor *m, const tdm_checkpoint *c, uint64_t step)
{
    tdm_status s = m->opts.restore_extra ? m->opts.restore_extra(c, m->opts.extra_user) : TDM_OK;
    if (s == TDM_OK)
        s = tdm_step_restore(m->step, c);
    if (s == TDM_OK) {
        m->global_step = m->saved_step = step;
        m->saved = 1;
    }
    return s;
}

/* Restores path into the step; *damaged when it failed for being damaged. Restored,
 * the checkpoint is handed to *kept (the caller closes it) where kept is not NULL. */
static tdm_status restore_one(tdm_monitor *m, const char *path, uint64_t step, int *damaged,
                              tdm_checkpoint **kept)
{
    tdm_ckpt_state state = tdm_ckpt_file_state(path, step);
    tdm_checkpoint *c = NULL;
    tdm_status s = tdm_checkpoint_open(path, &c);
    if (s == TDM_OK)
        s = check_steps(c, path, step);
    *damaged = s != TDM_OK && state != TDM_CKPT_NEWER &&
               (state == TDM_CKPT_INCOMPLETE || s == TDM_ERR_CORRUPT_DATA);
    if (s == TDM_OK)
        s = restore_state(m, c, step);
    if (s == TDM_OK && kept) {
        *kept = c;
        c = NULL;
    }
    tdm_checkpoint_close(c);
    return s;
}

/* Renames the damaged file aside and tells the caller. */
static tdm_status set_aside(tdm_monitor *m, const char *path)
{
    char reason[1024];
    snprintf(reason, sizeof reason, "%s", tdm_last_error());
    char *kept = NULL;
    tdm_status s = tdm_ckpt_os_set_aside(path, func, &kept);
    if (s == TDM_OK) {
        s = tdm_ckpt_os_sync_dir(m->dir, func);
        if (m->opts.damaged)
            m->opts.damaged(path, kept, reason, m->opts.damaged_user);
    }
    free(kept);
    return s;
}

/* A multi-worker job: the chief sends the file it restored (its size first: 0 for
 * none, CHIEF_FAILED when it could not restore), and every other process restores
 * the same bytes, so the job goes on from one state without a shared directory. */
#define CHIEF_FAILED UINT64_MAX

/* The chief's bytes to every worker: a broadcast of the ranks, or in a
 * parameter-server job, whose workers share no collectives, the chief's messages
 * (which follow its restore of the servers, so no worker pushes before it). */
static tdm_status share(tdm_monitor *m, void *bytes, size_t size)
{
    tdm_strategy *s = m->opts.strategy;
    if (!tdm_strategy_num_parameter_servers(s) || size == 0)
        return tdm_strategy_broadcast_host(s, bytes, size);
    tdm_status st = TDM_OK;
    if (tdm_strategy_is_chief(s)) {
        for (size_t w = 1; w < tdm_strategy_num_workers(s) && st == TDM_OK; w++)
            st = tdm_strategy_job_send(s, w, bytes, size, func);
        return st;
    }
    const void *got = NULL;
    size_t got_size = 0, from = 0;
    st = tdm_strategy_job_receive(s, 0, &got, &got_size, &from, func);
    if (st == TDM_OK && got_size != size)
        st = tdm_fail(TDM_ERR_INVALID_STATE, "%s: the chief sent %zu bytes, expected %zu", func,
                      got_size, size);
    if (st == TDM_OK)
        memcpy(bytes, got, size);
    return st;
}

static tdm_status send_restored(tdm_monitor *m, tdm_status chief, const tdm_checkpoint *c)
{
    size_t size = 0;
    const unsigned char *data = c ? tdm_checkpoint_bytes(c, &size) : NULL;
    uint64_t announced = chief != TDM_OK ? CHIEF_FAILED : size;
    tdm_status sent = share(m, &announced, sizeof announced);
    if (sent == TDM_OK && announced != CHIEF_FAILED) /* the broadcast only reads the chief's */
        sent = share(m, (void *)data, size);
    return sent;
}

static tdm_status receive_restored(tdm_monitor *m, int *restored)
{
    uint64_t size = 0;
    tdm_status s = share(m, &size, sizeof size);
    if (s != TDM_OK || size == 0)
        return s;
    if (size == CHIEF_FAILED)
        return tdm_fail(TDM_ERR_REMOTE, "%s: the chief could not restore its checkpoint", func);
    unsigned char *data = malloc(size);
    if (!data)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY,
                        "%s: no host memory for the chief's %" PRIu64 " byte checkpoint", func,
                        size);
    s = share(m, data, size);
    tdm_checkpoint *c = NULL;
    if (s == TDM_OK)
        s = tdm_checkpoint_open_bytes("the chief's checkpoint", data, size, &c);
    else
        free(data);
    if (s == TDM_OK)
        s = restore_state(m, c, tdm_checkpoint_step(c));
    tdm_checkpoint_close(c);
    *restored = s == TDM_OK;
    return s;
}

static int multi_worker(const tdm_monitor *m)
{
    return m->opts.strategy && tdm_strategy_num_workers(m->opts.strategy) > 1;
}

/* The newest usable checkpoint of the directory; *kept (when not NULL): the one
 * restored, for the caller to close, NULL when none was. */
static tdm_status restore_newest(tdm_monitor *m, int *restored, tdm_checkpoint **kept)
{
    tdm_ckpt_found *found = NULL;
    size_t count = 0;
    tdm_status s = tdm_ckpt_list_final(m->dir, func, &found, &count);
    for (size_t i = 0; s == TDM_OK && !*restored && i < count; i++) {
        char *path = tdm_ckpt_join(m->dir, found[i].name);
        int damaged = 0;
        s = path ? restore_one(m, path, found[i].step, &damaged, kept)
                 : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
        if (s == TDM_OK) {
            *restored = 1;
        } else if (damaged) {
            s = set_aside(m, path);
        } else {
            s = tdm_fail_context(s, "%s: restoring %s", func, path);
        }
        free(path);
    }
    free(found);
    return s;
}

tdm_status tdm_monitor_restore(tdm_monitor *m, int *restored, uint64_t *global_step)
{
    TDM_CHECK_ARG(m, func);
    TDM_CHECK_ARG(restored, func);
    *restored = 0;
    tdm_status s = TDM_OK;
    if (m->follower) {
        s = receive_restored(m, restored);
    } else {
        if (!m->dir)
            return tdm_fail(TDM_ERR_INVALID_STATE, "%s: no checkpoint directory", func);
        tdm_checkpoint *c = NULL;
        s = restore_newest(m, restored, multi_worker(m) ? &c : NULL);
        if (multi_worker(m)) {
            char why[1024];
            snprintf(why, sizeof why, "%s", tdm_last_error());
            tdm_status sent = send_restored(m, s, c);
            if (s != TDM_OK) /* the chief's own failure is the one to report */
                s = tdm_fail(s, "%s", why);
            else
                s = sent;
        }
        tdm_checkpoint_close(c);
    }
    if (s == TDM_OK && *restored && global_step)
        *global_step = m->global_step;
    return s;
}
