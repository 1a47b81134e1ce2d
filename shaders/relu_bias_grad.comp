#version 450
// relu_bias_grad: dx[r, c] = x[r, c] > 0 ? dy[r, c] : 0 as relu_grad computes it (NaN x
// gives 0), and db[c] = the sum of dx[r, c] over r in increasing order as sum_axis0
// sums it (compensated, kahan.glsl): a dense layer's ReLU and bias gradients in one
// launch, bitwise the two. One item per column; dx may be dy.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_relu_bias_grad
#include "kernel_bindings.glsl"
#include "kahan.glsl"

TDM_VIEW(db);
TDM_VIEW(dx);
TDM_VIEW(dy);
TDM_VIEW(x);

void main()
{
    uint rows = TDM_U_rows, cols = TDM_U_cols;
    for (uint c = gl_GlobalInvocationID.x; c < cols; c += TDM_STRIDE) {
        float s = 0.0, comp = 0.0;
        for (uint r = 0u; r < rows; r++) {
            uint at = r * cols + c;
            float g = TDM_LOAD(x, at) > 0.0 ? dy[TDM_OFF_dy + at] : 0.0;
            dx[TDM_OFF_dx + at] = g;
            tdm_kahan_add(s, comp, g);
        }
        db[TDM_OFF_db + c] = s - comp;
    }
}
