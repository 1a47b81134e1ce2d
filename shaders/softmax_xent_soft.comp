#version 450
// softmax_xent_soft: per row r of logits l and targets t (rows x cols, row-major, t in
// [0, 1]), with mx the row's maximum (NaN if any logit is NaN) subtracted before exp so
// that nothing overflows:
//   s = sum_c exp(l[c] - mx), lse = mx + log(s), T = sum_c t[c]
//   loss[r] = sum_c t[c] * (lse - l[c])
//   dlogits[r, c] = grad_scale * ((exp(l[c] - mx) / s) * T - t[c])
// One item per row; exp is tdm_exp (tdm_math.glsl); s, T and the loss are compensated
// sums (kahan.glsl, which keeps an infinite sum infinite).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_softmax_xent_soft
#include "kernel_bindings.glsl"
#include "tdm_math.glsl"
#include "kahan.glsl"

TDM_VIEW(loss);
TDM_VIEW(dlogits);
TDM_VIEW(logits);
TDM_VIEW(targets);

void main()
{
    uint rows = TDM_U_rows, cols = TDM_U_cols;
    float grad_scale = TDM_F_grad_scale;
    for (uint r = gl_GlobalInvocationID.x; r < rows; r += TDM_STRIDE) {
        uint in0 = TDM_OFF_logits + r * cols, t0 = TDM_OFF_targets + r * cols;
        uint out0 = TDM_OFF_dlogits + r * cols;
        float mx = -tdm_inf();
        for (uint c = 0u; c < cols; c++) {
            float l = logits[in0 + c];
            mx = (isnan(mx) || mx > l) ? mx : l; // max, NaN if any is NaN
        }
        float s = 0.0, comp = 0.0, mass = 0.0, mass_comp = 0.0;
        for (uint c = 0u; c < cols; c++) {
            tdm_kahan_add(s, comp, tdm_exp(logits[in0 + c] - mx));
            tdm_kahan_add(mass, mass_comp, targets[t0 + c]);
        }
        s -= comp;
        mass -= mass_comp;
        precise float lse = mx + log(s);
        float sum = 0.0, sum_comp = 0.0;
        for (uint c = 0u; c < cols; c++) {
            precise float term = targets[t0 + c] * (lse - logits[in0 + c]);
            tdm_kahan_add(sum, sum_comp, term);
        }
        loss[TDM_OFF_loss + r] = sum - sum_comp;
        for (uint c = 0u; c < cols; c++) {
            float p = tdm_exp(logits[in0 + c] - mx) / s;
            dlogits[out0 + c] = grad_scale * (p * mass - targets[t0 + c]);
        }
    }
}
