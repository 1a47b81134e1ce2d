#version 450
// tanh: y[i] = tanh(x[i]), accurate near 0 and +-1 for large |x| (tdm_math.glsl).
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
        y[args.off[0] + i] = tdm_tanh(a);
    }
}
