#version 450
// batch_norm_xhat_dy: xhat_dy[r, c] = dy[r, c] * ((x[r, c] - mean[c]) * inv_std[c]),
// the terms of dgamma and of batch_norm_grad's sum_dy_xhat. `precise`: bitwise the
// reference's. One item per cell.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_batch_norm_xhat_dy
#include "kernel_bindings.glsl"

TDM_VIEW(xhat_dy);
TDM_VIEW(dy);
TDM_VIEW(x);
TDM_VIEW(mean);
TDM_VIEW(inv_std);

void main()
{
    uint cols = TDM_U_cols;
    uint cells = TDM_U_rows * cols;
    for (uint i = gl_GlobalInvocationID.x; i < cells; i += TDM_STRIDE) {
        uint c = i % cols;
        precise float r = dy[TDM_OFF_dy + i] *
                          ((TDM_LOAD(x, i) - mean[TDM_OFF_mean + c]) * inv_std[TDM_OFF_inv_std + c]);
        xhat_dy[TDM_OFF_xhat_dy + i] = r;
    }
}
