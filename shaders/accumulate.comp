#version 450
// accumulate: y[i] = ((x0[i] + x1[i]) + x2[i]) + ... + x{inputs-1}[i], 2 <= inputs <= 7,
// left to right in float; `precise` forbids reassociation and contraction, so the
// result is bitwise the reference's. Inputs past `inputs` are bound to something
// valid (the backend binds y there) but never read.
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

layout(local_size_x = 64) in;
TDM_BUFFER(0, writeonly, float, y);
TDM_BUFFER(1, readonly, float, x0);
TDM_BUFFER(2, readonly, float, x1);
TDM_BUFFER(3, readonly, float, x2);
TDM_BUFFER(4, readonly, float, x3);
TDM_BUFFER(5, readonly, float, x4);
TDM_BUFFER(6, readonly, float, x5);
TDM_BUFFER(7, readonly, float, x6);

void main()
{
    uint n = args.u[0], inputs = args.u[1];
    // Two inputs, the case of every pairwise reduction, get a loop without branches.
    if (inputs == 2u) {
        for (uint i = gl_GlobalInvocationID.x; i < n; i += TDM_STRIDE) {
            precise float s = x0[args.off[1] + i] + x1[args.off[2] + i];
            y[args.off[0] + i] = s;
        }
        return;
    }
    for (uint i = gl_GlobalInvocationID.x; i < n; i += TDM_STRIDE) {
        precise float s = x0[args.off[1] + i] + x1[args.off[2] + i];
        if (inputs > 2u)
            s += x2[args.off[3] + i];
        if (inputs > 3u)
            s += x3[args.off[4] + i];
        if (inputs > 4u)
            s += x4[args.off[5] + i];
        if (inputs > 5u)
            s += x5[args.off[6] + i];
        if (inputs > 6u)
            s += x6[args.off[7] + i];
        y[args.off[0] + i] = s;
    }
}
