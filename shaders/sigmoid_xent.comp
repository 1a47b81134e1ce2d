#version 450
// sigmoid_xent: binary cross-entropy on logits x = logits[i] against targets
// z = targets[i] in [0, 1]:
//   loss[i] = (max(x, 0) - x * z) + log1p(exp(-|x|))
//   dlogits[i] = grad_scale * (sigmoid(x) - z)
// TensorFlow's form without overflow. max(x, 0) is x > 0 ? x : 0 (a NaN x still gives
// NaN through x * z); exp is tdm_exp and sigmoid the sigmoid kernel's formula
// (activations.glsl); GLSL has no log1p: tdm_log1p below.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_sigmoid_xent
#include "kernel_bindings.glsl"
#include "activations.glsl"

TDM_VIEW_AND_QUADS(loss);
TDM_VIEW_AND_QUADS(dlogits);
TDM_VIEW_AND_QUADS(logits);
TDM_VIEW_AND_QUADS(targets);

// log1p(u) for u in [0, 1] (NaN stays NaN) as 2 atanh(s), s = u / (2 + u) in [0, 1/3]:
// 2 s (1 + s^2 / 3 + s^4 / 5 + ... + s^14 / 15), whose next term is under 1.4e-9 of
// the sum. The error is s's (a sum and a division, about 3 ulp): the series' tail adds
// at most 1/27 of the result.
float tdm_log1p(float u)
{
    float s = u / (2.0 + u), t = s * s;
    float q = 1.0 / 15.0;
    q = q * t + 1.0 / 13.0;
    q = q * t + 1.0 / 11.0;
    q = q * t + 1.0 / 9.0;
    q = q * t + 1.0 / 7.0;
    q = q * t + 1.0 / 5.0;
    q = q * t + 1.0 / 3.0;
    float twice = 2.0 * s;
    return twice + twice * (t * q);
}

// Element (x, z)'s loss (x) and gradient (y).
vec2 tdm_sigmoid_xent(float x, float z)
{
    precise float linear = (x > 0.0 ? x : 0.0) - x * z;
    precise float l = linear + tdm_log1p(tdm_exp(-abs(x)));
    precise float g = TDM_F_grad_scale * (tdm_sigmoid(x) - z);
    return vec2(l, g);
}

void tdm_ew_item(uint i)
{
    vec2 r = tdm_sigmoid_xent(logits[TDM_OFF_logits + i], targets[TDM_OFF_targets + i]);
    loss[TDM_OFF_loss + i] = r.x;
    dlogits[TDM_OFF_dlogits + i] = r.y;
}

void tdm_ew_quad(uint i)
{
    vec4 x = logits4[TDM_QUAD(logits, i)], z = targets4[TDM_QUAD(targets, i)];
    vec2 r0 = tdm_sigmoid_xent(x.x, z.x), r1 = tdm_sigmoid_xent(x.y, z.y);
    vec2 r2 = tdm_sigmoid_xent(x.z, z.z), r3 = tdm_sigmoid_xent(x.w, z.w);
    loss4[TDM_QUAD(loss, i)] = vec4(r0.x, r1.x, r2.x, r3.x);
    dlogits4[TDM_QUAD(dlogits, i)] = vec4(r0.y, r1.y, r2.y, r3.y);
}

#include "elementwise.glsl"
