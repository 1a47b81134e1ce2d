/* sigmoid_grad: dx[i] = dy[i] * y[i] * (1 - y[i]), y the forward output, i in [0, n). */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_sigmoid_grad(TDM_SIGNATURE)
{
    const size_t quads = n / 4 + (n % 4 != 0);

    dx += dx_off;
    dy += dy_off;
    y += y_off;
    /* Four elements per item and iteration (the last quad may be partial). */
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {
        const float4 yi = LOAD4(y, q, n);
        STORE4(LOAD4(dy, q, n) * yi * (1.0f - yi), dx, q, n);
    }
}
