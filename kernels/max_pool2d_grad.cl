/* max_pool2d_grad: dx[b, r, s, ch] = sum over (p, q) in order of dy[b, i, j, ch] for
 * the outputs (i, j) whose window holds (r, s) at (p, q) and whose maximum it is, as
 * max_pool2d chooses (pool_window.clh). A gather: a work-item per run of channels, no
 * atomics, summed in float in the table's order. Tolerance 0. Windows that do not
 * overlap (stride >= window, the usual pool2) hold each position at most once: one
 * division per axis finds that window, where overlapping ones test every (p, q). */

#include "pool_window.clh"

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_max_pool2d_grad(TDM_SIGNATURE)
{
    const uint run = tdm_run(c);
    const size_t runs = (size_t)batch * h * w * c / run;
    const int disjoint = stride_h >= kh && stride_w >= kw;

    dx += dx_off;
    dy += dy_off;
    x += x_off;
    for (size_t g = get_global_id(0); g < runs; g += get_global_size(0)) {
        const uint first = (uint)g * run;
        const tdm_nhwc n = tdm_nhwc_of(first, h, w, c);
        /* the disjoint window holding (r, s); r + pad_top stays below 2^31
         * (kernel_run.c's check_window) */
        const uint i = (n.r + pad_top) / stride_h, j = (n.s + pad_left) / stride_w;
        const int held = i < oh && j < ow && n.r + pad_top - i * stride_h < kh &&
                         n.s + pad_left - j * stride_w < kw;

        for (uint k = 0; k < run; k++) {
            const uint at = first + k, ch = n.ch + k;
            float sum = 0.0f;

            if (disjoint) {
                if (held && tdm_window_max(x, n.b, (int)i, (int)j, ch, TDM_POOL_DIMS) == (long)at)
                    sum += dy[((n.b * oh + i) * ow + j) * c + ch];
            } else {
                for (int p = 0; p < (int)kh; p++) {
                    const int oi = tdm_output_pos((int)n.r, p, stride_h, pad_top, oh);
                    for (int q = 0; oi >= 0 && q < (int)kw; q++) {
                        const int oj = tdm_output_pos((int)n.s, q, stride_w, pad_left, ow);
                        if (oj >= 0 &&
                            tdm_window_max(x, n.b, oi, oj, ch, TDM_POOL_DIMS) == (long)at)
                            sum += dy[((n.b * oh + (uint)oi) * ow + (uint)oj) * c + ch];
                    }
                }
            }
            dx[at] = sum;
        }
    }
}
