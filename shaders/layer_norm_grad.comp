#version 450
// layer_norm_grad: per row r, with the forward's mean[r] and inv_std[r],
// g = dy[r, c] * gamma[c] and x_hat = (x[r, c] - mean[r]) * inv_std[r]:
//   a1 = (g summed over c) * inv_cols, a2 = (g * x_hat summed over c) * inv_cols
//   dx[r, c] = inv_std[r] * ((g - a1) - x_hat * a2), xhat_dy[r, c] = dy[r, c] * x_hat
// columns in increasing order, plain float sums, `precise`: bitwise the reference's.
// One item per row.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_layer_norm_grad
#include "kernel_bindings.glsl"

TDM_VIEW(dx);
TDM_VIEW(xhat_dy);
TDM_VIEW(dy);
TDM_VIEW(x);
TDM_VIEW(mean);
TDM_VIEW(inv_std);
TDM_VIEW(gamma);

void main()
{
    uint rows = TDM_U_rows, cols = TDM_U_cols;
    float inv_cols = TDM_F_inv_cols;
    for (uint r = gl_GlobalInvocationID.x; r < rows; r += TDM_STRIDE) {
        uint row = r * cols;
        float m = mean[TDM_OFF_mean + r], is = inv_std[TDM_OFF_inv_std + r];
        precise float s1 = 0.0, s2 = 0.0;
        for (uint c = 0u; c < cols; c++) {
            precise float g = dy[TDM_OFF_dy + row + c] * gamma[TDM_OFF_gamma + c];
            precise float xh = (TDM_LOAD(x, row + c) - m) * is;
            s1 = s1 + g;
            s2 = s2 + g * xh;
        }
        precise float a1 = s1 * inv_cols, a2 = s2 * inv_cols;
        for (uint c = 0u; c < cols; c++) {
            float dyc = dy[TDM_OFF_dy + row + c];
            precise float g = dyc * gamma[TDM_OFF_gamma + c];
            precise float xh = (TDM_LOAD(x, row + c) - m) * is;
            precise float d = is * ((g - a1) - xh * a2);
            precise float p = dyc * xh;
            dx[TDM_OFF_dx + row + c] = d;
            xhat_dy[TDM_OFF_xhat_dy + row + c] = p;
        }
    }
}
