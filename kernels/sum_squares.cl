/* sum_squares: out[c] = sum of the squares of x[c * chunk .. min(n, (c + 1) * chunk))
 * for c < ceil(n / chunk) (the global L2 norm: partials of every tensor, sum, sqrt).
 * One work-group per chunk, grid-stride over chunks, compensated (tdm_group_sum in
 * prelude.clh). The reference sums in double, so its result is NaN for a NaN element,
 * else infinite for an infinite one; a sum of finite squares that overflows on the way
 * is summed again scaled by 2^-64 (2^-128 on the squares), so it is infinite only if
 * the result is. Tolerance rel 2^-20, linear. */

#define TDM_SQUARES 1
#define TDM_SPECIAL_SUM(special) ((special) & 1 ? NAN : INFINITY)
#define TDM_RESCALE (0x1p64f * 0x1p64f)
#define TDM_SCALED(total) (total)
#include "chunk_sum.clh"
