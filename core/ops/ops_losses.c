/* The public loss operations: per-example losses and their gradients in one kernel. */
#include "base/error.h"
#include "kernel/kernel_args.h"
#include "ops/ops_check.h"
#include "tandem/nn.h"
#include "tandem/ops.h"
#include "device/memory/tensor_impl.h"

/* The row losses' checks: logits an f32 matrix, loss f32 of its rows and dlogits f32
 * of its count, both on its device. */
static tdm_status check_logits(const char *f, tdm_tensor *loss, tdm_tensor *dlogits,
                               const tdm_tensor *logits)
{
    tdm_status s = tdm_ops_check(f, "logits", logits, TDM_F32, NULL);
    if (s == TDM_OK)
        s = tdm_ops_check_matrix(f, "logits", logits, logits->shape.dims[0], 0);
    if (s == TDM_OK)
        s = tdm_ops_check(f, "loss", loss, TDM_F32, logits->device);
    if (s == TDM_OK)
        s = tdm_ops_check_count(f, "loss", loss, logits->shape.dims[0]);
    if (s == TDM_OK)
        s = tdm_ops_check(f, "dlogits", dlogits, TDM_F32, logits->device);
    if (s == TDM_OK)
        s = tdm_ops_check_count(f, "dlogits", dlogits, logits->count);
    return s;
}

tdm_status tdm_op_softmax_xent(tdm_tensor *loss, tdm_tensor *dlogits, const tdm_tensor *logits,
                               const tdm_tensor *labels, float grad_scale)
{
    const char *f = "tdm_op_softmax_xent";
    tdm_status s = check_logits(f, loss, dlogits, logits);
    size_t rows = s == TDM_OK ? logits->shape.dims[0] : 0;
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

/* The element-wise losses' checks: pred f32, and the other three f32 on its device with
 * its count. Returns the count through *n (0 on failure). */
static tdm_status check_elementwise(const char *f, tdm_tensor *loss, tdm_tensor *grad,
                                    const tdm_tensor *pred, const tdm_tensor *target,
                                    const char *const names[4], size_t *n)
{
    const tdm_tensor *views[] = {loss, grad, pred, target};
    *n = 0;
    tdm_status s = tdm_ops_check(f, names[2], pred, TDM_F32, NULL);
    for (size_t i = 0; i < 4 && s == TDM_OK; i++) {
        s = tdm_ops_check(f, names[i], views[i], TDM_F32, pred->device);
        if (s == TDM_OK)
            s = tdm_ops_check_count(f, names[i], views[i], pred->count);
    }
    if (s == TDM_OK)
        *n = pred->count;
    return s;
}

static const char *const regression_names[] = {"loss", "dpred", "pred", "target"};

tdm_status tdm_op_mse(tdm_tensor *loss, tdm_tensor *dpred, const tdm_tensor *pred,
                      const tdm_tensor *target, float grad_scale)
{
    const char *f = "tdm_op_mse";
    size_t n;
    tdm_status s = check_elementwise(f, loss, dpred, pred, target, regression_names, &n);
    if (s != TDM_OK || n == 0)
        return s;
    const tdm_mse_args a = {.loss = tdm_tensor_view(loss),
                            .dpred = tdm_tensor_view(dpred),
                            .pred = tdm_tensor_view(pred),
                            .target = tdm_tensor_view(target),
                            .n = (uint32_t)n,
                            .grad_scale = grad_scale};
    tdm_kernel_call call = tdm_mse_call(&a);
    return tdm_ops_run(f, loss, &call);
}

tdm_status tdm_op_mae(tdm_tensor *loss, tdm_tensor *dpred, const tdm_tensor *pred,
                      const tdm_tensor *target, float grad_scale)
{
    const char *f = "tdm_op_mae";
    size_t n;
    tdm_status s = check_elementwise(f, loss, dpred, pred, target, regression_names, &n);
    if (s != TDM_OK || n == 0)
        return s;
    const tdm_mae_args a = {.loss = tdm_tensor_view(loss),
                            .dpred = tdm_tensor_view(dpred),
                            .pred = tdm_tensor_view(pred),
                            .target = tdm_tensor_view(target),
                            .n = (uint32_t)n,
                            .grad_scale = grad_scale};
    tdm_kernel_call call = tdm_mae_call(&a);
    return tdm_ops_run(f, loss, &call);
}

tdm_status tdm_op_huber(tdm_tensor *loss, tdm_tensor *dpred, const tdm_tensor *pred,
                        const tdm_tensor *target, float delta, float grad_scale)
{
    const char *f = "tdm_op_huber";
    size_t n;
    tdm_status s = check_elementwise(f, loss, dpred, pred, target, regression_names, &n);
    if (s == TDM_OK && !(delta >= 0.0f)) /* NaN too; infinity is half the squared error */
        s = tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: delta must be at least 0, it is %g", f,
                     (double)delta);
    if (s != TDM_OK || n == 0)
        return s;
    const tdm_huber_args a = {.loss = tdm_tensor_view(loss),
                              .dpred = tdm_tensor_view(dpred),
                              .pred = tdm_tensor_view(pred),
                              .target = tdm_tensor_view(target),
                              .n = (uint32_t)n,
                              .grad_scale = grad_scale,
                              .delta = delta};
    tdm_kernel_call call = tdm_huber_call(&a);
    return tdm_ops_run(f, loss, &call);
}

