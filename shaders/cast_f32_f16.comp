#version 450
// cast_f32_f16: y[i] = half(x[i]), rounded to nearest even, overflow to infinity. One
// item per pair of elements, that is per word of y; with n odd the last word's high
// half belongs to whatever follows the view and is kept.
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"
#include "half.glsl"

TDM_BUFFER_AND_QUADS(0, , uint, uvec2, y);
TDM_BUFFER_AND_QUADS(1, readonly, uint, uvec4, x);

void tdm_cast_pair(uint p)
{
    uint n = args.u[0], y0 = args.off[0] / 2u, x0 = args.off[1];
    uint lo = tdm_float_to_half(x[x0 + 2u * p]);
    uint hi = 2u * p + 1u < n ? tdm_float_to_half(x[x0 + 2u * p + 1u]) : y[y0 + p] >> 16;
    y[y0 + p] = lo | (hi << 16);
}

void tdm_cast_quad(uint i)
{
    uvec4 v = x4[TDM_QUAD(1, i)];
    y4[TDM_QUAD(0, i)] = uvec2(tdm_float_to_half(v.x) | (tdm_float_to_half(v.y) << 16),
                               tdm_float_to_half(v.z) | (tdm_float_to_half(v.w) << 16));
}

#include "cast_pairs.glsl"
