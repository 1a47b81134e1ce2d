/* The conformance self-test's wrong kernels and their lists (wrong_kernels.h). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "ref_kernels.h"
#include "wrong_kernels.h"

/* A launch's buffers' host memory, for the reference's argument unpacking. */
typedef struct launch_memory {
    void *of[TDM_KERNEL_MAX_BUFFERS];
} launch_memory;

static launch_memory host_memory(const tdm_launch *l)
{
    launch_memory m = {{0}};
    for (unsigned b = 0; b < TDM_KERNEL_MAX_BUFFERS; b++)
        if (l->buffers[b])
            m.of[b] = tdm_backend_buffer_state(l->buffers[b]);
    return m;
}

/* Off by one: the last element is never updated. */
static void axpy_short(const tdm_launch *l)
{
    const ref_axpy_args a = ref_axpy_unpack(l, host_memory(l).of);
    float *y = a.y, *x = a.x;
    for (uint32_t i = 0; i + 1 < a.n; i++)
        y[i] += a.alpha * x[i];
}

/* Writes one element past the end of its view. */
void copy_overrun(const tdm_launch *l)
{
    const ref_copy_args a = ref_copy_unpack(l, host_memory(l).of);
    float *y = a.y, *x = a.x;
    for (uint32_t i = 0; i < a.n; i++)
        y[i] = x[i];
    if (a.n)
        y[a.n] = x[0];
}

/* Writes one element before the start of its view. */
void copy_underrun(const tdm_launch *l)
{
    const ref_copy_args a = ref_copy_unpack(l, host_memory(l).of);
    float *y = a.y, *x = a.x;
    for (uint32_t i = 0; i < a.n; i++)
        y[i] = x[i];
    if (a.n)
        y[-1] = x[0];
}

/* Drops the last element of every chunk. */
static void sum_drops_last(const tdm_launch *l)
{
    const ref_sum_args a = ref_sum_unpack(l, host_memory(l).of);
    float *out = a.out, *x = a.x;
    uint32_t n = a.n, chunk = a.chunk;
    for (uint32_t c = 0; (uint64_t)c * chunk < n; c++) {
        double acc = 0;
        uint32_t end = n - c * chunk < chunk ? n : c * chunk + chunk;
        for (uint32_t i = c * chunk; i + 1 < end; i++)
            acc += x[i];
        out[c] = (float)acc;
    }
}

/* Epsilon inside the square root: Keras's formula, not TensorFlow's ApplyAdam. */
static void adam_eps_inside(const tdm_launch *l)
{
    const ref_adam_args a = ref_adam_unpack(l, host_memory(l).of);
    float *w = a.w, *g = a.g, *m = a.m, *v = a.v;
    float b1 = a.beta1, b2 = a.beta2, eps = a.eps;
    float lr_t = a.lr * sqrtf(1.0f - a.beta2_power) / (1.0f - a.beta1_power);
    for (uint32_t i = 0; i < a.n; i++) {
        m[i] = b1 * m[i] + (1.0f - b1) * g[i];
        v[i] = b2 * v[i] + (1.0f - b2) * g[i] * g[i];
        w[i] -= lr_t * m[i] / sqrtf(v[i] + eps);
    }
}

/* The tanh approximation of GELU instead of the exact erf form. */
static void gelu_tanh(const tdm_launch *l)
{
    const ref_gelu_args a = ref_gelu_unpack(l, host_memory(l).of);
    float *y = a.y, *x = a.x;
    for (uint32_t i = 0; i < a.n; i++) {
        float v = x[i];
        y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
    }
}

/* No maximum subtracted: large logits overflow. */
static void softmax_unstable(const tdm_launch *l)
{
    const ref_softmax_xent_args a = ref_softmax_xent_unpack(l, host_memory(l).of);
    float *loss = a.loss, *dl = a.dlogits, *logits = a.logits;
    uint32_t *labels = a.labels, rows = a.rows, cols = a.cols;
    for (uint32_t r = 0; r < rows; r++) {
        const float *z = logits + (size_t)r * cols;
        float total = 0;
        for (uint32_t c = 0; c < cols; c++)
            total += expf(z[c]);
        loss[r] = labels[r] < cols ? logf(total) - z[labels[r]] : 0.0f; /* masked right */
        for (uint32_t c = 0; c < cols; c++)
            dl[(size_t)r * cols + c] = a.grad_scale * (expf(z[c]) / total - (c == labels[r]));
    }
}

