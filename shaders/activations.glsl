// The activations' formulas, written once: the kernels relu, tanh, sigmoid and gelu
// apply one each, bias_act the one its argument names, so that the fused kernel is
// bitwise the activation's own. exp, tanh and the normal CDF are tdm_math.glsl's.
#ifndef TDM_ACTIVATIONS_GLSL
#define TDM_ACTIVATIONS_GLSL

#include "tdm_math.glsl"

// max(a, 0); NaN stays NaN (GLSL's max is undefined for NaN).
float tdm_relu(float a)
{
    return (isnan(a) || a > 0.0) ? a : 0.0;
}

// 1 / (1 + exp(-a)); for a < -88.7 exp overflows to infinity, giving 0 (the true value
// is a denormal or zero).
float tdm_sigmoid(float a)
{
    return isnan(a) ? a : 1.0 / (1.0 + tdm_exp(-a));
}

// a / 2 * (1 + erf(a / sqrt(2))) = a * Phi(a), the exact GELU, with Phi from erfc so
// that the lower tail does not cancel.
float tdm_gelu(float a)
{
    return a * tdm_normal_cdf(a);
}

#endif
