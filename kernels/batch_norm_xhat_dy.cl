/* batch_norm_xhat_dy: xhat_dy[r, c] = dy[r, c] * ((x[r, c] - mean[c]) * inv_std[c]),
 * the terms of dgamma and of batch_norm_grad's sum_dy_xhat (the caller sums columns
 * with sum_axis0). Bitwise the reference's. One item per cell. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_batch_norm_xhat_dy(TDM_SIGNATURE)
{
    const size_t cells = (size_t)rows * cols;

    xhat_dy += xhat_dy_off;
    dy += dy_off;
    x += x_off;
    mean += mean_off;
    inv_std += inv_std_off;
    for (size_t i = get_global_id(0); i < cells; i += get_global_size(0)) {
        const size_t c = i % cols;
        xhat_dy[i] = dy[i] * ((LOAD(x, i) - mean[c]) * inv_std[c]);
    }
}
