/* The public copy of a block of columns between matrices of other widths. */
#include <stdint.h>

#include "base/error.h"
#include "kernel/kernel_args.h"
#include "device/memory/tensor_impl.h"
#include "ops/ops_check.h"
#include "tandem/ops.h"

/* t as rows of width columns, and the block [first, first + cols) inside them. */
static tdm_status check_matrix(const char *f, const char *what, const tdm_tensor *t, size_t width,
                               size_t first, size_t cols)
{
    if (width && t->count % width == 0 && first <= width && cols <= width - first &&
        width <= UINT32_MAX && t->count / width <= UINT32_MAX)
        return TDM_OK;
    return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                    "%s: %s of %zu elements as rows of %zu columns, from column %zu for %zu: "
                    "the width divides the elements and the block lies inside a row",
                    f, what, t->count, width, first, cols);
}

/* The view of t from element first on. */
static tdm_buffer_view from(const tdm_tensor *t, size_t first)
{
    tdm_buffer_view v = tdm_tensor_view(t);
    v.offset += first * sizeof(float);
    v.size -= first * sizeof(float);
    return v;
}

/* The bytes a copy touches of t (rows of width, the block from first for cols), as
 * [*lo, *hi) of its buffer. */
static void span(const tdm_tensor *t, size_t width, size_t first, size_t cols, size_t rows,
                 size_t *lo, size_t *hi)
{
    tdm_buffer_view v = tdm_tensor_view(t);
    *lo = v.offset + first * sizeof(float);
    *hi = v.offset + ((rows - 1) * width + first + cols) * sizeof(float);
}

tdm_status tdm_op_copy_columns(tdm_tensor *y, size_t y_width, size_t y_first,
                               const tdm_tensor *x, size_t x_width, size_t x_first, size_t cols)
{
    const char *f = "tdm_op_copy_columns";
    tdm_status s = tdm_ops_check(f, "y", y, TDM_F32, NULL);
    if (s == TDM_OK)
        s = tdm_ops_check(f, "x", x, TDM_F32, y->device);
    if (s == TDM_OK)
        s = check_matrix(f, "y", y, y_width, y_first, cols);
    if (s == TDM_OK)
        s = check_matrix(f, "x", x, x_width, x_first, cols);
    if (s == TDM_OK && y->count / y_width != x->count / x_width)
        s = tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                     "%s: y has %zu rows of %zu, x %zu rows of %zu: the rows are the same", f,
                     y->count / y_width, y_width, x->count / x_width, x_width);
    size_t rows = s == TDM_OK ? y->count / y_width : 0;
    if (!rows || !cols)
        return s;
    size_t y_lo, y_hi, x_lo, x_hi;
    span(y, y_width, y_first, cols, rows, &y_lo, &y_hi);
    span(x, x_width, x_first, cols, rows, &x_lo, &x_hi);
    if (tdm_tensor_view(y).buffer == tdm_tensor_view(x).buffer && y_lo < x_hi && x_lo < y_hi)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: y and x overlap in one buffer (bytes %zu to %zu and %zu to %zu): "
                        "the copy's work-items run in no set order, so copy through a tensor "
                        "of its own",
                        f, y_lo, y_hi, x_lo, x_hi);
    const tdm_copy_columns_args a = {.y = from(y, y_first),
                                     .x = from(x, x_first),
                                     .rows = (uint32_t)rows,
                                     .cols = (uint32_t)cols,
                                     .lda = (uint32_t)x_width,
                                     .ldc = (uint32_t)y_width};
    tdm_kernel_call call = tdm_copy_columns_call(&a);
    return tdm_ops_run(f, y, &call);
}
