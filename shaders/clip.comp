#version 450
// clip: y[i] = min(max(x[i], lo), hi) as t = x < lo ? lo : x; y = t > hi ? hi : t, so
// that a zero keeps its sign unless a bound replaces it; NaN stays NaN (GLSL's min and
// max are undefined for NaN, and a compiler may turn the selects into them: the NaN
// is passed through explicitly). Tolerance 0.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_clip
#include "kernel_bindings.glsl"

float tdm_map(float a)
{
    float lo = TDM_F_lo, hi = TDM_F_hi;
    float t = a < lo ? lo : a;
    t = t > hi ? hi : t;
    return isnan(a) ? a : t;
}

#include "map_unary.glsl"
