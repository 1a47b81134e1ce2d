/* batch_norm_apply: y[r, c] = ((x[r, c] - mean[c]) * inv_std[c]) * gamma[c] + beta[c],
 * row-major rows x cols, in that order without contraction: bitwise the reference's.
 * One item per cell. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_batch_norm_apply(TDM_SIGNATURE)
{
    const size_t cells = (size_t)rows * cols;

    y += y_off;
    x += x_off;
    mean += mean_off;
    inv_std += inv_std_off;
    gamma += gamma_off;
    beta += beta_off;
    for (size_t i = get_global_id(0); i < cells; i += get_global_size(0)) {
        const size_t c = i % cols;
        STORE(y, i, ((LOAD(x, i) - mean[c]) * inv_std[c]) * gamma[c] + beta[c]);
    }
}
