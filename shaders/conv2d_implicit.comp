#version 450
// conv2d_implicit: conv2d's y as an implicit GEMM (conv_implicit_forward.glsl).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_conv2d_implicit
#include "kernel_bindings.glsl"

#include "conv_implicit_forward.glsl"
