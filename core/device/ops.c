/* The public element-wise operations: checked calls of the table's kernels. */
#include <string.h>

#include "error.h"
#include "kernel.h"
#include "tandem/ops.h"
#include "tensor_impl.h"

/* Every tensor is float32, on y's device, with y's element count. */
static tdm_status check(const char *func, const tdm_tensor *y, const tdm_tensor *const *in,
                        size_t n)
{
    if (!y)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: the output tensor is NULL", func);
    for (size_t i = 0; i <= n; i++) {
        const tdm_tensor *t = i ? in[i - 1] : y;
        if (!t)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: input %zu is NULL", func, i);
        if (t->dtype != TDM_F32)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: tensors must be f32, one is %s",
                            func, tdm_dtype_name(t->dtype));
        if (t->device != y->device)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "%s: every tensor must be on the output's device", func);
        if (t->count != y->count)
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "%s: element counts differ (%zu and %zu)", func, y->count,
                            t->count);
    }
    if (y->count > UINT32_MAX)
        return tdm_fail(TDM_ERR_UNSUPPORTED, "%s: %zu elements are more than one launch takes",
                        func, y->count);
    return TDM_OK;
}

static tdm_status run(const char *func, tdm_kernel kernel, tdm_tensor *y,
                      const tdm_tensor *const *in, size_t n, float alpha)
{
    tdm_status s = check(func, y, in, n);
    if (s != TDM_OK || y->count == 0)
        return s;
    tdm_kernel_call call;
    memset(&call, 0, sizeof call);
    call.kernel = kernel;
    call.views[0] = tdm_tensor_view(y);
    for (size_t i = 0; i < n; i++)
        call.views[i + 1] = tdm_tensor_view(in[i]);
    call.u[0] = (uint32_t)y->count;
    call.f[0] = alpha;
    s = tdm_kernel_run(y->device, &call);
    return s == TDM_OK ? s : tdm_fail_context(s, "%s", func);
}

tdm_status tdm_op_fill(tdm_tensor *y, float value)
{
    return run("tdm_op_fill", TDM_KERNEL_fill, y, NULL, 0, value);
}

tdm_status tdm_op_scale(tdm_tensor *y, const tdm_tensor *x, float alpha)
{
    return run("tdm_op_scale", TDM_KERNEL_scale, y, &x, 1, alpha);
}

tdm_status tdm_op_axpy(tdm_tensor *y, float alpha, const tdm_tensor *x)
{
    return run("tdm_op_axpy", TDM_KERNEL_axpy, y, &x, 1, alpha);
}

static tdm_status binary(const char *func, tdm_kernel kernel, tdm_tensor *z,
                         const tdm_tensor *x, const tdm_tensor *y)
{
    const tdm_tensor *in[2] = {x, y};
    return run(func, kernel, z, in, 2, 0.0f);
}

tdm_status tdm_op_add(tdm_tensor *z, const tdm_tensor *x, const tdm_tensor *y)
{
    return binary("tdm_op_add", TDM_KERNEL_add, z, x, y);
}

tdm_status tdm_op_sub(tdm_tensor *z, const tdm_tensor *x, const tdm_tensor *y)
{
    return binary("tdm_op_sub", TDM_KERNEL_sub, z, x, y);
}

tdm_status tdm_op_mul(tdm_tensor *z, const tdm_tensor *x, const tdm_tensor *y)
{
    return binary("tdm_op_mul", TDM_KERNEL_mul, z, x, y);
}
