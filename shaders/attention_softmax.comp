#version 450
// attention_softmax: per row r of s (rows x cols), position i = r % cols, reading the
// columns j < len (len = i + 1 where causal, else cols), the others written +0:
//   t[j] = scale * s[r, j];  mx = max of t (NaN if any is NaN)
//   e[j] = exp(t[j] - mx);   u = sum of e[j] (kahan.glsl);  p[r, j] = e[j] / u
// One item per row; exp is tdm_exp (tdm_math.glsl); the argument of exp is rounded as
// the reference rounds it (`precise`).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_attention_softmax
#include "kernel_bindings.glsl"
#include "tdm_math.glsl"
#include "kahan.glsl"

TDM_VIEW(p);
TDM_VIEW(s);

void main()
{
    uint rows = TDM_U_rows, cols = TDM_U_cols;
    float scale = TDM_F_scale;
    for (uint r = gl_GlobalInvocationID.x; r < rows; r += TDM_STRIDE) {
        uint in0 = TDM_OFF_s + r * cols, row = r * cols;
        uint len = TDM_U_causal != 0u ? r % cols + 1u : cols;
        float mx = -tdm_inf();
        for (uint j = 0u; j < len; j++) {
            precise float t = scale * s[in0 + j];
            mx = (isnan(mx) || t <= mx) ? mx : t; // max, NaN if any is NaN
        }
        float u = 0.0, comp = 0.0;
        for (uint j = 0u; j < len; j++) {
            precise float x = scale * s[in0 + j] - mx;
            tdm_kahan_add(u, comp, tdm_exp(x));
        }
        u -= comp;
        for (uint j = 0u; j < cols; j++) {
            precise float x = scale * s[in0 + j] - mx;
            TDM_STORE(p, row + j, j < len ? tdm_exp(x) / u : 0.0);
        }
    }
}
