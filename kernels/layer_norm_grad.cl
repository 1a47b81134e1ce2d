/* layer_norm_grad: per row r, with the forward's mean[r] and inv_std[r],
 * g = dy[r, c] * gamma[c] and x_hat = (x[r, c] - mean[r]) * inv_std[r]:
 *   a1 = (g summed over c) * inv_cols, a2 = (g * x_hat summed over c) * inv_cols
 *   dx[r, c] = inv_std[r] * ((g - a1) - x_hat * a2), xhat_dy[r, c] = dy[r, c] * x_hat
 * columns in increasing order, plain float sums: bitwise the reference's. One item
 * per row. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_layer_norm_grad(TDM_SIGNATURE)
{
    dx += dx_off;
    xhat_dy += xhat_dy_off;
    dy += dy_off;
    x += x_off;
    mean += mean_off;
    inv_std += inv_std_off;
    gamma += gamma_off;
    for (size_t r = get_global_id(0); r < rows; r += get_global_size(0)) {
        const size_t row = r * cols;
        const float m = mean[r], is = inv_std[r];
        float s1 = 0.0f, s2 = 0.0f;

        for (uint c = 0; c < cols; c++) {
            const float g = dy[row + c] * gamma[c], xh = (LOAD(x, row + c) - m) * is;
            s1 = s1 + g;
            s2 = s2 + g * xh;
        }
        const float a1 = s1 * inv_cols, a2 = s2 * inv_cols;
        for (uint c = 0; c < cols; c++) {
            const float g = dy[row + c] * gamma[c], xh = (LOAD(x, row + c) - m) * is;
            dx[row + c] = is * ((g - a1) - xh * a2);
            xhat_dy[row + c] = dy[row + c] * xh;
        }
    }
}
