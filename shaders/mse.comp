#version 450
// mse: d = pred[i] - target[i]; loss[i] = d * d; dpred[i] = grad_scale * 2 * d.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_mse
#include "kernel_bindings.glsl"

TDM_VIEW_AND_QUADS(loss);
TDM_VIEW_AND_QUADS(dpred);
TDM_VIEW_AND_QUADS(pred);
TDM_VIEW_AND_QUADS(target);

void tdm_ew_item(uint i)
{
    float d = pred[TDM_OFF_pred + i] - target[TDM_OFF_target + i];
    loss[TDM_OFF_loss + i] = d * d;
    dpred[TDM_OFF_dpred + i] = (TDM_F_grad_scale * 2.0) * d; // the doubling is exact
}

void tdm_ew_quad(uint i)
{
    vec4 d = pred4[TDM_QUAD(pred, i)] - target4[TDM_QUAD(target, i)];
    loss4[TDM_QUAD(loss, i)] = d * d;
    dpred4[TDM_QUAD(dpred, i)] = (TDM_F_grad_scale * 2.0) * d;
}

#include "elementwise.glsl"
