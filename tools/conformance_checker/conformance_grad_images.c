/* The gradient checks of the image kernels: convolution (lowered and implicit),
 * pooling, global average pooling and im2col. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance_grad_parts.h"
#include "ref_kernels.h"

/* Convolution and pooling: the uints of conv2d and its gradients, and a window's
 * place in them (pooling has no oc: its uints are these without it). */
enum { IB, IH, IW, IC, IOH, IOW, IOC, IKH, IKW, ISH, ISW, IPT, IPL, IMAGE_UINTS };
typedef struct image_dims {
    uint32_t batch, h, w, c, oh, ow, oc, kh, kw, sh, sw, pt, pl;
} image_dims;

/* The cases: 3x3 SAME; a 3x2 window with strides 2 and 1, padded on one side only;
 * a 2x2 window with stride 3 (input positions no window sees); the whole image
 * (global average pooling's window). */
static const image_dims image_cases[] = {
    {2, 5, 5, 3, 5, 5, 4, 3, 3, 1, 1, 1, 1},
    {2, 7, 6, 2, 4, 6, 3, 3, 2, 2, 1, 1, 0},
    {1, 6, 6, 2, 2, 2, 3, 2, 2, 3, 3, 0, 0},
    {2, 5, 4, 3, 1, 1, 2, 5, 4, 5, 4, 0, 0},
};
#define IMAGE_CASES (sizeof image_cases / sizeof image_cases[0])
_Static_assert(IMAGE_CASES == GRAD_IMAGE_CASES, "the table counts the image cases");

static image_dims dims_of(const grad_problem *p)
{
    const uint32_t *u = p->fwd.u;
    /* pooling's uints skip oc: those after it sit one place earlier */
    unsigned pool = tdm_kernel_get(p->fwd.kernel)->uint_count < IMAGE_UINTS;
    image_dims d = {.batch = u[IB],
                    .h = u[IH],
                    .w = u[IW],
                    .c = u[IC],
                    .oh = u[IOH],
                    .ow = u[IOW],
                    .oc = pool ? u[IC] : u[IOC],
                    .kh = u[IKH - pool],
                    .kw = u[IKW - pool],
                    .sh = u[ISH - pool],
                    .sw = u[ISW - pool],
                    .pt = u[IPT - pool],
                    .pl = u[IPL - pool]};
    return d;
}

/* A round of image inputs: one channel, rows and columns each at one residue modulo
 * the window, so that a window holds at most one input of a round. */
static size_t image_round(const grad_problem *p, size_t j)
{
    image_dims d = dims_of(p);
    size_t ch = j % d.c, s = j / d.c % d.w, r = j / d.c / d.w % d.h;
    return (ch * d.kh + r % d.kh) * d.kw + s % d.kw;
}

/* The position in the window starting at `start` congruent to `residue`, or -1
 * past the image. */
static long window_member(long start, uint32_t k, size_t residue, uint32_t size)
{
    long start_residue = (start % (long)k + (long)k) % (long)k;
    long at = start + ((long)residue - start_residue + (long)k) % (long)k;
    return at >= 0 && at < (long)size ? at : -1;
}

/* The input of `round` that output o's window holds (o's channel: the round's for
 * pooling, every channel for a convolution), or -1. */
static long image_owner(const grad_problem *p, size_t o, size_t round)
{
    image_dims d = dims_of(p);
    size_t ch = round / (d.kh * d.kw), t = o / d.oc, col = t % d.ow, row = t / d.ow % d.oh;
    size_t b = t / d.ow / d.oh;
    int pool = tdm_kernel_get(p->fwd.kernel)->uint_count < IMAGE_UINTS;
    if (pool && o % d.c != ch)
        return -1;
    long r = window_member((long)(row * d.sh) - d.pt, d.kh, round / d.kw % d.kh, d.h);
    long s = window_member((long)(col * d.sw) - d.pl, d.kw, round % d.kw, d.w);
    if (r < 0 || s < 0)
        return -1;
    return (long)(((b * d.h + (size_t)r) * d.w + (size_t)s) * d.c + ch);
}

/* A round of filter elements: one (p, q, ch), every output channel. */
static size_t filter_round(const grad_problem *p, size_t j)
{
    return j / dims_of(p).oc;
}

static long filter_owner(const grad_problem *p, size_t o, size_t round)
{
    size_t oc = dims_of(p).oc;
    return (long)(round * oc + o % oc);
}

