#version 450
// copy_columns: y[r * ldc + c] = x[r * lda + c] for r < rows, c < cols: a block of
// columns between matrices of other widths, 32-bit words as they are; y's other
// columns keep their values. One item per cell of the block. Tolerance 0.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_copy_columns
#include "kernel_bindings.glsl"

TDM_VIEW(y);
TDM_VIEW(x);

void main()
{
    uint rows = TDM_U_rows, cols = TDM_U_cols, lda = TDM_U_lda, ldc = TDM_U_ldc;
    uint cells = rows * cols;
    for (uint i = gl_GlobalInvocationID.x; i < cells; i += TDM_STRIDE) {
        uint r = i / cols;
        y[TDM_OFF_y + r * ldc + (i - r * cols)] = x[TDM_OFF_x + r * lda + (i - r * cols)];
    }
}
