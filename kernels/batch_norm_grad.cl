/* batch_norm_grad: with x_hat = (x[r, c] - mean[c]) * inv_std[c] recomputed and the
 * all-reduced column sums sum_dy and sum_dy_xhat,
 *   dx[r, c] = (gamma[c] * inv_std[c]) *
 *              ((dy[r, c] - sum_dy[c] * inv_count) - x_hat * (sum_dy_xhat[c] * inv_count))
 * in that order without contraction: bitwise the reference's. One item per cell. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_batch_norm_grad(TDM_SIGNATURE)
{
    const size_t cells = (size_t)rows * cols;

    dx += dx_off;
    dy += dy_off;
    x += x_off;
    mean += mean_off;
    inv_std += inv_std_off;
    gamma += gamma_off;
    sum_dy += sum_dy_off;
    sum_dy_xhat += sum_dy_xhat_off;
    for (size_t i = get_global_id(0); i < cells; i += get_global_size(0)) {
        const size_t c = i % cols;
        const float xh = (LOAD(x, i) - mean[c]) * inv_std[c];
        const float t = (dy[i] - sum_dy[c] * inv_count) - xh * (sum_dy_xhat[c] * inv_count);

        dx[i] = (gamma[c] * inv_std[c]) * t;
    }
}
