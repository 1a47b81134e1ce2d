/* The gradient checks: each backward kernel or loss gradient of the table, the
 * forward kernel it differentiates, and the point where they are compared. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance_grad_problem.h"
#include "ref_kernels.h"

#define ELEMENTS 1031u /* past a work-group or two, and prime */
#define GRAD_SCALE 0.375f

/* A call with random data on the finite-difference grid (labels in range). */
static tdm_status make_call(conf_case *c, conf_buffers *b, tdm_kernel kernel, const uint32_t *u,
                            const float *f, unsigned seed)
{
    const tdm_kernel_info *info = tdm_kernel_get(kernel);
    memset(c, 0, sizeof *c);
    c->kernel = kernel;
    memcpy(c->u, u, info->uint_count * sizeof *u);
    if (f)
        memcpy(c->f, f, info->float_count * sizeof *f);
    c->data = CONF_RANDOM;
    c->seed = seed;
    snprintf(c->label, sizeof c->label, "%s", info->name);
    if (conf_buffers_make(c, b) != 0)
        return TDM_ERR_OUT_OF_MEMORY;
    for (unsigned k = 0; k < info->buffer_count; k++) {
        float *v = b->host[k];
        uint16_t *h = b->host[k];
        for (size_t i = 0; info->buffers[k].type == 'f' && i < b->total[k]; i++)
            v[i] = (float)(nearbyint(v[i] / GRAD_GRID) * GRAD_GRID);
        for (size_t i = 0; info->buffers[k].type == 'h' && i < b->total[k]; i++)
            h[i] = tdm_f16_from_f32(
                (float)(nearbyint(tdm_f32_from_f16(h[i]) / GRAD_HALF_GRID) * GRAD_HALF_GRID));
    }
    return TDM_OK;
}

static void copy_view(conf_buffers *to, unsigned to_buffer, const conf_buffers *from,
                      unsigned from_buffer)
{
    memcpy(to->host[to_buffer], from->host[from_buffer],
           from->elements[from_buffer] * sizeof(float));
}

/* The loss weighs output o by values[o], or by `constant` where values is NULL. */
static tdm_status weigh(grad_problem *p, const float *values, float constant)
{
    size_t n = p->fwd_in.elements[p->out];
    p->weight = malloc((n ? n : 1) * sizeof *p->weight);
    if (!p->weight)
        return TDM_ERR_OUT_OF_MEMORY;
    for (size_t o = 0; o < n; o++)
        p->weight[o] = values ? values[o] : constant;
    return TDM_OK;
}

static size_t one_round(const grad_problem *p, size_t j)
{
    (void)p, (void)j;
    return 0;
}

static long same_element(const grad_problem *p, size_t o, size_t round)
{
    (void)p, (void)round;
    return (long)o;
}

/* The forward and backward of one element-wise map, y = f(x): the backward takes
 * dy (the loss's weights) and either x or the forward's own output y. */
static tdm_status elementwise(tdm_device *dev, grad_problem *p, tdm_kernel forward,
                              tdm_kernel backward, const uint32_t *u, const float *f,
                              int takes_output)
{
    tdm_status s = make_call(&p->fwd, &p->fwd_in, forward, u, f, 1);
    if (s == TDM_OK)
        s = make_call(&p->bwd, &p->bwd_in, backward, u, f, 2);
    if (s != TDM_OK)
        return s;
    p->out = 0, p->wrt = 1, p->grad = 0;
    p->rounds = 1, p->round_of = one_round, p->owner = same_element;
    if (backward != forward && !takes_output)
        copy_view(&p->bwd_in, 2, &p->fwd_in, 1);
    if (takes_output) {
        conf_buffers y;
        if (conf_buffers_transform(&p->fwd, &p->fwd_in, &y, 0, 0) != 0)
            return TDM_ERR_OUT_OF_MEMORY;
        s = conf_run(dev, &p->fwd, &p->fwd_in, &y);
        if (s == TDM_OK)
            copy_view(&p->bwd_in, 2, &y, 0);
        conf_buffers_free(&y);
    }
    return s == TDM_OK ? weigh(p, p->bwd_in.host[1], 0) : s;
}

