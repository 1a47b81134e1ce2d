/* sum_axis0: out[c] = sum over r of x[r * cols + c], r in increasing order, for
 * c in [0, cols) (bias gradients). Each item sums four adjacent columns down the rows,
 * in order, with Kahan compensation (plain float sums of many rows drift past the
 * table's 2^-20). The reference sums in double, so its result is NaN for a NaN element
 * or infinities of both signs, else the sign's infinity for infinite elements; a sum
 * of finite elements that overflows on the way is summed again scaled by 2^-64, so it
 * is infinite only if the result is. Tolerance rel 2^-20, linear. */

/* Bits for the elements that decide the result alone: 1 NaN, 2 +infinity,
 * 4 -infinity. For float4 lanes (a true comparison is -1, all bits set). */
#define SPECIAL(v) \
    ((isnan(v) & 1) | (isinf(v) & ((v) > 0.0f) & 2) | (isinf(v) & ((v) < 0.0f) & 4))

/* Columns 4q .. 4q + 3 summed over the rows, each element times scale; *special: per
 * column, the OR of its elements' SPECIAL bits. */
float4 column_sums(global const float *x, size_t q, uint rows, uint cols, float scale,
                   int4 *special)
{
    float4 s = 0.0f, lost = 0.0f; /* the sums, and what rounding took from them */
    int4 bad = 0;

    for (size_t r = 0; r < rows; r++) {
        const float4 v = load4(x + r * cols, q, cols);
        const float4 y = v * scale - lost;
        const float4 t = s + y;
        lost = (t - s) - y;
        s = t;
        bad |= SPECIAL(v);
    }
    *special = bad;
    return s - lost;
}

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_sum_axis0(TDM_SIGNATURE)
{
    const size_t quads = cols / 4 + (cols % 4 != 0);

    out += out_off;
    x += x_off;
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {
        int4 special;
        float4 total = column_sums(x, q, rows, cols, 1.0f, &special);
        const int4 redo = !isfinite(total) && special == 0; /* overflowed on the way */

        if (any(redo))
            total = redo ? column_sums(x, q, rows, cols, 0x1p-64f, &special) * 0x1p64f : total;
        /* Per lane, with select(): Oclgrind 21.10 evaluates a chain of ?: on int4
         * conditions wrongly (NaN where a lane's only special is +infinity). */
        total = select(total, (float4)(-INFINITY), special == 4);
        total = select(total, (float4)(INFINITY), special == 2);
        total = select(total, (float4)(NAN), (special & 1) != 0 | special == 6);
        store4(total, out, q, cols);
    }
}
