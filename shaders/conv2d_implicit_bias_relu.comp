#version 450
// conv2d_implicit_bias_relu: conv2d_implicit's sums (conv_implicit_forward.glsl), each
// plus its column's bias, then relu as its own kernel computes it (activations.glsl),
// before the product is stored.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_conv2d_implicit_bias_relu
#include "kernel_bindings.glsl"
#include "activations.glsl"

TDM_VIEW(b);

// Columns col0 .. col0 + 3 of a row; those at n and past it are never stored.
vec4 tdm_gemm_epilogue(vec4 v, uint col0)
{
    for (uint i = 0u; i < 4u; i++)
        if (col0 + i < TDM_U_oc)
            v[i] = tdm_relu(v[i] + b[TDM_OFF_b + col0 + i]);
    return v;
}
#define TDM_GEMM_EPILOGUE

#include "conv_implicit_forward.glsl"
