/* global_avg_pool_grad: dx[b, r, s, ch] = q = dy[b, ch] / (h * w), +0 where q is a
 * zero: bitwise avg_pool2d_grad's sum of the one term over the window of the whole
 * image, from +0. One item per element of dx. Tolerance 3 ulps (OpenCL allows the
 * division 2.5). */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_global_avg_pool_grad(TDM_SIGNATURE)
{
    const uint n = h * w;
    const size_t count = (size_t)batch * n * c;

    dx += dx_off;
    dy += dy_off;
    for (size_t e = get_global_id(0); e < count; e += get_global_size(0)) {
        const float q = dy[e / ((size_t)n * c) * c + e % c] / (float)n;
        dx[e] = q == 0.0f ? 0.0f : q;
    }
}
