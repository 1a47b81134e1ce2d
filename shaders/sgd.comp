#version 450
// sgd: w -= lr * g, the product and the difference each rounded (precise: no fused
// multiply-add), as the reference and OpenCL round them.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_sgd
#include "kernel_bindings.glsl"

TDM_VIEW_AND_QUADS(w);
TDM_VIEW_AND_QUADS(g);

void tdm_ew_item(uint i)
{
    precise float wi = w[TDM_OFF_w + i] - TDM_F_lr * g[TDM_OFF_g + i];
    w[TDM_OFF_w + i] = wi;
}

void tdm_ew_quad(uint i)
{
    precise vec4 wq = w4[TDM_QUAD(w, i)] - TDM_F_lr * g4[TDM_QUAD(g, i)];
    w4[TDM_QUAD(w, i)] = wq;
}

#include "elementwise.glsl"