/* The neighbouring Philox word: a different mask from the same seed. */
static void dropout_wrong_word(const tdm_launch *l)
{
    const ref_dropout_args a = ref_dropout_unpack(l, host_memory(l).of);
    float *y = a.y, *x = a.x, rate = a.rate;
    const uint32_t key[2] = {a.seed_lo, a.seed_hi};
    for (uint32_t i = 0; i < a.n; i++) {
        uint32_t j = a.offset + i, counter[4] = {j >> 2, 0, 0, 0}, r[4];
        ref_philox4x32_10(counter, key, r);
        float u = (float)(r[(j + 1) & 3] >> 8) * 0x1p-24f;
        y[i] = u >= rate ? x[i] / (1.0f - rate) : 0.0f;
    }
}

/* Counts past 2^32 instead of wrapping: a different mask once the counter wraps. */
static void dropout_no_wrap(const tdm_launch *l)
{
    const ref_dropout_args a = ref_dropout_unpack(l, host_memory(l).of);
    float *y = a.y, *x = a.x, rate = a.rate;
    const uint32_t key[2] = {a.seed_lo, a.seed_hi};
    for (uint32_t i = 0; i < a.n; i++) {
        uint64_t j = (uint64_t)a.offset + i;
        uint32_t counter[4] = {(uint32_t)(j >> 2), (uint32_t)(j >> 34), 0, 0}, r[4];
        ref_philox4x32_10(counter, key, r);
        float u = (float)(r[j & 3] >> 8) * 0x1p-24f;
        y[i] = u >= rate ? x[i] / (1.0f - rate) : 0.0f;
    }
}

/* Turns -0 into +0. */
static void copy_signless(const tdm_launch *l)
{
    const ref_copy_args a = ref_copy_unpack(l, host_memory(l).of);
    float *y = a.y, *x = a.x;
    for (uint32_t i = 0; i < a.n; i++)
        y[i] = x[i] == 0.0f ? 0.0f : x[i];
}

/* Right result, but scribbles on its input after reading it. */
static void scale_scribbles(const tdm_launch *l)
{
    const ref_scale_args a = ref_scale_unpack(l, host_memory(l).of);
    float *y = a.y, *x = a.x;
    for (uint32_t i = 0; i < a.n; i++) {
        y[i] = a.alpha * x[i];
        x[i] = 1.0f;
    }
}

/* Forgets the factor 2 of the squared error's derivative. */
static void mse_half_gradient(const tdm_launch *l)
{
    const ref_mse_args a = ref_mse_unpack(l, host_memory(l).of);
    float *loss = a.loss, *dp = a.dpred, *p = a.pred, *t = a.target;
    for (uint32_t i = 0; i < a.n; i++) {
        loss[i] = (p[i] - t[i]) * (p[i] - t[i]);
        dp[i] = a.grad_scale * (p[i] - t[i]);
    }
}

/* Gathers the batch's rows in reverse order: the wrong end of the index list. */
static void gather_reversed(const tdm_launch *l)
{
    const ref_gather_rows_args a = ref_gather_rows_unpack(l, host_memory(l).of);
    uint32_t *y = a.y, *x = a.x, *idx = a.idx;
    uint32_t rows = a.rows, cols = a.cols;
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t c = 0; c < cols; c++)
            y[(size_t)r * cols + c] = x[(size_t)idx[rows - 1 - r] * cols + c];
}

/* Rounds to nearest instead of truncating toward zero (lrintf, C's default mode). */
static void cast_f32_i32_rounded(const tdm_launch *l)
{
    const ref_cast_f32_i32_args a = ref_cast_f32_i32_unpack(l, host_memory(l).of);
    for (uint32_t i = 0; i < a.n; i++)
        a.y[i] =
            a.x[i] > -0x1p31f && a.x[i] < 0x1p31f ? (uint32_t)(int32_t)lrintf(a.x[i]) : 0x80000000u;
}

/* Sums the halves in float and rounds once at the end: more accurate, but not the
 * bits a plan gets that hands float16 partials on between devices. */
static void accumulate_f16_rounded_once(const tdm_launch *l)
{
    const ref_accumulate_f16_args a = ref_accumulate_f16_unpack(l, host_memory(l).of);
    const uint16_t *x[] = {a.x0, a.x1, a.x2, a.x3, a.x4, a.x5, a.x6};
    for (uint32_t i = 0; i < a.n; i++) {
        float sum = tdm_f32_from_f16(x[0][i]);
        for (uint32_t k = 1; k < a.inputs; k++)
            sum += tdm_f32_from_f16(x[k][i]);
        a.y[i] = tdm_f16_from_f32(a.alpha * sum);
    }
}

/* Leaves out the scale: a MEAN would come back as the SUM. */
static void accumulate_f16_unscaled(const tdm_launch *l)
{
    ref_accumulate_f16_args a = ref_accumulate_f16_unpack(l, host_memory(l).of);
    a.alpha = 1.0f;
    ref_accumulate_f16(&a);
}

