/* relu_grad: dx[i] = x[i] > 0 ? dy[i] : 0, i in [0, n). Tolerance 0. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_relu_grad(TDM_SIGNATURE)
{
    const size_t quads = n / 4 + (n % 4 != 0);

    dx += dx_off;
    dy += dy_off;
    x += x_off;
    /* Four elements per item and iteration (the last quad may be partial); dy's bits
     * masked by the comparison (true is all ones per lane), as tdm_relu4. */
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {
        STORE4(as_float4(as_int4(LOAD4(dy, q, n)) & (LOAD4(x, q, n) > 0.0f)), dx, q, n);
    }
}
