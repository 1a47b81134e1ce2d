#version 450
// batch_norm_apply: y[r, c] = ((x[r, c] - mean[c]) * inv_std[c]) * gamma[c] + beta[c],
// row-major, `precise` (no contraction): bitwise the reference's. One item per cell.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_batch_norm_apply
#include "kernel_bindings.glsl"

TDM_VIEW(y);
TDM_VIEW(x);
TDM_VIEW(mean);
TDM_VIEW(inv_std);
TDM_VIEW(gamma);
TDM_VIEW(beta);

void main()
{
    uint cols = TDM_U_cols;
    uint cells = TDM_U_rows * cols;
    for (uint i = gl_GlobalInvocationID.x; i < cells; i += TDM_STRIDE) {
        uint c = i % cols;
        precise float r = ((TDM_LOAD(x, i) - mean[TDM_OFF_mean + c]) *
                           inv_std[TDM_OFF_inv_std + c]) * gamma[TDM_OFF_gamma + c] +
                          beta[TDM_OFF_beta + c];
        TDM_STORE(y, i, r);
    }
}
