#version 450
// minimum: z[i] = min(x[i], y[i]), NaN if either is NaN; for equal values (and zeros of
// both signs) x's, as the reference's "y < x ? y : x" (tolerance 0).
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
        z[args.off[0] + i] = (isnan(a) || isnan(b)) ? tdm_nan() : (b < a ? b : a);
    }
}
