/* The public selection operations: clip by value and one-hot labels. */
#include "base/error.h"
#include "kernel/kernel_args.h"
#include "ops/ops_check.h"
#include "tandem/nn.h"
#include "device/memory/tensor_impl.h"

tdm_status tdm_op_clip(tdm_tensor *y, const tdm_tensor *x, float lo, float hi)
{
    const char *f = "tdm_op_clip";
    tdm_status s = tdm_ops_check(f, "y", y, TDM_F32, NULL);
    if (s == TDM_OK)
        s = tdm_ops_check(f, "x", x, TDM_F32, y->device);
    if (s == TDM_OK)
        s = tdm_ops_check_count(f, "x", x, y->count);
    if (s == TDM_OK && !(lo <= hi))
        s = tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: lo %g is above hi %g", f, (double)lo,
                     (double)hi);
    if (s != TDM_OK || y->count == 0)
        return s;
    const tdm_clip_args a = {.y = tdm_tensor_view(y),
                             .x = tdm_tensor_view(x),
                             .n = (uint32_t)y->count,
                             .lo = lo,
                             .hi = hi};
    tdm_kernel_call call = tdm_clip_call(&a);
    return tdm_ops_run(f, y, &call);
}

tdm_status tdm_op_one_hot(tdm_tensor *y, const tdm_tensor *labels)
{
    const char *f = "tdm_op_one_hot";
    tdm_status s = tdm_ops_check(f, "y", y, TDM_F32, NULL);
    if (s == TDM_OK)
        s = tdm_ops_check(f, "labels", labels, TDM_I32, y->device);
    if (s == TDM_OK)
        s = tdm_ops_check_matrix(f, "y", y, labels->count, 0);
    if (s != TDM_OK || y->count == 0)
        return s;
    const tdm_one_hot_args a = {.y = tdm_tensor_view(y),
                                .labels = tdm_tensor_view(labels),
                                .rows = (uint32_t)y->shape.dims[0],
                                .cols = (uint32_t)y->shape.dims[1]};
    tdm_kernel_call call = tdm_one_hot_call(&a);
    return tdm_ops_run(f, y, &call);
}
