#version 450
// clip: y[i] = min(max(x[i], lo), hi) as t = x < lo ? lo : x; y = t > hi ? hi : t, so
// that a zero keeps its sign unless a bound replaces it; NaN stays NaN (GLSL's min and
// max are undefined for NaN, and a compiler may turn the selects into them: the NaN
// is passed through explicitly). Tolerance 0.
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

float tdm_map(float a)
{
    float lo = args.f[0], hi = args.f[1];
    float t = a < lo ? lo : a;
    t = t > hi ? hi : t;
    return isnan(a) ? a : t;
}

#include "map_unary.glsl"
