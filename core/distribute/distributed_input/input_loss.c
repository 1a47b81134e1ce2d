/* Loss scaling: per-example losses summed and divided by the step's global batch
 * size, so that summing the replicas' results gives the mean over the whole step. */
#include "base/error.h"
#include "distribute/strategy_impl.h"
#include "ops/ops_sum.h"
#include "tandem/input.h"
#include "tandem/nn.h"
#include "tandem/ops.h"

float tdm_loss_scale(size_t global_batch_size)
{
    return global_batch_size ? 1.0f / (float)global_batch_size : 0.0f;
}

static tdm_status check_tensors(const tdm_tensor *losses, size_t global, const tdm_tensor *out,
                                const char *func)
{
    TDM_CHECK_ARG(losses, func);
    TDM_CHECK_ARG(out, func);
    if (tdm_tensor_dtype(losses) != TDM_F32 || tdm_tensor_dtype(out) != TDM_F32 ||
        tdm_tensor_count(out) != 1)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: expected f32 losses and an f32 output of one element", func);
    if (tdm_tensor_device(losses) != tdm_tensor_device(out))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: the losses and the output lie on different devices", func);
    if (tdm_tensor_count(losses) > UINT32_MAX)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: %zu losses are more than one launch sums",
                        func, tdm_tensor_count(losses));
    if (tdm_tensor_count(losses) && !global)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: global_batch_size is 0 but there are %zu losses: pass the step's "
                        "global batch size",
                        func, tdm_tensor_count(losses));
    return TDM_OK;
}

tdm_status tdm_compute_average_loss(const tdm_tensor *per_example_losses, size_t global_batch_size,
                                    tdm_tensor *out)
{
    const char *func = "tdm_compute_average_loss";
    tdm_status s = check_tensors(per_example_losses, global_batch_size, out, func);
    if (s != TDM_OK)
        return s;
    tdm_replica_context *rc = tdm_replica_context_current();
    tdm_strategy_note_loss_reduction(rc ? tdm_replica_strategy(rc) : NULL,
                                     TDM_LOSS_SUM_OVER_BATCH_SIZE);
    /* An empty replica sums to 0: it contributes nothing to the global sum. */
    s = tdm_op_sum_scaled(out, per_example_losses, tdm_loss_scale(global_batch_size));
    return s == TDM_OK ? s : tdm_fail_context(s, "%s", func);
}