static void image_label(grad_problem *p, const char *what)
{
    image_dims d = dims_of(p);
    snprintf(p->bwd.label, sizeof p->bwd.label, "%s %ux%ux%ux%u k%ux%u s%ux%u", what, d.batch, d.h,
             d.w, d.c, d.kh, d.kw, d.sh, d.sw);
}

/* conv2d (y, x, f): dx from conv2d_grad_input (dx, dy, f), df from conv2d_grad_filter
 * (df, x, dy); the loss weighs y by dy. Likewise their implicit GEMMs, of the same
 * arguments. */
static tdm_status conv_problem(const grad_check *g, size_t index, grad_problem *p, int wrt_filter)
{
    const image_dims *d = &image_cases[index];
    const uint32_t u[IMAGE_UINTS] = {d->batch, d->h,  d->w,  d->c,  d->oh, d->ow, d->oc,
                                     d->kh,    d->kw, d->sh, d->sw, d->pt, d->pl};
    tdm_status s = grad_make_call(&p->fwd, &p->fwd_in, g->forward, u, NULL, 1);
    if (s == TDM_OK)
        s = grad_make_call(&p->bwd, &p->bwd_in, g->backward, u, NULL, 2);
    if (s != TDM_OK)
        return s;
    image_label(p, wrt_filter ? "df" : "dx");
    p->out = 0, p->grad = 0, p->wrt = wrt_filter ? 2 : 1;
    /* the other forward input: f for dx, x for df */
    grad_copy_view(&p->bwd_in, wrt_filter ? 1 : 2, &p->fwd_in, wrt_filter ? 1 : 2);
    if (wrt_filter) {
        p->rounds = (size_t)d->kh * d->kw * d->c;
        p->round_of = filter_round, p->owner = filter_owner;
    } else {
        p->rounds = (size_t)d->c * d->kh * d->kw;
        p->round_of = image_round, p->owner = image_owner;
    }
    return grad_weigh(p, p->bwd_in.host[wrt_filter ? 2 : 1], 0);
}

tdm_status grad_build_conv_x(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p)
{
    (void)dev;
    return conv_problem(g, index, p, 0);
}

tdm_status grad_build_conv_f(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p)
{
    (void)dev;
    return conv_problem(g, index, p, 1);
}

/* max_pool2d (y, x) and max_pool2d_grad (dx, dy, x), or avg_pool2d (y, x) and
 * avg_pool2d_grad (dx, dy); the loss weighs y by dy. Max pooling's inputs are distinct,
 * 2^-5 apart, so that no step of the stencil changes a window's maximum. */
static tdm_status pool_problem(size_t index, grad_problem *p, int max)
{
    const image_dims *d = &image_cases[index];
    /* max_pool2d_grad's relu last, 0: the pooling's own gradient */
    const uint32_t u[IMAGE_UINTS] = {d->batch, d->h,  d->w,  d->c,  d->oh, d->ow, d->kh,
                                     d->kw,    d->sh, d->sw, d->pt, d->pl, 0};
    tdm_kernel fwd = max ? TDM_KERNEL_max_pool2d : TDM_KERNEL_avg_pool2d;
    tdm_kernel bwd = max ? TDM_KERNEL_max_pool2d_grad : TDM_KERNEL_avg_pool2d_grad;
    tdm_status s = grad_make_call(&p->fwd, &p->fwd_in, fwd, u, NULL, 1);
    if (s == TDM_OK)
        s = grad_make_call(&p->bwd, &p->bwd_in, bwd, u, NULL, 2);
    if (s != TDM_OK)
        return s;
    image_label(p, "dx");
    p->out = 0, p->grad = 0, p->wrt = 1;
    p->rounds = (size_t)d->c * d->kh * d->kw;
    p->round_of = image_round, p->owner = image_owner;
    if (max) {
        float *x = p->fwd_in.host[1];
        size_t n = p->fwd_in.elements[1]; /* 7919 is prime to every case's size */
        for (size_t j = 0; j < n; j++)
            x[j] = (float)((double)((long)(j * 7919 % n) - (long)n / 2) * 0x1p-5);
        grad_copy_view(&p->bwd_in, 2, &p->fwd_in, 1);
    }
    return grad_weigh(p, p->bwd_in.host[1], 0);
}

