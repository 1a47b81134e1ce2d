/* The padding's terms of conv2d's implicit passes (dnnl_padding_terms.h). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dnnl_padding_terms.h"

/* A float's bits with the top bit set where it is an infinity or NaN: its exponent is
 * all ones, and adding one to the exponent carries into the top bit. */
static uint32_t top_if_nonfinite(uint32_t bits)
{
    return (bits & 0x7f800000u) + 0x00800000u;
}

/* Whether any of n floats is an infinity or NaN. Eight lanes of ORs, with no
 * comparison or branch, which the compiler vectorises at -O2 (a loop of one lane,
 * compared, ran scalar: 2 % of a CNN's step). */
static int any_nonfinite(const float *x, size_t n)
{
    uint32_t seen[8] = {0}, bits[8];
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(bits, &x[i], sizeof bits);
        for (size_t k = 0; k < 8; k++)
            seen[k] |= top_if_nonfinite(bits[k]);
    }
    for (; i < n; i++) {
        memcpy(bits, &x[i], sizeof bits[0]);
        seen[0] |= top_if_nonfinite(bits[0]);
    }
    uint32_t any = 0;
    for (size_t k = 0; k < 8; k++)
        any |= seen[k];
    return (any & 0x80000000u) != 0;
}

/* Whether output (i, j)'s window tap (p, q) falls outside the image: in its padding. */
static int tap_outside(const tdm_dnnl_window *w, int64_t i, int64_t j, int64_t p, int64_t q)
{
    const int64_t r = i * w->stride_h - w->pad_top + p, s = j * w->stride_w - w->pad_left + q;
    return r < 0 || r >= w->h || s < 0 || s >= w->w;
}

/* Whether any tap of output (i, j)'s window falls outside the image. */
static int window_outside(const tdm_dnnl_window *w, int64_t i, int64_t j)
{
    const int64_t r = i * w->stride_h - w->pad_top, s = j * w->stride_w - w->pad_left;
    return r < 0 || r + w->kh > w->h || s < 0 || s + w->kw > w->w;
}

/* The output index along one dimension whose window holds position r at tap p, or
 * -1 where none does. */
static int64_t holder(int64_t r, int64_t p, uint32_t stride, uint32_t pad, uint32_t outputs)
{
    const int64_t at = r + pad - p;
    return at >= 0 && at % stride == 0 && at / stride < outputs ? at / stride : -1;
}

static size_t filter_index(const tdm_dnnl_window *w, size_t p, size_t q, size_t ch, size_t o)
{
    return ((p * w->kw + q) * w->c + ch) * w->oc + o;
}

void tdm_padding_terms_forward(const tdm_dnnl_window *w, const float *f, float *y)
{
    if (!any_nonfinite(f, (size_t)w->kh * w->kw * w->c * w->oc))
        return;
    for (uint32_t p = 0; p < w->kh; p++)
        for (uint32_t q = 0; q < w->kw; q++)
            for (uint32_t o = 0; o < w->oc; o++) {
                int bad = 0;
                for (uint32_t ch = 0; ch < w->c && !bad; ch++)
                    bad = !isfinite(f[filter_index(w, p, q, ch, o)]);
                for (uint32_t i = 0; bad && i < w->oh; i++)
                    for (uint32_t j = 0; j < w->ow; j++)
                        for (uint32_t b = 0; tap_outside(w, i, j, p, q) && b < w->batch; b++)
                            y[(((size_t)b * w->oh + i) * w->ow + j) * w->oc + o] = NAN;
            }
}

void tdm_padding_terms_grad_input(const tdm_dnnl_window *w, const float *f, float *dx)
{
    if (!any_nonfinite(f, (size_t)w->kh * w->kw * w->c * w->oc))
        return;
    for (uint32_t p = 0; p < w->kh; p++)
        for (uint32_t q = 0; q < w->kw; q++)
            for (uint32_t ch = 0; ch < w->c; ch++) {
                int bad = 0;
                for (uint32_t o = 0; o < w->oc && !bad; o++)
                    bad = !isfinite(f[filter_index(w, p, q, ch, o)]);
                /* dx's positions that no output's window holds at this tap */
                for (uint32_t r = 0; bad && r < w->h; r++)
                    for (uint32_t s = 0; s < w->w; s++) {
                        if (holder(r, p, w->stride_h, w->pad_top, w->oh) >= 0 &&
                            holder(s, q, w->stride_w, w->pad_left, w->ow) >= 0)
                            continue;
                        for (uint32_t b = 0; b < w->batch; b++)
                            dx[(((size_t)b * w->h + r) * w->w + s) * w->c + ch] = NAN;
                    }
            }
}

void tdm_padding_terms_grad_filter(const tdm_dnnl_window *w, const float *dy, float *df)
{
    for (uint32_t i = 0; i < w->oh; i++)
        for (uint32_t j = 0; j < w->ow; j++) {
            if (!window_outside(w, i, j))
                continue;
            for (uint32_t b = 0; b < w->batch; b++) {
                const float *row = dy + (((size_t)b * w->oh + i) * w->ow + j) * w->oc;
                if (!any_nonfinite(row, w->oc))
                    continue;
                for (uint32_t o = 0; o < w->oc; o++)
                    for (uint32_t p = 0; !isfinite(row[o]) && p < w->kh; p++)
                        for (uint32_t q = 0; q < w->kw; q++)
                            for (uint32_t ch = 0; tap_outside(w, i, j, p, q) && ch < w->c; ch++)
                                df[filter_index(w, p, q, ch, o)] = NAN;
            }
        }
}
