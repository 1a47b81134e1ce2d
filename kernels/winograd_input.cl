/* winograd_input: v[xi, t, ch] = (B^T d B)[r, s], xi = 4 r + s, for the 4x4 tile d
 * of channel ch at tile t, 0 outside the image (kernels.def). Adds and subtracts in
 * the table's order: tolerance 0. */

#include "winograd.clh"

/* Channel ch of tile g / c: at[i * 4 + j] is the index of the tile's element (i, j) in
 * channel 0, or 0 outside the image, where inside[i * 4 + j] is 0. Every load is made
 * and the padding selected after, so that a loop over the channels vectorises. */
void input_tile(global float *restrict v, size_t stride, size_t g, global const float *restrict x,
                const uint *at,
                const int *inside, uint ch)
{
    float d[4][4], e[4][4];

    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            const float value = x[at[4 * i + j] + ch];
            d[i][j] = inside[4 * i + j] ? value : 0.0f;
        }
    for (int j = 0; j < 4; j++) {
        e[0][j] = d[0][j] - d[2][j];
        e[1][j] = d[1][j] + d[2][j];
        e[2][j] = d[2][j] - d[1][j];
        e[3][j] = d[1][j] - d[3][j];
    }
    for (int i = 0; i < 4; i++) {
        v[(size_t)(4 * i + 0) * stride + g] = e[i][0] - e[i][2];
        v[(size_t)(4 * i + 1) * stride + g] = e[i][1] + e[i][2];
        v[(size_t)(4 * i + 2) * stride + g] = e[i][2] - e[i][1];
        v[(size_t)(4 * i + 3) * stride + g] = e[i][1] - e[i][3];
    }
}

/* Where tile t's elements are in channel 0 (input_tile's at and inside). */
void tile_elements(uint *at, int *inside, uint t, uint h, uint w, uint c, uint th, uint tw,
                   uint pad_top, uint pad_left)
{
    const uint u = t / tw, b = u / th, ti = u - b * th, tj = t - u * tw;
    const int r0 = (int)(2 * ti) - (int)pad_top, s0 = (int)(2 * tj) - (int)pad_left;

    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            const int r = r0 + i, s = s0 + j;
            inside[4 * i + j] = r >= 0 && r < (int)h && s >= 0 && s < (int)w;
            at[4 * i + j] = inside[4 * i + j] ? ((b * h + (uint)r) * w + (uint)s) * c : 0u;
        }
}

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_winograd_input(TDM_SIGNATURE)
{
    const uint th = (oh + 1) / 2, tw = (ow + 1) / 2;
    const size_t plane = (size_t)batch * th * tw * c, stride = tdm_winograd_stride(plane);
    uint at[16];
    int inside[16];

    v += v_off;
    x += x_off;
#ifdef TDM_CPU
    /* A work-item per tile (image_run, kernel_run.c): its elements found once, then
     * its channels in a contiguous loop, which the compiler vectorises. */
    const size_t tiles = (size_t)batch * th * tw;
    for (size_t t = get_global_id(0); t < tiles; t += get_global_size(0)) {
        tile_elements(at, inside, (uint)t, h, w, c, th, tw, pad_top, pad_left);
        for (uint ch = 0; ch < c; ch++)
            input_tile(v, stride, t * c + ch, x, at, inside, ch);
    }
#else
    /* A work-item per (tile, channel), channels fastest: neighbouring work-items read
     * neighbouring channels and write neighbouring elements of each plane. */
    for (size_t g = get_global_id(0); g < plane; g += get_global_size(0)) {
        const uint t = (uint)g / c;
        tile_elements(at, inside, t, h, w, c, th, tw, pad_top, pad_left);
        input_tile(v, stride, g, x, at, inside, (uint)g - t * c);
    }
#endif
}
