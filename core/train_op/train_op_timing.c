/* Timing a replica's step. Uneven batch shares by device speed (docs/modules/distribute.md,
 * "Uneven shares"): on a few steps each replica's loss function runs alone on its
 * device and is timed; the strategy's batch shares follow the replicas' examples per
 * second. Profiling times every step's phases the same way, and tracing keeps each
 * traced step's times (train_trace.c). */
#include <stdlib.h>

#include "base/clock.h"
#include "base/error.h"
#include "train_op/train_op_impl.h"
#include "train_op/train_trace.h"

#define FIRST_MEASURED 1 /* step 0 warms up: kernels compile, memory is touched */
#define LAST_EARLY 3
#define PERIOD 100

int tdm_train_balance_measures(const tdm_train_op *op)
{
    uint64_t step = op->global_step;
    return op->opts.balance && step >= FIRST_MEASURED && (step <= LAST_EARLY || step % PERIOD == 0);
}

tdm_status tdm_train_balance_update(tdm_train_op *op, const tdm_distributed_batch *batch)
{
    size_t n = tdm_strategy_num_local_replicas(op->strategy), known = 0;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        const tdm_train_replica *r = &op->replicas[i];
        if (batch->replica_rows[i] && r->seconds > 0.0) {
            double rate = (double)batch->replica_rows[i] / r->seconds;
            /* Halfway to the new measure: a noisy step moves the split only so far. */
            op->rates[i] = op->rates[i] > 0.0 ? 0.5 * (op->rates[i] + rate) : rate;
        }
        known += op->rates[i] > 0.0;
        sum += op->rates[i];
    }
    if (!known)
        return TDM_OK;
    double *shares = malloc(n * sizeof *shares);
    if (!shares)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "balance: out of host memory");
    for (size_t i = 0; i < n; i++) /* unmeasured: as the average of the measured */
        shares[i] = op->rates[i] > 0.0 ? op->rates[i] : sum / (double)known;
    tdm_status s = tdm_strategy_set_batch_shares(op->strategy, shares, n);
    free(shares);
    return s;
}

tdm_status tdm_train_op_replica_rate(const tdm_train_op *op, size_t replica,
                                     double *examples_per_second)
{
    TDM_CHECK_ARG(op, "tdm_train_op_replica_rate");
    TDM_CHECK_ARG(examples_per_second, "tdm_train_op_replica_rate");
    if (replica >= tdm_strategy_num_local_replicas(op->strategy))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "tdm_train_op_replica_rate: replica %zu of %zu",
                        replica, tdm_strategy_num_local_replicas(op->strategy));
    *examples_per_second = op->rates ? op->rates[replica] : 0.0;
    return TDM_OK;
}

tdm_status tdm_train_op_set_profiling(tdm_train_op *op, int on)
{
    TDM_CHECK_ARG(op, "tdm_train_op_set_profiling");
    for (size_t i = 0; on && i < tdm_strategy_num_local_replicas(op->strategy); i++)
        op->replicas[i].profile = (tdm_train_profile){0};
    op->profiling = on != 0;
    return TDM_OK;
}

tdm_status tdm_train_op_profile(const tdm_train_op *op, size_t replica, tdm_train_profile *out)
{
    TDM_CHECK_ARG(op, "tdm_train_op_profile");
    TDM_CHECK_ARG(out, "tdm_train_op_profile");
    if (replica >= tdm_strategy_num_local_replicas(op->strategy))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "tdm_train_op_profile: replica %zu of %zu",
                        replica, tdm_strategy_num_local_replicas(op->strategy));
    *out = op->replicas[replica].profile;
    return TDM_OK;
}

tdm_status tdm_train_op_trace(tdm_train_op *op, const char *path, uint64_t first_step,
                              uint64_t last_step)
{
    TDM_CHECK_ARG(op, "tdm_train_op_trace");
    tdm_train_trace *t = NULL;
    tdm_status s = path ? tdm_train_trace_create(op->strategy, path, first_step, last_step,
                                                 op->bucket_count, &t)
                        : TDM_OK;
    if (s == TDM_OK) {
        tdm_train_trace_destroy(op->trace);
        op->trace = t;
    }
    return s;
}

tdm_status tdm_train_op_trace_write(tdm_train_op *op)
{
    TDM_CHECK_ARG(op, "tdm_train_op_trace_write");
    if (!op->trace)
        return tdm_fail(TDM_ERR_INVALID_STATE, "tdm_train_op_trace_write: not tracing");
    return tdm_train_trace_write(op->trace);
}

void tdm_train_op_note_input(tdm_train_op *op, double began, double ended)
{
    op->input_wait[0] = began;
    op->input_wait[1] = ended;
}
