/* sum_squares: out[c] = sum of the squares of x[c * chunk .. min(n, (c + 1) * chunk))
 * for c < ceil(n / chunk) (the global L2 norm: partials of every tensor, sum, sqrt).
 * One work-group per chunk, grid-stride over chunks, compensated (tdm_group_sum in
 * prelude.clh). The reference sums in double, so its result is NaN for a NaN element,
 * else infinite for an infinite one; a sum of finite squares that overflows on the way
 * is summed again scaled by 2^-64 (2^-128 on the squares), so it is infinite only if
 * the result is. Tolerance rel 2^-20, linear. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_sum_squares(TDM_SIGNATURE)
{
    local float part[TDM_WG];
    local int odd[TDM_WG];
    const size_t chunks = chunk ? n / chunk + (n % chunk != 0) : 0;

    out += out_off;
    x += x_off;
    for (size_t c = get_group_id(0); c < chunks; c += get_num_groups(0)) { /* group-uniform */
        const size_t begin = c * chunk, len = n - begin < chunk ? n - begin : chunk;
        int special;
        float total = tdm_group_sum(x + begin, len, 1.0f, 1, part, odd, &special);

        if (special) /* the same in every item of the group */
            total = special & 1 ? NAN : INFINITY;
        else if (!isfinite(total)) /* overflowed on the way */
            total = tdm_group_sum(x + begin, len, 0x1p-64f, 1, part, odd, &special) * 0x1p64f *
                    0x1p64f;
        if (get_local_id(0) == 0)
            out[c] = total;
    }
}
