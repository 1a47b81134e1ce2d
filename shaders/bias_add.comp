#version 450
// bias_add: y[r, c] = x[r, c] + b[c], row-major. One item per cell. y is a view of
// halves in the float16 twin (TDM_LOAD and TDM_STORE serve both).
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
        precise float r = TDM_LOAD(x, i) + TDM_LOAD(b, i % cols);
        TDM_STORE(y, i, r);
    }
}
