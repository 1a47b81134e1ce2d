/* attention_softmax_grad: per row r, with p the forward's output, over the columns
 * j < len (len = r % cols + 1 where causal, else cols), the others written +0:
 *   d = ((dp[r, 0] * p[r, 0]) + dp[r, 1] * p[r, 1]) + ...   (plain float, in order)
 *   ds[r, j] = (scale * p[r, j]) * (dp[r, j] - d)
 * One item per row; correctly rounded operations in a fixed order: bitwise the
 * reference's. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_attention_softmax_grad(TDM_SIGNATURE)
{
    ds += ds_off;
    dp += dp_off;
    p += p_off;
    for (size_t r = get_global_id(0); r < rows; r += get_global_size(0)) {
        const size_t row = r * cols;
        const uint len = causal ? (uint)(r % cols) + 1 : cols;
        float d = 0.0f;

        for (uint j = 0; j < len; j++)
            d = d + dp[row + j] * LOAD(p, row + j);
        for (uint j = 0; j < cols; j++)
            ds[row + j] = j < len ? (scale * LOAD(p, row + j)) * (dp[row + j] - d) : 0.0f;
    }
}
