#version 450
// sigmoid: y[i] = 1 / (1 + exp(-x[i])), exp being tdm_exp (tdm_math.glsl); for x < -88.7
// exp overflows to infinity, giving 0 (the true value is a denormal or zero).
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"
#include "tdm_math.glsl"

layout(local_size_x = 64) in;
TDM_BUFFER(0, writeonly, float, y);
TDM_BUFFER(1, readonly, float, x);

void main()
{
    uint n = args.u[0];
    for (uint i = gl_GlobalInvocationID.x; i < n; i += TDM_STRIDE) {
        float a = x[args.off[1] + i];
        y[args.off[0] + i] = isnan(a) ? a : 1.0 / (1.0 + tdm_exp(-a));
    }
}
