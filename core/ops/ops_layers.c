/* The public layer operations: matrix product, bias (alone or with an activation, and
 * their gradients together), sums and dropout, each a checked call of the table's
 * kernels. */
#include "base/error.h"
#include "kernel/kernel_args.h"
#include "ops/ops_check.h"
#include "ops/ops_sum.h"
#include "tandem/nn.h"
#include "tandem/ops.h"
#include "device/memory/tensor_impl.h"

static size_t rows_of(const tdm_tensor *t, int trans)
{
    return t->shape.rank == 2 ? t->shape.dims[trans ? 1 : 0] : 0;
}

static size_t cols_of(const tdm_tensor *t, int trans)
{
    return t->shape.rank == 2 ? t->shape.dims[trans ? 0 : 1] : 0;
}

static tdm_status check_matmul(const char *f, const tdm_tensor *c, const tdm_tensor *a, int trans_a,
                               const tdm_tensor *b, int trans_b)
{
    tdm_dtype in = a && a->dtype == TDM_F16 ? TDM_F16 : TDM_F32; /* both f32 or both f16 */
    tdm_status s = tdm_ops_check(f, "c", c, TDM_F32, NULL);
    if (s == TDM_OK)
        s = tdm_ops_check(f, "a", a, in, c->device);
    if (s == TDM_OK)
        s = tdm_ops_check(f, "b", b, in, c->device);
    if (s == TDM_OK)
        s = tdm_ops_check_matrix(f, "a", a, a->shape.dims[0], 0);
    if (s == TDM_OK)
        s = tdm_ops_check_matrix(f, "b", b, b->shape.dims[0], 0);
    if (s == TDM_OK && cols_of(a, trans_a) != rows_of(b, trans_b))
        s = tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: op(a) has %zu columns but op(b) has %zu rows",
                     f, cols_of(a, trans_a), rows_of(b, trans_b));
    if (s == TDM_OK)
        s = tdm_ops_check_matrix(f, "c", c, rows_of(a, trans_a), cols_of(b, trans_b));
    return s;
}

tdm_status tdm_op_matmul(tdm_tensor *c, const tdm_tensor *a, int trans_a, const tdm_tensor *b,
                         int trans_b, float alpha, float beta)
{
    const char *f = "tdm_op_matmul";
    tdm_status s = check_matmul(f, c, a, trans_a, b, trans_b);
    if (s != TDM_OK || c->count == 0)
        return s;
    const tdm_gemm_args g = {.c = tdm_tensor_view(c),
                             .a = tdm_tensor_view(a),
                             .b = tdm_tensor_view(b),
                             .m = (uint32_t)rows_of(a, trans_a),
                             .n = (uint32_t)cols_of(b, trans_b),
                             .k = (uint32_t)cols_of(a, trans_a),
                             .lda = (uint32_t)a->shape.dims[1],
                             .ldb = (uint32_t)b->shape.dims[1],
                             .ldc = (uint32_t)c->shape.dims[1],
                             .trans_a = trans_a ? 1u : 0u,
                             .trans_b = trans_b ? 1u : 0u,
                             .alpha = alpha,
                             .beta = beta};
    if (g.k == 0) /* an empty inner dimension: c = beta * c */
        return beta == 0.0f ? tdm_op_fill(c, 0.0f) : tdm_op_scale(c, c, beta);
    tdm_kernel_call call = tdm_gemm_call(&g);
    /* gemm_f16's arguments are gemm's, in the same order; the launch checks the
     * views against its own entry */
    if (a->dtype == TDM_F16)
        call.kernel = TDM_KERNEL_gemm_f16;
    return tdm_ops_run(f, c, &call);
}

/* The operands of `sum` = x + b: the sum rows x cols of f32 or f16 activations, x
 * (f32) the same shape, b (f32) cols. */
static tdm_status check_bias(const char *f, const char *name, const tdm_tensor *sum,
                             const tdm_tensor *x, const tdm_tensor *b)
{
    tdm_status s = tdm_ops_check(f, name, sum, tdm_ops_storage(sum), NULL);
    if (s == TDM_OK)
        s = tdm_ops_check(f, "x", x, TDM_F32, sum->device);
    if (s == TDM_OK)
        s = tdm_ops_check(f, "b", b, TDM_F32, sum->device);
    if (s == TDM_OK)
        s = tdm_ops_check_matrix(f, name, sum, rows_of(x, 0), b->count);
    if (s == TDM_OK)
        s = tdm_ops_check_matrix(f, "x", x, rows_of(sum, 0), b->count);
    return s;
}

