#version 450
// cast_f16_f32: y[i] = float(x[i]), exact. One item per pair of elements, that is
// per word of x.
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"
#include "half.glsl"

layout(local_size_x = 64) in;
TDM_BUFFER(0, writeonly, uint, y);
TDM_BUFFER(1, readonly, uint, x);

void main()
{
    uint n = args.u[0];
    uint pairs = n / 2u + (n & 1u);
    uint y0 = args.off[0], x0 = args.off[1] / 2u;
    for (uint p = gl_GlobalInvocationID.x; p < pairs; p += TDM_STRIDE) {
        uint word = x[x0 + p];
        y[y0 + 2u * p] = tdm_half_to_float(word & 0xffffu);
        if (2u * p + 1u < n)
            y[y0 + 2u * p + 1u] = tdm_half_to_float(word >> 16);
    }
}