/* Starts every sum from zero, not from dx: a second piece of rows loses the first's. */
static void gather_rows_grad_restarts(const tdm_launch *l)
{
    const ref_gather_rows_grad_args a = ref_gather_rows_grad_unpack(l, host_memory(l).of);
    for (size_t i = 0; i < (size_t)a.src_rows * a.cols; i++)
        a.dx[i] = 0.0f;
    ref_gather_rows_grad(&a);
}

/* Assigns each row's dy where a scatter should add: the last row of an id wins. */
static void gather_rows_grad_last_wins(const tdm_launch *l)
{
    const ref_gather_rows_grad_args a = ref_gather_rows_grad_unpack(l, host_memory(l).of);
    for (uint32_t r = 0; r < a.rows; r++)
        for (uint32_t c = 0; a.idx[r] < a.src_rows && c < a.cols; c++)
            a.dx[(size_t)a.idx[r] * a.cols + c] = a.dy[(size_t)r * a.cols + c];
}

/* Treats the labels as 1-based. */
static void one_hot_shifted(const tdm_launch *l)
{
    const ref_one_hot_args a = ref_one_hot_unpack(l, host_memory(l).of);
    float *y = a.y;
    uint32_t *labels = a.labels, rows = a.rows, cols = a.cols;
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t c = 0; c < cols; c++)
            y[(size_t)r * cols + c] = c + 1 == labels[r] ? 1.0f : 0.0f;
}

/* fmaxf and fminf: a NaN gradient is clipped to a bound instead of staying NaN. */
static void clip_drops_nan(const tdm_launch *l)
{
    const ref_clip_args a = ref_clip_unpack(l, host_memory(l).of);
    float *y = a.y, *x = a.x;
    for (uint32_t i = 0; i < a.n; i++)
        y[i] = fminf(fmaxf(x[i], a.lo), a.hi);
}

/* Tests the sign of dy instead of x. */
static void relu_grad_by_dy(const tdm_launch *l)
{
    const ref_relu_grad_args a = ref_relu_grad_unpack(l, host_memory(l).of);
    float *dx = a.dx, *dy = a.dy;
    for (uint32_t i = 0; i < a.n; i++)
        dx[i] = dy[i] > 0 ? dy[i] : 0.0f;
}

/* 1 - y where 1 - y^2 is due. */
static void tanh_grad_unsquared(const tdm_launch *l)
{
    const ref_tanh_grad_args a = ref_tanh_grad_unpack(l, host_memory(l).of);
    float *dx = a.dx, *dy = a.dy, *y = a.y;
    for (uint32_t i = 0; i < a.n; i++)
        dx[i] = dy[i] * (1.0f - y[i]);
}

/* y where y (1 - y) is due. */
static void sigmoid_grad_no_complement(const tdm_launch *l)
{
    const ref_sigmoid_grad_args a = ref_sigmoid_grad_unpack(l, host_memory(l).of);
    float *dx = a.dx, *dy = a.dy, *y = a.y;
    for (uint32_t i = 0; i < a.n; i++)
        dx[i] = dy[i] * y[i];
}

/* Phi(x) alone: the x phi(x) term of GELU's derivative forgotten. */
static void gelu_grad_cdf_only(const tdm_launch *l)
{
    const ref_gelu_grad_args a = ref_gelu_grad_unpack(l, host_memory(l).of);
    float *dx = a.dx, *dy = a.dy, *x = a.x;
    for (uint32_t i = 0; i < a.n; i++)
        dx[i] = dy[i] * (float)(0.5 * erfc(-x[i] / sqrt(2.0)));
}

/* Bias gradients that miss the batch's last example. */
static void sum_axis0_skips_last_row(const tdm_launch *l)
{
    const ref_sum_axis0_args a = ref_sum_axis0_unpack(l, host_memory(l).of);
    float *out = a.out, *x = a.x;
    uint32_t rows = a.rows, cols = a.cols;
    for (uint32_t c = 0; c < cols; c++) {
        double acc = 0;
        for (uint32_t r = 0; r + 1 < rows; r++)
            acc += x[(size_t)r * cols + c];
        out[c] = (float)acc;
    }
}

/* The right loss, but a gradient that ignores grad_scale. */
static void softmax_xent_unscaled_gradient(const tdm_launch *l)
{
    ref_softmax_xent_args unscaled = ref_softmax_xent_unpack(l, host_memory(l).of);
    unscaled.grad_scale = 1.0f;
    ref_softmax_xent(&unscaled);
}

/* alpha applied only when A is not transposed (the backward's A^T dC). */
static void gemm_alpha_lost_when_transposed(const tdm_launch *l)
{
    ref_gemm_args unscaled = ref_gemm_unpack(l, host_memory(l).of);
    if (unscaled.trans_a)
        unscaled.alpha = 1.0f;
    ref_gemm(&unscaled);
}

/* The same bug in the float16 GEMM, which mixed-precision training backpropagates
 * through as well. */
