/* dropout: y[i] = keep ? x[i] / (1 - rate) : 0, i in [0, n), where
 *   j = (offset + i) mod 2^32,  r = word (j & 3) of philox4x32-10(counter (j >> 2, 0, 0, 0),
 *   key (seed_lo, seed_hi)),  u = (r >> 8) * 2^-24,  keep = u >= rate.
 * Philox4x32-10 exactly as Random123's philox4x32: ten rounds, the key bumped by the
 * Weyl constants between rounds. The mask depends only on (seed, j), so every backend
 * draws the same one; the backward pass is this kernel applied to dy.
 * A counter block is the four elements whose j share j >> 2: one generator call draws
 * all four. Each item takes four adjacent blocks and runs their generators side by
 * side in the lanes of uint4s. */

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

/* Per lane, philox4x32-10 of counter (c0, 0, 0, 0) with key (k0, k1): word k of each
 * lane's output in w[k]. */
void philox4x32_10(uint4 c0, uint k0, uint k1, uint4 w[4])
{
    uint4 c1 = 0, c2 = 0, c3 = 0;

    for (int round = 0; round < 10; round++) {
        if (round > 0) {
            k0 += PHILOX_W0;
            k1 += PHILOX_W1;
        }
        const uint4 hi0 = mul_hi((uint4)(PHILOX_M0), c0), lo0 = PHILOX_M0 * c0;
        const uint4 hi1 = mul_hi((uint4)(PHILOX_M1), c2), lo1 = PHILOX_M1 * c2;
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
    }
    w[0] = c0;
    w[1] = c1;
    w[2] = c2;
    w[3] = c3;
}

/* One block: elements first + l for l = j & 3 in 0..3, those in [0, n), with r the
 * block's four generator words. */
void drop_block(global TYPE(y) *y, global const TYPE(x) *x, long first, uint n, uint4 r,
                float rate, float keep_scale)
{
    const float4 u = convert_float4(r >> 8) * 0x1p-24f;

    if (first >= 0 && first + 4 <= (long)n) {
        const float4 v = LOAD4_AT(x, first); /* element alignment is enough */
        STORE4_AT(u >= rate ? v / keep_scale : 0.0f, y, first); /* per lane */
        return;
    }
    const float ul[4] = {u.x, u.y, u.z, u.w}; /* the first or last block: partly outside */
    for (int l = 0; l < 4; l++) {
        const long i = first + l;
        if (i >= 0 && i < (long)n)
            STORE(y, i, ul[l] >= rate ? LOAD(x, i) / keep_scale : 0.0f);
    }
}

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_dropout(TDM_SIGNATURE)
{
    const uint shift = offset & 3u; /* j & 3 of element 0 */
    const size_t blocks = ((size_t)n + shift + 3) / 4, quads = (blocks + 3) / 4;
    const float keep_scale = 1.0f - rate;

    y += y_off;
    x += x_off;
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {
        /* Blocks t = 4q + b hold elements 4t - shift + l; j >> 2 wraps at 2^30. */
        const uint4 counters = ((offset >> 2) + (uint)(4 * q) + (uint4)(0, 1, 2, 3)) & 0x3FFFFFFFu;
        uint4 w[4];
        philox4x32_10(counters, seed_lo, seed_hi, w);
        const long first = (long)(16 * q) - (long)shift;
        drop_block(y, x, first, n, (uint4)(w[0].x, w[1].x, w[2].x, w[3].x), rate, keep_scale);
        drop_block(y, x, first + 4, n, (uint4)(w[0].y, w[1].y, w[2].y, w[3].y), rate, keep_scale);
        drop_block(y, x, first + 8, n, (uint4)(w[0].z, w[1].z, w[2].z, w[3].z), rate, keep_scale);
        drop_block(y, x, first + 12, n, (uint4)(w[0].w, w[1].w, w[2].w, w[3].w), rate, keep_scale);
    }
}
