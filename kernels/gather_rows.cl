/* gather_rows: y[r, c] = x[idx[r], c] for r < rows, c < cols, x having src_rows rows
 * of cols (row-major). 32-bit words are copied as they are, so float32 features and
 * int32 labels gather alike, bit for bit; an index not below src_rows gives a row of
 * zeros (never a read outside x). One item per cell of y. Tolerance 0. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_gather_rows(TDM_SIGNATURE)
{
    const size_t cells = (size_t)rows * cols;

    y += y_off;
    x += x_off;
    idx += idx_off;
    for (size_t i = get_global_id(0); i < cells; i += get_global_size(0)) {
        const size_t r = i / cols, c = i - r * cols;
        const uint s = idx[r];
        y[i] = s < src_rows ? x[(size_t)s * cols + c] : 0u;
    }
}
