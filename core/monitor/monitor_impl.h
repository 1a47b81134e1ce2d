/* Internal: the monitor's state, shared by running and saving (monitor.c) and
 * restoring (monitor_restore.c). */
#ifndef TDM_TRAIN_MONITOR_IMPL_H
#define TDM_TRAIN_MONITOR_IMPL_H

#include <stdatomic.h>

#include "train_op/step_impl.h"
#include "tandem/monitor.h"

struct tdm_monitor {
    tdm_step *step;
    tdm_monitor_options opts;
    char *dir;
    int lock; /* the directory's lock (checkpoint_files.h); -1 without a directory */
    uint64_t global_step;
    uint64_t saved_step; /* of the last checkpoint written or restored */
    int saved;           /* whether there is one */
    int exhausted;
    int follower; /* a multi-worker process other than the chief: no directory */
    int joins;    /* a follower whose train op shards the slots: takes part in each save */
    atomic_int cancel;
    /* A multi-worker job's processes stop together: a stop asked here waits in asked
     * until they compare their asks (every STOP_AGREE_EVERY global steps and at the
     * end of each run_steps), then every one cancels after the same step. */
    int agrees;
    atomic_int asked;
    int stopped_by_job; /* the last run_steps stopped for a stop asked elsewhere */
};

#endif
