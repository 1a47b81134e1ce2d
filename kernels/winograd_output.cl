/* winograd_output: y[b, 2 ti + a, 2 tj + e, o] = (A^T m A)[a, e] for the 4x4 of
 * planes m[xi, t, o] of tile t = (b, ti, tj), where inside y (kernels.def). Adds and
 * subtracts in the table's order: tolerance 0. */

#include "winograd.clh"

/* Output o of tile g / oc, whose top-left output is y's element `at` of channel 0. */
void output_tile(global float *y, global const float *m, size_t stride, size_t g, size_t at,
                 uint o, uint oc, uint ow, int two_rows, int two_cols)
{
    float k[4][4], e[2][4];

    for (int xi = 0; xi < 16; xi++)
        k[xi / 4][xi % 4] = m[(size_t)xi * stride + g];
    for (int j = 0; j < 4; j++) {
        e[0][j] = (k[0][j] + k[1][j]) + k[2][j];
        e[1][j] = (k[1][j] - k[2][j]) - k[3][j];
    }
    for (int a = 0; a < 1 + two_rows; a++) {
        const size_t row = at + (size_t)a * ow * oc + o;
        y[row] = (e[a][0] + e[a][1]) + e[a][2];
        if (two_cols)
            y[row + oc] = (e[a][1] - e[a][2]) - e[a][3];
    }
}

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_winograd_output(TDM_SIGNATURE)
{
    const uint th = (oh + 1) / 2, tw = (ow + 1) / 2;
    const size_t tiles = (size_t)batch * th * tw, plane = tiles * oc;
    const size_t stride = tdm_winograd_stride(plane);

    y += y_off;
    m += m_off;
#ifdef TDM_CPU
    /* A work-item per tile (image_run, kernel_run.c), its channels in a contiguous
     * loop, which the compiler vectorises. */
    for (size_t t = get_global_id(0); t < tiles; t += get_global_size(0)) {
        const uint u = (uint)t / tw, b = u / th, ti = u - b * th, tj = (uint)t - u * tw;
        const size_t at = (((size_t)b * oh + 2 * ti) * ow + 2 * tj) * oc;
        const int two_rows = 2 * ti + 1 < oh, two_cols = 2 * tj + 1 < ow;
        for (uint o = 0; o < oc; o++)
            output_tile(y, m, stride, t * oc + o, at, o, oc, ow, two_rows, two_cols);
    }
#else
    /* A work-item per (tile, o). */
    for (size_t g = get_global_id(0); g < plane; g += get_global_size(0)) {
        const uint t = (uint)g / oc, o = (uint)g - t * oc;
        const uint u = t / tw, b = u / th, ti = u - b * th, tj = t - u * tw;
        const size_t at = (((size_t)b * oh + 2 * ti) * ow + 2 * tj) * oc;
        output_tile(y, m, stride, g, at, o, oc, ow, 2 * ti + 1 < oh, 2 * tj + 1 < ow);
    }
#endif
}
