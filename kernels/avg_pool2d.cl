/* avg_pool2d: y[b, i, j, ch] = (sum of x[b, r, s, ch] over the window's positions
 * inside the image, (p, q) in order) / their count: padding is not counted
 * (TensorFlow's SAME); 0 for a window with none (pool_window.clh). One item per
 * element of y; the sum in float in the reference's order, then one division.
 * Tolerance 3 ulps (OpenCL allows the division 2.5). */

#include "pool_window.clh"

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_avg_pool2d(TDM_SIGNATURE)
{
    const size_t count = (size_t)batch * oh * ow * c;

    y += y_off;
    x += x_off;
    for (size_t o = get_global_id(0); o < count; o += get_global_size(0)) {
        const tdm_nhwc n = tdm_nhwc_of((uint)o, oh, ow, c);
        const int r0 = (int)(n.r * stride_h) - (int)pad_top;
        const int s0 = (int)(n.s * stride_w) - (int)pad_left;
        const uint inside = tdm_inside(r0, kh, h) * tdm_inside(s0, kw, w);
        float sum = 0.0f;

        for (int r = max(r0, 0); r < min(r0 + (int)kh, (int)h); r++)
            for (int s = max(s0, 0); s < min(s0 + (int)kw, (int)w); s++)
                sum += LOAD(x, ((n.b * h + (uint)r) * w + (uint)s) * c + n.ch);
        STORE(y, (uint)o, inside ? sum / (float)inside : 0.0f);
    }
}
