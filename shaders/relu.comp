#version 450
// relu: y[i] = max(x[i], 0); NaN stays NaN (GLSL's max is undefined for NaN).
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

layout(local_size_x = 64) in;
TDM_BUFFER(0, writeonly, float, y);
TDM_BUFFER(1, readonly, float, x);

void main()
{
    uint n = args.u[0];
    for (uint i = gl_GlobalInvocationID.x; i < n; i += TDM_STRIDE) {
        float a = x[args.off[1] + i];
        y[args.off[0] + i] = (isnan(a) || a > 0.0) ? a : 0.0;
    }
}