tdm_status tdm_op_sigmoid_xent(tdm_tensor *loss, tdm_tensor *dlogits, const tdm_tensor *logits,
                               const tdm_tensor *targets, float grad_scale)
{
    static const char *const names[] = {"loss", "dlogits", "logits", "targets"};
    const char *f = "tdm_op_sigmoid_xent";
    size_t n;
    tdm_status s = check_elementwise(f, loss, dlogits, logits, targets, names, &n);
    if (s != TDM_OK || n == 0)
        return s;
    const tdm_sigmoid_xent_args a = {.loss = tdm_tensor_view(loss),
                                     .dlogits = tdm_tensor_view(dlogits),
                                     .logits = tdm_tensor_view(logits),
                                     .targets = tdm_tensor_view(targets),
                                     .n = (uint32_t)n,
                                     .grad_scale = grad_scale};
    tdm_kernel_call call = tdm_sigmoid_xent_call(&a);
    return tdm_ops_run(f, loss, &call);
}

tdm_status tdm_op_softmax_xent_soft(tdm_tensor *loss, tdm_tensor *dlogits, const tdm_tensor *logits,
                                    const tdm_tensor *targets, float grad_scale)
{
    const char *f = "tdm_op_softmax_xent_soft";
    tdm_status s = check_logits(f, loss, dlogits, logits);
    if (s == TDM_OK)
        s = tdm_ops_check(f, "targets", targets, TDM_F32, logits->device);
    if (s == TDM_OK)
        s = tdm_ops_check_matrix(f, "targets", targets, logits->shape.dims[0],
                                 logits->shape.dims[1]);
    if (s == TDM_OK) /* a matrix of 0 columns takes any */
        s = tdm_ops_check_count(f, "targets", targets, logits->count);
    if (s != TDM_OK || logits->count == 0)
        return s;
    const tdm_softmax_xent_soft_args a = {.loss = tdm_tensor_view(loss),
                                          .dlogits = tdm_tensor_view(dlogits),
                                          .logits = tdm_tensor_view(logits),
                                          .targets = tdm_tensor_view(targets),
                                          .rows = (uint32_t)logits->shape.dims[0],
                                          .cols = (uint32_t)logits->shape.dims[1],
                                          .grad_scale = grad_scale};
    tdm_kernel_call call = tdm_softmax_xent_soft_call(&a);
    return tdm_ops_run(f, loss, &call);
}
