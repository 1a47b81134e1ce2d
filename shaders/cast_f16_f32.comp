#version 450
// cast_f16_f32: y[i] = float(x[i]), exact. One item per pair of elements, that is
// per word of x.
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"
#include "half.glsl"

TDM_BUFFER_AND_QUADS(0, writeonly, uint, uvec4, y);
TDM_BUFFER_AND_QUADS(1, readonly, uint, uvec2, x);

void tdm_cast_pair(uint p)
{
    uint n = args.u[0], y0 = args.off[0];
    uint word = x[args.off[1] / 2u + p];
    y[y0 + 2u * p] = tdm_half_to_float(word & 0xffffu);
    if (2u * p + 1u < n)
        y[y0 + 2u * p + 1u] = tdm_half_to_float(word >> 16);
}

void tdm_cast_quad(uint i)
{
    uvec2 words = x4[TDM_QUAD(1, i)];
    y4[TDM_QUAD(0, i)] = uvec4(tdm_half_to_float(words.x & 0xffffu), tdm_half_to_float(words.x >> 16),
                               tdm_half_to_float(words.y & 0xffffu), tdm_half_to_float(words.y >> 16));
}

#include "cast_pairs.glsl"
