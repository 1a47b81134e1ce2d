/* im2col: col[(b, i, j), (p, q, ch)] = x[b, i * stride_h - pad_top + p,
 * j * stride_w - pad_left + q, ch], 0 for padding; a row of kh * kw * c per output
 * position. One item per element of col: a copy, tolerance 0. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_im2col(TDM_SIGNATURE)
{
    const size_t row = (size_t)kh * kw * c, count = (size_t)batch * oh * ow * row;

    col += col_off;
    x += x_off;
    for (size_t e = get_global_id(0); e < count; e += get_global_size(0)) {
        const size_t within = e % row, t = e / row, b = t / ow / oh;
        const size_t ch = within % c, pq = within / c;
        const int r = (int)(t / ow % oh) * (int)stride_h - (int)pad_top + (int)(pq / kw);
        const int s = (int)(t % ow) * (int)stride_w - (int)pad_left + (int)(pq % kw);

        STORE(col, e,
              r >= 0 && r < (int)h && s >= 0 && s < (int)w
                  ? LOAD(x, ((b * h + (size_t)r) * w + (size_t)s) * c + ch)
                  : 0.0f);
    }
}
