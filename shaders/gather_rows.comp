#version 450
// gather_rows: y[r, c] = x[idx[r], c] for r < rows, c < cols, x having src_rows rows
// of cols (row-major). 32-bit words are copied as they are, so float32 features and
// int32 labels gather alike, bit for bit; an index not below src_rows gives a row of
// zeros (never a read outside x). One item per cell of y. Tolerance 0.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_gather_rows
#include "kernel_bindings.glsl"

TDM_VIEW(y);
TDM_VIEW(x);
TDM_VIEW(idx);

void main()
{
    uint rows = TDM_U_rows, cols = TDM_U_cols, src_rows = TDM_U_src_rows;
    uint cells = rows * cols;
    for (uint i = gl_GlobalInvocationID.x; i < cells; i += TDM_STRIDE) {
        uint r = i / cols;
        uint s = idx[TDM_OFF_idx + r];
        y[TDM_OFF_y + i] = s < src_rows ? x[TDM_OFF_x + s * cols + (i - r * cols)] : 0u;
    }
}
