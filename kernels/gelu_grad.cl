/* gelu_grad: dx[i] = dy[i] * (Phi(x) + x * phi(x)), x = x[i], i in [0, n), with
 * Phi(x) = erfc(-x / sqrt(2)) / 2 the normal CDF (accurate in the left tail) and
 * phi(x) = exp(-x * x / 2) / sqrt(2 pi) its density. */

#define INV_SQRT_2PI 0.398942280401432678f

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_gelu_grad(TDM_SIGNATURE)
{
    const size_t quads = n / 4 + (n % 4 != 0);

    dx += dx_off;
    dy += dy_off;
    x += x_off;
    /* Four elements per item and iteration (the last quad may be partial). */
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0)) {
        const float4 v = LOAD4(x, q, n);
        const float4 cdf = 0.5f * erfc(-v * M_SQRT1_2_F);
        const float4 pdf = exp(-0.5f * v * v) * INV_SQRT_2PI;
        STORE4(LOAD4(dy, q, n) * (cdf + v * pdf), dx, q, n);
    }
}
