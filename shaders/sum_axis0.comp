#version 450
// sum_axis0: out[c] = x[0, c] + x[1, c] + ... + x[rows - 1, c], rows in increasing
// order, x row-major (bias gradients), compensated (kahan.glsl) so that many rows keep
// their accuracy. One item per column.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_sum_axis0
#include "kernel_bindings.glsl"
#include "kahan.glsl"

TDM_VIEW_AS(out, out_, float); // `out` is a GLSL keyword
TDM_VIEW(x);

void main()
{
    uint rows = TDM_U_rows, cols = TDM_U_cols;
    for (uint c = gl_GlobalInvocationID.x; c < cols; c += TDM_STRIDE) {
        float s = 0.0, comp = 0.0;
        for (uint r = 0u; r < rows; r++)
            tdm_kahan_add(s, comp, x[TDM_OFF_x + r * cols + c]);
        out_[TDM_OFF_out + c] = s - comp;
    }
}
