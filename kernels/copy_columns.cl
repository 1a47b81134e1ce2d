/* copy_columns: y[r * ldc + c] = x[r * lda + c] for r < rows, c < cols: a block of
 * columns between matrices of other widths, 32-bit words as they are; y's other
 * columns keep their values. One item per cell of the block. Tolerance 0. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_copy_columns(TDM_SIGNATURE)
{
    const size_t cells = (size_t)rows * cols;

    y += y_off;
    x += x_off;
    for (size_t i = get_global_id(0); i < cells; i += get_global_size(0)) {
        const size_t r = i / cols, c = i - r * cols;
        y[r * ldc + c] = x[r * lda + c];
    }
}
