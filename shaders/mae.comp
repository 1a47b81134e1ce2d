#version 450
// mae: d = pred[i] - target[i]; loss[i] = |d|; dpred[i] = grad_scale * sign(d), sign
// 1, -1, +0 for either zero and d itself (NaN) where d is NaN: written out, since
// GLSL's sign is undefined for NaN. Tolerance 0.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_mae
#include "kernel_bindings.glsl"

TDM_VIEW_AND_QUADS(loss);
TDM_VIEW_AND_QUADS(dpred);
TDM_VIEW_AND_QUADS(pred);
TDM_VIEW_AND_QUADS(target);

// From d's bits: 1 with d's sign unless d is a zero. On lavapipe (Mesa 22.3) selects of
// 1, -1 and 0 by d's comparisons with 0, as floats or as their bits, gave -0 for
// d = x - x = +0.
float tdm_sign(float d)
{
    uint bits = floatBitsToUint(d);
    float unit = uintBitsToFloat((bits & 0x80000000u) | 0x3f800000u);
    return isnan(d) ? d : (bits & 0x7fffffffu) != 0u ? unit : 0.0;
}

void tdm_ew_item(uint i)
{
    float d = pred[TDM_OFF_pred + i] - target[TDM_OFF_target + i];
    loss[TDM_OFF_loss + i] = abs(d);
    dpred[TDM_OFF_dpred + i] = TDM_F_grad_scale * tdm_sign(d);
}

void tdm_ew_quad(uint i)
{
    vec4 d = pred4[TDM_QUAD(pred, i)] - target4[TDM_QUAD(target, i)];
    loss4[TDM_QUAD(loss, i)] = abs(d);
    dpred4[TDM_QUAD(dpred, i)] =
        TDM_F_grad_scale * vec4(tdm_sign(d.x), tdm_sign(d.y), tdm_sign(d.z), tdm_sign(d.w));
}

#include "elementwise.glsl"
