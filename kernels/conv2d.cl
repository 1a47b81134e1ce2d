/* conv2d: y[b, i, j, o] = sum over (p, q, ch), p outermost, of
 * x[b, i * stride_h - pad_top + p, j * stride_w - pad_left + q, ch] * f[p, q, ch, o];
 * x NHWC, f HWIO, y NHWC with oc channels. Positions outside the image are padding
 * and add nothing. One item per element of y, summed in float in the table's order
 * (contraction off), as the reference sums. Tolerance 0. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_conv2d(TDM_SIGNATURE)
{
    const size_t count = (size_t)batch * oh * ow * oc;

    y += y_off;
    x += x_off;
    f += f_off;
    for (size_t i = get_global_id(0); i < count; i += get_global_size(0)) {
        const size_t o = i % oc, t = i / oc, b = t / ow / oh;
        const int row = (int)(t / ow % oh), col = (int)(t % ow);
        float sum = 0.0f;

        for (int p = 0; p < (int)kh; p++) {
            const int r = row * (int)stride_h - (int)pad_top + p;
            if (r < 0 || r >= (int)h)
                continue;
            for (int q = 0; q < (int)kw; q++) {
                const int s = col * (int)stride_w - (int)pad_left + q;
                if (s < 0 || s >= (int)w)
                    continue;
                global const float *xs = x + ((b * h + (size_t)r) * w + (size_t)s) * c;
                global const float *fs = f + ((size_t)p * kw + (size_t)q) * c * oc + o;
                for (uint ch = 0; ch < c; ch++)
                    sum += xs[ch] * fs[(size_t)ch * oc];
            }
        }
        y[i] = sum;
    }
}