static void gemm_f16_alpha_lost_when_transposed(const tdm_launch *l)
{
    ref_gemm_f16_args unscaled = ref_gemm_f16_unpack(l, host_memory(l).of);
    if (unscaled.trans_a)
        unscaled.alpha = 1.0f;
    ref_gemm_f16(&unscaled);
}

/* Each float16 read from the other half of its word: the pair's order swapped. */
static void gemm_f16_halves_swapped(const tdm_launch *l)
{
    const ref_gemm_f16_args g = ref_gemm_f16_unpack(l, host_memory(l).of);
    for (uint32_t i = 0; i < g.m; i++)
        for (uint32_t j = 0; j < g.n; j++) {
            double dot = 0.0;
            for (uint32_t p = 0; p < g.k; p++) {
                size_t ia = g.trans_a ? (size_t)p * g.lda + i : (size_t)i * g.lda + p;
                size_t ib = g.trans_b ? (size_t)j * g.ldb + p : (size_t)p * g.ldb + j;
                dot += (double)tdm_f32_from_f16(g.a[ia ^ 1]) * tdm_f32_from_f16(g.b[ib ^ 1]);
            }
            float *out = &g.c[(size_t)i * g.ldc + j];
            *out = (float)(g.alpha * dot + (g.beta == 0.0f ? 0.0 : (double)g.beta * *out));
        }
}

/* The filter read as HWOI instead of HWIO: input and output channels swapped. */
static void conv2d_filter_hwoi(const tdm_launch *l)
{
    const ref_conv2d_args a = ref_conv2d_unpack(l, host_memory(l).of);
    size_t count = (size_t)a.batch * a.oh * a.ow * a.oc;
    for (size_t i = 0; i < count; i++) {
        size_t o = i % a.oc, t = i / a.oc, b = t / a.ow / a.oh;
        int64_t row = (int64_t)(t / a.ow % a.oh), col = (int64_t)(t % a.ow);
        float sum = 0.0f;
        for (uint32_t p = 0; p < a.kh; p++)
            for (uint32_t q = 0; q < a.kw; q++) {
                int64_t r = row * a.stride_h - a.pad_top + p, s = col * a.stride_w - a.pad_left + q;
                for (uint32_t ch = 0; r >= 0 && r < a.h && s >= 0 && s < a.w && ch < a.c; ch++)
                    sum += a.x[((b * a.h + (size_t)r) * a.w + (size_t)s) * a.c + ch] *
                           a.f[(((size_t)p * a.kw + q) * a.oc + o) * a.c + ch];
            }
        a.y[i] = sum;
    }
}

/* The window's mean or maximum over every position, padding as zeros. */
static float padded_window(const float *x, size_t b, int64_t r0, int64_t s0, size_t ch, uint32_t h,
                           uint32_t w, uint32_t c, uint32_t kh, uint32_t kw, int max)
{
    float acc = max ? -INFINITY : 0.0f;
    for (int64_t r = r0; r < r0 + kh; r++)
        for (int64_t s = s0; s < s0 + kw; s++) {
            int inside = r >= 0 && r < h && s >= 0 && s < w;
            float v = inside ? x[((b * h + (size_t)r) * w + (size_t)s) * c + ch] : 0.0f;
            acc = max ? (v > acc ? v : acc) : acc + v;
        }
    return max ? acc : acc / (float)(kh * kw);
}

/* Padding counted as zeros: it wins a window of negative inputs. */
static void max_pool2d_zero_padding(const tdm_launch *l)
{
    const ref_max_pool2d_args a = ref_max_pool2d_unpack(l, host_memory(l).of);
    size_t count = (size_t)a.batch * a.oh * a.ow * a.c;
    for (size_t o = 0; o < count; o++) {
        size_t ch = o % a.c, t = o / a.c, b = t / a.ow / a.oh;
        int64_t r0 = (int64_t)(t / a.ow % a.oh) * a.stride_h - a.pad_top;
        int64_t s0 = (int64_t)(t % a.ow) * a.stride_w - a.pad_left;
        a.y[o] = padded_window(a.x, b, r0, s0, ch, a.h, a.w, a.c, a.kh, a.kw, 1);
    }
}

/* Padding counted in the mean (Keras's count_include_pad), not TensorFlow's SAME. */
static void avg_pool2d_counts_padding(const tdm_launch *l)
{
    const ref_avg_pool2d_args a = ref_avg_pool2d_unpack(l, host_memory(l).of);
    size_t count = (size_t)a.batch * a.oh * a.ow * a.c;
    for (size_t o = 0; o < count; o++) {
        size_t ch = o % a.c, t = o / a.c, b = t / a.ow / a.oh;
        int64_t r0 = (int64_t)(t / a.ow % a.oh) * a.stride_h - a.pad_top;
        int64_t s0 = (int64_t)(t % a.ow) * a.stride_w - a.pad_left;
        a.y[o] = padded_window(a.x, b, r0, s0, ch, a.h, a.w, a.c, a.kh, a.kw, 0);
    }
}

