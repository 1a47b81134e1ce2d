/* conv2d_grad_input: dx[b, r, s, ch] = sum over (p, q, o), p outermost, of
 * dy[b, i, j, o] * f[p, q, ch, o] for the outputs (i, j) whose window holds (r, s) at
 * (p, q): r = i * stride_h - pad_top + p, s = j * stride_w - pad_left + q. A gather:
 * one item per element of dx, no atomics, summed in float in the table's order
 * (contraction off), as the reference sums. Tolerance 0. */

/* The output position whose window holds input position r at offset p, or -1. */
int output_pos(int r, int p, uint stride, uint pad, uint size)
{
    const int num = r + (int)pad - p;

    if (num < 0 || num % (int)stride != 0 || num / (int)stride >= (int)size)
        return -1;
    return num / (int)stride;
}

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_conv2d_grad_input(TDM_SIGNATURE)
{
    const size_t count = (size_t)batch * h * w * c;

    dx += dx_off;
    dy += dy_off;
    f += f_off;
    for (size_t i = get_global_id(0); i < count; i += get_global_size(0)) {
        const size_t ch = i % c, t = i / c, b = t / w / h;
        const int r = (int)(t / w % h), s = (int)(t % w);
        float sum = 0.0f;

        for (int p = 0; p < (int)kh; p++) {
            const int row = output_pos(r, p, stride_h, pad_top, oh);
            if (row < 0)
                continue;
            for (int q = 0; q < (int)kw; q++) {
                const int col = output_pos(s, q, stride_w, pad_left, ow);
                if (col < 0)
                    continue;
                global const float *dys = dy + ((b * oh + (size_t)row) * ow + (size_t)col) * oc;
                global const float *fs = f + (((size_t)p * kw + (size_t)q) * c + ch) * oc;
                for (uint o = 0; o < oc; o++)
                    sum += dys[o] * fs[o];
            }
        }
        dx[i] = sum;
    }
}
