/* bias_add: y[r, c] = x[r, c] + b[c], row-major rows x cols. Tolerance 0. */

/* The column after c, wrapping to the next row. */
size_t next_col(size_t c, uint cols)
{
    return c + 1 < cols ? c + 1 : 0;
}

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_bias_add(TDM_SIGNATURE)
{
    const size_t cells = (size_t)rows * cols;
    const size_t quads = cells / 4 + (cells % 4 != 0);

    y += y_off;
    x += x_off;
    b += b_off;
    /* Four cells per item and iteration (the last quad may be partial); a quad may
     * span rows, so each lane finds its own column. */
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {
        const size_t c0 = 4 * q % cols, c1 = next_col(c0, cols), c2 = next_col(c1, cols);
        const float4 bias = (float4)(b[c0], b[c1], b[c2], b[next_col(c2, cols)]);
        STORE4(LOAD4(x, q, cells) + bias, y, q, cells);
    }
}
