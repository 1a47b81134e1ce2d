/* global_avg_pool: sum[b, ch] = x[b, r, s, ch] summed over rows row0 .. row0 + rows - 1
 * and every column, (r, s) in order, from 0 where row0 is 0 and from sum[b, ch]
 * otherwise; y[b, ch] = sum[b, ch] / (h * w), 0 for an empty image. avg_pool2d's sum
 * and division over the window of the whole image, bitwise; the core launches long
 * sums in pieces of rows, each continuing the last. One item per element of y.
 * Tolerance 3 ulps (OpenCL allows the division 2.5). */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_global_avg_pool(TDM_SIGNATURE)
{
    const size_t count = (size_t)batch * c;
    const uint n = h * w;

    y += y_off;
    x += x_off;
    sum += sum_off;
    for (size_t o = get_global_id(0); o < count; o += get_global_size(0)) {
        const size_t ch = o % c, b = o / c;
        float acc = row0 ? sum[o] : 0.0f;

        for (uint r = row0; r < row0 + rows; r++)
            for (uint s = 0; s < w; s++)
                acc += LOAD(x, ((b * h + r) * w + s) * c + ch);
        sum[o] = acc;
        STORE(y, o, n ? acc / (float)n : 0.0f);
    }
}
