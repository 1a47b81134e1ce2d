// The windows of pooling (max_pool2d, avg_pool2d and their gradients), written once:
// output position i (a row or a column) sees input positions i * stride - pad + p for
// p in [0, k); those outside the image are padding. Included after the shader's views.

// How many of the positions start .. start + k - 1 lie in [0, size).
uint tdm_inside(int start, uint k, uint size)
{
    int lo = max(start, 0), hi = min(start + int(k), int(size));
    return hi > lo ? uint(hi - lo) : 0u;
}

// The output position whose window holds input position r at offset p, or -1.
int tdm_output_pos(int r, int p, uint stride, uint pad, uint outputs)
{
    int num = r + int(pad) - p;
    if (num < 0 || num % int(stride) != 0 || num / int(stride) >= int(outputs))
        return -1;
    return num / int(stride);
}

#ifdef TDM_BIND_x
// The index in the view x of the maximum of output (b, i, j, ch)'s window, or -1 for
// a window without a position inside the image: positions in (p, q) order, p
// outermost, the first of equal ones, the first NaN; padding never takes part.
int tdm_window_max(uint b, int i, int j, uint ch)
{
    uint h = TDM_U_h, w = TDM_U_w, c = TDM_U_c;
    int r0 = i * int(TDM_U_stride_h) - int(TDM_U_pad_top);
    int s0 = j * int(TDM_U_stride_w) - int(TDM_U_pad_left);
    int best = -1;
    float top = 0.0;
    for (int r = max(r0, 0); r < min(r0 + int(TDM_U_kh), int(h)); r++)
        for (int s = max(s0, 0); s < min(s0 + int(TDM_U_kw), int(w)); s++) {
            int at = int(((b * h + uint(r)) * w + uint(s)) * c + ch);
            float v = TDM_LOAD(x, uint(at));
            if (best < 0 || (!isnan(top) && (v > top || isnan(v)))) {
                best = at;
                top = v;
            }
        }
    return best;
}
#endif
