#version 450
// gelu: y[i] = x / 2 * (1 + erf(x / sqrt(2))) = x * Phi(x), the exact GELU, with Phi
// from erfc so that the lower tail does not cancel (tdm_math.glsl).
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
        y[args.off[0] + i] = a * tdm_normal_cdf(a);
    }
}
