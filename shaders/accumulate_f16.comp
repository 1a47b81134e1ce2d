#version 450
// accumulate_f16: y[i] = half(alpha * s), s = x0[i] then s = half(s + xk[i]) for
// k = 1 .. inputs-1 in order, 1 <= inputs <= 7: every partial sum rounded to float16
// (half.glsl's exact conversions on bit patterns), each addition and the scaling in
// float, `precise` so that nothing is reassociated or fused. One item per word of
// the float16 views (every offset is even): all inputs are read before y, which may
// be one of them, is written; with n odd the last word's high half is kept. Inputs
// past `inputs` are bound to something valid but never read.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_accumulate_f16
#include "kernel_bindings.glsl"
#include "half.glsl"

TDM_VIEW(y);
TDM_VIEW(x0);
TDM_VIEW(x1);
TDM_VIEW(x2);
TDM_VIEW(x3);
TDM_VIEW(x4);
TDM_VIEW(x5);
TDM_VIEW(x6);

// Word p of input k, both halves.
uint tdm_input_word(uint k, uint p)
{
    switch (k) {
    case 0u: return x0[TDM_OFF_x0 / 2u + p];
    case 1u: return x1[TDM_OFF_x1 / 2u + p];
    case 2u: return x2[TDM_OFF_x2 / 2u + p];
    case 3u: return x3[TDM_OFF_x3 / 2u + p];
    case 4u: return x4[TDM_OFF_x4 / 2u + p];
    case 5u: return x5[TDM_OFF_x5 / 2u + p];
    default: return x6[TDM_OFF_x6 / 2u + p];
    }
}

void main()
{
    uint n = TDM_U_n, inputs = TDM_U_inputs;
    uint pairs = n / 2u + (n & 1u);
    for (uint p = gl_GlobalInvocationID.x; p < pairs; p += TDM_STRIDE) {
        uint words[7];
        for (uint k = 0u; k < inputs; k++)
            words[k] = tdm_input_word(k, p);
        precise float lo = tdm_half_value(words[0]), hi = tdm_half_value(words[0] >> 16);
        for (uint k = 1u; k < inputs; k++) {
            precise float sum_lo = lo + tdm_half_value(words[k]);
            precise float sum_hi = hi + tdm_half_value(words[k] >> 16);
            lo = tdm_half_value(tdm_half_bits(sum_lo));
            hi = tdm_half_value(tdm_half_bits(sum_hi));
        }
        precise float scaled_lo = TDM_F_alpha * lo, scaled_hi = TDM_F_alpha * hi;
        uint y_at = TDM_OFF_y / 2u + p;
        uint high = 2u * p + 1u < n ? tdm_half_bits(scaled_hi) : y[y_at] >> 16;
        y[y_at] = tdm_half_bits(scaled_lo) | (high << 16);
    }
}
