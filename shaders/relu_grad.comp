#version 450
// relu_grad: dx = x > 0 ? dy : 0 (NaN x gives 0).
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

layout(local_size_x = 64) in;
TDM_BUFFER(0, writeonly, float, dx);
TDM_BUFFER(1, readonly, float, dy);
TDM_BUFFER(2, readonly, float, x);

void main()
{
    uint n = args.u[0];
    for (uint i = gl_GlobalInvocationID.x; i < n; i += TDM_STRIDE) {
        float g = dy[args.off[1] + i];
        float v = x[args.off[2] + i];
        dx[args.off[0] + i] = v > 0.0 ? g : 0.0;
    }
}
