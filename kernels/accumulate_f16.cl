/* accumulate_f16: y[i] = half(alpha * s), s = x0[i] then s = half(s + xk[i]) for
 * k = 1 .. inputs-1 in order, 1 <= inputs <= 7: every partial sum rounded to float16,
 * each addition and the scaling in float. Halves are read with vload_half* and the
 * result written with vstore_half*_rte, so cl_khr_fp16 is not needed. Every element
 * is read before it is written, so y may be an input. Tolerance 0. */

/* A sum of two halves rounded to the nearest half (ties to even), as a float: the
 * mantissa rounded to a half's 10 bits, 65520 and beyond infinity. Below 2^-14 such
 * a sum is a multiple of 2^-24 and already a half; infinities and NaN pass. */
float4 round_sum(float4 s)
{
    const uint4 bits = as_uint4(s), a = bits & 0x7fffffffu;
    uint4 r = (a + 0xfffu + ((a >> 13) & 1u)) & ~0x1fffu;
    r = select(r, a, a < 0x38800000u);
    r = select(r, (uint4)0x7f800000u, a >= 0x477ff000u);
    r = select(r, a, a >= 0x7f800000u);
    return as_float4((bits & 0x80000000u) | r);
}

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_accumulate_f16(TDM_SIGNATURE)
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
    /* Four elements per item and iteration (the last quad may be partial). */
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {
        float4 s = load4_half(x0, q, n);
        if (inputs > 1)
            s = round_sum(s + load4_half(x1, q, n));
        if (inputs > 2)
            s = round_sum(s + load4_half(x2, q, n));
        if (inputs > 3)
            s = round_sum(s + load4_half(x3, q, n));
        if (inputs > 4)
            s = round_sum(s + load4_half(x4, q, n));
        if (inputs > 5)
            s = round_sum(s + load4_half(x5, q, n));
        if (inputs > 6)
            s = round_sum(s + load4_half(x6, q, n));
        store4_half(alpha * s, y, q, n);
    }
}
