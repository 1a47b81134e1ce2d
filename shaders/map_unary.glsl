// Unary element-wise maps y[i] = tdm_map(x[i]) (elementwise.glsl), views y and x of
// the table. The including shader defines, before including this file,
//   TDM_MAP_T, TDM_MAP_T4   the element type and its 4-vector (float and vec4 unless
//                           defined: copy moves uint bits)
//   TDM_MAP_T tdm_map(TDM_MAP_T a)
#ifndef TDM_MAP_UNARY_GLSL
#define TDM_MAP_UNARY_GLSL

#ifndef TDM_MAP_T
#define TDM_MAP_T float
#define TDM_MAP_T4 vec4
#endif

TDM_VIEW_AND_QUADS_AS(y, y, TDM_MAP_T, TDM_MAP_T4);
TDM_VIEW_AND_QUADS_AS(x, x, TDM_MAP_T, TDM_MAP_T4);

void tdm_ew_item(uint i)
{
    y[TDM_OFF_y + i] = tdm_map(x[TDM_OFF_x + i]);
}

void tdm_ew_quad(uint i)
{
    TDM_MAP_T4 a = x4[TDM_QUAD(x, i)];
    y4[TDM_QUAD(y, i)] = TDM_MAP_T4(tdm_map(a.x), tdm_map(a.y), tdm_map(a.z), tdm_map(a.w));
}

#include "elementwise.glsl"

#endif
