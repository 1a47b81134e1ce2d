#version 450
// one_hot: y[r, c] = (c == labels[r]) ? 1 : 0, row-major rows x cols; a label outside
// [0, cols) gives a row of zeros. One item per cell. Tolerance 0.
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

layout(local_size_x = 64) in;
TDM_BUFFER(0, writeonly, float, y);
TDM_BUFFER(1, readonly, uint, labels);

void main()
{
    uint rows = args.u[0], cols = args.u[1];
    uint cells = rows * cols;
    for (uint i = gl_GlobalInvocationID.x; i < cells; i += TDM_STRIDE) {
        uint r = i / cols;
        y[args.off[0] + i] = (i - r * cols == labels[args.off[1] + r]) ? 1.0 : 0.0;
    }
}
