#version 450
// gather_rows: y[r, c] = x[idx[r], c] for r < rows, c < cols, x having src_rows rows
// of cols (row-major). 32-bit words are copied as they are, so float32 features and
// int32 labels gather alike, bit for bit; an index not below src_rows gives a row of
// zeros (never a read outside x). One item per cell of y. Tolerance 0.
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

layout(local_size_x = 64) in;
TDM_BUFFER(0, writeonly, uint, y);
TDM_BUFFER(1, readonly, uint, x);
TDM_BUFFER(2, readonly, uint, idx);

void main()
{
    uint rows = args.u[0], cols = args.u[1], src_rows = args.u[2];
    uint cells = rows * cols;
    for (uint i = gl_GlobalInvocationID.x; i < cells; i += TDM_STRIDE) {
        uint r = i / cols;
        uint s = idx[args.off[2] + r];
        y[args.off[0] + i] = s < src_rows ? x[args.off[1] + s * cols + (i - r * cols)] : 0u;
    }
}
