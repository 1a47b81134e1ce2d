/* winograd_filter: u[xi, ch, o] = (G g G^T)[r, s], xi = 4 r + s, g the 3x3 of
 * f[p, q, ch, o] with rows channels in and cols out (kernels.def). A work-item per
 * (ch, o). Halving is exact and the sums run in the table's order: tolerance 0. */

#include "winograd.clh"

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_winograd_filter(TDM_SIGNATURE)
{
    const size_t plane = (size_t)rows * cols, stride = tdm_winograd_stride(plane);

    u += u_off;
    f += f_off;
    for (size_t g = get_global_id(0); g < plane; g += get_global_size(0)) {
        float k[3][3], e[4][3];

        for (int p = 0; p < 3; p++)
            for (int q = 0; q < 3; q++)
                k[p][q] = f[(size_t)(3 * p + q) * plane + g];
        for (int q = 0; q < 3; q++) {
            e[0][q] = k[0][q];
            e[1][q] = ((k[0][q] + k[2][q]) + k[1][q]) * 0.5f;
            e[2][q] = ((k[0][q] + k[2][q]) - k[1][q]) * 0.5f;
            e[3][q] = k[2][q];
        }
        for (int r = 0; r < 4; r++) {
            u[(size_t)(4 * r + 0) * stride + g] = e[r][0];
            u[(size_t)(4 * r + 1) * stride + g] = ((e[r][0] + e[r][2]) + e[r][1]) * 0.5f;
            u[(size_t)(4 * r + 2) * stride + g] = ((e[r][0] + e[r][2]) - e[r][1]) * 0.5f;
            u[(size_t)(4 * r + 3) * stride + g] = e[r][2];
        }
    }
}
