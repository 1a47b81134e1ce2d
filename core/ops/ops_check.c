/* Argument checks of the public operations, with messages naming the argument. */
#include "ops/ops_check.h"

#include "base/error.h"
#include "device/memory/tensor_impl.h"

tdm_status tdm_ops_check(const char *func, const char *what, const tdm_tensor *t, tdm_dtype dtype,
                         const tdm_device *dev)
{
    if (!t)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", func, what);
    if (t->dtype != dtype)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: '%s' must be %s, it is %s", func, what,
                        tdm_dtype_name(dtype), tdm_dtype_name(t->dtype));
    if (dev && t->device != dev)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: '%s' lies on another device than the output",
                        func, what);
    if (t->count > UINT32_MAX)
        return tdm_fail(TDM_ERR_UNSUPPORTED,
                        "%s: '%s' has %zu elements, more than one launch takes", func, what,
                        t->count);
    return TDM_OK;
}

tdm_dtype tdm_ops_storage(const tdm_tensor *t)
{
    return t && t->dtype == TDM_F16 ? TDM_F16 : TDM_F32;
}

tdm_status tdm_ops_check_matrix(const char *func, const char *what, const tdm_tensor *t,
                                size_t rows, size_t cols)
{
    char got[64];
    if (t->shape.rank != 2 || t->shape.dims[0] != rows || (cols && t->shape.dims[1] != cols))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: '%s' has shape %s, expected a %zu x %zu%s matrix", func, what,
                        tdm_shape_format(&t->shape, got, sizeof got), rows, cols,
                        cols ? "" : " (any columns)");
    return TDM_OK;
}

tdm_status tdm_ops_check_count(const char *func, const char *what, const tdm_tensor *t,
                               size_t count)
{
    if (t->count != count)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: '%s' has %zu elements, expected %zu", func,
                        what, t->count, count);
    return TDM_OK;
}

tdm_status tdm_ops_run(const char *func, const tdm_tensor *first, const tdm_kernel_call *call)
{
    tdm_status s = tdm_kernel_run(first->device, call);
    return s == TDM_OK ? s : tdm_fail_context(s, "%s", func);
}
