#version 450
// cast_f32_i32: y[i] = x[i] truncated toward zero as an int32 (its bits), for x[i] in
// (-2^31, 2^31); NaN and values outside give INT32_MIN (0x80000000). int() leaves
// those undefined, so the range is tested first, NaN explicitly (a compiler may
// assume comparisons see no NaN). One item per element. Tolerance 0.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_cast_f32_i32
#include "kernel_bindings.glsl"

TDM_VIEW(y);
TDM_VIEW(x);

void main()
{
    for (uint i = gl_GlobalInvocationID.x; i < TDM_U_n; i += TDM_STRIDE) {
        float v = x[TDM_OFF_x + i];
        bool inside = !isnan(v) && abs(v) < 2147483648.0;
        y[TDM_OFF_y + i] = inside ? uint(int(v)) : 0x80000000u;
    }
}
