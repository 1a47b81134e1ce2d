#version 450
// fill: y[i] = value. Stored as the value's bits, so any float (NaN payloads,
// denormals) arrives unchanged.
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

layout(local_size_x = 64) in;
TDM_BUFFER(0, writeonly, uint, y);

void main()
{
    uint n = args.u[0];
    uint bits = floatBitsToUint(args.f[0]);
    for (uint i = gl_GlobalInvocationID.x; i < n; i += TDM_STRIDE)
        y[args.off[0] + i] = bits;
}
