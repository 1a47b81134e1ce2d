/* The gradient checks of gathers, batch and layer normalisation, and the attention
 * softmax, whose forwards compose several kernels. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance_grad_parts.h"
#include "ref_kernels.h"

/* gather_rows (y, x, idx) with respect to x, and gather_rows_grad (dx, dy, idx) with
 * the same ids; the loss weighs y by dy. More rows than the source holds, so ids
 * repeat (a row's gradient is a sum) and some source rows are gathered by none. */
#define GATHER_ROWS 40u
#define GATHER_COLS 6u
#define GATHER_SOURCE 9u

/* Output (r, c) copies x[idx[r], c] alone, so one round moves every input. */
static long gathered_input(const grad_problem *p, size_t o, size_t round)
{
    (void)round;
    const uint32_t *idx = p->fwd_in.host[2];
    return (long)((size_t)idx[o / GATHER_COLS] * GATHER_COLS + o % GATHER_COLS);
}

tdm_status grad_build_gather(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p)
{
    (void)g, (void)dev, (void)index;
    const uint32_t u[] = {GATHER_ROWS, GATHER_COLS, GATHER_SOURCE};
    tdm_status s = grad_make_call(&p->fwd, &p->fwd_in, TDM_KERNEL_gather_rows, u, NULL, 1);
    if (s == TDM_OK)
        s = grad_make_call(&p->bwd, &p->bwd_in, TDM_KERNEL_gather_rows_grad, u, NULL, 2);
    if (s != TDM_OK)
        return s;
    p->out = 0, p->wrt = 1, p->grad = 0;
    p->rounds = 1, p->round_of = grad_one_round, p->owner = gathered_input;
    /* the source's 32-bit words (any bits, as drawn) become floats on the grid */
    float *x = p->fwd_in.host[1];
    for (size_t j = 0; j < p->fwd_in.elements[1]; j++)
        x[j] = (float)((double)((long)(j * 7919 % 4097) - 2048) * GRAD_GRID);
    grad_copy_view(&p->bwd_in, 2, &p->fwd_in, 2);
    return grad_weigh(p, p->bwd_in.host[1], 0);
}

/* Runs `kernel` on dev with views[b] as buffer b (inputs read from it, outputs
 * written back to it), every view at offset 0. */
static tdm_status run_views(tdm_device *dev, tdm_kernel kernel, const uint32_t *u, const float *f,
                            float *const *views)
{
    const tdm_kernel_info *info = tdm_kernel_get(kernel);
    conf_case c;
    conf_buffers in, out;
    tdm_status s = grad_make_call(&c, &in, kernel, u, f, 3);
    if (s != TDM_OK)
        return s;
    for (unsigned b = 0; b < info->buffer_count; b++)
        memcpy(in.host[b], views[b], in.elements[b] * sizeof(float));
    if (conf_buffers_transform(&c, &in, &out, 0, 0) != 0) {
        conf_buffers_free(&in);
        return TDM_ERR_OUT_OF_MEMORY;
    }
    s = conf_run(dev, &c, &in, &out);
    for (unsigned b = 0; s == TDM_OK && b < info->buffer_count; b++)
        if (info->buffers[b].written)
            memcpy(views[b], out.host[b], in.elements[b] * sizeof(float));
    conf_buffers_free(&in);
    conf_buffers_free(&out);
    return s;
}

/* Batch norm over BN_ROWS rows of BN_COLS channels, the statistics of this batch alone
 * (one replica: inv_count = 1 / rows). */
#define BN_ROWS 13u
#define BN_COLS 7u
#define NORM_EPSILON 1e-3f

/* The forward as a caller composes it: column sums of x and of its squares
 * (sum_axis0), batch_norm_stats, then batch_norm_apply (y, x, mean, inv_std, gamma,
 * beta), whose mean and inv_std it writes. */
