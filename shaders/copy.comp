#version 450
// copy: y[i] = x[i], moved as bits (no float operation to flush or quieten them).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_copy
#include "kernel_bindings.glsl"

#define TDM_MAP_T uint
#define TDM_MAP_T4 uvec4

uint tdm_map(uint a)
{
    return a;
}

#include "map_unary.glsl"
