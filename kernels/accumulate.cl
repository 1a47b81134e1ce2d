/* accumulate: y[i] = ((x0[i] + x1[i]) + x2[i]) + ... + x{inputs-1}[i], 2 <= inputs <= 7,
 * added left to right in float (no reassociation), so the result is the reference's bit
 * for bit. Inputs x{inputs}..x6 are unused (the backend binds some buffer there). */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_accumulate(TDM_SIGNATURE)
{
    const size_t quads = n / 4 + (n % 4 != 0);

    y += y_off;
    x0 += x0_off;
    x1 += x1_off;
    x2 += x2_off;
    x3 += x3_off;
    x4 += x4_off;
    x5 += x5_off;
    x6 += x6_off;
    /* Four elements per item and iteration (the last quad may be partial). Two
     * inputs, the case of every pairwise reduction, get a loop without branches. */
    if (inputs == 2) {
        for (size_t q = get_global_id(0); q < quads; q += get_global_size(0))
            store4(load4(x0, q, n) + load4(x1, q, n), y, q, n);
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
        if (inputs > 6)
            acc = acc + load4(x6, q, n);
        store4(acc, y, q, n);
    }
}
