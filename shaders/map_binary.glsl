// Binary element-wise maps dst[i] = tdm_map(lhs[i], rhs[i]) (elementwise.glsl),
// through the accessors of kernel_args.glsl: one source serves a kernel and its
// float16 twin. The including shader defines
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

TDM_VIEW_AND_QUADS(TDM_MAP_DST);
TDM_VIEW_AND_QUADS(TDM_MAP_LHS);
TDM_VIEW_AND_QUADS(TDM_MAP_RHS);

void tdm_ew_item(uint i)
{
    TDM_STORE(TDM_MAP_DST, i, tdm_map(TDM_LOAD(TDM_MAP_LHS, i), TDM_LOAD(TDM_MAP_RHS, i)));
}

void tdm_ew_quad(uint i)
{
    vec4 a = TDM_LOAD4(TDM_MAP_LHS, i), b = TDM_LOAD4(TDM_MAP_RHS, i);
    TDM_STORE4(TDM_MAP_DST, i, vec4(tdm_map(a.x, b.x), tdm_map(a.y, b.y), tdm_map(a.z, b.z),
                                    tdm_map(a.w, b.w)));
}

#include "elementwise.glsl"

#endif
