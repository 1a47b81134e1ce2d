#version 450
// mse: d = pred[i] - target[i]; loss[i] = d * d; dpred[i] = grad_scale * 2 * d.
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

TDM_BUFFER_AND_QUADS(0, writeonly, float, vec4, loss);
TDM_BUFFER_AND_QUADS(1, writeonly, float, vec4, dpred);
TDM_BUFFER_AND_QUADS(2, readonly, float, vec4, pred);
TDM_BUFFER_AND_QUADS(3, readonly, float, vec4, target);

void tdm_ew_item(uint i)
{
    float d = pred[args.off[2] + i] - target[args.off[3] + i];
    loss[args.off[0] + i] = d * d;
    dpred[args.off[1] + i] = (args.f[0] * 2.0) * d; // the doubling is exact
}

void tdm_ew_quad(uint i)
{
    vec4 d = pred4[TDM_QUAD(2, i)] - target4[TDM_QUAD(3, i)];
    loss4[TDM_QUAD(0, i)] = d * d;
    dpred4[TDM_QUAD(1, i)] = (args.f[0] * 2.0) * d;
}

#define TDM_EW_VIEWS 4
#include "elementwise.glsl"
