#version 450
// winograd_output: y[b, 2 ti + a, 2 tj + e, o] = (A^T m A)[a, e] for the 4x4 of
// planes m[xi, t, o] of tile t = (b, ti, tj), where inside y (kernels.def). One item
// per (tile, o). Adds and subtracts in the table's order (precise): tolerance 0.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_winograd_output
#include "kernel_bindings.glsl"
#include "winograd.glsl"

TDM_VIEW(y);
TDM_VIEW(m);

void main()
{
    uint oh = TDM_U_oh, ow = TDM_U_ow, oc = TDM_U_oc;
    uint th = (oh + 1) / 2, tw = (ow + 1) / 2;
    uint plane = TDM_U_batch * th * tw * oc, stride = tdm_winograd_stride(plane);
    for (uint g = gl_GlobalInvocationID.x; g < plane; g += TDM_STRIDE) {
        uint t = g / oc, o = g % oc, b = t / tw / th, ti = t / tw % th, tj = t % tw;
        float k[4][4];
        precise float e[2][4];
        for (uint xi = 0; xi < 16; xi++)
            k[xi / 4][xi % 4] = TDM_LOAD(m, xi * stride + g);
        for (int j = 0; j < 4; j++) {
            e[0][j] = (k[0][j] + k[1][j]) + k[2][j];
            e[1][j] = (k[1][j] - k[2][j]) - k[3][j];
        }
        for (uint a = 0; a < 2 && 2 * ti + a < oh; a++) {
            uint row = (b * oh + 2 * ti + a) * ow;
            precise float y0 = (e[a][0] + e[a][1]) + e[a][2];
            precise float y1 = (e[a][1] - e[a][2]) - e[a][3];
            TDM_STORE(y, (row + 2 * tj) * oc + o, y0);
            if (2 * tj + 1 < ow)
                TDM_STORE(y, (row + 2 * tj + 1) * oc + o, y1);
        }
    }
}
