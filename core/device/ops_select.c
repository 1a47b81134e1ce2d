/* The public selection operations: clip by value and one-hot labels. */
#include <string.h>

#include "error.h"
#include "ops_check.h"
#include "tandem/nn.h"
#include "tensor_impl.h"

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
    const tdm_tensor *views[] = {y, x};
    tdm_kernel_call call = tdm_ops_call(TDM_KERNEL_clip, views, 2);
    call.u[0] = (uint32_t)y->count;
    call.f[0] = lo;
    call.f[1] = hi;
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
    const tdm_tensor *views[] = {y, labels};
    tdm_kernel_call call = tdm_ops_call(TDM_KERNEL_one_hot, views, 2);
    call.u[0] = (uint32_t)y->shape.dims[0];
    call.u[1] = (uint32_t)y->shape.dims[1];
    return tdm_ops_run(f, y, &call);
}
