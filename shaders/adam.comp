#version 450
// adam: TensorFlow's ApplyAdam (adam_update.glsl).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_adam
#include "kernel_bindings.glsl"

#define TDM_ADAM_DECAY(w) 0.0
#include "adam_update.glsl"
