/* one_hot: y[r, c] = (c == labels[r]) ? 1 : 0, row-major rows x cols; a label outside
 * [0, cols) gives a row of zeros. One item per cell. Tolerance 0. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_one_hot(TDM_SIGNATURE)
{
    const size_t cells = (size_t)rows * cols;

    y += y_off;
    labels += labels_off;
    for (size_t i = get_global_id(0); i < cells; i += get_global_size(0)) {
        const size_t r = i / cols;
        y[i] = i - r * cols == labels[r] ? 1.0f : 0.0f;
    }
}