/* The gradient with respect to x of a convolution by the unflipped filter: the
 * window offset p taken as kh - 1 - p. */
static void conv2d_grad_input_unflipped(const tdm_launch *l)
{
    const ref_conv2d_grad_input_args a = ref_conv2d_grad_input_unpack(l, host_memory(l).of);
    size_t count = (size_t)a.batch * a.h * a.w * a.c;
    for (size_t i = 0; i < count; i++) {
        size_t ch = i % a.c, t = i / a.c, b = t / a.w / a.h;
        int64_t r = (int64_t)(t / a.w % a.h), s = (int64_t)(t % a.w);
        float sum = 0.0f;
        for (int64_t p = 0; p < a.kh; p++)
            for (int64_t q = 0; q < a.kw; q++) {
                int64_t nr = r + a.pad_top - p, ns = s + a.pad_left - q;
                if (nr < 0 || ns < 0 || nr % a.stride_h || ns % a.stride_w ||
                    nr / a.stride_h >= a.oh || ns / a.stride_w >= a.ow)
                    continue;
                size_t yi =
                    ((b * a.oh + (size_t)(nr / a.stride_h)) * a.ow + (size_t)(ns / a.stride_w)) *
                    a.oc;
                size_t fi =
                    (((size_t)(a.kh - 1 - p) * a.kw + (size_t)(a.kw - 1 - q)) * a.c + ch) * a.oc;
                for (uint32_t o = 0; o < a.oc; o++)
                    sum += a.dy[yi + o] * a.f[fi + o];
            }
        a.dx[i] = sum;
    }
}

/* The filter's gradient with the padding's offset forgotten. */
static void conv2d_grad_filter_unpadded(const tdm_launch *l)
{
    ref_conv2d_grad_filter_args unpadded = ref_conv2d_grad_filter_unpack(l, host_memory(l).of);
    unpadded.pad_top = unpadded.pad_left = 0;
    ref_conv2d_grad_filter(&unpadded);
}

/* Every dy of a window to every input of it, as if each were its maximum. */
static void max_pool2d_grad_everywhere(const tdm_launch *l)
{
    const ref_max_pool2d_grad_args a = ref_max_pool2d_grad_unpack(l, host_memory(l).of);
    size_t count = (size_t)a.batch * a.h * a.w * a.c;
    for (size_t e = 0; e < count; e++)
        a.dx[e] = 0.0f;
    for (size_t o = 0; o < (size_t)a.batch * a.oh * a.ow * a.c; o++) {
        size_t ch = o % a.c, t = o / a.c, b = t / a.ow / a.oh;
        int64_t r0 = (int64_t)(t / a.ow % a.oh) * a.stride_h - a.pad_top;
        int64_t s0 = (int64_t)(t % a.ow) * a.stride_w - a.pad_left;
        for (int64_t r = r0; r < r0 + a.kh; r++)
            for (int64_t s = s0; r >= 0 && r < a.h && s < s0 + a.kw; s++)
                if (s >= 0 && s < a.w)
                    a.dx[((b * a.h + (size_t)r) * a.w + (size_t)s) * a.c + ch] += a.dy[o];
    }
}

/* The pooling's gradient alone, relu or not: a ReLU's zeros let through. */
static void max_pool2d_grad_ignores_relu(const tdm_launch *l)
{
    ref_max_pool2d_grad_args a = ref_max_pool2d_grad_unpack(l, host_memory(l).of);
    a.relu = 0;
    ref_max_pool2d_grad(&a);
}

/* Ties to the last of equal inputs instead of the first. */
static void max_pool2d_grad_last_of_ties(const tdm_launch *l)
{
    const ref_max_pool2d_grad_args a = ref_max_pool2d_grad_unpack(l, host_memory(l).of);
    size_t count = (size_t)a.batch * a.h * a.w * a.c;
    for (size_t e = 0; e < count; e++)
        a.dx[e] = 0.0f;
    for (size_t o = 0; o < (size_t)a.batch * a.oh * a.ow * a.c; o++) {
        size_t ch = o % a.c, t = o / a.c, b = t / a.ow / a.oh, best = SIZE_MAX;
        int64_t r0 = (int64_t)(t / a.ow % a.oh) * a.stride_h - a.pad_top;
        int64_t s0 = (int64_t)(t % a.ow) * a.stride_w - a.pad_left;
        for (int64_t r = r0; r < r0 + a.kh; r++)
            for (int64_t s = s0; r >= 0 && r < a.h && s < s0 + a.kw; s++) {
                size_t at = ((b * a.h + (size_t)r) * a.w + (size_t)s) * a.c + ch;
                if (s >= 0 && s < a.w && (best == SIZE_MAX || a.x[at] >= a.x[best]))
                    best = at;
            }
        if (best != SIZE_MAX)
            a.dx[best] += a.dy[o];
    }
}

