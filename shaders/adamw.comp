#version 450
// adamw: decoupled weight decay, w -= weight_decay * w with the old w, then the Adam
// step (adam_update.glsl).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_adamw
#include "kernel_bindings.glsl"

#define TDM_ADAM_DECAY(w) (TDM_F_weight_decay * (w))
#include "adam_update.glsl"
