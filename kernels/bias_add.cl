/* bias_add: y[r, c] = x[r, c] + b[c], row-major rows x cols. Tolerance 0. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_bias_add(TDM_SIGNATURE)
{
    const size_t cells = (size_t)rows * cols;
    const size_t quads = cells / 4 + (cells % 4 != 0);

    y += y_off;
    x += x_off;
    b += b_off;
    /* Four cells per item and iteration (the last quad may be partial). */
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0))
        STORE4(LOAD4(x, q, cells) + load4_cols(b, q, cols), y, q, cells);
}
