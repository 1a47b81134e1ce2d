#version 450
// huber: d = pred[i] - target[i];
//   loss[i] = |d| <= delta ? (0.5 * d) * d : delta * (|d| - 0.5 * delta)
//   dpred[i] = grad_scale * clamp(d, -delta, delta)
// the clamp as t = d < -delta ? -delta : d; t > delta ? delta : t, with NaN passed
// through explicitly (GLSL's clamp, min and max are undefined for NaN, and a compiler
// may turn the selects into them). Correctly rounded +, - and x, never fused
// (`precise`): tolerance 0.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_huber
#include "kernel_bindings.glsl"

TDM_VIEW_AND_QUADS(loss);
TDM_VIEW_AND_QUADS(dpred);
TDM_VIEW_AND_QUADS(pred);
TDM_VIEW_AND_QUADS(target);

// Element d's loss (x) and gradient (y).
vec2 tdm_huber(float d)
{
    float delta = TDM_F_delta, a = abs(d);
    precise float square = (0.5 * d) * d;
    precise float line = delta * (a - 0.5 * delta);
    float t = d < -delta ? -delta : d;
    t = t > delta ? delta : t;
    precise float g = TDM_F_grad_scale * (isnan(d) ? d : t);
    return vec2(a <= delta ? square : line, g);
}

void tdm_ew_item(uint i)
{
    vec2 r = tdm_huber(pred[TDM_OFF_pred + i] - target[TDM_OFF_target + i]);
    loss[TDM_OFF_loss + i] = r.x;
    dpred[TDM_OFF_dpred + i] = r.y;
}

void tdm_ew_quad(uint i)
{
    vec4 d = pred4[TDM_QUAD(pred, i)] - target4[TDM_QUAD(target, i)];
    vec2 r0 = tdm_huber(d.x), r1 = tdm_huber(d.y), r2 = tdm_huber(d.z), r3 = tdm_huber(d.w);
    loss4[TDM_QUAD(loss, i)] = vec4(r0.x, r1.x, r2.x, r3.x);
    dpred4[TDM_QUAD(dpred, i)] = vec4(r0.y, r1.y, r2.y, r3.y);
}

#include "elementwise.glsl"
