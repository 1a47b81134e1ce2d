#version 450
// rmsprop (TensorFlow's ApplyRMSProp / ApplyCenteredRMSProp, eps inside the root):
//   ms = rho * ms + (1 - rho) * g * g
//   centered: mg = rho * mg + (1 - rho) * g, denom = ms - mg * mg; else denom = ms
//   mom = momentum * mom + lr * g / sqrt(denom + eps); w -= mom
// `precise`: each operation rounds as written, none fused (docs/KERNELS.md).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_rmsprop
#include "kernel_bindings.glsl"

TDM_VIEW_AND_QUADS(w);
TDM_VIEW_AND_QUADS(g);
TDM_VIEW_AND_QUADS(ms);
TDM_VIEW_AND_QUADS(mom);
TDM_VIEW_AND_QUADS(mg);

// mgi is read and written only when centered.
void rmsprop_step(inout float wi, float gi, inout float msi, inout float momi, inout float mgi)
{
    float lr = TDM_F_lr, rho = TDM_F_rho, momentum = TDM_F_momentum, eps = TDM_F_eps;
    precise float ms_new = rho * msi + (1.0 - rho) * gi * gi;
    precise float denom = ms_new;
    if (TDM_U_centered != 0u) {
        precise float mg_new = rho * mgi + (1.0 - rho) * gi;
        denom = ms_new - mg_new * mg_new;
        mgi = mg_new;
    }
    precise float mom_new = momentum * momi + lr * gi / sqrt(denom + eps);
    precise float w_new = wi - mom_new;
    msi = ms_new;
    momi = mom_new;
    wi = w_new;
}

void tdm_ew_item(uint i)
{
    bool centered = TDM_U_centered != 0u;
    float wi = w[TDM_OFF_w + i], msi = ms[TDM_OFF_ms + i], momi = mom[TDM_OFF_mom + i];
    float mgi = centered ? mg[TDM_OFF_mg + i] : 0.0;
    rmsprop_step(wi, g[TDM_OFF_g + i], msi, momi, mgi);
    if (centered)
        mg[TDM_OFF_mg + i] = mgi;
    ms[TDM_OFF_ms + i] = msi;
    mom[TDM_OFF_mom + i] = momi;
    w[TDM_OFF_w + i] = wi;
}

void tdm_ew_quad(uint i)
{
    bool centered = TDM_U_centered != 0u;
    vec4 wq = w4[TDM_QUAD(w, i)], gq = g4[TDM_QUAD(g, i)];
    vec4 msq = ms4[TDM_QUAD(ms, i)], momq = mom4[TDM_QUAD(mom, i)];
    vec4 mgq = centered ? mg4[TDM_QUAD(mg, i)] : vec4(0.0);
    for (int k = 0; k < 4; k++)
        rmsprop_step(wq[k], gq[k], msq[k], momq[k], mgq[k]);
    if (centered)
        mg4[TDM_QUAD(mg, i)] = mgq;
    ms4[TDM_QUAD(ms, i)] = msq;
    mom4[TDM_QUAD(mom, i)] = momq;
    w4[TDM_QUAD(w, i)] = wq;
}

#include "elementwise.glsl"
