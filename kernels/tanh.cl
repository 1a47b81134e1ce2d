/* tanh: y[i] = tanh(x[i]), i in [0, n). */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_tanh(TDM_SIGNATURE)
{
    const size_t quads = n / 4 + (n % 4 != 0);

    y += y_off;
    x += x_off;
    /* Four elements per item and iteration (the last quad may be partial). */
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {
        STORE4(tanh(LOAD4(x, q, n)), y, q, n);
    }
}
