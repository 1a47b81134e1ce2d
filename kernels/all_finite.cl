/* all_finite: out[c] = 1 if every element of the chunk is finite, else 0
 * (check_numerics).
 * out[c] = reduce(x[c * chunk .. min(n, (c + 1) * chunk))) for c < ceil(n / chunk).
 * One work-group per chunk (grid-stride over chunks): each item checks a strided part
 * of the chunk, four elements at a time, then a tree in local memory combines the
 * group's TDM_WG answers. Tolerance 0. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_all_finite(TDM_SIGNATURE)
{
    local int part[TDM_WG];
    const size_t lid = get_local_id(0);
    const size_t chunks = chunk ? n / chunk + (n % chunk != 0) : 0;

    out += out_off;
    x += x_off;
    for (size_t c = get_group_id(0); c < chunks; c += get_num_groups(0)) { /* group-uniform */
        const size_t begin = c * chunk, len = n - begin < chunk ? n - begin : chunk;
        const size_t quads = len / 4 + (len % 4 != 0);
        int4 bad = 0;

        for (size_t q = lid; q < quads; q += TDM_WG)
            bad |= !isfinite(load4(x + begin, q, len)); /* lanes past the end read 0 */
        part[lid] = any(bad);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint h = TDM_WG / 2; h > 0; h >>= 1) {
            if (lid < h)
                part[lid] |= part[lid + h];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0)
            out[c] = part[0] ? 0.0f : 1.0f;
        barrier(CLK_LOCAL_MEM_FENCE); /* part[0] is read before the next chunk writes it */
    }
}
