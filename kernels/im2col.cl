/* im2col: col[(b, i, j), (p, q, ch)] = x[b, i * stride_h - pad_top + p,
 * j * stride_w - pad_left + q, ch], 0 for padding; a row of kh * kw * c per output
 * position. A copy, tolerance 0: a work-item per run of channels (pool_window.clh),
 * index math in uint. */

#include "pool_window.clh"

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_im2col(TDM_SIGNATURE)
{
    const uint run = tdm_run(c);
    const size_t runs = (size_t)batch * oh * ow * kh * kw * c / run;

    col += col_off;
    x += x_off;
    for (size_t g = get_global_id(0); g < runs; g += get_global_size(0)) {
        const uint first = (uint)g * run, u = first / c, v = u / kw;
        const uint t = v / kh, bi = t / ow, b = bi / oh;
        const uint ch = first - u * c, q = u - v * kw, p = v - t * kh, j = t - bi * ow;
        const int r = (int)((bi - b * oh) * stride_h + p) - (int)pad_top;
        const int s = (int)(j * stride_w + q) - (int)pad_left;

        if (r >= 0 && r < (int)h && s >= 0 && s < (int)w) {
            const uint from = ((b * h + (uint)r) * w + (uint)s) * c + ch;
            for (uint k = 0; k < run; k++)
                STORE(col, first + k, LOAD(x, from + k));
        } else {
            for (uint k = 0; k < run; k++)
                STORE(col, first + k, 0.0f);
        }
    }
}
