/* max_pool2d_grad: dx[b, r, s, ch] = sum over (p, q) in order of dy[b, i, j, ch] for
 * the outputs (i, j) whose window holds (r, s) at (p, q) and whose maximum it is, as
 * max_pool2d chooses (pool_window.clh). No atomics; summed in float in the table's
 * order. Tolerance 0.
 *
 * Windows that tile the image (stride equal to the window, the usual pool2) hold each
 * position at most once, so a work-item takes a window's run of channels: it finds
 * each channel's choice in one pass over the window, then writes the window's cell,
 * dy at the choice and 0 elsewhere: the window itself, the first and last ones
 * reaching the image's edges, so the cells cover dx. Other windows (overlapping, or
 * with gaps, where a large stride would make the cells far larger than the windows;
 * an image without windows) gather: a work-item per run of dx's channels tests every
 * (p, q), rescanning each window. With relu, a cell is 0 where x > 0 fails. */

#include "pool_window.clh"

/* Channels of its run a work-item's window pass holds at once: on a CPU 32 (on PoCL
 * with AVX2, 8 ran at a third of the speed, 16 and 64 slower too), elsewhere its one. */
#ifdef TDM_CPU
#define TDM_PIECE 32u
#else
#define TDM_PIECE 1u
#endif

/* dx[at] for an overlapping window: every (p, q) tested. */
float tdm_overlapping(global const float *dy, global const TYPE(x) *x, tdm_nhwc n, uint at,
                      uint oh, uint ow, TDM_POOL_PARAMS)
{
    float sum = 0.0f;

    for (int p = 0; p < (int)kh; p++) {
        const int i = tdm_output_pos((int)n.r, p, stride_h, pad_top, oh);
        for (int q = 0; i >= 0 && q < (int)kw; q++) {
            const int j = tdm_output_pos((int)n.s, q, stride_w, pad_left, ow);
            if (j >= 0 && tdm_window_max(x, n.b, i, j, n.ch, TDM_POOL_DIMS) == (long)at)
                sum += dy[((n.b * oh + (uint)i) * ow + (uint)j) * c + n.ch];
        }
    }
    return sum;
}

/* The start of output i's cell along an axis of `size` positions: where its window
 * starts, 0 for the first and `size` past the last, within [0, size]. */
int tdm_cell_start(uint i, uint outputs, uint stride, uint pad, uint size)
{
    if (i == 0)
        return 0;
    if (i >= outputs)
        return (int)size;
    return clamp((int)(i * stride) - (int)pad, 0, (int)size);
}

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_max_pool2d_grad(TDM_SIGNATURE)
{
    const uint run = tdm_run(c);

    dx += dx_off;
    dy += dy_off;
    x += x_off;
    if (stride_h != kh || stride_w != kw || oh == 0 || ow == 0) {
        const size_t runs = (size_t)batch * h * w * c / run;
        for (size_t g = get_global_id(0); g < runs; g += get_global_size(0)) {
            const uint first = (uint)g * run;
            tdm_nhwc n = tdm_nhwc_of(first, h, w, c);
            for (uint k = 0; k < run; k++, n.ch++) {
                const float sum = tdm_overlapping(dy, x, n, first + k, oh, ow, TDM_POOL_DIMS);
                dx[first + k] = relu && !(LOAD(x, first + k) > 0.0f) ? 0.0f : sum;
            }
        }
        return;
    }
    const size_t runs = (size_t)batch * oh * ow * c / run;
    for (size_t g = get_global_id(0); g < runs; g += get_global_size(0)) {
        const uint from = (uint)g * run; /* in dy */
        const tdm_nhwc n = tdm_nhwc_of(from, oh, ow, c);
        const int r0 = (int)(n.r * stride_h) - (int)pad_top;
        const int s0 = (int)(n.s * stride_w) - (int)pad_left;
        const int r1 = min(r0 + (int)kh, (int)h), s1 = min(s0 + (int)kw, (int)w);
        const int cr0 = tdm_cell_start(n.r, oh, stride_h, pad_top, h);
        const int cr1 = tdm_cell_start(n.r + 1, oh, stride_h, pad_top, h);
        const int cs0 = tdm_cell_start(n.s, ow, stride_w, pad_left, w);
        const int cs1 = tdm_cell_start(n.s + 1, ow, stride_w, pad_left, w);

        for (uint k0 = 0; k0 < run; k0 += TDM_PIECE) {
            const uint count = min(run - k0, TDM_PIECE);
            uint best[TDM_PIECE]; /* the choice's index in x, UINT_MAX before one */
            float top[TDM_PIECE]; /* x[best] */

            for (uint k = 0; k < count; k++) {
                best[k] = UINT_MAX;
                top[k] = 0.0f;
            }
            for (int r = max(r0, 0); r < r1; r++)
                for (int s = max(s0, 0); s < s1; s++) {
                    const uint at = ((n.b * h + (uint)r) * w + (uint)s) * c + n.ch + k0;
                    for (uint k = 0; k < count; k++) {
                        const float v = LOAD(x, at + k);
                        const int take = (best[k] == UINT_MAX) |
                                         ((isnan(top[k]) == 0) & ((v > top[k]) | isnan(v)));
                        best[k] = take ? at + k : best[k];
                        top[k] = take ? v : top[k];
                    }
                }
            for (uint k = 0; relu && k < count; k++) /* the ReLU's x > 0 at the choice */
                best[k] = top[k] > 0.0f ? best[k] : UINT_MAX;
            for (int r = cr0; r < cr1; r++)
                for (int s = cs0; s < cs1; s++) {
                    const uint at = ((n.b * h + (uint)r) * w + (uint)s) * c + n.ch + k0;
                    for (uint k = 0; k < count; k++) {
                        const float g = 0.0f + dy[from + k0 + k];
                        dx[at + k] = best[k] == at + k ? g : 0.0f;
                    }
                }
        }
    }
}
