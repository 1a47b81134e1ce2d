// Binary element-wise maps z[i] = tdm_map(x[i], y[i]) (elementwise.glsl), z at
// binding 0, x and y at bindings 1 and 2. The including shader defines
//   float tdm_map(float a, float b)
#ifndef TDM_MAP_BINARY_GLSL
#define TDM_MAP_BINARY_GLSL

TDM_BUFFER_AND_QUADS(0, writeonly, float, vec4, z);
TDM_BUFFER_AND_QUADS(1, readonly, float, vec4, x);
TDM_BUFFER_AND_QUADS(2, readonly, float, vec4, y);

void tdm_ew_item(uint i)
{
    z[args.off[0] + i] = tdm_map(x[args.off[1] + i], y[args.off[2] + i]);
}

void tdm_ew_quad(uint i)
{
    vec4 a = x4[TDM_QUAD(1, i)], b = y4[TDM_QUAD(2, i)];
    z4[TDM_QUAD(0, i)] = vec4(tdm_map(a.x, b.x), tdm_map(a.y, b.y), tdm_map(a.z, b.z),
                              tdm_map(a.w, b.w));
}

#define TDM_EW_VIEWS 3
#include "elementwise.glsl"

#endif
