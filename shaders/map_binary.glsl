// Binary element-wise maps dst[i] = tdm_map(lhs[i], rhs[i]) (elementwise.glsl). The
// including shader defines
//   float tdm_map(float a, float b)
// and, unless they are z, x and y, the table's names of the views:
//   TDM_MAP_DST, TDM_MAP_LHS, TDM_MAP_RHS
#ifndef TDM_MAP_BINARY_GLSL
#define TDM_MAP_BINARY_GLSL

#ifndef TDM_MAP_DST
#define TDM_MAP_DST z
#define TDM_MAP_LHS x
#define TDM_MAP_RHS y
#endif

TDM_VIEW_AND_QUADS_AS(TDM_MAP_DST, dst, float, vec4);
TDM_VIEW_AND_QUADS_AS(TDM_MAP_LHS, lhs, float, vec4);
TDM_VIEW_AND_QUADS_AS(TDM_MAP_RHS, rhs, float, vec4);

void tdm_ew_item(uint i)
{
    dst[TDM_OFF(TDM_MAP_DST) + i] =
        tdm_map(lhs[TDM_OFF(TDM_MAP_LHS) + i], rhs[TDM_OFF(TDM_MAP_RHS) + i]);
}

void tdm_ew_quad(uint i)
{
    vec4 a = lhs4[TDM_QUAD(TDM_MAP_LHS, i)], b = rhs4[TDM_QUAD(TDM_MAP_RHS, i)];
    dst4[TDM_QUAD(TDM_MAP_DST, i)] = vec4(tdm_map(a.x, b.x), tdm_map(a.y, b.y),
                                          tdm_map(a.z, b.z), tdm_map(a.w, b.w));
}

#include "elementwise.glsl"

#endif
