/* max_pool2d: y[b, i, j, ch] = the largest x[b, r, s, ch] over the window's positions
 * inside the image, (p, q) in order, p outermost: the first of equal ones, the first
 * NaN if any is NaN; padding never wins; 0 for a window with no position inside the
 * image (pool_window.clh). A work-item per run of channels. Tolerance 0. */

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

        for (uint k = 0; k < run; k++) {
            const long at =
                tdm_window_max(x, n.b, (int)n.r, (int)n.s, n.ch + k, TDM_POOL_DIMS);
            STORE(y, first + k, at < 0 ? 0.0f : LOAD(x, (uint)at));
        }
    }
}