static tdm_status batch_norm_forward(tdm_device *dev, const grad_problem *p, const conf_buffers *in,
                                     conf_buffers *out)
{
    (void)p;
    const uint32_t n[] = {BN_ROWS * BN_COLS}, rc[] = {BN_ROWS, BN_COLS}, c[] = {BN_COLS};
    const float stats_f[] = {1.0f / BN_ROWS, NORM_EPSILON};
    float sq[BN_ROWS * BN_COLS], sum[BN_COLS], sumsq[BN_COLS];
    float *x = in->host[1], *mean = out->host[2], *inv_std = out->host[3];
    float *square[] = {sq, x, x}, *sums[] = {sum, x}, *sums_sq[] = {sumsq, sq};
    float *stats[] = {mean, inv_std, sum, sumsq};
    tdm_status s = run_views(dev, TDM_KERNEL_mul, n, NULL, square);
    if (s == TDM_OK)
        s = run_views(dev, TDM_KERNEL_sum_axis0, rc, NULL, sums);
    if (s == TDM_OK)
        s = run_views(dev, TDM_KERNEL_sum_axis0, rc, NULL, sums_sq);
    if (s == TDM_OK)
        s = run_views(dev, TDM_KERNEL_batch_norm_stats, c, stats_f, stats);
    float *apply[] = {out->host[0], x, mean, inv_std, in->host[4], in->host[5]};
    return s == TDM_OK ? run_views(dev, TDM_KERNEL_batch_norm_apply, rc, NULL, apply) : s;
}

/* Every output of column c depends on every x of the column: a round moves one row. */
static size_t batch_row(const grad_problem *p, size_t j)
{
    return j / p->fwd.u[1];
}

static long column_member(const grad_problem *p, size_t o, size_t round)
{
    return (long)(round * p->fwd.u[1] + o % p->fwd.u[1]);
}

/* batch_norm_grad (dx, dy, x, mean, inv_std, gamma, sum_dy, sum_dy_xhat) against the
 * composed forward, its sums made as a caller makes them: sum_axis0 of dy and of
 * batch_norm_xhat_dy, with the forward's mean and inv_std. */
tdm_status grad_build_batch_norm(tdm_device *dev, const grad_check *g, size_t index,
                                 grad_problem *p)
{
    (void)g, (void)index;
    const uint32_t rc[] = {BN_ROWS, BN_COLS};
    const float f[] = {1.0f / BN_ROWS};
    tdm_status s = grad_make_call(&p->fwd, &p->fwd_in, TDM_KERNEL_batch_norm_apply, rc, NULL, 1);
    if (s == TDM_OK)
        s = grad_make_call(&p->bwd, &p->bwd_in, TDM_KERNEL_batch_norm_grad, rc, f, 2);
    if (s != TDM_OK)
        return s;
    p->forward = batch_norm_forward;
    p->out = 0, p->wrt = 1, p->grad = 0;
    p->rounds = BN_ROWS, p->round_of = batch_row, p->owner = column_member;
    conf_buffers y;
    if (conf_buffers_transform(&p->fwd, &p->fwd_in, &y, 0, 0) != 0)
        return TDM_ERR_OUT_OF_MEMORY;
    s = batch_norm_forward(dev, p, &p->fwd_in, &y);
    void *const *b = p->bwd_in.host;
    float xhat_dy[BN_ROWS * BN_COLS];
    grad_copy_view(&p->bwd_in, 2, &p->fwd_in, 1);
    grad_copy_view(&p->bwd_in, 3, &y, 2);
    grad_copy_view(&p->bwd_in, 4, &y, 3);
    grad_copy_view(&p->bwd_in, 5, &p->fwd_in, 4);
    conf_buffers_free(&y);
    float *terms[] = {xhat_dy, b[1], b[2], b[3], b[4]}, *dbeta[] = {b[6], b[1]},
          *dgamma[] = {b[7], xhat_dy};
    if (s == TDM_OK)
        s = run_views(dev, TDM_KERNEL_batch_norm_xhat_dy, rc, NULL, terms);
    if (s == TDM_OK)
        s = run_views(dev, TDM_KERNEL_sum_axis0, rc, NULL, dbeta);
    if (s == TDM_OK)
        s = run_views(dev, TDM_KERNEL_sum_axis0, rc, NULL, dgamma);
    return s == TDM_OK ? grad_weigh(p, b[1], 0) : s;
}

