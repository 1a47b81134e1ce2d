/* sum: out[c] = sum of x[c * chunk .. min(n, (c + 1) * chunk)) for c < ceil(n / chunk)
 * (an empty chunk cannot occur). One work-group per chunk, grid-stride over chunks,
 * compensated (tdm_group_sum in prelude.clh). The reference sums in double, so its
 * result is NaN for a NaN element or infinities of both signs, else the sign's
 * infinity for infinite elements; a sum of finite elements that overflows on the way
 * is summed again scaled by 2^-64, so it is infinite only if the result is.
 * Tolerance rel 2^-20, linear. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_sum(TDM_SIGNATURE)
{
    local float part[TDM_WG];
    local int odd[TDM_WG];
    const size_t chunks = chunk ? n / chunk + (n % chunk != 0) : 0;

    out += out_off;
    x += x_off;
    for (size_t c = get_group_id(0); c < chunks; c += get_num_groups(0)) { /* group-uniform */
        const size_t begin = c * chunk, len = n - begin < chunk ? n - begin : chunk;
        int special;
        float total = tdm_group_sum(x + begin, len, 1.0f, 0, part, odd, &special);

        if (special) /* the same in every item of the group */
            total = special & 1 || special == 6 ? NAN : special == 2 ? INFINITY : -INFINITY;
        else if (!isfinite(total)) /* overflowed on the way */
            total = tdm_group_sum(x + begin, len, 0x1p-64f, 0, part, odd, &special) * 0x1p64f;
        if (get_local_id(0) == 0)
            out[c] = total;
    }
}
