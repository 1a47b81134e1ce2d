#version 450
// gelu_grad: dx = dy * (Phi(x) + x * phi(x)), Phi the normal CDF, phi its density.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_gelu_grad
#include "kernel_bindings.glsl"
#include "tdm_math.glsl"

float tdm_map(float dy, float x)
{
    return dy * (tdm_normal_cdf(x) + x * tdm_normal_pdf(x));
}

#define TDM_MAP_DST dx
#define TDM_MAP_LHS dy
#define TDM_MAP_RHS x
#include "map_binary.glsl"
