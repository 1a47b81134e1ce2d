#version 450
// adamw: decoupled weight decay, w -= weight_decay * w with the old w, then the Adam
// step (adam_update.glsl).
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

#define TDM_ADAM_DECAY(w) (args.f[6] * (w))
#include "adam_update.glsl"
