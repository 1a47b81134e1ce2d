#version 450
// relu_grad: dx = x > 0 ? dy : 0 (NaN x gives 0).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_relu_grad
#include "kernel_bindings.glsl"

float tdm_map(float dy, float x)
{
    return x > 0.0 ? dy : 0.0;
}

#define TDM_MAP_DST dx
#define TDM_MAP_LHS dy
#define TDM_MAP_RHS x
#include "map_binary.glsl"
