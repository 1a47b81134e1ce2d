#version 450
// sgd: w -= lr * g.
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

layout(local_size_x = 64) in;
TDM_BUFFER(0, , float, w);
TDM_BUFFER(1, readonly, float, g);

void main()
{
    uint n = args.u[0];
    float lr = args.f[0];
    for (uint i = gl_GlobalInvocationID.x; i < n; i += TDM_STRIDE)
        w[args.off[0] + i] -= lr * g[args.off[1] + i];
}
