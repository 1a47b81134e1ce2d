#version 450
// bias_add: y[r, c] = x[r, c] + b[c], row-major. One item per cell.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_bias_add
#include "kernel_bindings.glsl"

TDM_VIEW(y);
TDM_VIEW(x);
TDM_VIEW(b);

void main()
{
    uint cols = TDM_U_cols;
    uint cells = TDM_U_rows * cols;
    for (uint i = gl_GlobalInvocationID.x; i < cells; i += TDM_STRIDE) {
        precise float r = x[TDM_OFF_x + i] + b[TDM_OFF_b + i % cols];
        y[TDM_OFF_y + i] = r;
    }
}
