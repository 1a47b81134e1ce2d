/* max: out[c] = maximum of the chunk's elements; NaN if any of them is NaN.
 * out[c] = reduce(x[c * chunk .. min(n, (c + 1) * chunk))) for c < ceil(n / chunk).
 * One work-group per chunk (grid-stride over chunks): each item folds a strided part of
 * the chunk, four elements at a time, then a tree in local memory combines the group's
 * TDM_WG partials. Tolerance 0. */

/* The larger of a and b, or NaN when either is NaN (fmax would drop the NaN); for
 * float and float4 alike (a vector condition selects per lane). a and b are evaluated
 * more than once. */
#define MAX_NAN(a, b) (isnan(a) ? (a) : (isnan(b) || (b) > (a)) ? (b) : (a))

/* Elements 4q .. 4q + 3 of p, those at n and beyond read as `pad`. vload4 needs only float
 * alignment, so any element offset works. */
float4 load4_padded(global const float *p, size_t q, size_t n, float pad)
{
    const size_t i = 4 * q;

    if (i + 4 <= n)
        return vload4(q, p);
    return (float4)(p[i], i + 1 < n ? p[i + 1] : pad, i + 2 < n ? p[i + 2] : pad, pad);
}

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_max(TDM_SIGNATURE)
{
    local float part[TDM_WG];
    const size_t lid = get_local_id(0);
    const size_t chunks = chunk ? n / chunk + (n % chunk != 0) : 0;

    out += out_off;
    x += x_off;
    for (size_t c = get_group_id(0); c < chunks; c += get_num_groups(0)) { /* group-uniform */
        const size_t begin = c * chunk, len = n - begin < chunk ? n - begin : chunk;
        const size_t quads = len / 4 + (len % 4 != 0);
        float4 m = -INFINITY;

        for (size_t q = lid; q < quads; q += TDM_WG) {
            const float4 v = load4_padded(x + begin, q, len, -INFINITY);
            m = MAX_NAN(m, v);
        }
        const float m01 = MAX_NAN(m.x, m.y), m23 = MAX_NAN(m.z, m.w);
        part[lid] = MAX_NAN(m01, m23);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint h = TDM_WG / 2; h > 0; h >>= 1) {
            if (lid < h) {
                const float a = part[lid], b = part[lid + h];
                part[lid] = MAX_NAN(a, b);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0)
            out[c] = part[0];
        barrier(CLK_LOCAL_MEM_FENCE); /* part[0] is read before the next chunk writes it */
    }
}
