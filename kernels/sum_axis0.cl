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
    COLUMN_BLOCKS(first, quads) {
        column_sum c[COLUMN_QUADS];

        column_block_start(c);
        for (size_t r = 0; r < rows; r++)
            COLUMN_BLOCK(k, first, quads)
            column_add(&c[k], load4(x + r * cols, first + k, cols), 1.0f);
        column_block_store(out, x, first, quads, rows, cols, c);
    }
}
