#version 450
// softmax_xent: per row r of logits (rows x cols, row-major), with mx the row's
// maximum (NaN if any logit is NaN) subtracted before exp so that nothing overflows:
//   s = sum_c exp(logits[r, c] - mx), logsumexp = mx + log(s)
//   loss[r] = logsumexp - logits[r, labels[r]]
//   dlogits[r, c] = grad_scale * (exp(logits[r, c] - mx) / s - (c == labels[r]))
// One item per row; exp is tdm_exp (tdm_math.glsl), s a compensated sum (kahan.glsl).
// A label outside [0, cols) gives a NaN loss and no one-hot term.
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"
#include "tdm_math.glsl"
#include "kahan.glsl"

layout(local_size_x = 64) in;
TDM_BUFFER(0, writeonly, float, loss);
TDM_BUFFER(1, writeonly, float, dlogits);
TDM_BUFFER(2, readonly, float, logits);
TDM_BUFFER(3, readonly, uint, labels);

void main()
{
    uint rows = args.u[0], cols = args.u[1];
    float grad_scale = args.f[0];
    for (uint r = gl_GlobalInvocationID.x; r < rows; r += TDM_STRIDE) {
        uint in0 = args.off[2] + r * cols, out0 = args.off[1] + r * cols;
        float mx = -tdm_inf();
        for (uint c = 0u; c < cols; c++) {
            float l = logits[in0 + c];
            mx = (isnan(mx) || mx > l) ? mx : l; // max, NaN if any is NaN
        }
        float s = 0.0, comp = 0.0;
        for (uint c = 0u; c < cols; c++)
            tdm_kahan_add(s, comp, tdm_exp(logits[in0 + c] - mx));
        s -= comp;
        uint label = labels[args.off[3] + r];
        float picked = label < cols ? logits[in0 + label] : tdm_nan();
        loss[args.off[0] + r] = (mx + log(s)) - picked;
        for (uint c = 0u; c < cols; c++) {
            float p = tdm_exp(logits[in0 + c] - mx) / s;
            dlogits[out0 + c] = grad_scale * (c == label ? p - 1.0 : p);
        }
    }
}
