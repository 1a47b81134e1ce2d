/* batch_norm_stats: per column c, from column sums all-reduced by the caller,
 *   mean[c] = sum[c] * inv_count
 *   v = sumsq[c] * inv_count - mean[c]^2, 0 where negative (NaN stays NaN)
 *   inv_std[c] = rsqrt(v + epsilon)
 * One item per column. The mean is one correctly rounded product, bitwise the
 * reference's; rsqrt may be 2 ulp off (kernels.def). */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_batch_norm_stats(TDM_SIGNATURE)
{
    mean += mean_off;
    inv_std += inv_std_off;
    sum += sum_off;
    sumsq += sumsq_off;
    for (size_t c = get_global_id(0); c < cols; c += get_global_size(0)) {
        const float m = sum[c] * inv_count, ex2 = sumsq[c] * inv_count;
        const float v = ex2 - m * m;

        mean[c] = m;
        inv_std[c] = rsqrt((v < 0.0f ? 0.0f : v) + epsilon);
    }
}
