/* The public element-wise operations: checked calls of the table's kernels. */
#include <string.h>

#include "error.h"
#include "kernel.h"
#include "ops_check.h"
#include "tandem/ops.h"
#include "tensor_impl.h"

/* Every tensor is float32, on y's device, with y's element count. */
static tdm_status check(const char *func, const tdm_tensor *y, const tdm_tensor *const *in,
                        size_t n)
{
    tdm_status s = tdm_ops_check(func, "output", y, TDM_F32, NULL);
    static const char *const names[] = {"x", "y"};
    for (size_t i = 0; i < n && s == TDM_OK; i++) {
        const char *what = n == 1 ? "x" : names[i];
        s = tdm_ops_check(func, what, in[i], TDM_F32, y->device);
        if (s == TDM_OK)
            s = tdm_ops_check_count(func, what, in[i], y->count);
    }
    return s;
}

static tdm_status run(const char *func, tdm_kernel kernel, tdm_tensor *y,
                      const tdm_tensor *const *in, size_t n, float alpha)
{
    tdm_status s = check(func, y, in, n);
    if (s != TDM_OK || y->count == 0)
        return s;
    const tdm_tensor *views[3] = {y, n > 0 ? in[0] : NULL, n > 1 ? in[1] : NULL};
    tdm_kernel_call call = tdm_ops_call(kernel, views, n + 1);
    call.u[0] = (uint32_t)y->count;
    call.f[0] = alpha;
    return tdm_ops_run(func, y, &call);
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

static tdm_status binary(const char *func, tdm_kernel kernel, tdm_tensor *z, const tdm_tensor *x,
                         const tdm_tensor *y)
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
