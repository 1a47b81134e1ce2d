/* col2im: dx[b, r, s, ch] = sum over (p, q) in order of col[(b, i, j), (p, q, ch)] for
 * the outputs (i, j) whose window holds (r, s) at (p, q) (pool_window.clh): im2col's
 * adjoint. A gather, one item per element of dx, summed in float in the table's
 * order, no atomics. Tolerance 0. */

#include "pool_window.clh"

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_col2im(TDM_SIGNATURE)
{
    const size_t count = (size_t)batch * h * w * c;
    const uint row = kh * kw * c;

    dx += dx_off;
    col += col_off;
    for (size_t e = get_global_id(0); e < count; e += get_global_size(0)) {
        const uint at = (uint)e;
        const tdm_nhwc n = tdm_nhwc_of(at, h, w, c);
        float sum = 0.0f;

        for (int p = 0; p < (int)kh; p++) {
            const int i = tdm_output_pos((int)n.r, p, stride_h, pad_top, oh);
            for (int q = 0; i >= 0 && q < (int)kw; q++) {
                const int j = tdm_output_pos((int)n.s, q, stride_w, pad_left, ow);
                if (j >= 0)
                    sum += col[((n.b * oh + (uint)i) * ow + (uint)j) * row +
                               ((uint)p * kw + (uint)q) * c + n.ch];
            }
        }
        dx[at] = sum;
    }
}
