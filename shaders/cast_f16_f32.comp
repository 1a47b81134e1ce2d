#version 450
// cast_f16_f32: y[i] = float(x[i]), exact. One item per pair of elements, that is
// per word of x.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_cast_f16_f32
#include "kernel_bindings.glsl"
#include "half.glsl"

// y's floats are written as their bits.
TDM_VIEW_AND_QUADS_AS(y, y, uint, uvec4);
TDM_VIEW_AND_QUADS(x);

void tdm_cast_pair(uint p)
{
    uint n = TDM_U_n, y0 = TDM_OFF_y;
    uint word = x[TDM_OFF_x / 2u + p];
    y[y0 + 2u * p] = tdm_half_to_float(word & 0xffffu);
    if (2u * p + 1u < n)
        y[y0 + 2u * p + 1u] = tdm_half_to_float(word >> 16);
}

void tdm_cast_quad(uint i)
{
    uvec2 words = x4[TDM_QUAD(x, i)];
    y4[TDM_QUAD(y, i)] = uvec4(tdm_half_to_float(words.x & 0xffffu), tdm_half_to_float(words.x >> 16),
                               tdm_half_to_float(words.y & 0xffffu), tdm_half_to_float(words.y >> 16));
}

#include "cast_pairs.glsl"
