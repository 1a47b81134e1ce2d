// Unary element-wise maps y[i] = tdm_map(x[i]) (elementwise.glsl), y at binding 0 and
// x at binding 1. The including shader defines, before including this file,
//   TDM_MAP_T, TDM_MAP_T4   the element type and its 4-vector (float and vec4 unless
//                           defined: copy moves uint bits)
//   TDM_MAP_T tdm_map(TDM_MAP_T a)
#ifndef TDM_MAP_UNARY_GLSL
#define TDM_MAP_UNARY_GLSL

#ifndef TDM_MAP_T
#define TDM_MAP_T float
#define TDM_MAP_T4 vec4
#endif

TDM_BUFFER_AND_QUADS(0, writeonly, TDM_MAP_T, TDM_MAP_T4, y);
TDM_BUFFER_AND_QUADS(1, readonly, TDM_MAP_T, TDM_MAP_T4, x);

void tdm_ew_item(uint i)
{
    y[args.off[0] + i] = tdm_map(x[args.off[1] + i]);
}

void tdm_ew_quad(uint i)
{
    TDM_MAP_T4 a = x4[TDM_QUAD(1, i)];
    y4[TDM_QUAD(0, i)] = TDM_MAP_T4(tdm_map(a.x), tdm_map(a.y), tdm_map(a.z), tdm_map(a.w));
}

#define TDM_EW_VIEWS 2
#include "elementwise.glsl"

#endif
