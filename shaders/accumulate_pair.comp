#version 450
// accumulate_pair: y0[i] = y1[i] = alpha * (((x0[i] + x1[i]) + x2[i]) + ... +
// x{inputs-1}[i]), 2 <= inputs <= 6, left to right in float, then scaled; `precise`
// forbids reassociation and contraction, so the result is bitwise the reference's.
// Every input is read before either output is written, so outputs may be inputs;
// inputs past `inputs` are bound to something valid but never read.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_accumulate_pair
#include "kernel_bindings.glsl"

TDM_VIEW_AND_QUADS(y0);
TDM_VIEW_AND_QUADS(y1);
TDM_VIEW_AND_QUADS(x0);
TDM_VIEW_AND_QUADS(x1);
TDM_VIEW_AND_QUADS(x2);
TDM_VIEW_AND_QUADS(x3);
TDM_VIEW_AND_QUADS(x4);
TDM_VIEW_AND_QUADS(x5);

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
    precise float r = TDM_F_alpha * s;
    y0[TDM_OFF_y0 + i] = r;
    y1[TDM_OFF_y1 + i] = r;
}

// vec4 arithmetic is per component: the same order, the same bits.
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
    precise vec4 r = TDM_F_alpha * s;
    y04[TDM_QUAD(y0, i)] = r;
    y14[TDM_QUAD(y1, i)] = r;
}

// Views past `inputs` are never read, whatever their offsets.
#define TDM_EW_VIEWS (2u + TDM_U_inputs)
#include "elementwise.glsl"
