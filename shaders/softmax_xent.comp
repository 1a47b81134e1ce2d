#version 450
// softmax_xent: per row r of logits (rows x cols, row-major), with mx the row's
// maximum (NaN if any logit is NaN) subtracted before exp so that nothing overflows:
//   s = sum_c exp(logits[r, c] - mx), logsumexp = mx + log(s)
//   loss[r] = logsumexp - logits[r, labels[r]]
//   dlogits[r, c] = grad_scale * (exp(logits[r, c] - mx) / s - (c == labels[r]))
// One item per row; exp is tdm_exp (tdm_math.glsl), s a compensated sum (kahan.glsl).
// A negative label (as int32) masks the row, a sequence's padding: loss 0, dlogits
// 0; another label outside [0, cols) gives a NaN loss and no one-hot term.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_softmax_xent
#include "kernel_bindings.glsl"
#include "tdm_math.glsl"
#include "kahan.glsl"

TDM_VIEW(loss);
TDM_VIEW(dlogits);
TDM_VIEW(logits);
TDM_VIEW(labels);

void main()
{
    uint rows = TDM_U_rows, cols = TDM_U_cols;
    float grad_scale = TDM_F_grad_scale;
    for (uint r = gl_GlobalInvocationID.x; r < rows; r += TDM_STRIDE) {
        uint in0 = TDM_OFF_logits + r * cols, out0 = TDM_OFF_dlogits + r * cols;
        uint label = labels[TDM_OFF_labels + r];
        if (label >= 0x80000000u) { // masked
            loss[TDM_OFF_loss + r] = 0.0;
            for (uint c = 0u; c < cols; c++)
                dlogits[out0 + c] = 0.0;
            continue;
        }
        float mx = -tdm_inf();
        for (uint c = 0u; c < cols; c++) {
            float l = logits[in0 + c];
            mx = (isnan(mx) || mx > l) ? mx : l; // max, NaN if any is NaN
        }
        float s = 0.0, comp = 0.0;
        for (uint c = 0u; c < cols; c++)
            tdm_kahan_add(s, comp, tdm_exp(logits[in0 + c] - mx));
        s -= comp;
        float picked = label < cols ? logits[in0 + label] : tdm_nan();
        loss[TDM_OFF_loss + r] = (mx + log(s)) - picked;
        for (uint c = 0u; c < cols; c++) {
            float p = tdm_exp(logits[in0 + c] - mx) / s;
            dlogits[out0 + c] = grad_scale * (c == label ? p - 1.0 : p);
        }
    }
}
