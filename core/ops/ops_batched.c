/* Strided batched GEMM: a gemm launch per matrix of the batch, each on views moved to
 * its matrices (ops_batched.h). */
#include <stdint.h>

#include "base/error.h"
#include "kernel/kernel_args.h"
#include "device/memory/tensor_impl.h"
#include "ops/ops_batched.h"
#include "ops/ops_check.h"

/* The element offset of matrix i from the operand's start. */
static size_t matrix_at(const tdm_matrices *l, size_t heads, size_t i)
{
    return i / heads * l->outer + i % heads * l->inner;
}

/* The largest matrix_at over the batch: the last matrix, or the last head of the
 * outer step before it where inner steps outrun outer ones. */
static size_t last_matrix_at(const tdm_matrices *l, size_t heads, size_t batch)
{
    size_t last = matrix_at(l, heads, batch - 1);
    if (batch > heads) {
        size_t full = matrix_at(l, heads, (batch - 1) / heads * heads - 1);
        last = full > last ? full : last;
    }
    return last;
}

/* An operand of rows x cols as stored: its leading dimension holds a row, and every
 * matrix of the batch lies inside the tensor. */
static tdm_status check_operand(const char *f, const char *what, const tdm_tensor *t,
                                const tdm_matrices *l, size_t rows, size_t cols,
                                const tdm_batched_product *p)
{
    if (l->ld < cols || l->ld > UINT32_MAX)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: %s's leading dimension %zu must hold a row of %zu and fit 32 bits", f,
                        what, l->ld, cols);
    size_t span = (rows - 1) * l->ld + cols, end = l->start + last_matrix_at(l, p->heads, p->batch);
    if (end > t->count || span > t->count - end)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "%s: %s's matrices of %zu x %zu (ld %zu) reach past its %zu elements", f,
                        what, rows, cols, l->ld, t->count);
    return TDM_OK;
}

static tdm_status check_product(const char *f, const tdm_tensor *c, const tdm_tensor *a,
                                const tdm_tensor *b, const tdm_batched_product *p)
{
    tdm_status s = tdm_ops_check(f, "c", c, TDM_F32, NULL);
    if (s == TDM_OK)
        s = tdm_ops_check(f, "a", a, TDM_F32, c->device);
    if (s == TDM_OK)
        s = tdm_ops_check(f, "b", b, TDM_F32, c->device);
    if (s == TDM_OK && (!p || p->heads == 0))
        s = tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: no product, or heads 0", f);
    if (s != TDM_OK || p->batch == 0 || p->m == 0 || p->n == 0)
        return s;
    if (p->m > UINT32_MAX || p->n > UINT32_MAX || p->k > UINT32_MAX)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: m, n and k must fit 32 bits", f);
    s = check_operand(f, "c", c, &p->c, p->m, p->n, p);
    if (s == TDM_OK && p->k)
        s = check_operand(f, "a", a, &p->a, p->trans_a ? p->k : p->m, p->trans_a ? p->m : p->k, p);
    if (s == TDM_OK && p->k)
        s = check_operand(f, "b", b, &p->b, p->trans_b ? p->n : p->k, p->trans_b ? p->k : p->n, p);
    return s;
}

/* The tensor's view moved to the matrix at element `at`, as long as the rest of it
 * (gemm reads only its extent). */
static tdm_buffer_view view_at(const tdm_tensor *t, size_t at)
{
    tdm_buffer_view v = tdm_tensor_view(t);
    v.offset += at * sizeof(float);
    v.size -= at * sizeof(float);
    return v;
}

tdm_status tdm_ops_gemm_batched(tdm_tensor *c, const tdm_tensor *a, const tdm_tensor *b,
                                const tdm_batched_product *p)
{
    const char *f = "tdm_ops_gemm_batched";
    tdm_status s = check_product(f, c, a, b, p);
    if (s != TDM_OK || p->batch == 0 || p->m == 0 || p->n == 0)
        return s;
    for (size_t i = 0; i < p->batch && s == TDM_OK; i++) {
        /* with k 0 no element of A or B is read: their views stay at the start */
        size_t ai = p->k ? p->a.start + matrix_at(&p->a, p->heads, i) : 0;
        size_t bi = p->k ? p->b.start + matrix_at(&p->b, p->heads, i) : 0;
        const tdm_gemm_args g = {.c = view_at(c, p->c.start + matrix_at(&p->c, p->heads, i)),
                                 .a = view_at(a, ai),
                                 .b = view_at(b, bi),
                                 .m = (uint32_t)p->m,
                                 .n = (uint32_t)p->n,
                                 .k = (uint32_t)p->k,
                                 .lda = (uint32_t)p->a.ld,
                                 .ldb = (uint32_t)p->b.ld,
                                 .ldc = (uint32_t)p->c.ld,
                                 .trans_a = p->trans_a ? 1u : 0u,
                                 .trans_b = p->trans_b ? 1u : 0u,
                                 .alpha = p->alpha,
                                 .beta = p->beta};
        tdm_kernel_call call = tdm_gemm_call(&g);
        s = tdm_ops_run(f, c, &call);
    }
    return s;
}
