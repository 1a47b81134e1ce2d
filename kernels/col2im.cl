/* col2im: dx[b, r, s, ch] = sum over (p, q) in order of col[(b, i, j), (p, q, ch)] for
 * the outputs (i, j) whose window holds (r, s) at (p, q) (pool_window.clh): im2col's
 * adjoint. A gather, no atomics: a work-item per run of channels, each sum kept in dx
 * itself, from 0 in float in the table's order. Tolerance 0. */

#include "pool_window.clh"

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_col2im(TDM_SIGNATURE)
{
    const uint run = tdm_run(c), row = kh * kw * c;
    const size_t runs = (size_t)batch * h * w * c / run;

    dx += dx_off;
    col += col_off;
    for (size_t g = get_global_id(0); g < runs; g += get_global_size(0)) {
        const uint first = (uint)g * run;
        const tdm_nhwc n = tdm_nhwc_of(first, h, w, c);

        for (uint k = 0; k < run; k++)
            dx[first + k] = 0.0f;
        for (int p = 0; p < (int)kh; p++) {
            const int i = tdm_output_pos((int)n.r, p, stride_h, pad_top, oh);
            for (int q = 0; i >= 0 && q < (int)kw; q++) {
                const int j = tdm_output_pos((int)n.s, q, stride_w, pad_left, ow);
                if (j < 0)
                    continue;
                const uint from = ((n.b * oh + (uint)i) * ow + (uint)j) * row +
                                  ((uint)p * kw + (uint)q) * c + n.ch;
                for (uint k = 0; k < run; k++)
                    dx[first + k] += col[from + k];
            }
        }
    }
}
