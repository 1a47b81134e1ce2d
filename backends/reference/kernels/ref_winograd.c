/* Winograd F(2x2, 3x3)'s transforms (kernels.def): each element of a transformed tile
 * computed in float in the table's order, as every device computes it, so that the
 * devices match these bits. The 16 products between them are gemm's. */
#include <stddef.h>

#include "device/backend_api.h"
#include "ref_kernels.h"

/* Rows of B^T applied to four values: d0 - d2, d1 + d2, d2 - d1, d1 - d3. */
static void input_rows(const float d[4], float out[4])
{
    out[0] = d[0] - d[2];
    out[1] = d[1] + d[2];
    out[2] = d[2] - d[1];
    out[3] = d[1] - d[3];
}

void ref_winograd_input(const ref_winograd_input_args *a)
{
    size_t th = (a->oh + 1) / 2, tw = (a->ow + 1) / 2, c = a->c;
    size_t plane = (size_t)a->batch * th * tw * c, stride = tdm_winograd_stride(plane);
    for (size_t g = 0; g < plane; g++) {
        size_t t = g / c, ch = g % c, b = t / tw / th, ti = t / tw % th, tj = t % tw;
        long r0 = (long)(2 * ti) - (long)a->pad_top, s0 = (long)(2 * tj) - (long)a->pad_left;
        float d[4][4], col[4], e[4][4], row[4];
        for (long i = 0; i < 4; i++)
            for (long j = 0; j < 4; j++) {
                long r = r0 + i, s = s0 + j;
                int inside = r >= 0 && r < (long)a->h && s >= 0 && s < (long)a->w;
                d[i][j] =
                    inside ? a->x[((b * a->h + (size_t)r) * a->w + (size_t)s) * c + ch] : 0.0f;
            }
        for (int j = 0; j < 4; j++) {
            float across[4] = {d[0][j], d[1][j], d[2][j], d[3][j]};
            input_rows(across, col);
            for (int i = 0; i < 4; i++)
                e[i][j] = col[i];
        }
        for (int i = 0; i < 4; i++) {
            input_rows(e[i], row);
            for (int j = 0; j < 4; j++)
                a->v[(size_t)(4 * i + j) * stride + g] = row[j];
        }
    }
}

/* Rows of G applied to three values: g0, ((g0 + g2) + g1) / 2, ((g0 + g2) - g1) / 2, g2. */
static void filter_rows(const float k[3], float out[4])
{
    out[0] = k[0];
    out[1] = ((k[0] + k[2]) + k[1]) * 0.5f;
    out[2] = ((k[0] + k[2]) - k[1]) * 0.5f;
    out[3] = k[2];
}

void ref_winograd_filter(const ref_winograd_filter_args *a)
{
    size_t plane = (size_t)a->rows * a->cols, stride = tdm_winograd_stride(plane);
    for (size_t g = 0; g < plane; g++) {
        float col[4], e[4][3], row[4];
        for (int q = 0; q < 3; q++) {
            float down[3] = {a->f[(size_t)q * plane + g], a->f[(size_t)(3 + q) * plane + g],
                             a->f[(size_t)(6 + q) * plane + g]};
            filter_rows(down, col);
            for (int r = 0; r < 4; r++)
                e[r][q] = col[r];
        }
        for (int r = 0; r < 4; r++) {
            filter_rows(e[r], row);
            for (int s = 0; s < 4; s++)
                a->u[(size_t)(4 * r + s) * stride + g] = row[s];
        }
    }
}

/* Rows of A^T applied to four values: (m0 + m1) + m2, (m1 - m2) - m3. */
static void output_rows(const float k[4], float out[2])
{
    out[0] = (k[0] + k[1]) + k[2];
    out[1] = (k[1] - k[2]) - k[3];
}

void ref_winograd_output(const ref_winograd_output_args *a)
{
    size_t oh = a->oh, ow = a->ow, oc = a->oc, th = (oh + 1) / 2, tw = (ow + 1) / 2;
    size_t plane = (size_t)a->batch * th * tw * oc, stride = tdm_winograd_stride(plane);
    for (size_t g = 0; g < plane; g++) {
        size_t t = g / oc, o = g % oc, b = t / tw / th, ti = t / tw % th, tj = t % tw;
        float col[2], e[2][4], row[2];
        for (int j = 0; j < 4; j++) {
            float down[4];
            for (int i = 0; i < 4; i++)
                down[i] = a->m[(size_t)(4 * i + j) * stride + g];
            output_rows(down, col);
            e[0][j] = col[0];
            e[1][j] = col[1];
        }
        for (size_t i = 0; i < 2 && 2 * ti + i < oh; i++) {
            output_rows(e[i], row);
            for (size_t j = 0; j < 2 && 2 * tj + j < ow; j++)
                a->y[((b * oh + 2 * ti + i) * ow + 2 * tj + j) * oc + o] = row[j];
        }
    }
}
