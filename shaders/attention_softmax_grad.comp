#version 450
// attention_softmax_grad: per row r, with p the forward's output, over the columns
// j < len (len = r % cols + 1 where causal, else cols), the others written +0:
//   d = ((dp[r, 0] * p[r, 0]) + dp[r, 1] * p[r, 1]) + ...   (plain float, in order)
//   ds[r, j] = (scale * p[r, j]) * (dp[r, j] - d)
// One item per row; `precise` keeps the order written: bitwise the reference's.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_attention_softmax_grad
#include "kernel_bindings.glsl"

TDM_VIEW(ds);
TDM_VIEW(dp);
TDM_VIEW(p);

void main()
{
    uint rows = TDM_U_rows, cols = TDM_U_cols;
    float scale = TDM_F_scale;
    for (uint r = gl_GlobalInvocationID.x; r < rows; r += TDM_STRIDE) {
        uint row = r * cols, dp0 = TDM_OFF_dp + row, ds0 = TDM_OFF_ds + row;
        uint len = TDM_U_causal != 0u ? r % cols + 1u : cols;
        precise float d = 0.0;
        for (uint j = 0u; j < len; j++)
            d = d + dp[dp0 + j] * TDM_LOAD(p, row + j);
        for (uint j = 0u; j < cols; j++) {
            precise float v = (scale * TDM_LOAD(p, row + j)) * (dp[dp0 + j] - d);
            ds[ds0 + j] = j < len ? v : 0.0;
        }
    }
}
