/* Convolution, NHWC with HWIO filters, its gradients, and im2col and col2im for
 * convolution through GEMM: each output element a sum in float, in the order
 * kernels.def gives, as the devices sum, so that every backend agrees bit for bit. Window positions
 * outside the image are padding and add nothing. */
#include "ref_kernels.h"
#include "ref_window.h"

void ref_conv2d(const ref_conv2d_args *a)
{
    size_t count = (size_t)a->batch * a->oh * a->ow * a->oc;
    for (size_t i = 0; i < count; i++) {
        size_t o = i % a->oc, t = i / a->oc;
        uint32_t j = (uint32_t)(t % a->ow), row = (uint32_t)(t / a->ow % a->oh);
        size_t b = t / a->ow / a->oh;
        float sum = 0.0f;
        for (uint32_t p = 0; p < a->kh; p++) {
            int64_t r = ref_window_pos(row, a->stride_h, a->pad_top, p, a->h);
            for (uint32_t q = 0; r >= 0 && q < a->kw; q++) {
                int64_t s = ref_window_pos(j, a->stride_w, a->pad_left, q, a->w);
                if (s < 0)
                    continue;
                const float *x = a->x + ((b * a->h + (size_t)r) * a->w + (size_t)s) * a->c;
                const float *f = a->f + ((size_t)p * a->kw + q) * a->c * a->oc + o;
                for (uint32_t ch = 0; ch < a->c; ch++)
                    sum += x[ch] * f[(size_t)ch * a->oc];
            }
        }
        a->y[i] = sum;
    }
}

void ref_conv2d_grad_input(const ref_conv2d_grad_input_args *a)
{
    size_t count = (size_t)a->batch * a->h * a->w * a->c;
    for (size_t i = 0; i < count; i++) {
        size_t ch = i % a->c, t = i / a->c;
        uint32_t s = (uint32_t)(t % a->w), r = (uint32_t)(t / a->w % a->h);
        size_t b = t / a->w / a->h;
        float sum = 0.0f;
        for (uint32_t p = 0; p < a->kh; p++) {
            int64_t row = ref_output_pos(r, a->stride_h, a->pad_top, p, a->oh);
            for (uint32_t q = 0; row >= 0 && q < a->kw; q++) {
                int64_t j = ref_output_pos(s, a->stride_w, a->pad_left, q, a->ow);
                if (j < 0)
                    continue;
                const float *dy = a->dy + ((b * a->oh + (size_t)row) * a->ow + (size_t)j) * a->oc;
                const float *f = a->f + (((size_t)p * a->kw + q) * a->c + ch) * a->oc;
                for (uint32_t o = 0; o < a->oc; o++)
                    sum += dy[o] * f[o];
            }
        }
        a->dx[i] = sum;
    }
}

void ref_conv2d_grad_filter(const ref_conv2d_grad_filter_args *a)
{
    size_t count = (size_t)a->kh * a->kw * a->c * a->oc;
    for (size_t i = 0; i < count; i++) {
        size_t o = i % a->oc, t = i / a->oc, ch = t % a->c;
        uint32_t q = (uint32_t)(t / a->c % a->kw), p = (uint32_t)(t / a->c / a->kw);
        float sum = a->df[i]; /* the sum continues from df */
        for (size_t b = 0; b < a->batch; b++)
            for (uint32_t row = 0; row < a->oh; row++) {
                int64_t r = ref_window_pos(row, a->stride_h, a->pad_top, p, a->h);
                for (uint32_t j = 0; r >= 0 && j < a->ow; j++) {
                    int64_t s = ref_window_pos(j, a->stride_w, a->pad_left, q, a->w);
                    if (s < 0)
                        continue;
                    size_t xi = ((b * a->h + (size_t)r) * a->w + (size_t)s) * a->c + ch;
                    size_t yi = ((b * a->oh + row) * a->ow + j) * a->oc + o;
                    sum += a->x[xi] * a->dy[yi];
                }
            }
        a->df[i] = sum;
    }
}

void ref_im2col(const ref_im2col_args *a)
{
    size_t row = (size_t)a->kh * a->kw * a->c, count = (size_t)a->batch * a->oh * a->ow * row;
    for (size_t e = 0; e < count; e++) {
        size_t within = e % row, t = e / row, b = t / a->ow / a->oh;
        size_t ch = within % a->c, pq = within / a->c;
        uint32_t i = (uint32_t)(t / a->ow % a->oh), j = (uint32_t)(t % a->ow);
        int64_t r = ref_window_pos(i, a->stride_h, a->pad_top, (uint32_t)(pq / a->kw), a->h);
        int64_t s = ref_window_pos(j, a->stride_w, a->pad_left, (uint32_t)(pq % a->kw), a->w);
        a->col[e] =
            r >= 0 && s >= 0 ? a->x[((b * a->h + (size_t)r) * a->w + (size_t)s) * a->c + ch] : 0.0f;
    }
}

void ref_col2im(const ref_col2im_args *a)
{
    size_t row = (size_t)a->kh * a->kw * a->c, count = (size_t)a->batch * a->h * a->w * a->c;
    for (size_t e = 0; e < count; e++) {
        size_t ch = e % a->c, t = e / a->c, b = t / a->w / a->h;
        uint32_t s = (uint32_t)(t % a->w), r = (uint32_t)(t / a->w % a->h);
        float sum = 0.0f;
        for (uint32_t p = 0; p < a->kh; p++) {
            int64_t i = ref_output_pos(r, a->stride_h, a->pad_top, p, a->oh);
            for (uint32_t q = 0; i >= 0 && q < a->kw; q++) {
                int64_t j = ref_output_pos(s, a->stride_w, a->pad_left, q, a->ow);
                if (j >= 0)
                    sum += a->col[((b * a->oh + (size_t)i) * a->ow + (size_t)j) * row +
                                  ((size_t)p * a->kw + q) * a->c + ch];
            }
        }
        a->dx[e] = sum;
    }
}
