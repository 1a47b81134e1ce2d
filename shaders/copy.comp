#version 450
// copy: y[i] = x[i], moved as bits (no float operation to flush or quieten them).
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

layout(local_size_x = 64) in;
TDM_BUFFER(0, writeonly, uint, y);
TDM_BUFFER(1, readonly, uint, x);

void main()
{
    uint n = args.u[0];
    for (uint i = gl_GlobalInvocationID.x; i < n; i += TDM_STRIDE)
        y[args.off[0] + i] = x[args.off[1] + i];
}
