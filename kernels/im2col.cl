/* im2col: col[(b, i, j), (p, q, ch)] = x[b, i * stride_h - pad_top + p,
 * j * stride_w - pad_left + q, ch], 0 for padding; a row of kh * kw * c per output
 * position. A copy, tolerance 0, index math in uint. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_im2col(TDM_SIGNATURE)
{
    col += col_off;
    x += x_off;
#ifdef TDM_CPU
    /* A work-item per output position, its row of col: the divisions run once per
     * row whatever c (the first convolution's c is 1), and each (p, q) copies one
     * position's c contiguous channels. */
    const size_t rows = (size_t)batch * oh * ow;
    for (size_t g = get_global_id(0); g < rows; g += get_global_size(0)) {
        const uint bi = (uint)g / ow, b = bi / oh, i = bi - b * oh, j = (uint)g - bi * ow;
        uint at = (uint)g * kh * kw * c;
        for (uint p = 0; p < kh; p++) {
            const int r = (int)(i * stride_h + p) - (int)pad_top;
            for (uint q = 0; q < kw; q++, at += c) {
                const int s = (int)(j * stride_w + q) - (int)pad_left;
                if (r >= 0 && r < (int)h && s >= 0 && s < (int)w) {
                    const uint from = ((b * h + (uint)r) * w + (uint)s) * c;
                    for (uint ch = 0; ch < c; ch++)
                        STORE(col, at + ch, LOAD(x, from + ch));
                } else {
                    for (uint ch = 0; ch < c; ch++)
                        STORE(col, at + ch, 0.0f);
                }
            }
        }
    }
#else
    /* A work-item per element, so that neighbouring work-items write neighbouring
     * elements. */
    const size_t count = (size_t)batch * oh * ow * kh * kw * c;
    for (size_t g = get_global_id(0); g < count; g += get_global_size(0)) {
        const uint e = (uint)g, u = e / c, v = u / kw;
        const uint t = v / kh, bi = t / ow, b = bi / oh;
        const uint ch = e - u * c, q = u - v * kw, p = v - t * kh, j = t - bi * ow;
        const int r = (int)((bi - b * oh) * stride_h + p) - (int)pad_top;
        const int s = (int)(j * stride_w + q) - (int)pad_left;

        STORE(col, e,
              r >= 0 && r < (int)h && s >= 0 && s < (int)w
                  ? LOAD(x, ((b * h + (uint)r) * w + (uint)s) * c + ch)
                  : 0.0f);
    }
#endif
}
