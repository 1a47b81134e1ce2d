/* The public loss operations: per-example losses and their gradients in one kernel. */
#include "base/error.h"
#include "device/kernel_args.h"
#include "ops/ops_check.h"
#include "tandem/nn.h"
#include "tandem/ops.h"
#include "device/tensor_impl.h"

tdm_status tdm_op_softmax_xent(tdm_tensor *loss, tdm_tensor *dlogits, const tdm_tensor *logits,
                               const tdm_tensor *labels, float grad_scale)
{
    const char *f = "tdm_op_softmax_xent";
    tdm_status s = tdm_ops_check(f, "logits", logits, TDM_F32, NULL);
    if (s == TDM_OK)
        s = tdm_ops_check_matrix(f, "logits", logits, logits->shape.dims[0], 0);
    size_t rows = s == TDM_OK ? logits->shape.dims[0] : 0;
    if (s == TDM_OK)
        s = tdm_ops_check(f, "loss", loss, TDM_F32, logits->device);
    if (s == TDM_OK)
        s = tdm_ops_check_count(f, "loss", loss, rows);
    if (s == TDM_OK)
        s = tdm_ops_check(f, "dlogits", dlogits, TDM_F32, logits->device);
    if (s == TDM_OK)
        s = tdm_ops_check_count(f, "dlogits", dlogits, logits->count);
    if (s == TDM_OK)
        s = tdm_ops_check(f, "labels", labels, TDM_I32, logits->device);
    if (s == TDM_OK)
        s = tdm_ops_check_count(f, "labels", labels, rows);
    if (s != TDM_OK || logits->count == 0)
        return s;
    const tdm_softmax_xent_args a = {.loss = tdm_tensor_view(loss),
                                     .dlogits = tdm_tensor_view(dlogits),
                                     .logits = tdm_tensor_view(logits),
                                     .labels = tdm_tensor_view(labels),
                                     .rows = (uint32_t)rows,
                                     .cols = (uint32_t)logits->shape.dims[1],
                                     .grad_scale = grad_scale};
    tdm_kernel_call call = tdm_softmax_xent_call(&a);
    return tdm_ops_run(f, loss, &call);
}

tdm_status tdm_op_mse(tdm_tensor *loss, tdm_tensor *dpred, const tdm_tensor *pred,
                      const tdm_tensor *target, float grad_scale)
{
    const char *f = "tdm_op_mse";
    const tdm_tensor *views[] = {loss, dpred, pred, target};
    const char *names[] = {"loss", "dpred", "pred", "target"};
    tdm_status s = tdm_ops_check(f, "pred", pred, TDM_F32, NULL);
    for (size_t i = 0; i < 4 && s == TDM_OK; i++) {
        s = tdm_ops_check(f, names[i], views[i], TDM_F32, pred->device);
        if (s == TDM_OK)
            s = tdm_ops_check_count(f, names[i], views[i], pred->count);
    }
    if (s != TDM_OK || pred->count == 0)
        return s;
    const tdm_mse_args a = {.loss = tdm_tensor_view(loss),
                            .dpred = tdm_tensor_view(dpred),
                            .pred = tdm_tensor_view(pred),
                            .target = tdm_tensor_view(target),
                            .n = (uint32_t)pred->count,
                            .grad_scale = grad_scale};
    tdm_kernel_call call = tdm_mse_call(&a);
    return tdm_ops_run(f, loss, &call);
}
