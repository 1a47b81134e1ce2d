#version 450
// layer_norm: per row r of x (rows x cols, row-major), columns in increasing order,
// plain float sums (a fixed order, `precise`: bitwise the reference's):
//   m = (x[r, 0] + x[r, 1] + ...) * inv_cols
//   q = (x[r, 0] - m)^2 + (x[r, 1] - m)^2 + ...
//   is = inversesqrt(q * inv_cols + epsilon)
//   mean[r] = m, inv_std[r] = is, y[r, c] = ((x[r, c] - m) * is) * gamma[c] + beta[c]
// One item per row; inversesqrt may be 2 ulp off (kernels.def).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_layer_norm
#include "kernel_bindings.glsl"

TDM_VIEW(y);
TDM_VIEW(mean);
TDM_VIEW(inv_std);
TDM_VIEW(x);
TDM_VIEW(gamma);
TDM_VIEW(beta);

void main()
{
    uint rows = TDM_U_rows, cols = TDM_U_cols;
    float inv_cols = TDM_F_inv_cols;
    for (uint r = gl_GlobalInvocationID.x; r < rows; r += TDM_STRIDE) {
        uint row = r * cols;
        precise float s = 0.0, q = 0.0;
        for (uint c = 0u; c < cols; c++)
            s = s + TDM_LOAD(x, row + c);
        precise float m = s * inv_cols;
        for (uint c = 0u; c < cols; c++) {
            precise float d = TDM_LOAD(x, row + c) - m;
            q = q + d * d;
        }
        precise float shifted = q * inv_cols + TDM_F_epsilon;
        float is = inversesqrt(shifted);
        mean[TDM_OFF_mean + r] = m;
        inv_std[TDM_OFF_inv_std + r] = is;
        for (uint c = 0u; c < cols; c++) {
            precise float v = ((TDM_LOAD(x, row + c) - m) * is) * gamma[TDM_OFF_gamma + c] +
                              beta[TDM_OFF_beta + c];
            TDM_STORE(y, row + c, v);
        }
    }
}
