#version 450
// axpy: y[i] = alpha * x[i] + y[i] (contracted to an fma or not: both within tolerance).
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

layout(local_size_x = 64) in;
TDM_BUFFER(0, , float, y);
TDM_BUFFER(1, readonly, float, x);

void main()
{
    uint n = args.u[0];
    float alpha = args.f[0];
    for (uint i = gl_GlobalInvocationID.x; i < n; i += TDM_STRIDE)
        y[args.off[0] + i] = alpha * x[args.off[1] + i] + y[args.off[0] + i];
}
