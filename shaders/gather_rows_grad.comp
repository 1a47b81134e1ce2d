#version 450
// gather_rows_grad: dx[v, c] += the sum over r < rows, in increasing order, of
// dy[r, c] for every r with idx[r] == v, continuing from dx's value, for v < src_rows,
// c < cols (the core launches long sums in pieces of rows: lavapipe ends an
// invocation's loops after 65535 iterations). gather_rows' adjoint as a gather: one
// item per element of dx, no atomics, summed in float in the table's order (precise),
// as the reference sums. A row whose index is not below src_rows matches no element.
// Tolerance 0.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_gather_rows_grad
#include "kernel_bindings.glsl"

TDM_VIEW(dx);
TDM_VIEW(dy);
TDM_VIEW(idx);

void main()
{
    uint rows = TDM_U_rows, cols = TDM_U_cols;
    uint count = TDM_U_src_rows * cols;
    for (uint i = gl_GlobalInvocationID.x; i < count; i += TDM_STRIDE) {
        uint v = i / cols, c = i - v * cols;
        precise float sum = dx[TDM_OFF_dx + i]; // the sum continues from dx
        for (uint r = 0u; r < rows; r++)
            if (idx[TDM_OFF_idx + r] == v)
                sum += dy[TDM_OFF_dy + r * cols + c];
        dx[TDM_OFF_dx + i] = sum;
    }
}
