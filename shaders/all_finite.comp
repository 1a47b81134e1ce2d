#version 450
// all_finite: out[c] = 1 if every element of the chunk is finite, else 0.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_all_finite
#include "kernel_bindings.glsl"

#define TDM_REDUCE_T uint
#define TDM_REDUCE_IDENTITY 1u
#define TDM_REDUCE_LOAD(v) ((isnan(v) || isinf(v)) ? 0u : 1u)
#define TDM_REDUCE_COMBINE(a, b) ((a) & (b))
#define TDM_REDUCE_STORE(p) float(p)
#include "chunk_reduce.glsl"
