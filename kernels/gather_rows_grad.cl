/* gather_rows_grad: dx[v, c] += the sum over r < rows, in increasing order, of
 * dy[r, c] for every r with idx[r] == v, continuing from dx's value, for v < src_rows,
 * c < cols (the core launches long sums in pieces of rows). gather_rows' adjoint as a
 * gather: one item per element of dx, no atomics, summed in float in the table's
 * order, as the reference sums. A row whose index is not below src_rows matches no
 * element. Tolerance 0. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_gather_rows_grad(TDM_SIGNATURE)
{
    const size_t count = (size_t)src_rows * cols;

    dx += dx_off;
    dy += dy_off;
    idx += idx_off;
    for (size_t i = get_global_id(0); i < count; i += get_global_size(0)) {
        const size_t v = i / cols, c = i - v * cols;
        float sum = dx[i]; /* the sum continues from dx */

        for (uint r = 0; r < rows; r++)
            if (idx[r] == v)
                sum += dy[(size_t)r * cols + c];
        dx[i] = sum;
    }
}
