#version 450
// sum: out[c] = alpha * (x[c * chunk] + ... over each chunk, in any order: within
// tolerance), compensated so that long chunks keep their accuracy; the product is
// the stored sum's, rounded once more.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_sum
#include "kernel_bindings.glsl"

#define TDM_REDUCE_T float
#define TDM_REDUCE_IDENTITY 0.0
#define TDM_REDUCE_LOAD(v) (v)
#define TDM_REDUCE_COMBINE(a, b) ((a) + (b))
#define TDM_REDUCE_STORE(p) (TDM_F_alpha * (p))
#define TDM_REDUCE_KAHAN
#include "chunk_reduce.glsl"