/* global_avg_pool (y, x, sum) and global_avg_pool_grad (dx, dy); the loss weighs y by
 * dy. Each output depends on every position of its image and channel, so a round is
 * one position (r, s) of every image and channel. Cases batch x h x w x c. */
static const uint32_t global_cases[][4] = {{2, 5, 5, 3}, {3, 4, 7, 2}, {1, 9, 6, 5}};
#define GLOBAL_CASES (sizeof global_cases / sizeof global_cases[0])
_Static_assert(GLOBAL_CASES == GRAD_GLOBAL_CASES, "the table counts the global pooling cases");

static size_t position_round(const grad_problem *p, size_t j)
{
    return j / p->fwd.u[3] % ((size_t)p->fwd.u[1] * p->fwd.u[2]);
}

static long position_owner(const grad_problem *p, size_t o, size_t round)
{
    size_t c = p->fwd.u[3], positions = (size_t)p->fwd.u[1] * p->fwd.u[2];
    return (long)((o / c * positions + round) * c + o % c);
}

tdm_status grad_build_global_pool(tdm_device *dev, const grad_check *g, size_t index,
                                  grad_problem *p)
{
    (void)g, (void)dev;
    const uint32_t *d = global_cases[index];
    const uint32_t u[] = {d[0], d[1], d[2], d[3], 0, d[1]}; /* rows 0 .. h - 1 */
    tdm_status s = grad_make_call(&p->fwd, &p->fwd_in, TDM_KERNEL_global_avg_pool, u, NULL, 1);
    if (s == TDM_OK)
        s = grad_make_call(&p->bwd, &p->bwd_in, TDM_KERNEL_global_avg_pool_grad, u, NULL, 2);
    if (s != TDM_OK)
        return s;
    snprintf(p->bwd.label, sizeof p->bwd.label, "dx %ux%ux%ux%u", d[0], d[1], d[2], d[3]);
    p->out = 0, p->grad = 0, p->wrt = 1;
    p->rounds = (size_t)d[1] * d[2];
    p->round_of = position_round, p->owner = position_owner;
    return grad_weigh(p, p->bwd_in.host[1], 0);
}

tdm_status grad_build_max_pool(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p)
{
    (void)g, (void)dev;
    return pool_problem(index, p, 1);
}

tdm_status grad_build_avg_pool(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p)
{
    (void)g, (void)dev;
    return pool_problem(index, p, 0);
}

/* The input that im2col's element o copies, or -1 for padding: each element of col
 * copies at most one input, so one round perturbs them all. */
static long copied_input(const grad_problem *p, size_t o, size_t round)
{
    (void)round;
    image_dims d = dims_of(p);
    size_t row = (size_t)d.kh * d.kw * d.c, within = o % row, t = o / row;
    size_t ch = within % d.c, pq = within / d.c, b = t / d.ow / d.oh;
    long r = (long)(t / d.ow % d.oh * d.sh) - (long)d.pt + (long)(pq / d.kw);
    long s = (long)(t % d.ow * d.sw) - (long)d.pl + (long)(pq % d.kw);
    if (r < 0 || r >= (long)d.h || s < 0 || s >= (long)d.w)
        return -1;
    return (long)(((b * d.h + (size_t)r) * d.w + (size_t)s) * d.c + ch);
}

/* im2col (col, x) and col2im (dx, col): the loss weighs col by the backward's col. */
tdm_status grad_build_im2col(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p)
{
    (void)g, (void)dev;
    const image_dims *d = &image_cases[index];
    const uint32_t u[IMAGE_UINTS - 1] = {d->batch, d->h,  d->w,  d->c,  d->oh, d->ow,
                                         d->kh,    d->kw, d->sh, d->sw, d->pt, d->pl};
    tdm_status s = grad_make_call(&p->fwd, &p->fwd_in, TDM_KERNEL_im2col, u, NULL, 1);
    if (s == TDM_OK)
        s = grad_make_call(&p->bwd, &p->bwd_in, TDM_KERNEL_col2im, u, NULL, 2);
    if (s != TDM_OK)
        return s;
    image_label(p, "dx");
    p->out = 0, p->grad = 0, p->wrt = 1;
    p->rounds = 1;
    p->round_of = grad_one_round, p->owner = copied_input;
    return grad_weigh(p, p->bwd_in.host[1], 0);
}