/* Row r's outputs depend on every x of the row: a round moves one column. */
static long row_member(const grad_problem *p, size_t o, size_t round)
{
    return (long)(o / p->fwd.u[1] * p->fwd.u[1] + round);
}

/* layer_norm (y, mean, inv_std, x, gamma, beta) and layer_norm_grad (dx, xhat_dy, dy,
 * x, mean, inv_std, gamma) with the forward's mean and inv_std; 16 columns, so that
 * inv_cols is exact. */
tdm_status grad_build_layer_norm(tdm_device *dev, const grad_check *g, size_t index,
                                 grad_problem *p)
{
    (void)g, (void)index;
    const uint32_t u[] = {9, 16};
    const float f[] = {1.0f / 16, NORM_EPSILON};
    tdm_status s = grad_make_call(&p->fwd, &p->fwd_in, TDM_KERNEL_layer_norm, u, f, 1);
    if (s == TDM_OK)
        s = grad_make_call(&p->bwd, &p->bwd_in, TDM_KERNEL_layer_norm_grad, u, f, 2);
    if (s != TDM_OK)
        return s;
    p->out = 0, p->wrt = 3, p->grad = 0;
    p->rounds = u[1], p->round_of = grad_column_round, p->owner = row_member;
    conf_buffers y;
    if (conf_buffers_transform(&p->fwd, &p->fwd_in, &y, 0, 0) != 0)
        return TDM_ERR_OUT_OF_MEMORY;
    s = conf_run(dev, &p->fwd, &p->fwd_in, &y);
    grad_copy_view(&p->bwd_in, 3, &p->fwd_in, 3);
    grad_copy_view(&p->bwd_in, 4, &y, 1);
    grad_copy_view(&p->bwd_in, 5, &y, 2);
    grad_copy_view(&p->bwd_in, 6, &p->fwd_in, 4);
    conf_buffers_free(&y);
    return s == TDM_OK ? grad_weigh(p, p->bwd_in.host[2], 0) : s;
}

/* attention_softmax (p, s) and attention_softmax_grad (ds, dp, p) with the forward's
 * p: 3 heads of 8 positions, all of a row's scores (index 0) or the causal ones
 * (index 1; a masked score moves nothing, its gradient is 0). */
tdm_status grad_build_attention(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p)
{
    (void)g;
    const uint32_t u[] = {24, 8, (uint32_t)index};
    const float f[] = {0.35f};
    tdm_status s = grad_make_call(&p->fwd, &p->fwd_in, TDM_KERNEL_attention_softmax, u, f, 1);
    if (s == TDM_OK)
        s = grad_make_call(&p->bwd, &p->bwd_in, TDM_KERNEL_attention_softmax_grad, u, f, 2);
    if (s != TDM_OK)
        return s;
    p->out = 0, p->wrt = 1, p->grad = 0;
    p->rounds = u[1], p->round_of = grad_column_round, p->owner = row_member;
    conf_buffers y;
    if (conf_buffers_transform(&p->fwd, &p->fwd_in, &y, 0, 0) != 0)
        return TDM_ERR_OUT_OF_MEMORY;
    s = conf_run(dev, &p->fwd, &p->fwd_in, &y);
    grad_copy_view(&p->bwd_in, 2, &y, 0);
    conf_buffers_free(&y);
    return s == TDM_OK ? grad_weigh(p, p->bwd_in.host[1], 0) : s;
}
