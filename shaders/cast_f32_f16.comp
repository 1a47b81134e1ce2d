#version 450
// cast_f32_f16: y[i] = half(x[i]), rounded to nearest even, overflow to infinity. One
// item per pair of elements, that is per word of y; with n odd the last word's high
// half belongs to whatever follows the view and is kept.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_cast_f32_f16
#include "kernel_bindings.glsl"
#include "half.glsl"

// x's floats are read as their bits.
TDM_VIEW_AND_QUADS(y);
TDM_VIEW_AND_QUADS_AS(x, x, uint, uvec4);

void tdm_cast_pair(uint p)
{
    uint n = TDM_U_n, y0 = TDM_OFF_y / 2u, x0 = TDM_OFF_x;
    uint lo = tdm_float_to_half(x[x0 + 2u * p]);
    uint hi = 2u * p + 1u < n ? tdm_float_to_half(x[x0 + 2u * p + 1u]) : y[y0 + p] >> 16;
    y[y0 + p] = lo | (hi << 16);
}

void tdm_cast_quad(uint i)
{
    uvec4 v = x4[TDM_QUAD(x, i)];
    y4[TDM_QUAD(y, i)] = uvec2(tdm_float_to_half(v.x) | (tdm_float_to_half(v.y) << 16),
                               tdm_float_to_half(v.z) | (tdm_float_to_half(v.w) << 16));
}

#include "cast_pairs.glsl"
