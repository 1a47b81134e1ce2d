#version 450
// sum_axis0: out[c] = x[0, c] + x[1, c] + ... + x[rows - 1, c], rows in increasing
// order, x row-major (bias gradients), compensated (kahan.glsl) so that many rows keep
// their accuracy. One item per column.
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"
#include "kahan.glsl"

layout(local_size_x = 64) in;
TDM_BUFFER(0, writeonly, float, out_);
TDM_BUFFER(1, readonly, float, x);

void main()
{
    uint rows = args.u[0], cols = args.u[1];
    for (uint c = gl_GlobalInvocationID.x; c < cols; c += TDM_STRIDE) {
        float s = 0.0, comp = 0.0;
        for (uint r = 0u; r < rows; r++)
            tdm_kahan_add(s, comp, x[args.off[1] + r * cols + c]);
        out_[args.off[0] + c] = s - comp;
    }
}