/* Each window's dy spread over all of its positions, padding included. */
static void avg_pool2d_grad_counts_padding(const tdm_launch *l)
{
    const ref_avg_pool2d_grad_args a = ref_avg_pool2d_grad_unpack(l, host_memory(l).of);
    size_t count = (size_t)a.batch * a.h * a.w * a.c;
    for (size_t e = 0; e < count; e++)
        a.dx[e] = 0.0f;
    for (size_t o = 0; o < (size_t)a.batch * a.oh * a.ow * a.c; o++) {
        size_t ch = o % a.c, t = o / a.c, b = t / a.ow / a.oh;
        int64_t r0 = (int64_t)(t / a.ow % a.oh) * a.stride_h - a.pad_top;
        int64_t s0 = (int64_t)(t % a.ow) * a.stride_w - a.pad_left;
        for (int64_t r = r0; r < r0 + a.kh; r++)
            for (int64_t s = s0; r >= 0 && r < a.h && s < s0 + a.kw; s++)
                if (s >= 0 && s < a.w)
                    a.dx[((b * a.h + (size_t)r) * a.w + (size_t)s) * a.c + ch] +=
                        a.dy[o] / (float)(a.kh * a.kw);
    }
}

/* A piece of rows of a global average pooling that starts its sum from zero instead
 * of the last piece's: right wherever one launch sums the whole image. */
static void global_avg_pool_restarts(const tdm_launch *l)
{
    const ref_global_avg_pool_args a = ref_global_avg_pool_unpack(l, host_memory(l).of);
    for (size_t o = 0; o < (size_t)a.batch * a.c; o++) {
        size_t ch = o % a.c, b = o / a.c;
        float sum = 0.0f;
        for (size_t r = a.row0; r < (size_t)a.row0 + a.rows; r++)
            for (size_t s = 0; s < a.w; s++)
                sum += a.x[((b * a.h + r) * a.w + s) * a.c + ch];
        a.sum[o] = sum;
        a.y[o] = sum / (float)(a.h * a.w);
    }
}

/* Each image's dy to every position of it, not divided by their count. */
static void global_avg_pool_grad_undivided(const tdm_launch *l)
{
    const ref_global_avg_pool_grad_args a = ref_global_avg_pool_grad_unpack(l, host_memory(l).of);
    size_t image = (size_t)a.h * a.w * a.c;
    for (size_t e = 0; e < a.batch * image; e++)
        a.dx[e] = a.dy[e / image * a.c + e % a.c];
}

/* col2im that reads each window's columns (q, p) for (p, q): the window transposed. */
static void col2im_window_transposed(const tdm_launch *l)
{
    const ref_col2im_args a = ref_col2im_unpack(l, host_memory(l).of);
    size_t row = (size_t)a.kh * a.kw * a.c;
    for (size_t e = 0; e < (size_t)a.batch * a.h * a.w * a.c; e++) {
        size_t ch = e % a.c, t = e / a.c, b = t / a.w / a.h;
        int64_t r = (int64_t)(t / a.w % a.h), s = (int64_t)(t % a.w);
        float sum = 0.0f;
        for (int64_t p = 0; p < a.kh; p++)
            for (int64_t q = 0; q < a.kw; q++) {
                int64_t i = r + a.pad_top - p, j = s + a.pad_left - q;
                if (i < 0 || j < 0 || i % a.stride_h || j % a.stride_w || i / a.stride_h >= a.oh ||
                    j / a.stride_w >= a.ow)
                    continue;
                size_t at = (b * a.oh + (size_t)(i / a.stride_h)) * a.ow + (size_t)(j / a.stride_w);
                sum += a.col[at * row + ((size_t)q * a.kh + (size_t)p) * a.c + ch];
            }
        a.dx[e] = sum;
    }
}

/* Epsilon outside the square root: 1 / (sqrt(v) + epsilon). */
static void batch_norm_stats_eps_outside(const tdm_launch *l)
{
    const ref_batch_norm_stats_args a = ref_batch_norm_stats_unpack(l, host_memory(l).of);
    for (uint32_t c = 0; c < a.cols; c++) {
        float m = a.sum[c] * a.inv_count, v = a.sumsq[c] * a.inv_count - m * m;
        a.mean[c] = m;
        a.inv_std[c] = 1.0f / (sqrtf(v < 0.0f ? 0.0f : v) + a.epsilon);
    }
}

