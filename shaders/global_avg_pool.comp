#version 450
// global_avg_pool: sum[b, ch] = x[b, r, s, ch] summed over rows row0 .. row0 + rows - 1
// and every column, (r, s) in order, from 0 where row0 is 0 and from sum[b, ch]
// otherwise; y[b, ch] = sum[b, ch] / (h * w), 0 for an empty image. avg_pool2d's sum
// and division over the window of the whole image, bitwise; the core launches long
// sums in pieces of rows, each continuing the last. One item per element of y.
// Tolerance 3 ulps (Vulkan allows the division 2.5).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_global_avg_pool
#include "kernel_bindings.glsl"

TDM_VIEW(y);
TDM_VIEW(x);
TDM_VIEW(sum);

void main()
{
    uint h = TDM_U_h, w = TDM_U_w, c = TDM_U_c, row0 = TDM_U_row0, n = h * w;
    uint count = TDM_U_batch * c;
    for (uint o = gl_GlobalInvocationID.x; o < count; o += TDM_STRIDE) {
        uint ch = o % c, b = o / c;
        precise float acc = row0 != 0u ? sum[TDM_OFF_sum + o] : 0.0;
        for (uint r = row0; r < row0 + TDM_U_rows; r++)
            for (uint s = 0u; s < w; s++)
                acc += TDM_LOAD(x, ((b * h + r) * w + s) * c + ch);
        sum[TDM_OFF_sum + o] = acc;
        TDM_STORE(y, o, n != 0u ? acc / float(n) : 0.0);
    }
}
