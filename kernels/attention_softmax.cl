/* attention_softmax: per row r of s (rows x cols), position i = r % cols, reading the
 * columns j < len (len = i + 1 where causal, else cols), the others written +0:
 *   t[j] = scale * s[r, j];  mx = max of t (fmax skips a NaN, which exp passes on to u)
 *   e[j] = exp(t[j] - mx);   u = sum of e[j] (Kahan-compensated);  p[r, j] = e[j] / u
 * One item per row; the argument of exp is rounded as the reference rounds it. */

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_attention_softmax(TDM_SIGNATURE)
{
    p += p_off;
    s += s_off;
    for (size_t r = get_global_id(0); r < rows; r += get_global_size(0)) {
        global const float *sr = s + r * cols;
        const size_t row = r * cols;
        const uint len = causal ? (uint)(r % cols) + 1 : cols;
        float mx = -INFINITY, u = 0.0f, lost = 0.0f;

        for (uint j = 0; j < len; j++)
            mx = fmax(mx, scale * sr[j]);
        for (uint j = 0; j < len; j++) {
            const float y = exp(scale * sr[j] - mx) - lost;
            const float t = u + y;
            lost = (t - u) - y;
            u = t;
        }
        u = u - lost;
        for (uint j = 0; j < cols; j++)
            STORE(p, row + j, j < len ? exp(scale * sr[j] - mx) / u : 0.0f);
    }
}