/* Maps whose backward takes x, and maps whose backward takes the output y. */
static tdm_status map_of_input(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p)
{
    (void)index;
    const uint32_t u[] = {ELEMENTS};
    return elementwise(dev, p, g->forward, g->backward, u, NULL, 0);
}

static tdm_status map_of_output(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p)
{
    (void)index;
    const uint32_t u[] = {ELEMENTS};
    return elementwise(dev, p, g->forward, g->backward, u, NULL, 1);
}

static tdm_status relu_problem(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p)
{
    tdm_status s = map_of_input(dev, g, index, p);
    float *x[2] = {p->fwd_in.host[1], p->bwd_in.host[2]};
    for (size_t i = 0; s == TDM_OK && i < ELEMENTS; i++)
        if (fabsf(x[0][i]) < 4 * GRAD_STEP) /* clear of the kink by more than the stencil */
            x[0][i] = x[1][i] = copysignf(fabsf(x[0][i]) + 4 * (float)GRAD_STEP, x[0][i]);
    return s;
}

/* The backward pass of dropout is the same kernel, with the same mask, on dy. */
static tdm_status dropout_problem(tdm_device *dev, const grad_check *g, size_t index,
                                  grad_problem *p)
{
    (void)g, (void)index;
    const uint32_t u[] = {ELEMENTS, 0x9e3779b9u, 0x7f4a7c15u, 4093};
    const float f[] = {0.3f};
    return elementwise(dev, p, TDM_KERNEL_dropout, TDM_KERNEL_dropout, u, f, 0);
}

/* y[r, c] = x[r, c] + b[c]: every output of column c depends on b[c] alone. */
static long bias_column(const grad_problem *p, size_t o, size_t round)
{
    (void)round;
    return (long)(o % p->fwd.u[1]);
}

static tdm_status bias_problem(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p)
{
    (void)g, (void)dev, (void)index;
    const uint32_t u[] = {13, 7};
    tdm_status s = make_call(&p->fwd, &p->fwd_in, TDM_KERNEL_bias_add, u, NULL, 1);
    if (s == TDM_OK)
        s = make_call(&p->bwd, &p->bwd_in, TDM_KERNEL_sum_axis0, u, NULL, 2);
    p->out = 0, p->wrt = 2, p->grad = 0;
    p->rounds = 1, p->round_of = one_round, p->owner = bias_column;
    return s == TDM_OK ? weigh(p, p->bwd_in.host[1], 0) : s;
}

/* A loss kernel gives its own gradient: the same call, scaled by its grad_scale, the
 * first of its floats f (NULL: grad_scale alone). */
static tdm_status loss_problem(grad_problem *p, tdm_kernel kernel, const uint32_t *u,
                               const float *f)
{
    const float scale_only[] = {GRAD_SCALE};
    tdm_status s = make_call(&p->fwd, &p->fwd_in, kernel, u, f ? f : scale_only, 1);
    if (s != TDM_OK)
        return s;
    p->bwd = p->fwd;
    if (conf_buffers_transform(&p->fwd, &p->fwd_in, &p->bwd_in, 0, 0) != 0)
        return TDM_ERR_OUT_OF_MEMORY;
    p->out = 0, p->wrt = 2, p->grad = 1;
    p->rounds = 1, p->round_of = one_round, p->owner = same_element;
    return weigh(p, NULL, GRAD_SCALE);
}

/* Row r's loss depends on every logit of the row: a round moves one column. */
static size_t logit_column(const grad_problem *p, size_t j)
{
    return j % p->fwd.u[1];
}

static long row_logit(const grad_problem *p, size_t o, size_t round)
{
    return (long)(o * p->fwd.u[1] + round);
}

static tdm_status softmax_xent_problem(tdm_device *dev, const grad_check *g, size_t index,
                                       grad_problem *p)
{
    (void)g, (void)dev, (void)index;
    const uint32_t u[] = {9, 10};
    tdm_status s = loss_problem(p, TDM_KERNEL_softmax_xent, u, NULL);
    p->rounds = u[1], p->round_of = logit_column, p->owner = row_logit;
    return s;
}