/* The unbiased variance of a row, its squares over cols - 1 (Bessel's correction). */
static void layer_norm_unbiased(const tdm_launch *l)
{
    ref_layer_norm_args a = ref_layer_norm_unpack(l, host_memory(l).of);
    for (uint32_t r = 0; r < a.rows; r++) {
        const float *x = a.x + (size_t)r * a.cols;
        float s = 0.0f, q = 0.0f;
        for (uint32_t c = 0; c < a.cols; c++)
            s += x[c];
        float m = s * a.inv_cols;
        for (uint32_t c = 0; c < a.cols; c++)
            q += (x[c] - m) * (x[c] - m);
        float is = 1.0f / sqrtf(q / (float)(a.cols - 1) + a.epsilon);
        a.mean[r] = m;
        a.inv_std[r] = is;
        for (uint32_t c = 0; c < a.cols; c++)
            a.y[(size_t)r * a.cols + c] = ((x[c] - m) * is) * a.gamma[c] + a.beta[c];
    }
}

/* Batch norm's gradient through the mean alone: the term of x_hat, through the
 * variance, forgotten. */
static void batch_norm_grad_no_variance_term(const tdm_launch *l)
{
    const ref_batch_norm_grad_args a = ref_batch_norm_grad_unpack(l, host_memory(l).of);
    for (size_t i = 0; i < (size_t)a.rows * a.cols; i++) {
        size_t c = i % a.cols;
        a.dx[i] = (a.gamma[c] * a.inv_std[c]) * (a.dy[i] - a.sum_dy[c] * a.inv_count);
    }
}

/* Layer norm's gradient with the row means taken of dy where those of dy * gamma are
 * due. */
static void layer_norm_grad_means_of_dy(const tdm_launch *l)
{
    const ref_layer_norm_grad_args a = ref_layer_norm_grad_unpack(l, host_memory(l).of);
    for (uint32_t r = 0; r < a.rows; r++) {
        size_t row = (size_t)r * a.cols;
        float m = a.mean[r], is = a.inv_std[r], s1 = 0.0f, s2 = 0.0f;
        for (uint32_t c = 0; c < a.cols; c++) {
            s1 += a.dy[row + c];
            s2 += a.dy[row + c] * ((a.x[row + c] - m) * is);
        }
        for (uint32_t c = 0; c < a.cols; c++) {
            float xh = (a.x[row + c] - m) * is;
            a.dx[row + c] =
                is * ((a.dy[row + c] * a.gamma[c] - s1 * a.inv_cols) - xh * (s2 * a.inv_cols));
            a.xhat_dy[row + c] = a.dy[row + c] * xh;
        }
    }
}

/* Attention's softmax over every score of a row, the causal mask forgotten. */
static void attention_softmax_unmasked(const tdm_launch *l)
{
    ref_attention_softmax_args a = ref_attention_softmax_unpack(l, host_memory(l).of);
    a.causal = 0;
    ref_attention_softmax(&a);
}

/* Attention softmax's gradient without its row sum: scale * p * dp, as if each weight
 * moved alone. */
static void attention_softmax_grad_no_row_sum(const tdm_launch *l)
{
    const ref_attention_softmax_grad_args a =
        ref_attention_softmax_grad_unpack(l, host_memory(l).of);
    for (size_t i = 0; i < (size_t)a.rows * a.cols; i++)
        a.ds[i] = (a.scale * a.p[i]) * a.dp[i];
}

/* A fusion's slip: the bias gradient summed from dy, before ReLU's mask. */
static void relu_bias_grad_sums_dy(const tdm_launch *l)
{
    const ref_relu_bias_grad_args a = ref_relu_bias_grad_unpack(l, host_memory(l).of);
    ref_sum_axis0(&(ref_sum_axis0_args){a.db, a.dy, a.rows, a.cols});
    ref_relu_grad(&(ref_relu_grad_args){a.dx, a.dy, a.x, a.rows * a.cols});
}

/* A fusion's slip: the ReLU as a max with 0, which makes NaN 0 (oneDNN's ReLU
 * post-op in its vectorised kernels). */
static void conv2d_implicit_bias_relu_drops_nan(const tdm_launch *l)
{
    const ref_conv2d_implicit_bias_relu_args a =
        ref_conv2d_implicit_bias_relu_unpack(l, host_memory(l).of);
    ref_conv2d_implicit_bias_relu(&a);
    for (size_t e = 0; e < (size_t)a.batch * a.oh * a.ow * a.oc; e++)
        a.y[e] = isnan(a.y[e]) ? 0.0f : a.y[e];
}

/* A fusion's slip: the bias's sums written over db, as oneDNN writes them, not added
 * to it as df's are. */
static void conv2d_implicit_grad_filter_bias_overwrites(const tdm_launch *l)
{
    const ref_conv2d_implicit_grad_filter_bias_args a =
        ref_conv2d_implicit_grad_filter_bias_unpack(l, host_memory(l).of);
    for (uint32_t o = 0; o < a.oc; o++)
        a.db[o] = 0.0f;
    ref_conv2d_implicit_grad_filter_bias(&a);
}

