#version 450
// bias_add: y[r, c] = x[r, c] + b[c], row-major. One item per cell.
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

layout(local_size_x = 64) in;
TDM_BUFFER(0, writeonly, float, y);
TDM_BUFFER(1, readonly, float, x);
TDM_BUFFER(2, readonly, float, b);

void main()
{
    uint cols = args.u[1];
    uint cells = args.u[0] * cols;
    for (uint i = gl_GlobalInvocationID.x; i < cells; i += TDM_STRIDE) {
        precise float r = x[args.off[1] + i] + b[args.off[2] + i % cols];
        y[args.off[0] + i] = r;
    }
}
