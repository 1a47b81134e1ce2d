#version 450
// max: out[c] = the maximum over each chunk, NaN if any element is NaN. GLSL's max
// is undefined for NaN, so the combination tests it: a NaN `a` wins, and a > b is
// false for a NaN `b`, which then wins.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_max
#include "kernel_bindings.glsl"

float max_nan(float a, float b)
{
    return (isnan(a) || a > b) ? a : b;
}

#define TDM_REDUCE_T float
#define TDM_REDUCE_IDENTITY (-tdm_inf())
#define TDM_REDUCE_LOAD(v) (v)
#define TDM_REDUCE_COMBINE(a, b) max_nan(a, b)
#define TDM_REDUCE_STORE(p) (p)
#include "chunk_reduce.glsl"
