#version 450
// axpy: y[i] = alpha * x[i] + y[i] (contracted to an fma or not: both within tolerance).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_axpy
#include "kernel_bindings.glsl"

TDM_VIEW_AND_QUADS(y);
TDM_VIEW_AND_QUADS(x);

void tdm_ew_item(uint i)
{
    y[TDM_OFF_y + i] = TDM_F_alpha * x[TDM_OFF_x + i] + y[TDM_OFF_y + i];
}

void tdm_ew_quad(uint i)
{
    y4[TDM_QUAD(y, i)] = TDM_F_alpha * x4[TDM_QUAD(x, i)] + y4[TDM_QUAD(y, i)];
}

#include "elementwise.glsl"
