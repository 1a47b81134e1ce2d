#version 450
// gelu_grad: dx = dy * (Phi(x) + x * phi(x)), Phi the normal CDF, phi its density.
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"
#include "tdm_math.glsl"

float tdm_map(float dy, float x)
{
    return dy * (tdm_normal_cdf(x) + x * tdm_normal_pdf(x));
}

#include "map_binary.glsl"
