#version 450
// sqrt: y[i] = sqrt(x[i]); NaN for x < 0 and for NaN (GLSL leaves both undefined).
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
        y[args.off[0] + i] = (isnan(a) || a < 0.0) ? tdm_nan() : sqrt(a);
    }
}
