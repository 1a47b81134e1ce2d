#version 450
// adagrad (TensorFlow's ApplyAdagradV2): acc += g * g; w -= lr * g / (sqrt(acc) + eps).
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

layout(local_size_x = 64) in;
TDM_BUFFER(0, , float, w);
TDM_BUFFER(1, readonly, float, g);
TDM_BUFFER(2, , float, acc);

void main()
{
    uint n = args.u[0];
    float lr = args.f[0], eps = args.f[1];
    for (uint i = gl_GlobalInvocationID.x; i < n; i += TDM_STRIDE) {
        float gi = g[args.off[1] + i];
        float a = acc[args.off[2] + i] + gi * gi;
        acc[args.off[2] + i] = a;
        w[args.off[0] + i] -= lr * gi / (sqrt(a) + eps);
    }
}
