/* Matrix products with f16 operands and f32 sums: the operands rounded into the
 * caller's scratch, then one f16 product. */
#include "ops/ops_mixed.h"

#include "base/error.h"
#include "tandem/nn.h"
#include "tandem/ops.h"

/* *out = t rounded to f16, in the first elements of scratch, with t's shape; an f16 t
 * (a stored activation) is its own rounding, and *out stays NULL. */
static tdm_status rounded(tdm_tensor *scratch, const tdm_tensor *t, const char *what,
                          tdm_tensor **out)
{
    tdm_shape shape = tdm_tensor_shape(t);
    *out = NULL;
    if (tdm_tensor_dtype(t) == TDM_F16)
        return TDM_OK;
    if (tdm_tensor_count(t) > tdm_tensor_count(scratch))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "tdm_matmul_mixed: '%s' has %zu elements, its f16 scratch %zu", what,
                        tdm_tensor_count(t), tdm_tensor_count(scratch));
    tdm_status s = tdm_tensor_slice(scratch, 0, &shape, out);
    return s == TDM_OK ? tdm_op_cast(*out, t) : s;
}

tdm_status tdm_matmul_mixed(const tdm_halves *h, tdm_tensor *c, const tdm_tensor *a, int trans_a,
                            const tdm_tensor *b, int trans_b, float alpha, float beta)
{
    if (!h || !h->a || !h->b)
        return tdm_op_matmul(c, a, trans_a, b, trans_b, alpha, beta);
    tdm_tensor *a16 = NULL, *b16 = NULL;
    tdm_status s = rounded(h->a, a, "a", &a16);
    if (s == TDM_OK)
        s = rounded(h->b, b, "b", &b16);
    if (s == TDM_OK)
        s = tdm_op_matmul(c, a16 ? a16 : a, trans_a, b16 ? b16 : b, trans_b, alpha, beta);
    tdm_tensor_destroy(b16);
    tdm_tensor_destroy(a16);
    return s;
}
