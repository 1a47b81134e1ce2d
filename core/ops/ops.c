/* The public element-wise operations: checked calls of the table's kernels. */
#include "base/error.h"
#include "kernel/kernel_args.h"
#include "ops/ops_check.h"
#include "tandem/ops.h"
#include "device/memory/tensor_impl.h"

/* Every tensor is of dtype, on y's device, with y's element count. */
static tdm_status check_as(const char *func, tdm_dtype dtype, const tdm_tensor *y,
                           const tdm_tensor *const *in, size_t n)
{
    tdm_status s = tdm_ops_check(func, "output", y, dtype, NULL);
    static const char *const names[] = {"x", "y"};
    for (size_t i = 0; i < n && s == TDM_OK; i++) {
        const char *what = n == 1 ? "x" : names[i];
        s = tdm_ops_check(func, what, in[i], dtype, y->device);
        if (s == TDM_OK)
            s = tdm_ops_check_count(func, what, in[i], y->count);
    }
    return s;
}

/* The checks, and whether there is anything to launch: 0 when *s is an error or y
 * is empty. */
static int ready_as(const char *func, tdm_dtype dtype, const tdm_tensor *y,
                    const tdm_tensor *const *in, size_t n, tdm_status *s)
{
    *s = check_as(func, dtype, y, in, n);
    return *s == TDM_OK && y->count > 0;
}

/* The same for float32 tensors. */
static int ready(const char *func, const tdm_tensor *y, const tdm_tensor *const *in, size_t n,
                 tdm_status *s)
{
    return ready_as(func, TDM_F32, y, in, n, s);
}

tdm_status tdm_op_fill(tdm_tensor *y, float value)
{
    tdm_status s;
    if (!ready("tdm_op_fill", y, NULL, 0, &s))
        return s;
    const tdm_fill_args a = {.y = tdm_tensor_view(y), .n = (uint32_t)y->count, .value = value};
    tdm_kernel_call call = tdm_fill_call(&a);
    return tdm_ops_run("tdm_op_fill", y, &call);
}

tdm_status tdm_op_scale(tdm_tensor *y, const tdm_tensor *x, float alpha)
{
    tdm_status s;
    if (!ready("tdm_op_scale", y, &x, 1, &s))
        return s;
    const tdm_scale_args a = {
        .y = tdm_tensor_view(y), .x = tdm_tensor_view(x), .n = (uint32_t)y->count, .alpha = alpha};
    tdm_kernel_call call = tdm_scale_call(&a);
    return tdm_ops_run("tdm_op_scale", y, &call);
}

tdm_status tdm_op_axpy(tdm_tensor *y, float alpha, const tdm_tensor *x)
{
    tdm_status s;
    if (!ready("tdm_op_axpy", y, &x, 1, &s))
        return s;
    const tdm_axpy_args a = {
        .y = tdm_tensor_view(y), .x = tdm_tensor_view(x), .n = (uint32_t)y->count, .alpha = alpha};
    tdm_kernel_call call = tdm_axpy_call(&a);
    return tdm_ops_run("tdm_op_axpy", y, &call);
}

tdm_status tdm_op_cast(tdm_tensor *y, const tdm_tensor *x)
{
    const char *f = "tdm_op_cast";
    /* y's dtype picks the conversion: to f16 or i32 from f32, else to f32 from f16 */
    int to_half = y && y->dtype == TDM_F16, to_int = y && y->dtype == TDM_I32;
    tdm_status s = tdm_ops_check(f, "y", y, to_half ? TDM_F16 : to_int ? TDM_I32 : TDM_F32, NULL);
    if (s == TDM_OK)
        s = tdm_ops_check(f, "x", x, to_half || to_int ? TDM_F32 : TDM_F16, y->device);
    if (s == TDM_OK)
        s = tdm_ops_check_count(f, "x", x, y->count);
    if (s != TDM_OK || y->count == 0)
        return s;
    tdm_kernel_call call;
    if (to_half) {
        const tdm_cast_f32_f16_args a = {
            .y = tdm_tensor_view(y), .x = tdm_tensor_view(x), .n = (uint32_t)y->count};
        call = tdm_cast_f32_f16_call(&a);
    } else if (to_int) {
        const tdm_cast_f32_i32_args a = {
            .y = tdm_tensor_view(y), .x = tdm_tensor_view(x), .n = (uint32_t)y->count};
        call = tdm_cast_f32_i32_call(&a);
    } else {
        const tdm_cast_f16_f32_args a = {
            .y = tdm_tensor_view(y), .x = tdm_tensor_view(x), .n = (uint32_t)y->count};
        call = tdm_cast_f16_f32_call(&a);
    }
    return tdm_ops_run(f, y, &call);
}

/* add, sub and mul share their arguments: z, x, y and n; `storage` is their dtype
 * (add also sums float16 activations, through its twin). */
#define BINARY_OP(op, storage)                                                                     \
    tdm_status tdm_op_##op(tdm_tensor *z, const tdm_tensor *x, const tdm_tensor *y)                \
    {                                                                                              \
        const tdm_tensor *in[2] = {x, y};                                                          \
        const tdm_dtype dtype = storage;                                                           \
        tdm_status s;                                                                              \
        if (!ready_as("tdm_op_" #op, dtype, z, in, 2, &s))                                         \
            return s;                                                                              \
        const tdm_##op##_args a = {.z = tdm_tensor_view(z),                                        \
                                   .x = tdm_tensor_view(x),                                        \
                                   .y = tdm_tensor_view(y),                                        \
                                   .n = (uint32_t)z->count};                                       \
        tdm_kernel_call call = tdm_##op##_call(&a);                                                \
        tdm_kernel_store_as(&call, dtype);                                                         \
        return tdm_ops_run("tdm_op_" #op, z, &call);                                               \
    }
BINARY_OP(add, tdm_ops_storage(z))
BINARY_OP(sub, TDM_F32)
BINARY_OP(mul, TDM_F32)
