/* max_pool2d_grad: dx[b, r, s, ch] = sum over (p, q) in order of dy[b, i, j, ch] for
 * the outputs (i, j) whose window holds (r, s) at (p, q) and whose maximum it is, as
 * max_pool2d chooses (pool_window.clh). A gather: one item per element of dx, no
 * atomics, summed in float in the table's order. Tolerance 0. Windows that do not
 * overlap (stride >= window, the usual pool2) hold each position at most once: one
 * division per axis finds that window, where overlapping ones test every (p, q). */

#include "pool_window.clh"

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_max_pool2d_grad(TDM_SIGNATURE)
{
    const size_t count = (size_t)batch * h * w * c;
    const int disjoint = stride_h >= kh && stride_w >= kw;

    dx += dx_off;
    dy += dy_off;
    x += x_off;
    for (size_t e = get_global_id(0); e < count; e += get_global_size(0)) {
        const uint at = (uint)e;
        const tdm_nhwc n = tdm_nhwc_of(at, h, w, c);
        float sum = 0.0f;

        if (disjoint) {
            /* r + pad_top stays below 2^31 (kernel_run.c's check_window) */
            const uint i = (n.r + pad_top) / stride_h, j = (n.s + pad_left) / stride_w;
            if (i < oh && j < ow && n.r + pad_top - i * stride_h < kh &&
                n.s + pad_left - j * stride_w < kw &&
                tdm_window_max(x, n.b, (int)i, (int)j, n.ch, TDM_POOL_DIMS) == (long)at)
                sum += dy[((n.b * oh + i) * ow + j) * c + n.ch];
        } else {
            for (int p = 0; p < (int)kh; p++) {
                const int i = tdm_output_pos((int)n.r, p, stride_h, pad_top, oh);
                for (int q = 0; i >= 0 && q < (int)kw; q++) {
                    const int j = tdm_output_pos((int)n.s, q, stride_w, pad_left, ow);
                    if (j >= 0 && tdm_window_max(x, n.b, i, j, n.ch, TDM_POOL_DIMS) == (long)at)
                        sum += dy[((n.b * oh + (uint)i) * ow + (uint)j) * c + n.ch];
                }
            }
        }
        dx[at] = sum;
    }
}
