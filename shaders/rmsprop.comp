#version 450
// rmsprop (TensorFlow's ApplyRMSProp / ApplyCenteredRMSProp, eps inside the root):
//   ms = rho * ms + (1 - rho) * g * g
//   centered: mg = rho * mg + (1 - rho) * g, denom = ms - mg * mg; else denom = ms
//   mom = momentum * mom + lr * g / sqrt(denom + eps); w -= mom
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

layout(local_size_x = 64) in;
TDM_BUFFER(0, , float, w);
TDM_BUFFER(1, readonly, float, g);
TDM_BUFFER(2, , float, ms);
TDM_BUFFER(3, , float, mom);
TDM_BUFFER(4, , float, mg);

void main()
{
    uint n = args.u[0];
    bool centered = args.u[1] != 0u;
    float lr = args.f[0], rho = args.f[1], momentum = args.f[2], eps = args.f[3];
    for (uint i = gl_GlobalInvocationID.x; i < n; i += TDM_STRIDE) {
        float gi = g[args.off[1] + i];
        float msi = rho * ms[args.off[2] + i] + (1.0 - rho) * gi * gi;
        ms[args.off[2] + i] = msi;
        float denom = msi;
        if (centered) {
            float mgi = rho * mg[args.off[4] + i] + (1.0 - rho) * gi;
            mg[args.off[4] + i] = mgi;
            denom = msi - mgi * mgi;
        }
        float momi = momentum * mom[args.off[3] + i] + lr * gi / sqrt(denom + eps);
        mom[args.off[3] + i] = momi;
        w[args.off[0] + i] -= momi;
    }
}
