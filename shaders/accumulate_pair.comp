#version 450
// accumulate_pair: y0[i] = y1[i] = alpha * (((x0[i] + x1[i]) + x2[i]) + ... +
// x{inputs-1}[i]), 2 <= inputs <= 6, left to right in float, then scaled; `precise`
// forbids reassociation and contraction, so the result is bitwise the reference's.
// Every input is read before either output is written, so outputs may be inputs;
// inputs past `inputs` are bound to something valid but never read.
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

TDM_BUFFER_AND_QUADS(0, writeonly, float, vec4, y0);
TDM_BUFFER_AND_QUADS(1, writeonly, float, vec4, y1);
TDM_BUFFER_AND_QUADS(2, readonly, float, vec4, x0);
TDM_BUFFER_AND_QUADS(3, readonly, float, vec4, x1);
TDM_BUFFER_AND_QUADS(4, readonly, float, vec4, x2);
TDM_BUFFER_AND_QUADS(5, readonly, float, vec4, x3);
TDM_BUFFER_AND_QUADS(6, readonly, float, vec4, x4);
TDM_BUFFER_AND_QUADS(7, readonly, float, vec4, x5);

void tdm_ew_item(uint i)
{
    uint inputs = args.u[1];
    precise float s = x0[args.off[2] + i] + x1[args.off[3] + i];
    if (inputs > 2u)
        s += x2[args.off[4] + i];
    if (inputs > 3u)
        s += x3[args.off[5] + i];
    if (inputs > 4u)
        s += x4[args.off[6] + i];
    if (inputs > 5u)
        s += x5[args.off[7] + i];
    precise float r = args.f[0] * s;
    y0[args.off[0] + i] = r;
    y1[args.off[1] + i] = r;
}

// vec4 arithmetic is per component: the same order, the same bits.
void tdm_ew_quad(uint i)
{
    uint inputs = args.u[1];
    precise vec4 s = x04[TDM_QUAD(2, i)] + x14[TDM_QUAD(3, i)];
    if (inputs > 2u)
        s += x24[TDM_QUAD(4, i)];
    if (inputs > 3u)
        s += x34[TDM_QUAD(5, i)];
    if (inputs > 4u)
        s += x44[TDM_QUAD(6, i)];
    if (inputs > 5u)
        s += x54[TDM_QUAD(7, i)];
    precise vec4 r = args.f[0] * s;
    y04[TDM_QUAD(0, i)] = r;
    y14[TDM_QUAD(1, i)] = r;
}

// Views past `inputs` are never read, whatever their offsets.
#define TDM_EW_VIEWS (2u + args.u[1])
#include "elementwise.glsl"
