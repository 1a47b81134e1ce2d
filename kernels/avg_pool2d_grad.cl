/* avg_pool2d_grad: dx[b, r, s, ch] = sum over (p, q) in order of
 * dy[b, i, j, ch] / count(i, j) for the outputs (i, j) whose window holds (r, s) at
 * (p, q), count(i, j) their positions inside the image (pool_window.clh). A gather:
 * one item per element of dx, no atomics. Tolerance 3 ulps and 2^-16 of the largest
 * dy (OpenCL allows each division 2.5 ulps). */

#include "pool_window.clh"

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_avg_pool2d_grad(TDM_SIGNATURE)
{
    const size_t count = (size_t)batch * h * w * c;

    dx += dx_off;
    dy += dy_off;
    for (size_t e = get_global_id(0); e < count; e += get_global_size(0)) {
        const uint at = (uint)e;
        const tdm_nhwc n = tdm_nhwc_of(at, h, w, c);
        float sum = 0.0f;

        for (int p = 0; p < (int)kh; p++) {
            const int i = tdm_output_pos((int)n.r, p, stride_h, pad_top, oh);
            for (int q = 0; i >= 0 && q < (int)kw; q++) {
                const int j = tdm_output_pos((int)n.s, q, stride_w, pad_left, ow);
                if (j < 0)
                    continue;
                const uint inside = tdm_inside(i * (int)stride_h - (int)pad_top, kh, h) *
                               tdm_inside(j * (int)stride_w - (int)pad_left, kw, w);
                sum += dy[((n.b * oh + (uint)i) * ow + (uint)j) * c + n.ch] / (float)inside;
            }
        }
        dx[at] = sum;
    }
}
