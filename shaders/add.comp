#version 450
// add: z[i] = x[i] + y[i] (tolerance 0).
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

layout(local_size_x = 64) in;
TDM_BUFFER(0, writeonly, float, z);
TDM_BUFFER(1, readonly, float, x);
TDM_BUFFER(2, readonly, float, y);

void main()
{
    uint n = args.u[0];
    for (uint i = gl_GlobalInvocationID.x; i < n; i += TDM_STRIDE) {
        float a = x[args.off[1] + i];
        float b = y[args.off[2] + i];
        precise float r = a + b;
        z[args.off[0] + i] = r;
    }
}
