/* max_pool2d: y[b, i, j, ch] = the largest x[b, r, s, ch] over the window's positions
 * inside the image, (p, q) in order, p outermost: the first of equal ones, the first
 * NaN if any is NaN; padding never wins; 0 for a window with no position inside the
 * image (pool_window.clh). Tolerance 0. A work-item per run of channels, the window's
 * positions in order over the run, y holding the choice so far: a later position
 * replaces it where tdm_window_max would, so y is stored once per choice, x[best]
 * as one store of it would be. */

#include "pool_window.clh"

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_max_pool2d(TDM_SIGNATURE)
{
    const uint run = tdm_run(c);
    const size_t runs = (size_t)batch * oh * ow * c / run;

    y += y_off;
    x += x_off;
    for (size_t g = get_global_id(0); g < runs; g += get_global_size(0)) {
        const uint first = (uint)g * run;
        const tdm_nhwc n = tdm_nhwc_of(first, oh, ow, c);
        const int r0 = (int)(n.r * stride_h) - (int)pad_top;
        const int s0 = (int)(n.s * stride_w) - (int)pad_left;
        const int r1 = min(r0 + (int)kh, (int)h), s1 = min(s0 + (int)kw, (int)w);
        int chosen = 0; /* a position has been stored */

        for (int r = max(r0, 0); r < r1; r++)
            for (int s = max(s0, 0); s < s1; s++, chosen = 1) {
                const uint at = ((n.b * h + (uint)r) * w + (uint)s) * c + n.ch;
                for (uint k = 0; k < run; k++) {
                    const float v = LOAD(x, at + k), top = LOAD(y, first + k);
                    if (!chosen || ((isnan(top) == 0) & ((v > top) | isnan(v))))
                        STORE(y, first + k, v);
                }
            }
        for (uint k = 0; !chosen && k < run; k++)
            STORE(y, first + k, 0.0f);
    }
}
