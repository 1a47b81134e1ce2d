/* Convolution as implicit GEMM: conv2d's three products over im2col's matrix, each
 * element of the matrix taken from the image where im2col would have copied it, and
 * each dot product in double, rounded once, as ref_gemm computes: the oracle of the
 * devices' reassociated sums. */
#include <math.h>
#include <stddef.h>

#include "ref_kernels.h"
#include "ref_window.h"

/* The geometry the three kernels share: their uints. */
typedef struct conv_geometry {
    uint32_t batch, h, w, c, oh, ow, oc, kh, kw, stride_h, stride_w, pad_top, pad_left;
} conv_geometry;

#define GEOMETRY(a)                                                                                \
    {                                                                                              \
        a->batch, a->h, a->w, a->c, a->oh, a->ow, a->oc, a->kh, a->kw, a->stride_h, a->stride_w,   \
            a->pad_top, a->pad_left                                                                \
    }

/* col[(b, i, j), (p, q, ch)]: x where the window's position is in the image, else 0. */
static double col_at(const conv_geometry *g, const float *x, size_t row, size_t p)
{
    size_t ch = p % g->c, pq = p / g->c, b = row / g->ow / g->oh;
    uint32_t i = (uint32_t)(row / g->ow % g->oh), j = (uint32_t)(row % g->ow);
    int64_t r = ref_window_pos(i, g->stride_h, g->pad_top, (uint32_t)(pq / g->kw), g->h);
    int64_t s = ref_window_pos(j, g->stride_w, g->pad_left, (uint32_t)(pq % g->kw), g->w);
    return r >= 0 && s >= 0 ? x[((b * g->h + (size_t)r) * g->w + (size_t)s) * g->c + ch] : 0.0;
}

/* dcol[(b, r, s), (p, q, o)]: dy at the output whose window holds (r, s) at (p, q),
 * else 0. */
static double dcol_at(const conv_geometry *g, const float *dy, size_t row, size_t p)
{
    size_t o = p % g->oc, pq = p / g->oc, b = row / g->w / g->h;
    uint32_t r = (uint32_t)(row / g->w % g->h), s = (uint32_t)(row % g->w);
    int64_t i = ref_output_pos(r, g->stride_h, g->pad_top, (uint32_t)(pq / g->kw), g->oh);
    int64_t j = ref_output_pos(s, g->stride_w, g->pad_left, (uint32_t)(pq % g->kw), g->ow);
    return i >= 0 && j >= 0 ? dy[((b * g->oh + (size_t)i) * g->ow + (size_t)j) * g->oc + o] : 0.0;
}

/* y = the forward's sums, each plus bias[o] (NULL: none) and rounded once, then
 * through relu where relu is set. */
static void forward(const conv_geometry *g, float *y, const float *x, const float *f,
                    const float *bias, int relu)
{
    size_t rows = (size_t)g->batch * g->oh * g->ow, window = (size_t)g->kh * g->kw * g->c;
    for (size_t row = 0; row < rows; row++)
        for (size_t o = 0; o < g->oc; o++) {
            double dot = 0.0;
            for (size_t p = 0; p < window; p++)
                dot += col_at(g, x, row, p) * f[p * g->oc + o];
            float z = (float)(bias ? dot + bias[o] : dot);
            y[row * g->oc + o] = relu && !isnan(z) && z <= 0.0f ? 0.0f : z;
        }
}

void ref_conv2d_implicit(const ref_conv2d_implicit_args *a)
{
    const conv_geometry g = GEOMETRY(a);
    forward(&g, a->y, a->x, a->f, NULL, 0);
}

void ref_conv2d_implicit_bias_relu(const ref_conv2d_implicit_bias_relu_args *a)
{
    const conv_geometry g = GEOMETRY(a);
    forward(&g, a->y, a->x, a->f, a->b, 1);
}

/* df += col^T dy; db[o] += the sums of dy's columns where db is given. */
static void grad_filter(const conv_geometry *g, float *df, float *db, const float *x,
                        const float *dy)
{
    size_t rows = (size_t)g->batch * g->oh * g->ow, window = (size_t)g->kh * g->kw * g->c;
    for (size_t p = 0; p < window; p++)
        for (size_t o = 0; o < g->oc; o++) {
            double dot = 0.0;
            for (size_t row = 0; row < rows; row++)
                dot += col_at(g, x, row, p) * dy[row * g->oc + o];
            df[p * g->oc + o] = (float)(dot + df[p * g->oc + o]);
        }
    for (size_t o = 0; db && o < g->oc; o++) {
        double sum = 0.0;
        for (size_t row = 0; row < rows; row++)
            sum += dy[row * g->oc + o];
        db[o] = (float)(sum + db[o]);
    }
}

void ref_conv2d_implicit_grad_filter(const ref_conv2d_implicit_grad_filter_args *a)
{
    const conv_geometry g = GEOMETRY(a);
    grad_filter(&g, a->df, NULL, a->x, a->dy);
}

void ref_conv2d_implicit_grad_filter_bias(const ref_conv2d_implicit_grad_filter_bias_args *a)
{
    const conv_geometry g = GEOMETRY(a);
    grad_filter(&g, a->df, a->db, a->x, a->dy);
}

void ref_conv2d_implicit_grad_input(const ref_conv2d_implicit_grad_input_args *a)
{
    const conv_geometry g = GEOMETRY(a);
    size_t rows = (size_t)g.batch * g.h * g.w, window = (size_t)g.kh * g.kw * g.oc;
    for (size_t row = 0; row < rows; row++)
        for (size_t ch = 0; ch < g.c; ch++) {
            double dot = 0.0;
            for (size_t p = 0; p < window; p++) {
                size_t o = p % g.oc, pq = p / g.oc; /* f[p, q, ch, o] */
                dot += dcol_at(&g, a->dy, row, p) * a->f[(pq * g.c + ch) * g.oc + o];
            }
            a->dx[row * g.c + ch] = (float)dot;
        }
}
