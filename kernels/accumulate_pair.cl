/* accumulate_pair: y0[i] = y1[i] = alpha * (((x0[i] + x1[i]) + x2[i]) + ... +
 * x{inputs-1}[i]), 2 <= inputs <= 6, added left to right, then scaled: bitwise the
 * reference. Every lane is loaded before either output is stored, so outputs may be
 * inputs. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_accumulate_pair(TDM_SIGNATURE)
{
    const size_t quads = n / 4 + (n % 4 != 0);

    y0 += y0_off;
    y1 += y1_off;
    x0 += x0_off;
    x1 += x1_off;
    x2 += x2_off;
    x3 += x3_off;
    x4 += x4_off;
    x5 += x5_off;
    /* Two inputs, the case of a two-device all-reduce, get a loop without branches. */
    if (inputs == 2) {
        for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {
            const float4 r = alpha * (load4(x0, q, n) + load4(x1, q, n));
            store4(r, y0, q, n);
            store4(r, y1, q, n);
        }
        return;
    }
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {
        float4 acc = load4(x0, q, n) + load4(x1, q, n);
        if (inputs > 2)
            acc = acc + load4(x2, q, n);
        if (inputs > 3)
            acc = acc + load4(x3, q, n);
        if (inputs > 4)
            acc = acc + load4(x4, q, n);
        if (inputs > 5)
            acc = acc + load4(x5, q, n);
        acc = alpha * acc;
        store4(acc, y0, q, n);
        store4(acc, y1, q, n);
    }
}
