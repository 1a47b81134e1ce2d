/* sum: out[c] = sum of the chunk's elements (an empty chunk cannot occur).
 * out[c] = reduce(x[c * chunk .. min(n, (c + 1) * chunk))) for c < ceil(n / chunk).
 * One work-group per chunk (grid-stride over chunks): each item sums a strided part of
 * the chunk, four elements at a time, with Kahan compensation (a chunk may be a
 * million elements, and plain float sums of that many positive terms drift past the
 * table's 2^-20); then a tree in local memory adds the group's 64 partials. The
 * reference sums in double, so its result is NaN for a NaN element or infinities of
 * both signs, else the sign's infinity for infinite elements; a sum of finite elements
 * that overflows on the way is summed again scaled by 2^-64, so it is infinite only if
 * the result is.
 * Tolerance rel 2^-20, linear. */

#define WG 64

/* Bits for the elements that decide the result alone: 1 NaN, 2 +infinity,
 * 4 -infinity. For float4 lanes (a true comparison is -1, all bits set). */
#define SPECIAL(v) \
    ((isnan(v) & 1) | (isinf(v) & ((v) > 0.0f) & 2) | (isinf(v) & ((v) < 0.0f) & 4))

/* The group's sum of the terms of x[0, len), each element times scale, returned to
 * every item, with *special the OR of the elements' SPECIAL bits. Call in group-uniform
 * control flow (it has barriers). */
float group_sum(global const float *x, size_t len, float scale, local float *part,
                local int *odd, int *special)
{
    const size_t lid = get_local_id(0), quads = len / 4 + (len % 4 != 0);
    float4 s = 0.0f, lost = 0.0f; /* the sums, and what rounding took from them */
    int4 bad = 0;

    for (size_t q = lid; q < quads; q += WG) {
        const float4 v = load4(x, q, len); /* lanes past the end add 0 */
        const float4 y = v * scale - lost;
        const float4 t = s + y;
        lost = (t - s) - y;
        s = t;
        bad |= SPECIAL(v);
    }
    const float4 r = s - lost;
    part[lid] = (r.x + r.y) + (r.z + r.w);
    odd[lid] = (bad.x | bad.y) | (bad.z | bad.w);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint h = WG / 2; h > 0; h >>= 1) {
        if (lid < h) {
            part[lid] = part[lid] + part[lid + h];
            odd[lid] |= odd[lid + h];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const float total = part[0];
    *special = odd[0];
    barrier(CLK_LOCAL_MEM_FENCE); /* read by all before the next call writes part */
    return total;
}

__attribute__((reqd_work_group_size(WG, 1, 1)))
kernel void tdm_sum(global float *out, global const float *x, uint out_off, uint x_off,
                    uint n, uint chunk)
{
    local float part[WG];
    local int odd[WG];
    const size_t chunks = chunk ? n / chunk + (n % chunk != 0) : 0;

    out += out_off;
    x += x_off;
    for (size_t c = get_group_id(0); c < chunks; c += get_num_groups(0)) { /* group-uniform */
        const size_t begin = c * chunk, len = n - begin < chunk ? n - begin : chunk;
        int special;
        float total = group_sum(x + begin, len, 1.0f, part, odd, &special);

        if (special) /* the same in every item of the group */
            total = special & 1 || special == 6 ? NAN : special == 2 ? INFINITY : -INFINITY;
        else if (!isfinite(total)) /* overflowed on the way */
            total = group_sum(x + begin, len, 0x1p-64f, part, odd, &special) * 0x1p64f;
        if (get_local_id(0) == 0)
            out[c] = total;
    }
}
