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
    for (size_t q = get_global_id(0); q < quads; q += get_global_size(0))
        store4(column_total(x, q, rows, cols), out, q, cols);
}
