/* conv2d_grad_filter: df[p, q, ch, o] += sum over (b, i, j), b outermost, of
 * x[b, i * stride_h - pad_top + p, j * stride_w - pad_left + q, ch] * dy[b, i, j, o],
 * padding skipped, the sum continuing from df's value (the core launches long sums in
 * pieces). A gather: one item per element of df, no atomics, summed in float in the
 * table's order (contraction off), as the reference sums. Tolerance 0. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_conv2d_grad_filter(TDM_SIGNATURE)
{
    const size_t count = (size_t)kh * kw * c * oc;

    df += df_off;
    x += x_off;
    dy += dy_off;
    for (size_t i = get_global_id(0); i < count; i += get_global_size(0)) {
        const size_t o = i % oc, t = i / oc, ch = t % c;
        const int q = (int)(t / c % kw), p = (int)(t / c / kw);
        float sum = df[i]; /* the sum continues from df */

        for (size_t b = 0; b < batch; b++)
            for (int row = 0; row < (int)oh; row++) {
                const int r = row * (int)stride_h - (int)pad_top + p;
                if (r < 0 || r >= (int)h)
                    continue;
                for (int col = 0; col < (int)ow; col++) {
                    const int s = col * (int)stride_w - (int)pad_left + q;
                    if (s < 0 || s >= (int)w)
                        continue;
                    const size_t xi = ((b * h + (size_t)r) * w + (size_t)s) * c + ch;
                    const size_t yi = ((b * oh + (size_t)row) * ow + (size_t)col) * oc + o;
                    sum += x[xi] * dy[yi];
                }
            }
        df[i] = sum;
    }
}
