// Unary element-wise maps y[i] = tdm_map(x[i]) (elementwise.glsl), views y and x of
// the table, through the accessors of kernel_args.glsl: one source serves a kernel and
// its float16 twin. The including shader defines, before including this file,
//   TDM_MAP_T, TDM_MAP_T4   the element type and its 4-vector, for a family that views
//                           the buffers as other words (copy moves uint bits); unless
//                           defined, the table's views, whose values are float and vec4
//   TDM_MAP_T tdm_map(TDM_MAP_T a)
#ifndef TDM_MAP_UNARY_GLSL
#define TDM_MAP_UNARY_GLSL

#ifdef TDM_MAP_T
TDM_VIEW_AND_QUADS_AS(y, y, TDM_MAP_T, TDM_MAP_T4);
TDM_VIEW_AND_QUADS_AS(x, x, TDM_MAP_T, TDM_MAP_T4);
#else
#define TDM_MAP_T float
#define TDM_MAP_T4 vec4
TDM_VIEW_AND_QUADS(y);
TDM_VIEW_AND_QUADS(x);
#endif

void tdm_ew_item(uint i)
{
    TDM_STORE(y, i, tdm_map(TDM_LOAD(x, i)));
}

void tdm_ew_quad(uint i)
{
    TDM_MAP_T4 a = TDM_LOAD4(x, i);
    TDM_STORE4(y, i, TDM_MAP_T4(tdm_map(a.x), tdm_map(a.y), tdm_map(a.z), tdm_map(a.w)));
}

#include "elementwise.glsl"

#endif
