#version 450
// batch_norm_grad: with x_hat = (x[r, c] - mean[c]) * inv_std[c] recomputed and the
// all-reduced column sums sum_dy and sum_dy_xhat,
//   dx[r, c] = (gamma[c] * inv_std[c]) *
//              ((dy[r, c] - sum_dy[c] * inv_count) - x_hat * (sum_dy_xhat[c] * inv_count))
// `precise` (no contraction): bitwise the reference's. One item per cell.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_batch_norm_grad
#include "kernel_bindings.glsl"

TDM_VIEW(dx);
TDM_VIEW(dy);
TDM_VIEW(x);
TDM_VIEW(mean);
TDM_VIEW(inv_std);
TDM_VIEW(gamma);
TDM_VIEW(sum_dy);
TDM_VIEW(sum_dy_xhat);

void main()
{
    uint cols = TDM_U_cols;
    uint cells = TDM_U_rows * cols;
    float inv_count = TDM_F_inv_count;
    for (uint i = gl_GlobalInvocationID.x; i < cells; i += TDM_STRIDE) {
        uint c = i % cols;
        float is = inv_std[TDM_OFF_inv_std + c];
        precise float xh = (TDM_LOAD(x, i) - mean[TDM_OFF_mean + c]) * is;
        precise float t = (dy[TDM_OFF_dy + i] - sum_dy[TDM_OFF_sum_dy + c] * inv_count) -
                          xh * (sum_dy_xhat[TDM_OFF_sum_dy_xhat + c] * inv_count);
        precise float r = (gamma[TDM_OFF_gamma + c] * is) * t;
        dx[TDM_OFF_dx + i] = r;
    }
}