tdm_status tdm_op_bias_add(tdm_tensor *y, const tdm_tensor *x, const tdm_tensor *b)
{
    const char *f = "tdm_op_bias_add";
    tdm_status s = check_bias(f, "y", y, x, b);
    if (s != TDM_OK || y->count == 0)
        return s;
    const tdm_bias_add_args a = {.y = tdm_tensor_view(y),
                                 .x = tdm_tensor_view(x),
                                 .b = tdm_tensor_view(b),
                                 .rows = (uint32_t)y->shape.dims[0],
                                 .cols = (uint32_t)y->shape.dims[1]};
    tdm_kernel_call call = tdm_bias_add_call(&a);
    tdm_kernel_store_as(&call, tdm_ops_storage(y)); /* y may hold f16 activations */
    return tdm_ops_run(f, y, &call);
}

tdm_status tdm_op_bias_activation(tdm_activation act, tdm_tensor *y, tdm_tensor *z,
                                  const tdm_tensor *x, const tdm_tensor *b)
{
    const char *f = "tdm_op_bias_activation";
    tdm_status s = check_bias(f, "z", z, x, b);
    if (s == TDM_OK)
        s = tdm_ops_check(f, "y", y, tdm_ops_storage(z), z->device);
    if (s == TDM_OK)
        s = tdm_ops_check_matrix(f, "y", y, rows_of(z, 0), b->count);
    if (s == TDM_OK && tdm_activation_kernel((uint32_t)act) == TDM_KERNEL_COUNT)
        s = tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: unknown activation %d", f, (int)act);
    if (s != TDM_OK || y->count == 0)
        return s;
    const tdm_bias_act_args a = {.y = tdm_tensor_view(y),
                                 .z = tdm_tensor_view(z),
                                 .x = tdm_tensor_view(x),
                                 .b = tdm_tensor_view(b),
                                 .rows = (uint32_t)y->shape.dims[0],
                                 .cols = (uint32_t)y->shape.dims[1],
                                 .activation = (uint32_t)act};
    tdm_kernel_call call = tdm_bias_act_call(&a);
    tdm_kernel_store_as(&call, tdm_ops_storage(z));
    return tdm_ops_run(f, y, &call);
}

tdm_status tdm_op_sum_rows(tdm_tensor *out, const tdm_tensor *x)
{
    const char *f = "tdm_op_sum_rows";
    tdm_status s = tdm_ops_check(f, "out", out, TDM_F32, NULL);
    if (s == TDM_OK)
        s = tdm_ops_check(f, "x", x, TDM_F32, out->device);
    if (s == TDM_OK)
        s = tdm_ops_check_matrix(f, "x", x, rows_of(x, 0), out->count);
    if (s != TDM_OK || out->count == 0)
        return s;
    if (x->count == 0) /* no rows: the sums are 0 */
        return tdm_op_fill(out, 0.0f);
    const tdm_sum_axis0_args a = {.out = tdm_tensor_view(out),
                                  .x = tdm_tensor_view(x),
                                  .rows = (uint32_t)x->shape.dims[0],
                                  .cols = (uint32_t)x->shape.dims[1]};
    tdm_kernel_call call = tdm_sum_axis0_call(&a);
    return tdm_ops_run(f, out, &call);
}