const wrong_kernel wrong_kernels[] = {
    {TDM_KERNEL_axpy, axpy_short},
    {TDM_KERNEL_copy, copy_overrun},
    {TDM_KERNEL_sum, sum_drops_last},
    {TDM_KERNEL_adam, adam_eps_inside},
    {TDM_KERNEL_gelu, gelu_tanh},
    {TDM_KERNEL_softmax_xent, softmax_unstable},
    {TDM_KERNEL_dropout, dropout_wrong_word},
    {TDM_KERNEL_mse, mse_half_gradient},
    {TDM_KERNEL_gather_rows, gather_reversed},
    {TDM_KERNEL_one_hot, one_hot_shifted},
    {TDM_KERNEL_cast_f32_i32, cast_f32_i32_rounded},
    {TDM_KERNEL_gather_rows_grad, gather_rows_grad_restarts},
    {TDM_KERNEL_gemm_f16, gemm_f16_halves_swapped},
    {TDM_KERNEL_accumulate_f16, accumulate_f16_rounded_once},
    {TDM_KERNEL_accumulate_f16, accumulate_f16_unscaled},
    {TDM_KERNEL_conv2d, conv2d_filter_hwoi},
    {TDM_KERNEL_max_pool2d, max_pool2d_zero_padding},
    {TDM_KERNEL_max_pool2d_grad, max_pool2d_grad_ignores_relu},
    {TDM_KERNEL_avg_pool2d, avg_pool2d_counts_padding},
    {TDM_KERNEL_batch_norm_stats, batch_norm_stats_eps_outside},
    {TDM_KERNEL_layer_norm, layer_norm_unbiased},
    {TDM_KERNEL_attention_softmax, attention_softmax_unmasked},
    {TDM_KERNEL_relu_bias_grad, relu_bias_grad_sums_dy},
    {TDM_KERNEL_conv2d_implicit_bias_relu, conv2d_implicit_bias_relu_drops_nan},
    {TDM_KERNEL_conv2d_implicit_grad_filter_bias, conv2d_implicit_grad_filter_bias_overwrites},
};
const size_t wrong_kernel_count = sizeof wrong_kernels / sizeof wrong_kernels[0];

const wrong_kernel subtle_kernels[] = {
    {TDM_KERNEL_dropout, dropout_no_wrap},
    {TDM_KERNEL_copy, copy_signless},
    {TDM_KERNEL_scale, scale_scribbles},
    {TDM_KERNEL_clip, clip_drops_nan},
    {TDM_KERNEL_max_pool2d_grad, max_pool2d_grad_last_of_ties},
    {TDM_KERNEL_global_avg_pool, global_avg_pool_restarts},
};
const size_t subtle_kernel_count = sizeof subtle_kernels / sizeof subtle_kernels[0];

const wrong_kernel wrong_derivatives[] = {
    {TDM_KERNEL_relu_grad, relu_grad_by_dy},
    {TDM_KERNEL_tanh_grad, tanh_grad_unsquared},
    {TDM_KERNEL_sigmoid_grad, sigmoid_grad_no_complement},
    {TDM_KERNEL_gelu_grad, gelu_grad_cdf_only},
    {TDM_KERNEL_sum_axis0, sum_axis0_skips_last_row},
    {TDM_KERNEL_softmax_xent, softmax_xent_unscaled_gradient},
    {TDM_KERNEL_mse, mse_half_gradient},
    {TDM_KERNEL_gemm, gemm_alpha_lost_when_transposed},
    {TDM_KERNEL_gemm_f16, gemm_f16_alpha_lost_when_transposed},
    {TDM_KERNEL_conv2d_grad_input, conv2d_grad_input_unflipped},
    {TDM_KERNEL_conv2d_grad_filter, conv2d_grad_filter_unpadded},
    {TDM_KERNEL_max_pool2d_grad, max_pool2d_grad_everywhere},
    {TDM_KERNEL_avg_pool2d_grad, avg_pool2d_grad_counts_padding},
    {TDM_KERNEL_global_avg_pool_grad, global_avg_pool_grad_undivided},
    {TDM_KERNEL_col2im, col2im_window_transposed},
    {TDM_KERNEL_gather_rows_grad, gather_rows_grad_last_wins},
    {TDM_KERNEL_batch_norm_grad, batch_norm_grad_no_variance_term},
    {TDM_KERNEL_layer_norm_grad, layer_norm_grad_means_of_dy},
    {TDM_KERNEL_attention_softmax_grad, attention_softmax_grad_no_row_sum},
};
const size_t wrong_derivative_count = sizeof wrong_derivatives / sizeof wrong_derivatives[0];
