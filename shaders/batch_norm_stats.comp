#version 450
// batch_norm_stats: per column c, from column sums all-reduced by the caller,
//   mean[c] = sum[c] * inv_count
//   v = sumsq[c] * inv_count - mean[c]^2, 0 where negative (NaN stays NaN)
//   inv_std[c] = inversesqrt(v + epsilon)
// One item per column; `precise`: no contraction, so the mean is bitwise the
// reference's; inversesqrt may be 2 ulp off (kernels.def).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_batch_norm_stats
#include "kernel_bindings.glsl"

TDM_VIEW(mean);
TDM_VIEW(inv_std);
TDM_VIEW(sum);
TDM_VIEW(sumsq);

void main()
{
    uint cols = TDM_U_cols;
    float inv_count = TDM_F_inv_count;
    for (uint c = gl_GlobalInvocationID.x; c < cols; c += TDM_STRIDE) {
        precise float m = sum[TDM_OFF_sum + c] * inv_count;
        precise float v = sumsq[TDM_OFF_sumsq + c] * inv_count - m * m;
        precise float shifted = (v < 0.0 ? 0.0 : v) + TDM_F_epsilon;
        mean[TDM_OFF_mean + c] = m;
        inv_std[TDM_OFF_inv_std + c] = inversesqrt(shifted);
    }
}
