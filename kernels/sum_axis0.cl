/* sum_axis0: out[c] = sum over r of x[r * cols + c], r in increasing order, for
 * c in [0, cols) (bias gradients), as column_sums.clh sums columns. Tolerance rel
 * 2^-20, linear. */
#include "column_sums.clh"

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_sum_axis0(TDM_SIGNATURE)
{
    const size_t quads = cols / 4 + (cols % 4 != 0);

    out += out_off;
    x += x_off;
    for (size_t first = COLUMN_QUADS * get_global_id(0); first < quads;
         first += COLUMN_QUADS * get_global_size(0)) {
        column_sum c[COLUMN_QUADS];

        for (size_t k = 0; k < COLUMN_QUADS; k++)
            c[k] = (column_sum){0.0f, 0.0f, 0};
        for (size_t r = 0; r < rows; r++)
            for (size_t k = 0; k < COLUMN_QUADS && first + k < quads; k++)
                column_add(&c[k], load4(x + r * cols, first + k, cols), 1.0f);
        for (size_t k = 0; k < COLUMN_QUADS && first + k < quads; k++)
            store4(column_total(x, first + k, rows, cols, c[k]), out, first + k, cols);
    }
}
