/* layer_norm: per row r of x (rows x cols, row-major), columns in increasing order,
 * plain float sums (a fixed order: bitwise the reference's):
 *   m = (x[r, 0] + x[r, 1] + ...) * inv_cols
 *   q = (x[r, 0] - m)^2 + (x[r, 1] - m)^2 + ...
 *   is = rsqrt(q * inv_cols + epsilon)
 *   mean[r] = m, inv_std[r] = is, y[r, c] = ((x[r, c] - m) * is) * gamma[c] + beta[c]
 * One item per row; rsqrt may be 2 ulp off (kernels.def). */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_layer_norm(TDM_SIGNATURE)
{
    y += y_off;
    mean += mean_off;
    inv_std += inv_std_off;
    x += x_off;
    gamma += gamma_off;
    beta += beta_off;
    for (size_t r = get_global_id(0); r < rows; r += get_global_size(0)) {
        const size_t row = r * cols;
        float s = 0.0f, q = 0.0f;

        for (uint c = 0; c < cols; c++)
            s = s + LOAD(x, row + c);
        const float m = s * inv_cols;
        for (uint c = 0; c < cols; c++) {
            const float d = LOAD(x, row + c) - m;
            q = q + d * d;
        }
        const float is = rsqrt(q * inv_cols + epsilon);
        mean[r] = m;
        inv_std[r] = is;
        for (uint c = 0; c < cols; c++)
            STORE(y, row + c, ((LOAD(x, row + c) - m) * is) * gamma[c] + beta[c]);
    }
}
