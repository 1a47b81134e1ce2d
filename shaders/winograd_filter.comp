#version 450
// winograd_filter: u[xi, ch, o] = (G g G^T)[r, s], xi = 4 r + s, g the 3x3 of
// f[p, q, ch, o] with rows channels in and cols out (kernels.def). One item per
// (ch, o). Halving is exact and the sums run in the table's order (precise):
// tolerance 0.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_winograd_filter
#include "kernel_bindings.glsl"
#include "winograd.glsl"

TDM_VIEW(u);
TDM_VIEW(f);

void main()
{
    uint plane = TDM_U_rows * TDM_U_cols, stride = tdm_winograd_stride(plane);
    for (uint g = gl_GlobalInvocationID.x; g < plane; g += TDM_STRIDE) {
        float k[3][3];
        precise float e[4][3];
        for (uint p = 0; p < 3; p++)
            for (uint q = 0; q < 3; q++)
                k[p][q] = TDM_LOAD(f, (3 * p + q) * plane + g);
        for (int q = 0; q < 3; q++) {
            e[0][q] = k[0][q];
            e[1][q] = ((k[0][q] + k[2][q]) + k[1][q]) * 0.5;
            e[2][q] = ((k[0][q] + k[2][q]) - k[1][q]) * 0.5;
            e[3][q] = k[2][q];
        }
        for (uint r = 0; r < 4; r++) {
            precise float u1 = ((e[r][0] + e[r][2]) + e[r][1]) * 0.5;
            precise float u2 = ((e[r][0] + e[r][2]) - e[r][1]) * 0.5;
            TDM_STORE(u, (4 * r + 0) * stride + g, e[r][0]);
            TDM_STORE(u, (4 * r + 1) * stride + g, u1);
            TDM_STORE(u, (4 * r + 2) * stride + g, u2);
            TDM_STORE(u, (4 * r + 3) * stride + g, e[r][2]);
        }
    }
}
