#version 450
// accumulate_pair: y0[i] = y1[i] = alpha * (((x0[i] + x1[i]) + x2[i]) + ... +
// x{inputs-1}[i]), 2 <= inputs <= 6, left to right in float, then scaled; `precise`
// forbids reassociation and contraction, so the result is bitwise the reference's.
// Every input is read before either output is written, so outputs may be inputs;
// inputs past `inputs` are bound to something valid but never read.
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

layout(local_size_x = 64) in;
TDM_BUFFER(0, writeonly, float, y0);
TDM_BUFFER(1, writeonly, float, y1);
TDM_BUFFER(2, readonly, float, x0);
TDM_BUFFER(3, readonly, float, x1);
TDM_BUFFER(4, readonly, float, x2);
TDM_BUFFER(5, readonly, float, x3);
TDM_BUFFER(6, readonly, float, x4);
TDM_BUFFER(7, readonly, float, x5);

void main()
{
    uint n = args.u[0], inputs = args.u[1];
    float alpha = args.f[0];
    for (uint i = gl_GlobalInvocationID.x; i < n; i += TDM_STRIDE) {
        precise float s = x0[args.off[2] + i] + x1[args.off[3] + i];
        if (inputs > 2u)
            s += x2[args.off[4] + i];
        if (inputs > 3u)
            s += x3[args.off[5] + i];
        if (inputs > 4u)
            s += x4[args.off[6] + i];
        if (inputs > 5u)
            s += x5[args.off[7] + i];
        precise float r = alpha * s;
        y0[args.off[0] + i] = r;
        y1[args.off[1] + i] = r;
    }
}