/* Against soft target rows (in [0, 1], their sums not 1): the same rounds. */
static tdm_status softmax_xent_soft_problem(tdm_device *dev, const grad_check *g, size_t index,
                                            grad_problem *p)
{
    (void)g, (void)dev, (void)index;
    const uint32_t u[] = {9, 10};
    tdm_status s = loss_problem(p, TDM_KERNEL_softmax_xent_soft, u, NULL);
    p->rounds = u[1], p->round_of = logit_column, p->owner = row_logit;
    return s;
}

static tdm_status mse_problem(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p)
{
    (void)g, (void)dev, (void)index;
    const uint32_t u[] = {ELEMENTS};
    return loss_problem(p, TDM_KERNEL_mse, u, NULL);
}

/* Moves pred (buffer 2, in both calls) so that d = pred - target keeps more than the
 * stencil's reach from the kink at |d| = kink: |d| within 4 steps of it becomes kink
 * plus 4 steps, d's sign kept (on the grid still). */
static void clear_of_kink(grad_problem *p, float kink)
{
    float *pred[2] = {p->fwd_in.host[2], p->bwd_in.host[2]};
    const float *target = p->fwd_in.host[3];
    for (size_t i = 0; i < ELEMENTS; i++) {
        float d = pred[0][i] - target[i];
        if (fabsf(fabsf(d) - kink) < 4 * GRAD_STEP)
            pred[0][i] = pred[1][i] = target[i] + copysignf(kink + 4 * (float)GRAD_STEP, d);
    }
}

/* |d| has its kink at d = 0. */
static tdm_status mae_problem(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p)
{
    (void)g, (void)dev, (void)index;
    const uint32_t u[] = {ELEMENTS};
    tdm_status s = loss_problem(p, TDM_KERNEL_mae, u, NULL);
    if (s == TDM_OK)
        clear_of_kink(p, 0.0f);
    return s;
}

/* Keras' delta, 1: d in [-4, 4] lies on both sides of it. The loss's second derivative
 * jumps at |d| = delta, which the stencil's O(h^4) error assumes away. */
#define HUBER_DELTA 1.0f

static tdm_status huber_problem(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p)
{
    (void)g, (void)dev, (void)index;
    const uint32_t u[] = {ELEMENTS};
    const float f[] = {GRAD_SCALE, HUBER_DELTA};
    tdm_status s = loss_problem(p, TDM_KERNEL_huber, u, f);
    if (s == TDM_OK)
        clear_of_kink(p, HUBER_DELTA);
    return s;
}

/* With respect to the logits, against soft targets in [0, 1]. */
static tdm_status sigmoid_xent_problem(tdm_device *dev, const grad_check *g, size_t index,
                                       grad_problem *p)
{
    (void)g, (void)dev, (void)index;
    const uint32_t u[] = {ELEMENTS};
    return loss_problem(p, TDM_KERNEL_sigmoid_xent, u, NULL);
}

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
    tdm_status s = make_call(&p->fwd, &p->fwd_in, kernel, u, f, 1);
    if (s == TDM_OK)
        s = make_call(&p->bwd, &p->bwd_in, kernel, bu, f, 2);
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
    s = weigh(p, dc_values, 0);
    free(dc_values);
    return s;
}

static tdm_status gemm_a_problem(tdm_device *dev, const grad_check *g, size_t index,
                                 grad_problem *p)
{
    (void)dev;
    return gemm_problem(g->forward, index, p, 0);
}

