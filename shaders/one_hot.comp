#version 450
// one_hot: y[r, c] = (c == labels[r]) ? 1 : 0, row-major rows x cols; a label outside
// [0, cols) gives a row of zeros. One item per cell. Tolerance 0.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_one_hot
#include "kernel_bindings.glsl"

TDM_VIEW(y);
TDM_VIEW(labels);

void main()
{
    uint rows = TDM_U_rows, cols = TDM_U_cols;
    uint cells = rows * cols;
    for (uint i = gl_GlobalInvocationID.x; i < cells; i += TDM_STRIDE) {
        uint r = i / cols;
        y[TDM_OFF_y + i] = (i - r * cols == labels[TDM_OFF_labels + r]) ? 1.0 : 0.0;
    }
}
