/* relu_bias_grad: dx[r, c] = x[r, c] > 0 ? dy[r, c] : 0 as relu_grad computes it,
 * then db[c] = the sum over r of dx[r, c] as sum_axis0 sums it (column_sums.clh),
 * from dx as stored: bitwise the two launches. Each item takes its columns down the
 * rows once, summing what it stores (and again, from dx, where a sum overflowed on
 * the way). dx may be dy. Tolerance sum_axis0's. */
#include "column_sums.clh"

__attribute__((reqd_work_group_size(TDM_WG, 1, 1)))
kernel void tdm_relu_bias_grad(TDM_SIGNATURE)
{
    const size_t quads = cols / 4 + (cols % 4 != 0);

    db += db_off;
    dx += dx_off;
    dy += dy_off;
    x += x_off;
    COLUMN_BLOCKS(first, quads) {
        column_sum c[COLUMN_QUADS];

        column_block_start(c);
        for (size_t r = 0; r < rows; r++) {
            const size_t row = r * cols;
            COLUMN_BLOCK(k, first, quads) {
                /* dy's bits masked by the comparison (true is all ones per lane), as
                 * relu_grad masks them */
                const size_t q = first + k;
                const int4 kept = TDM_CAT(load4_, TYPE(x))(x + row, q, cols) > 0.0f;
                const float4 g = as_float4(as_int4(load4(dy + row, q, cols)) & kept);

                store4(g, dx + row, q, cols);
                column_add(&c[k], g, 1.0f);
            }
        }
        column_block_store(db, dx, first, quads, rows, cols, c);
    }
}
