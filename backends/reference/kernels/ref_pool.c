/* Max, average and global average pooling, NHWC, and their gradients: windows and
 * padding as in ref_conv.c, each output a float result in the order kernels.def gives,
 * as the devices compute it. The gradients are gathers over the outputs whose windows
 * hold an input. */
#include <math.h>

#include "ref_kernels.h"
#include "ref_window.h"

/* A pooling's shape, whichever of the four kernels it came from. */
typedef struct pool_dims {
    uint32_t batch, h, w, c, oh, ow, kh, kw, sh, sw, pt, pl;
} pool_dims;

#define POOL_DIMS(a)                                                                               \
    {                                                                                              \
        a->batch, a->h, a->w, a->c, a->oh, a->ow, a->kh, a->kw, a->stride_h, a->stride_w,          \
            a->pad_top, a->pad_left                                                                \
    }

/* The window's first row (column) and how many of its rows lie inside the image. */
static int64_t window_start(uint32_t i, uint32_t stride, uint32_t pad)
{
    return (int64_t)i * stride - pad;
}

static uint32_t inside(int64_t start, uint32_t k, uint32_t size)
{
    int64_t lo = start < 0 ? 0 : start, hi = start + k < size ? start + k : size;
    return hi > lo ? (uint32_t)(hi - lo) : 0;
}

/* The index in x of output (b, i, j, ch)'s maximum, or -1 for an empty window:
 * positions in (p, q) order, the first of equal ones, the first NaN. */
static int64_t window_max(const pool_dims *d, const float *x, size_t b, uint32_t i, uint32_t j,
                          size_t ch)
{
    int64_t r0 = window_start(i, d->sh, d->pt), s0 = window_start(j, d->sw, d->pl), best = -1;
    for (int64_t r = r0; r < r0 + d->kh; r++)
        for (int64_t s = s0; r >= 0 && r < d->h && s < s0 + d->kw; s++) {
            if (s < 0 || s >= d->w)
                continue;
            int64_t at = (int64_t)(((b * d->h + (size_t)r) * d->w + (size_t)s) * d->c + ch);
            if (best < 0 || (!isnan(x[best]) && (x[at] > x[best] || isnan(x[at]))))
                best = at;
        }
    return best;
}

void ref_max_pool2d(const ref_max_pool2d_args *a)
{
    const pool_dims d = POOL_DIMS(a);
    size_t count = (size_t)d.batch * d.oh * d.ow * d.c;
    for (size_t o = 0; o < count; o++) {
        size_t ch = o % d.c, t = o / d.c, b = t / d.ow / d.oh;
        int64_t at = window_max(&d, a->x, b, (uint32_t)(t / d.ow % d.oh), (uint32_t)(t % d.ow), ch);
        a->y[o] = at < 0 ? 0.0f : a->x[at];
    }
}

void ref_max_pool2d_grad(const ref_max_pool2d_grad_args *a)
{
    const pool_dims d = POOL_DIMS(a);
    size_t count = (size_t)d.batch * d.h * d.w * d.c;
    for (size_t e = 0; e < count; e++) {
        size_t ch = e % d.c, t = e / d.c, b = t / d.w / d.h;
        uint32_t s = (uint32_t)(t % d.w), r = (uint32_t)(t / d.w % d.h);
        float sum = 0.0f;
        for (uint32_t p = 0; p < d.kh; p++) {
            int64_t i = ref_output_pos(r, d.sh, d.pt, p, d.oh);
            for (uint32_t q = 0; i >= 0 && q < d.kw; q++) {
                int64_t j = ref_output_pos(s, d.sw, d.pl, q, d.ow);
                if (j >= 0 && window_max(&d, a->x, b, (uint32_t)i, (uint32_t)j, ch) == (int64_t)e)
                    sum += a->dy[((b * d.oh + (size_t)i) * d.ow + (size_t)j) * d.c + ch];
            }
        }
        a->dx[e] = a->relu && !(a->x[e] > 0.0f) ? 0.0f : sum;
    }
}

void ref_avg_pool2d(const ref_avg_pool2d_args *a)
{
    const pool_dims d = POOL_DIMS(a);
    size_t count = (size_t)d.batch * d.oh * d.ow * d.c;
    for (size_t o = 0; o < count; o++) {
        size_t ch = o % d.c, t = o / d.c, b = t / d.ow / d.oh;
        int64_t r0 = window_start((uint32_t)(t / d.ow % d.oh), d.sh, d.pt);
        int64_t s0 = window_start((uint32_t)(t % d.ow), d.sw, d.pl);
        uint32_t n = inside(r0, d.kh, d.h) * inside(s0, d.kw, d.w);
        float sum = 0.0f;
        for (int64_t r = r0; r < r0 + d.kh; r++)
            for (int64_t s = s0; r >= 0 && r < d.h && s < s0 + d.kw; s++)
                if (s >= 0 && s < d.w)
                    sum += a->x[((b * d.h + (size_t)r) * d.w + (size_t)s) * d.c + ch];
        a->y[o] = n ? sum / (float)n : 0.0f;
    }
}

void ref_avg_pool2d_grad(const ref_avg_pool2d_grad_args *a)
{
    const pool_dims d = POOL_DIMS(a);
    size_t count = (size_t)d.batch * d.h * d.w * d.c;
    for (size_t e = 0; e < count; e++) {
        size_t ch = e % d.c, t = e / d.c, b = t / d.w / d.h;
        uint32_t s = (uint32_t)(t % d.w), r = (uint32_t)(t / d.w % d.h);
        float sum = 0.0f;
        for (uint32_t p = 0; p < d.kh; p++) {
            int64_t i = ref_output_pos(r, d.sh, d.pt, p, d.oh);
            for (uint32_t q = 0; i >= 0 && q < d.kw; q++) {
                int64_t j = ref_output_pos(s, d.sw, d.pl, q, d.ow);
                if (j < 0)
                    continue;
                uint32_t n = inside(window_start((uint32_t)i, d.sh, d.pt), d.kh, d.h) *
                             inside(window_start((uint32_t)j, d.sw, d.pl), d.kw, d.w);
                sum += a->dy[((b * d.oh + (size_t)i) * d.ow + (size_t)j) * d.c + ch] / (float)n;
            }
        }
        a->dx[e] = sum;
    }
}

/* avg_pool2d's sum and quotient over the window of the whole image, the sum carried
 * in `sum` from one piece of rows to the next; the gradient avg_pool2d_grad's one
 * term. */
void ref_global_avg_pool(const ref_global_avg_pool_args *a)
{
    size_t count = (size_t)a->batch * a->c;
    uint32_t n = a->h * a->w;
    for (size_t o = 0; o < count; o++) {
        size_t ch = o % a->c, b = o / a->c;
        float sum = a->row0 ? a->sum[o] : 0.0f;
        for (size_t r = a->row0; r < (size_t)a->row0 + a->rows; r++)
            for (size_t s = 0; s < a->w; s++)
                sum += a->x[((b * a->h + r) * a->w + s) * a->c + ch];
        a->sum[o] = sum;
        a->y[o] = n ? sum / (float)n : 0.0f;
    }
}

void ref_global_avg_pool_grad(const ref_global_avg_pool_grad_args *a)
{
    size_t count = (size_t)a->batch * a->h * a->w * a->c;
    uint32_t n = a->h * a->w;
    for (size_t e = 0; e < count; e++) {
        float q = a->dy[e / ((size_t)n * a->c) * a->c + e % a->c] / (float)n;
        a->dx[e] = q == 0.0f ? 0.0f : q; /* avg_pool2d_grad's sum from +0 */
    }
}
