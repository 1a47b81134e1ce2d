#version 450
// rmsprop (TensorFlow's ApplyRMSProp / ApplyCenteredRMSProp, eps inside the root):
//   ms = rho * ms + (1 - rho) * g * g
//   centered: mg = rho * mg + (1 - rho) * g, denom = ms - mg * mg; else denom = ms
//   mom = momentum * mom + lr * g / sqrt(denom + eps); w -= mom
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

TDM_BUFFER_AND_QUADS(0, , float, vec4, w);
TDM_BUFFER_AND_QUADS(1, readonly, float, vec4, g);
TDM_BUFFER_AND_QUADS(2, , float, vec4, ms);
TDM_BUFFER_AND_QUADS(3, , float, vec4, mom);
TDM_BUFFER_AND_QUADS(4, , float, vec4, mg);

// mgi is read and written only when centered.
void rmsprop_step(inout float wi, float gi, inout float msi, inout float momi, inout float mgi)
{
    float lr = args.f[0], rho = args.f[1], momentum = args.f[2], eps = args.f[3];
    msi = rho * msi + (1.0 - rho) * gi * gi;
    float denom = msi;
    if (args.u[1] != 0u) {
        mgi = rho * mgi + (1.0 - rho) * gi;
        denom = msi - mgi * mgi;
    }
    momi = momentum * momi + lr * gi / sqrt(denom + eps);
    wi -= momi;
}

void tdm_ew_item(uint i)
{
    bool centered = args.u[1] != 0u;
    float wi = w[args.off[0] + i], msi = ms[args.off[2] + i], momi = mom[args.off[3] + i];
    float mgi = centered ? mg[args.off[4] + i] : 0.0;
    rmsprop_step(wi, g[args.off[1] + i], msi, momi, mgi);
    if (centered)
        mg[args.off[4] + i] = mgi;
    ms[args.off[2] + i] = msi;
    mom[args.off[3] + i] = momi;
    w[args.off[0] + i] = wi;
}

void tdm_ew_quad(uint i)
{
    bool centered = args.u[1] != 0u;
    vec4 wq = w4[TDM_QUAD(0, i)], gq = g4[TDM_QUAD(1, i)];
    vec4 msq = ms4[TDM_QUAD(2, i)], momq = mom4[TDM_QUAD(3, i)];
    vec4 mgq = centered ? mg4[TDM_QUAD(4, i)] : vec4(0.0);
    for (int k = 0; k < 4; k++)
        rmsprop_step(wq[k], gq[k], msq[k], momq[k], mgq[k]);
    if (centered)
        mg4[TDM_QUAD(4, i)] = mgq;
    ms4[TDM_QUAD(2, i)] = msq;
    mom4[TDM_QUAD(3, i)] = momq;
    w4[TDM_QUAD(0, i)] = wq;
}

#define TDM_EW_VIEWS 5
#include "elementwise.glsl"
