#version 450
// momentum (TensorFlow's ApplyMomentum): m = momentum * m + g; then w -= lr * m, or
// with Nesterov w -= lr * g + lr * momentum * m (with the new m).
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

layout(local_size_x = 64) in;
TDM_BUFFER(0, , float, w);
TDM_BUFFER(1, readonly, float, g);
TDM_BUFFER(2, , float, m);

void main()
{
    uint n = args.u[0];
    bool nesterov = args.u[1] != 0u;
    float lr = args.f[0], momentum = args.f[1];
    for (uint i = gl_GlobalInvocationID.x; i < n; i += TDM_STRIDE) {
        float gi = g[args.off[1] + i];
        float mi = momentum * m[args.off[2] + i] + gi;
        m[args.off[2] + i] = mi;
        float step = nesterov ? lr * gi + lr * momentum * mi : lr * mi;
        w[args.off[0] + i] -= step;
    }
}