static tdm_status gemm_b_problem(tdm_device *dev, const grad_check *g, size_t index,
                                 grad_problem *p)
{
    (void)dev;
    return gemm_problem(g->forward, index, p, 1);
}

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
    tdm_status s = make_call(&p->fwd, &p->fwd_in, g->forward, u, NULL, 1);
    if (s == TDM_OK)
        s = make_call(&p->bwd, &p->bwd_in, g->backward, u, NULL, 2);
    if (s != TDM_OK)
        return s;
    image_label(p, wrt_filter ? "df" : "dx");
    p->out = 0, p->grad = 0, p->wrt = wrt_filter ? 2 : 1;
    /* the other forward input: f for dx, x for df */
    copy_view(&p->bwd_in, wrt_filter ? 1 : 2, &p->fwd_in, wrt_filter ? 1 : 2);
    if (wrt_filter) {
        p->rounds = (size_t)d->kh * d->kw * d->c;
        p->round_of = filter_round, p->owner = filter_owner;
    } else {
        p->rounds = (size_t)d->c * d->kh * d->kw;
        p->round_of = image_round, p->owner = image_owner;
    }
    return weigh(p, p->bwd_in.host[wrt_filter ? 2 : 1], 0);
}

static tdm_status conv_x_problem(tdm_device *dev, const grad_check *g, size_t index,
                                 grad_problem *p)
{
    (void)dev;
    return conv_problem(g, index, p, 0);
}

static tdm_status conv_f_problem(tdm_device *dev, const grad_check *g, size_t index,
                                 grad_problem *p)
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
    const uint32_t u[IMAGE_UINTS - 1] = {d->batch, d->h,  d->w,  d->c,  d->oh, d->ow,
                                         d->kh,    d->kw, d->sh, d->sw, d->pt, d->pl};
    tdm_kernel fwd = max ? TDM_KERNEL_max_pool2d : TDM_KERNEL_avg_pool2d;
    tdm_kernel bwd = max ? TDM_KERNEL_max_pool2d_grad : TDM_KERNEL_avg_pool2d_grad;
    tdm_status s = make_call(&p->fwd, &p->fwd_in, fwd, u, NULL, 1);
    if (s == TDM_OK)
        s = make_call(&p->bwd, &p->bwd_in, bwd, u, NULL, 2);
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
        copy_view(&p->bwd_in, 2, &p->fwd_in, 1);
    }
    return weigh(p, p->bwd_in.host[1], 0);
}

/* global_avg_pool (y, x, sum) and global_avg_pool_grad (dx, dy); the loss weighs y by
 * dy. Each output depends on every position of its image and channel, so a round is
 * one position (r, s) of every image and channel. Cases batch x h x w x c. */
static const uint32_t global_cases[][4] = {{2, 5, 5, 3}, {3, 4, 7, 2}, {1, 9, 6, 5}};
#define GLOBAL_CASES (sizeof global_cases / sizeof global_cases[0])

static size_t position_round(const grad_problem *p, size_t j)
{
    return j / p->fwd.u[3] % ((size_t)p->fwd.u[1] * p->fwd.u[2]);
}

static long position_owner(const grad_problem *p, size_t o, size_t round)
{
    size_t c = p->fwd.u[3], positions = (size_t)p->fwd.u[1] * p->fwd.u[2];
    return (long)((o / c * positions + round) * c + o % c);
}

static tdm_status global_pool_problem(tdm_device *dev, const grad_check *g, size_t index,
                                      grad_problem *p)
{
    (void)g, (void)dev;
    const uint32_t *d = global_cases[index];
    const uint32_t u[] = {d[0], d[1], d[2], d[3], 0, d[1]}; /* rows 0 .. h - 1 */
    tdm_status s = make_call(&p->fwd, &p->fwd_in, TDM_KERNEL_global_avg_pool, u, NULL, 1);
    if (s == TDM_OK)
        s = make_call(&p->bwd, &p->bwd_in, TDM_KERNEL_global_avg_pool_grad, u, NULL, 2);
    if (s != TDM_OK)
        return s;
    snprintf(p->bwd.label, sizeof p->bwd.label, "dx %ux%ux%ux%u", d[0], d[1], d[2], d[3]);
    p->out = 0, p->grad = 0, p->wrt = 1;
    p->rounds = (size_t)d[1] * d[2];
    p->round_of = position_round, p->owner = position_owner;
    return weigh(p, p->bwd_in.host[1], 0);
}

static tdm_status max_pool_problem(tdm_device *dev, const grad_check *g, size_t index,
                                   grad_problem *p)
{
    (void)g, (void)dev;
    return pool_problem(index, p, 1);
}

