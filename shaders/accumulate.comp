#version 450
// accumulate: y[i] = ((x0[i] + x1[i]) + x2[i]) + ... + x{inputs-1}[i], 2 <= inputs <= 7,
// left to right in float; `precise` forbids reassociation and contraction, so the
// result is bitwise the reference's. Inputs past `inputs` are bound to something
// valid (the backend binds y there) but never read.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_accumulate
#include "kernel_bindings.glsl"

TDM_VIEW_AND_QUADS(y);
TDM_VIEW_AND_QUADS(x0);
TDM_VIEW_AND_QUADS(x1);
TDM_VIEW_AND_QUADS(x2);
TDM_VIEW_AND_QUADS(x3);
TDM_VIEW_AND_QUADS(x4);
TDM_VIEW_AND_QUADS(x5);
TDM_VIEW_AND_QUADS(x6);

void tdm_ew_item(uint i)
{
    uint inputs = TDM_U_inputs;
    precise float s = x0[TDM_OFF_x0 + i] + x1[TDM_OFF_x1 + i];
    if (inputs > 2u)
        s += x2[TDM_OFF_x2 + i];
    if (inputs > 3u)
        s += x3[TDM_OFF_x3 + i];
    if (inputs > 4u)
        s += x4[TDM_OFF_x4 + i];
    if (inputs > 5u)
        s += x5[TDM_OFF_x5 + i];
    if (inputs > 6u)
        s += x6[TDM_OFF_x6 + i];
    y[TDM_OFF_y + i] = s;
}

// vec4 additions are per component: the same order, the same bits.
void tdm_ew_quad(uint i)
{
    uint inputs = TDM_U_inputs;
    precise vec4 s = x04[TDM_QUAD(x0, i)] + x14[TDM_QUAD(x1, i)];
    if (inputs > 2u)
        s += x24[TDM_QUAD(x2, i)];
    if (inputs > 3u)
        s += x34[TDM_QUAD(x3, i)];
    if (inputs > 4u)
        s += x44[TDM_QUAD(x4, i)];
    if (inputs > 5u)
        s += x54[TDM_QUAD(x5, i)];
    if (inputs > 6u)
        s += x64[TDM_QUAD(x6, i)];
    y4[TDM_QUAD(y, i)] = s;
}

// Views past `inputs` are never read, whatever their offsets.
#define TDM_EW_VIEWS (1u + TDM_U_inputs)
#include "elementwise.glsl"
