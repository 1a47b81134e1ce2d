// The update adam and adamw share (TensorFlow's ApplyAdam: eps outside the square
// root, after bias correction):
//   lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)
//   m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g * g
//   w -= lr_t * m / (sqrt(v) + eps)
// Buffers: w, g, m, v at bindings 0..3; floats lr, beta1, beta2, eps, beta1_power,
// beta2_power, then (adamw) weight_decay. TDM_ADAM_DECAY(w) is what the old w loses
// before the Adam step.
#ifndef TDM_ADAM_UPDATE_GLSL
#define TDM_ADAM_UPDATE_GLSL

TDM_BUFFER_AND_QUADS(0, , float, vec4, w);
TDM_BUFFER_AND_QUADS(1, readonly, float, vec4, g);
TDM_BUFFER_AND_QUADS(2, , float, vec4, m);
TDM_BUFFER_AND_QUADS(3, , float, vec4, v);

void adam_step(inout float wi, float gi, inout float mi, inout float vi)
{
    float lr = args.f[0], beta1 = args.f[1], beta2 = args.f[2], eps = args.f[3];
    float lr_t = lr * sqrt(1.0 - args.f[5]) / (1.0 - args.f[4]);
    mi = beta1 * mi + (1.0 - beta1) * gi;
    vi = beta2 * vi + (1.0 - beta2) * gi * gi;
    wi -= TDM_ADAM_DECAY(wi);
    wi -= lr_t * mi / (sqrt(vi) + eps);
}

void tdm_ew_item(uint i)
{
    float wi = w[args.off[0] + i], mi = m[args.off[2] + i], vi = v[args.off[3] + i];
    adam_step(wi, g[args.off[1] + i], mi, vi);
    m[args.off[2] + i] = mi;
    v[args.off[3] + i] = vi;
    w[args.off[0] + i] = wi;
}

void tdm_ew_quad(uint i)
{
    vec4 wq = w4[TDM_QUAD(0, i)], gq = g4[TDM_QUAD(1, i)];
    vec4 mq = m4[TDM_QUAD(2, i)], vq = v4[TDM_QUAD(3, i)];
    for (int k = 0; k < 4; k++)
        adam_step(wq[k], gq[k], mq[k], vq[k]);
    m4[TDM_QUAD(2, i)] = mq;
    v4[TDM_QUAD(3, i)] = vq;
    w4[TDM_QUAD(0, i)] = wq;
}

#define TDM_EW_VIEWS 4
#include "elementwise.glsl"

#endif