static tdm_status avg_pool_problem(tdm_device *dev, const grad_check *g, size_t index,
                                   grad_problem *p)
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
static tdm_status im2col_problem(tdm_device *dev, const grad_check *g, size_t index,
                                 grad_problem *p)
{
    (void)g, (void)dev;
    const image_dims *d = &image_cases[index];
    const uint32_t u[IMAGE_UINTS - 1] = {d->batch, d->h,  d->w,  d->c,  d->oh, d->ow,
                                         d->kh,    d->kw, d->sh, d->sw, d->pt, d->pl};
    tdm_status s = make_call(&p->fwd, &p->fwd_in, TDM_KERNEL_im2col, u, NULL, 1);
    if (s == TDM_OK)
        s = make_call(&p->bwd, &p->bwd_in, TDM_KERNEL_col2im, u, NULL, 2);
    if (s != TDM_OK)
        return s;
    image_label(p, "dx");
    p->out = 0, p->grad = 0, p->wrt = 1;
    p->rounds = 1;
    p->round_of = one_round, p->owner = copied_input;
    return weigh(p, p->bwd_in.host[1], 0);
}

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

static tdm_status gather_problem(tdm_device *dev, const grad_check *g, size_t index,
                                 grad_problem *p)
{
    (void)g, (void)dev, (void)index;
    const uint32_t u[] = {GATHER_ROWS, GATHER_COLS, GATHER_SOURCE};
    tdm_status s = make_call(&p->fwd, &p->fwd_in, TDM_KERNEL_gather_rows, u, NULL, 1);
    if (s == TDM_OK)
        s = make_call(&p->bwd, &p->bwd_in, TDM_KERNEL_gather_rows_grad, u, NULL, 2);
    if (s != TDM_OK)
        return s;
    p->out = 0, p->wrt = 1, p->grad = 0;
    p->rounds = 1, p->round_of = one_round, p->owner = gathered_input;
    /* the source's 32-bit words (any bits, as drawn) become floats on the grid */
    float *x = p->fwd_in.host[1];
    for (size_t j = 0; j < p->fwd_in.elements[1]; j++)
        x[j] = (float)((double)((long)(j * 7919 % 4097) - 2048) * GRAD_GRID);
    copy_view(&p->bwd_in, 2, &p->fwd_in, 2);
    return weigh(p, p->bwd_in.host[1], 0);
}

/* Runs `kernel` on dev with views[b] as buffer b (inputs read from it, outputs
 * written back to it), every view at offset 0. */
