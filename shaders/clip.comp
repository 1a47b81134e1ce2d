#version 450
// clip: y[i] = min(max(x[i], lo), hi) as t = x < lo ? lo : x; y = t > hi ? hi : t, so
// that a zero keeps its sign unless a bound replaces it; NaN stays NaN (GLSL's min and
// max are undefined for NaN, and a compiler may turn the selects into them: the NaN
// is passed through explicitly). Tolerance 0.
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

layout(local_size_x = 64) in;
TDM_BUFFER(0, writeonly, float, y);
TDM_BUFFER(1, readonly, float, x);

void main()
{
    uint n = args.u[0];
    float lo = args.f[0], hi = args.f[1];
    for (uint i = gl_GlobalInvocationID.x; i < n; i += TDM_STRIDE) {
        float a = x[args.off[1] + i];
        float t = a < lo ? lo : a;
        t = t > hi ? hi : t;
        y[args.off[0] + i] = isnan(a) ? a : t;
    }
}
