/* max_pool2d: y[b, i, j, ch] = the largest x[b, r, s, ch] over the window's positions
 * inside the image, (p, q) in order, p outermost: the first of equal ones, the first
 * NaN if any is NaN; padding never wins; 0 for a window with no position inside the
 * image (pool_window.clh). One item per element of y. Tolerance 0. */

#include "pool_window.clh"

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_max_pool2d(TDM_SIGNATURE)
{
    const size_t count = (size_t)batch * oh * ow * c;

    y += y_off;
    x += x_off;
    for (size_t o = get_global_id(0); o < count; o += get_global_size(0)) {
        const tdm_nhwc n = tdm_nhwc_of((uint)o, oh, ow, c);
        const long at = tdm_window_max(x, n.b, (int)n.r, (int)n.s, n.ch, TDM_POOL_DIMS);
        STORE(y, (uint)o, at < 0 ? 0.0f : LOAD(x, (uint)at));
    }
}
