/* max_pool2d_grad: dx[b, r, s, ch] = sum over (p, q) in order of dy[b, i, j, ch] for
 * the outputs (i, j) whose window holds (r, s) at (p, q) and whose maximum it is, as
 * max_pool2d chooses (pool_window.clh). A gather: a work-item per run of channels, no
 * atomics, summed in float in the table's order. Tolerance 0.
 *
 * Windows that do not overlap (stride >= window, the usual pool2) hold each position
 * at most once: one division per axis finds that window, and the position is its
 * choice when no NaN precedes it and, if it is a number, every other position holds a
 * number, those before it smaller and those after no larger (the first NaN, else the
 * first maximum). That test runs position by position over the run's channels, the
 * verdicts kept in dx, so that the channel loops are contiguous. Overlapping windows
 * test every (p, q), rescanning each window. */

#include "pool_window.clh"

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

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_max_pool2d_grad(TDM_SIGNATURE)
{
    const uint run = tdm_run(c);
    const size_t runs = (size_t)batch * h * w * c / run;

    dx += dx_off;
    dy += dy_off;
    x += x_off;
    for (size_t g = get_global_id(0); g < runs; g += get_global_size(0)) {
        const uint first = (uint)g * run;
        tdm_nhwc n = tdm_nhwc_of(first, h, w, c);

        if (stride_h < kh || stride_w < kw) {
            for (uint k = 0; k < run; k++, n.ch++)
                dx[first + k] = tdm_overlapping(dy, x, n, first + k, oh, ow, TDM_POOL_DIMS);
            continue;
        }
        /* the window holding (r, s); r + pad_top stays below 2^31 (check_window) */
        const uint i = (n.r + pad_top) / stride_h, j = (n.s + pad_left) / stride_w;
        const int r0 = (int)(i * stride_h) - (int)pad_top, s0 = (int)(j * stride_w) - (int)pad_left;
        const float held = i < oh && j < ow && (int)n.r - r0 < (int)kh && (int)n.s - s0 < (int)kw;

        for (uint k = 0; k < run; k++)
            dx[first + k] = held;
        for (int r = max(r0, 0); held && r < min(r0 + (int)kh, (int)h); r++)
            for (int s = max(s0, 0); s < min(s0 + (int)kw, (int)w); s++) {
                const int before = r < (int)n.r || (r == (int)n.r && s < (int)n.s);
                const int self = r == (int)n.r && s == (int)n.s;
                const uint other = ((n.b * h + (uint)r) * w + (uint)s) * c + n.ch;
                for (uint k = 0; self == 0 && k < run; k++) {
                    const float v = LOAD(x, other + k), mine = LOAD(x, first + k);
                    const int keeps = isnan(mine) ? !before || !isnan(v)
                                                  : !isnan(v) && (before ? v < mine : v <= mine);
                    dx[first + k] = keeps ? dx[first + k] : 0.0f;
                }
            }
        const uint from = ((n.b * oh + i) * ow + j) * c + n.ch;
        for (uint k = 0; k < run; k++)
            dx[first + k] = dx[first + k] != 0.0f ? 0.0f + dy[from + k] : 0.0f;
    }
}
