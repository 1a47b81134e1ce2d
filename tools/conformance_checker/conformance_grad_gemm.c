/* The gradient checks of the products: gemm and gemm_f16 with respect to A and B, in
 * every transpose. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance_grad_parts.h"
#include "ref_kernels.h"

/* GEMM, C = alpha op(A) op(B) with m x k, k x n and m x n, every matrix with a
 * leading dimension past its width. The loss weighs C by dC; then
 * d op(A) = alpha dC op(B)^T and d op(B) = alpha op(A)^T dC, each one GEMM. */
enum { GM, GN, GK, GLDA, GLDB, GLDC, GTA, GTB };

/* Row i and column j of C's element o; -1 for its padding. */
static long c_row(const grad_problem *p, size_t o)
{
    return o % p->fwd.u[GLDC] < p->fwd.u[GN] ? (long)(o / p->fwd.u[GLDC]) : -1;
}

/* A round moves op(A)'s column p (C's row i depends on op(A)[i, p] alone). */
static size_t a_round(const grad_problem *p, size_t j)
{
    const uint32_t *u = p->fwd.u;
    return u[GTA] ? j / u[GLDA] : j % u[GLDA];
}

static long a_owner(const grad_problem *p, size_t o, size_t round)
{
    const uint32_t *u = p->fwd.u;
    long i = c_row(p, o);
    if (i < 0 || round >= u[GK])
        return -1;
    return u[GTA] ? (long)(round * u[GLDA]) + i : i * (long)u[GLDA] + (long)round;
}

/* A round moves op(B)'s row p (C's column j depends on op(B)[p, j] alone). */
static size_t b_round(const grad_problem *p, size_t j)
{
    const uint32_t *u = p->fwd.u;
    return u[GTB] ? j % u[GLDB] : j / u[GLDB];
}

static long b_owner(const grad_problem *p, size_t o, size_t round)
{
    const uint32_t *u = p->fwd.u;
    long j = (long)(o % u[GLDC]);
    if (c_row(p, o) < 0 || round >= u[GK])
        return -1;
    return u[GTB] ? j * (long)u[GLDB] + (long)round : (long)(round * u[GLDB]) + j;
}

/* Case index: bit 1 transposes A, bit 0 transposes B. gemm_f16's backward takes dC as
 * float16, as mixed-precision training casts it. */
static tdm_status gemm_problem(tdm_kernel kernel, size_t index, grad_problem *p, int wrt_b)
{
    const uint32_t m = 5, n = 7, k = 6, ta = (uint32_t)(index >> 1), tb = (uint32_t)(index & 1);
    const uint32_t lda = (ta ? m : k) + 2, ldb = (tb ? k : n) + 1, ldc = n + 3;
    const uint32_t u[] = {m, n, k, lda, ldb, ldc, ta, tb};
    const float f[] = {1.5f, 0.0f};
    /* The backward GEMM's scalars, and which of its inputs are dC and the forward's
     * other matrix (buffers: 0 C, 1 A, 2 B). */
    uint32_t bu[8];
    unsigned dc, other;
    if (!wrt_b && !ta) {
        const uint32_t v[8] = {m, k, n, ldc, ldb, lda, 0, !tb};
        memcpy(bu, v, sizeof bu);
        dc = 1, other = 2;
    } else if (!wrt_b) {
        const uint32_t v[8] = {k, m, n, ldb, ldc, lda, tb, 1};
        memcpy(bu, v, sizeof bu);
        dc = 2, other = 1;
    } else if (!tb) {
        const uint32_t v[8] = {k, n, m, lda, ldc, ldb, !ta, 0};
        memcpy(bu, v, sizeof bu);
        dc = 2, other = 1;
    } else {
        const uint32_t v[8] = {n, k, m, ldc, lda, ldb, 1, ta};
        memcpy(bu, v, sizeof bu);
        dc = 1, other = 2;
    }
    tdm_status s = grad_make_call(&p->fwd, &p->fwd_in, kernel, u, f, 1);
    if (s == TDM_OK)
        s = grad_make_call(&p->bwd, &p->bwd_in, kernel, bu, f, 2);
    if (s != TDM_OK)
        return s;
    snprintf(p->bwd.label, sizeof p->bwd.label, "d%c, A%s B%s", wrt_b ? 'B' : 'A', ta ? "^T" : "",
             tb ? "^T" : "");
    p->out = 0, p->grad = 0, p->wrt = wrt_b ? 2 : 1;
    /* A and B are float or float16 alike: bytes of their elements. */
    size_t size = tdm_kernel_type_size(tdm_kernel_get(kernel)->buffers[1].type);
    memcpy(p->bwd_in.host[other], p->fwd_in.host[wrt_b ? 1 : 2],
           p->fwd_in.elements[wrt_b ? 1 : 2] * size);
    size_t outs = p->fwd_in.elements[0];
    unsigned char *dc_bytes = p->bwd_in.host[dc];
    float *dc_values = malloc((outs ? outs : 1) * sizeof *dc_values);
    if (!dc_values)
        return TDM_ERR_OUT_OF_MEMORY;
    for (size_t o = 0; o < outs; o++) {
        if (c_row(p, o) < 0)
            memset(dc_bytes + o * size, 0, size); /* C's padding is no output */
        dc_values[o] = size == sizeof(uint16_t) ? tdm_f32_from_f16(((uint16_t *)dc_bytes)[o])
                                                : ((float *)dc_bytes)[o];
    }
    p->rounds = wrt_b ? (tb ? ldb : k) : (ta ? k : lda);
    p->round_of = wrt_b ? b_round : a_round;
    p->owner = wrt_b ? b_owner : a_owner;
    s = grad_weigh(p, dc_values, 0);
    free(dc_values);
    return s;
}

tdm_status grad_build_gemm_a(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p)
{
    (void)dev;
    return gemm_problem(g->forward, index, p, 0);
}

tdm_status grad_build_gemm_b(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p)
{
    (void)dev;
    return gemm_problem(g->forward, index, p, 1);
}