/* relu's through relu_bias_grad; every other activation as its two operations. */
tdm_status tdm_op_bias_activation_grad(tdm_activation act, tdm_tensor *db, tdm_tensor *dx,
                                       const tdm_tensor *dy, const tdm_tensor *x,
                                       const tdm_tensor *y)
{
    const char *f = "tdm_op_bias_activation_grad";
    if (act != TDM_ACT_RELU) {
        tdm_status s = tdm_op_activation_grad(act, dx, dy, x, y);
        return s == TDM_OK ? tdm_op_sum_rows(db, dx) : s;
    }
    tdm_status s = tdm_ops_check(f, "db", db, TDM_F32, NULL);
    if (s == TDM_OK)
        s = tdm_ops_check(f, "dx", dx, TDM_F32, db->device);
    if (s == TDM_OK)
        s = tdm_ops_check_matrix(f, "dx", dx, rows_of(dx, 0), db->count);
    if (s == TDM_OK)
        s = tdm_ops_check(f, "dy", dy, TDM_F32, db->device);
    if (s == TDM_OK)
        s = tdm_ops_check_matrix(f, "dy", dy, rows_of(dx, 0), db->count);
    if (s == TDM_OK)
        s = tdm_ops_check(f, "x", x, tdm_ops_storage(x), db->device);
    if (s == TDM_OK)
        s = tdm_ops_check_matrix(f, "x", x, rows_of(dx, 0), db->count);
    /* relu reads x alone, but y is refused as tdm_op_activation_grad refuses it */
    if (s == TDM_OK)
        s = tdm_ops_check(f, "y", y, tdm_ops_storage(x), db->device);
    if (s == TDM_OK)
        s = tdm_ops_check_count(f, "y", y, dx->count);
    if (s != TDM_OK || db->count == 0)
        return s;
    if (dx->count == 0) /* no rows: the sums are 0 */
        return tdm_op_fill(db, 0.0f);
    const tdm_relu_bias_grad_args a = {.db = tdm_tensor_view(db),
                                       .dx = tdm_tensor_view(dx),
                                       .dy = tdm_tensor_view(dy),
                                       .x = tdm_tensor_view(x),
                                       .rows = (uint32_t)dx->shape.dims[0],
                                       .cols = (uint32_t)dx->shape.dims[1]};
    tdm_kernel_call call = tdm_relu_bias_grad_call(&a);
    tdm_kernel_store_as(&call, tdm_ops_storage(x));
    return tdm_ops_run(f, db, &call);
}

tdm_status tdm_op_sum(tdm_tensor *out, const tdm_tensor *x)
{
    return tdm_op_sum_scaled(out, x, 1.0f);
}

tdm_status tdm_op_sum_scaled(tdm_tensor *out, const tdm_tensor *x, float alpha)
{
    const char *f = "tdm_op_sum";
    tdm_status s = tdm_ops_check(f, "out", out, TDM_F32, NULL);
    if (s == TDM_OK)
        s = tdm_ops_check(f, "x", x, TDM_F32, out->device);
    if (s == TDM_OK)
        s = tdm_ops_check_count(f, "out", out, 1);
    if (s != TDM_OK)
        return s;
    if (x->count == 0)
        return tdm_op_fill(out, 0.0f);
    /* One chunk of n: one work-group sums in a fixed order, deterministic per device. */
    const tdm_sum_args a = {.out = tdm_tensor_view(out),
                            .x = tdm_tensor_view(x),
                            .n = (uint32_t)x->count,
                            .chunk = (uint32_t)x->count,
                            .alpha = alpha};
    tdm_kernel_call call = tdm_sum_call(&a);
    return tdm_ops_run(f, out, &call);
}

tdm_status tdm_op_dropout(tdm_tensor *y, const tdm_tensor *x, float rate, uint64_t seed,
                          uint32_t offset)
{
    const char *f = "tdm_op_dropout";
    const tdm_dtype storage = tdm_ops_storage(y); /* y and x: f32, or f16 activations */
    tdm_status s = tdm_ops_check(f, "y", y, storage, NULL);
    if (s == TDM_OK)
        s = tdm_ops_check(f, "x", x, storage, y->device);
    if (s == TDM_OK)
        s = tdm_ops_check_count(f, "x", x, y->count);
    if (s == TDM_OK && !(rate >= 0.0f && rate < 1.0f))
        s = tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: rate %g is outside [0, 1)", f, (double)rate);
    if (s != TDM_OK || y->count == 0)
        return s;
    const tdm_dropout_args a = {.y = tdm_tensor_view(y),
                                .x = tdm_tensor_view(x),
                                .n = (uint32_t)y->count,
                                .seed_lo = (uint32_t)seed,
                                .seed_hi = (uint32_t)(seed >> 32),
                                .offset = offset,
                                .rate = rate};
    tdm_kernel_call call = tdm_dropout_call(&a);
    tdm_kernel_store_as(&call, storage);
    return tdm_ops_run(f, y, &call);
}