static tdm_status run_views(tdm_device *dev, tdm_kernel kernel, const uint32_t *u, const float *f,
                            float *const *views)
{
    const tdm_kernel_info *info = tdm_kernel_get(kernel);
    conf_case c;
    conf_buffers in, out;
    tdm_status s = make_call(&c, &in, kernel, u, f, 3);
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
static tdm_status batch_norm_problem(tdm_device *dev, const grad_check *g, size_t index,
                                     grad_problem *p)
{
    (void)g, (void)index;
    const uint32_t rc[] = {BN_ROWS, BN_COLS};
    const float f[] = {1.0f / BN_ROWS};
    tdm_status s = make_call(&p->fwd, &p->fwd_in, TDM_KERNEL_batch_norm_apply, rc, NULL, 1);
    if (s == TDM_OK)
        s = make_call(&p->bwd, &p->bwd_in, TDM_KERNEL_batch_norm_grad, rc, f, 2);
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
    copy_view(&p->bwd_in, 2, &p->fwd_in, 1);
    copy_view(&p->bwd_in, 3, &y, 2);
    copy_view(&p->bwd_in, 4, &y, 3);
    copy_view(&p->bwd_in, 5, &p->fwd_in, 4);
    conf_buffers_free(&y);
    float *terms[] = {xhat_dy, b[1], b[2], b[3], b[4]}, *dbeta[] = {b[6], b[1]},
          *dgamma[] = {b[7], xhat_dy};
    if (s == TDM_OK)
        s = run_views(dev, TDM_KERNEL_batch_norm_xhat_dy, rc, NULL, terms);
    if (s == TDM_OK)
        s = run_views(dev, TDM_KERNEL_sum_axis0, rc, NULL, dbeta);
    if (s == TDM_OK)
        s = run_views(dev, TDM_KERNEL_sum_axis0, rc, NULL, dgamma);
    return s == TDM_OK ? weigh(p, b[1], 0) : s;
}

/* Row r's outputs depend on every x of the row: a round moves one column. */
static long row_member(const grad_problem *p, size_t o, size_t round)
{
    return (long)(o / p->fwd.u[1] * p->fwd.u[1] + round);
}

/* layer_norm (y, mean, inv_std, x, gamma, beta) and layer_norm_grad (dx, xhat_dy, dy,
 * x, mean, inv_std, gamma) with the forward's mean and inv_std; 16 columns, so that
 * inv_cols is exact. */
static tdm_status layer_norm_problem(tdm_device *dev, const grad_check *g, size_t index,
                                     grad_problem *p)
{
    (void)g, (void)index;
    const uint32_t u[] = {9, 16};
    const float f[] = {1.0f / 16, NORM_EPSILON};
    tdm_status s = make_call(&p->fwd, &p->fwd_in, TDM_KERNEL_layer_norm, u, f, 1);
    if (s == TDM_OK)
        s = make_call(&p->bwd, &p->bwd_in, TDM_KERNEL_layer_norm_grad, u, f, 2);
    if (s != TDM_OK)
        return s;
    p->out = 0, p->wrt = 3, p->grad = 0;
    p->rounds = u[1], p->round_of = logit_column, p->owner = row_member;
    conf_buffers y;
    if (conf_buffers_transform(&p->fwd, &p->fwd_in, &y, 0, 0) != 0)
        return TDM_ERR_OUT_OF_MEMORY;
    s = conf_run(dev, &p->fwd, &p->fwd_in, &y);
    copy_view(&p->bwd_in, 3, &p->fwd_in, 3);
    copy_view(&p->bwd_in, 4, &y, 1);
    copy_view(&p->bwd_in, 5, &y, 2);
    copy_view(&p->bwd_in, 6, &p->fwd_in, 4);
    conf_buffers_free(&y);
    return s == TDM_OK ? weigh(p, p->bwd_in.host[2], 0) : s;
}

/* attention_softmax (p, s) and attention_softmax_grad (ds, dp, p) with the forward's
 * p: 3 heads of 8 positions, all of a row's scores (index 0) or the causal ones
 * (index 1; a masked score moves nothing, its gradient is 0). */
static tdm_status attention_problem(tdm_device *dev, const grad_check *g, size_t index,
                                    grad_problem *p)
{
    (void)g;
    const uint32_t u[] = {24, 8, (uint32_t)index};
    const float f[] = {0.35f};
    tdm_status s = make_call(&p->fwd, &p->fwd_in, TDM_KERNEL_attention_softmax, u, f, 1);
    if (s == TDM_OK)
        s = make_call(&p->bwd, &p->bwd_in, TDM_KERNEL_attention_softmax_grad, u, f, 2);
    if (s != TDM_OK)
        return s;
    p->out = 0, p->wrt = 1, p->grad = 0;
    p->rounds = u[1], p->round_of = logit_column, p->owner = row_member;
    conf_buffers y;
    if (conf_buffers_transform(&p->fwd, &p->fwd_in, &y, 0, 0) != 0)
        return TDM_ERR_OUT_OF_MEMORY;
    s = conf_run(dev, &p->fwd, &p->fwd_in, &y);
    copy_view(&p->bwd_in, 2, &y, 0);
    conf_buffers_free(&y);
    return s == TDM_OK ? weigh(p, p->bwd_in.host[1], 0) : s;
}

static const grad_check checks[] = {
    {"relu_grad", TDM_KERNEL_relu, TDM_KERNEL_relu_grad, 1, relu_problem},
    {"tanh_grad", TDM_KERNEL_tanh, TDM_KERNEL_tanh_grad, 1, map_of_output},
    {"sigmoid_grad", TDM_KERNEL_sigmoid, TDM_KERNEL_sigmoid_grad, 1, map_of_output},
    {"gelu_grad", TDM_KERNEL_gelu, TDM_KERNEL_gelu_grad, 1, map_of_input},
    {"dropout dx", TDM_KERNEL_dropout, TDM_KERNEL_dropout, 1, dropout_problem},
    {"sum_axis0 db", TDM_KERNEL_bias_add, TDM_KERNEL_sum_axis0, 1, bias_problem},
    {"softmax_xent", TDM_KERNEL_softmax_xent, TDM_KERNEL_softmax_xent, 1, softmax_xent_problem},
    {"mse", TDM_KERNEL_mse, TDM_KERNEL_mse, 1, mse_problem},
    {"mae", TDM_KERNEL_mae, TDM_KERNEL_mae, 1, mae_problem},
    {"huber", TDM_KERNEL_huber, TDM_KERNEL_huber, 1, huber_problem},
    {"sigmoid_xent", TDM_KERNEL_sigmoid_xent, TDM_KERNEL_sigmoid_xent, 1, sigmoid_xent_problem},
    {"softmax_xent_soft", TDM_KERNEL_softmax_xent_soft, TDM_KERNEL_softmax_xent_soft, 1,
     softmax_xent_soft_problem},
    {"gemm dA", TDM_KERNEL_gemm, TDM_KERNEL_gemm, 4, gemm_a_problem},
    {"gemm dB", TDM_KERNEL_gemm, TDM_KERNEL_gemm, 4, gemm_b_problem},
    {"gemm_f16 dA", TDM_KERNEL_gemm_f16, TDM_KERNEL_gemm_f16, 4, gemm_a_problem},
    {"gemm_f16 dB", TDM_KERNEL_gemm_f16, TDM_KERNEL_gemm_f16, 4, gemm_b_problem},
    {"conv2d dx", TDM_KERNEL_conv2d, TDM_KERNEL_conv2d_grad_input, IMAGE_CASES, conv_x_problem},
    {"conv2d df", TDM_KERNEL_conv2d, TDM_KERNEL_conv2d_grad_filter, IMAGE_CASES, conv_f_problem},
    {"conv2d_implicit dx", TDM_KERNEL_conv2d_implicit, TDM_KERNEL_conv2d_implicit_grad_input,
     IMAGE_CASES, conv_x_problem},
    {"conv2d_implicit df", TDM_KERNEL_conv2d_implicit, TDM_KERNEL_conv2d_implicit_grad_filter,
     IMAGE_CASES, conv_f_problem},
    {"max_pool2d dx", TDM_KERNEL_max_pool2d, TDM_KERNEL_max_pool2d_grad, IMAGE_CASES,
     max_pool_problem},
    {"avg_pool2d dx", TDM_KERNEL_avg_pool2d, TDM_KERNEL_avg_pool2d_grad, IMAGE_CASES,
     avg_pool_problem},
    {"global_avg_pool dx", TDM_KERNEL_global_avg_pool, TDM_KERNEL_global_avg_pool_grad,
     GLOBAL_CASES, global_pool_problem},
    {"im2col dx", TDM_KERNEL_im2col, TDM_KERNEL_col2im, IMAGE_CASES, im2col_problem},
    {"gather_rows dx", TDM_KERNEL_gather_rows, TDM_KERNEL_gather_rows_grad, 1, gather_problem},
    {"batch_norm dx", TDM_KERNEL_batch_norm_apply, TDM_KERNEL_batch_norm_grad, 1,
     batch_norm_problem},
    {"layer_norm dx", TDM_KERNEL_layer_norm, TDM_KERNEL_layer_norm_grad, 1, layer_norm_problem},
    {"attention_softmax ds", TDM_KERNEL_attention_softmax, TDM_KERNEL_attention_softmax_grad, 2,
     attention_problem},
};

size_t grad_check_count(void)
{
    return sizeof checks / sizeof checks[0];
}

const grad_check *grad_check_get(size_t check)
{
    return &checks[check];
}
