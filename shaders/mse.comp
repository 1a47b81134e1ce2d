#version 450
// mse: d = pred[i] - target[i]; loss[i] = d * d; dpred[i] = grad_scale * 2 * d.
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

layout(local_size_x = 64) in;
TDM_BUFFER(0, writeonly, float, loss);
TDM_BUFFER(1, writeonly, float, dpred);
TDM_BUFFER(2, readonly, float, pred);
TDM_BUFFER(3, readonly, float, target);

void main()
{
    uint n = args.u[0];
    float scale2 = args.f[0] * 2.0; // exact
    for (uint i = gl_GlobalInvocationID.x; i < n; i += TDM_STRIDE) {
        float d = pred[args.off[2] + i] - target[args.off[3] + i];
        loss[args.off[0] + i] = d * d;
        dpred[args.off[1] + i] = scale2 * d;
    }
}
