#version 450
// conv2d_implicit_grad_filter: conv2d's filter gradient as an implicit GEMM
// (conv_implicit_grad_filter.glsl).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_conv2d_implicit_grad_filter
#include "kernel_bindings.glsl"

#include "conv_implicit_grad_filter.glsl"
