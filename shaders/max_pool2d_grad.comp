#version 450
// max_pool2d_grad: dx[b, r, s, ch] = sum over (p, q) in order of dy[b, i, j, ch] for
// the outputs (i, j) whose window holds (r, s) at (p, q) and whose maximum it is, as
// max_pool2d chooses (pool_window.glsl). No atomics; summed in float in the table's
// order. Tolerance 0.
//
// Windows that tile the image (stride equal to the window, the usual pool2) hold each
// position at most once, so an item takes a window's channel: it finds the choice
// once, then writes the window's cell, dy at the choice and 0 elsewhere: the window
// itself, the first and last ones reaching the image's edges. Other windows
// (overlapping, or with gaps; an image without windows) gather: an item per element
// of dx tests every (p, q). With relu, a cell is 0 where x > 0 fails.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_max_pool2d_grad
#include "kernel_bindings.glsl"

TDM_VIEW(dx);
TDM_VIEW(dy);
TDM_VIEW(x);

#include "pool_window.glsl"

// The start of output i's cell along an axis of `size` positions: where its window
// starts, 0 for the first and `size` past the last, within [0, size].
int tdm_cell_start(uint i, uint outputs, uint stride, uint pad, uint size)
{
    if (i == 0u)
        return 0;
    if (i >= outputs)
        return int(size);
    return clamp(int(i * stride) - int(pad), 0, int(size));
}

void gather(uint h, uint w, uint c, uint oh, uint ow)
{
    uint count = TDM_U_batch * h * w * c;
    for (uint e = gl_GlobalInvocationID.x; e < count; e += TDM_STRIDE) {
        uint ch = e % c, t = e / c, b = t / w / h;
        int r = int(t / w % h), s = int(t % w);
        precise float sum = 0.0;
        for (int p = 0; p < int(TDM_U_kh); p++) {
            int i = tdm_output_pos(r, p, TDM_U_stride_h, TDM_U_pad_top, oh);
            for (int q = 0; i >= 0 && q < int(TDM_U_kw); q++) {
                int j = tdm_output_pos(s, q, TDM_U_stride_w, TDM_U_pad_left, ow);
                if (j >= 0 && tdm_window_max(b, i, j, ch) == int(e))
                    sum += dy[TDM_OFF_dy + ((b * oh + uint(i)) * ow + uint(j)) * c + ch];
            }
        }
        dx[TDM_OFF_dx + e] = TDM_U_relu != 0u && !(TDM_LOAD(x, e) > 0.0) ? 0.0 : sum;
    }
}

void main()
{
    uint h = TDM_U_h, w = TDM_U_w, c = TDM_U_c, oh = TDM_U_oh, ow = TDM_U_ow;
    if (TDM_U_stride_h != TDM_U_kh || TDM_U_stride_w != TDM_U_kw || oh == 0u || ow == 0u) {
        gather(h, w, c, oh, ow);
        return;
    }
    uint count = TDM_U_batch * oh * ow * c;
    for (uint o = gl_GlobalInvocationID.x; o < count; o += TDM_STRIDE) {
        uint ch = o % c, t = o / c, b = t / ow / oh, i = t / ow % oh, j = t % ow;
        int best = tdm_window_max(b, int(i), int(j), ch);
        if (TDM_U_relu != 0u && best >= 0 && !(TDM_LOAD(x, uint(best)) > 0.0))
            best = -1; // the ReLU's x > 0 fails at the choice
        float g = dy[TDM_OFF_dy + o];
        g = g == 0.0 ? 0.0 : g; // the sum's +0 for -0 (a compiler drops 0.0 + g)
        int r1 = tdm_cell_start(i + 1u, oh, TDM_U_stride_h, TDM_U_pad_top, h);
        int s0 = tdm_cell_start(j, ow, TDM_U_stride_w, TDM_U_pad_left, w);
        int s1 = tdm_cell_start(j + 1u, ow, TDM_U_stride_w, TDM_U_pad_left, w);
        for (int r = tdm_cell_start(i, oh, TDM_U_stride_h, TDM_U_pad_top, h); r < r1; r++)
            for (int s = s0; s < s1; s++) {
                uint at = ((b * h + uint(r)) * w + uint(s)) * c + ch;
                dx[TDM_OFF_dx + at] = int(at) == best ? g : 0.0;
            }
    }
}
