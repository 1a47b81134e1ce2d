#version 450
// winograd_input: v[xi, t, ch] = (B^T d B)[r, s], xi = 4 r + s, for the 4x4 tile d
// of channel ch at tile t, 0 outside the image (kernels.def). One item per (tile,
// channel). Adds and subtracts in the table's order (precise): tolerance 0.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_winograd_input
#include "kernel_bindings.glsl"
#include "winograd.glsl"

TDM_VIEW(v);
TDM_VIEW(x);

void main()
{
    uint h = TDM_U_h, w = TDM_U_w, c = TDM_U_c;
    uint th = (TDM_U_oh + 1) / 2, tw = (TDM_U_ow + 1) / 2;
    uint plane = TDM_U_batch * th * tw * c, stride = tdm_winograd_stride(plane);
    for (uint g = gl_GlobalInvocationID.x; g < plane; g += TDM_STRIDE) {
        uint t = g / c, ch = g % c, b = t / tw / th, ti = t / tw % th, tj = t % tw;
        int r0 = int(2 * ti) - int(TDM_U_pad_top), s0 = int(2 * tj) - int(TDM_U_pad_left);
        float d[4][4];
        precise float e[4][4];
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                int r = r0 + i, s = s0 + j;
                bool inside = r >= 0 && r < int(h) && s >= 0 && s < int(w);
                d[i][j] = inside ? TDM_LOAD(x, ((b * h + uint(r)) * w + uint(s)) * c + ch) : 0.0;
            }
        for (int j = 0; j < 4; j++) {
            e[0][j] = d[0][j] - d[2][j];
            e[1][j] = d[1][j] + d[2][j];
            e[2][j] = d[2][j] - d[1][j];
            e[3][j] = d[1][j] - d[3][j];
        }
        for (uint i = 0; i < 4; i++) {
            precise float v0 = e[i][0] - e[i][2], v1 = e[i][1] + e[i][2];
            precise float v2 = e[i][2] - e[i][1], v3 = e[i][1] - e[i][3];
            TDM_STORE(v, (4 * i + 0) * stride + g, v0);
            TDM_STORE(v, (4 * i + 1) * stride + g, v1);
            TDM_STORE(v, (4 * i + 2) * stride + g, v2);
            TDM_STORE(v, (4 * i + 3) * stride + g, v3);
        }
    }
}
