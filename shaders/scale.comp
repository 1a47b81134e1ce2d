#version 450
// scale: y[i] = alpha * x[i] (one rounding: tolerance 0).
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

layout(local_size_x = 64) in;
TDM_BUFFER(0, writeonly, float, y);
TDM_BUFFER(1, readonly, float, x);

void main()
{
    uint n = args.u[0];
    float alpha = args.f[0];
    for (uint i = gl_GlobalInvocationID.x; i < n; i += TDM_STRIDE) {
        float a = x[args.off[1] + i];
        precise float r = alpha * a;
        y[args.off[0] + i] = r;
    }
}
