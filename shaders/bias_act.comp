#version 450
// bias_act: z[r, c] = x[r, c] + b[c] as bias_add computes it, then y[r, c] = act(z[r, c])
// with z as stored (rounded to a half in the float16 twin), act as its own kernel
// computes it (activations.glsl): bitwise the two launches. One item per cell.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_bias_act
#include "kernel_bindings.glsl"
#include "activations.glsl"

TDM_VIEW(y);
TDM_VIEW(z);
TDM_VIEW(x);
TDM_VIEW(b);

// v as z holds it once stored.
float as_stored(float v)
{
#ifdef TDM_HALF_TWIN
    return tdm_half_value(tdm_half_bits(v));
#else
    return v;
#endif
}

// The activation act (a tdm_activation) of a; linear leaves it.
float activation(uint act, float a)
{
    switch (act) {
    case TDM_ACT_RELU: return tdm_relu(a);
    case TDM_ACT_TANH: return tdm_tanh(a);
    case TDM_ACT_SIGMOID: return tdm_sigmoid(a);
    case TDM_ACT_GELU: return tdm_gelu(a);
    default: return a;
    }
}

void main()
{
    uint cols = TDM_U_cols;
    uint cells = TDM_U_rows * cols;
    for (uint i = gl_GlobalInvocationID.x; i < cells; i += TDM_STRIDE) {
        precise float r = TDM_LOAD(x, i) + TDM_LOAD(b, i % cols);
        TDM_STORE(z, i, r);
        TDM_STORE(y, i, activation(TDM_U_activation, as_stored(r)));
    }
}
