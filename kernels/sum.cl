/* sum: out[c] = alpha * (the sum of x[c * chunk .. min(n, (c + 1) * chunk)) as a
 * float) for c < ceil(n / chunk) (an empty chunk cannot occur). One work-group per
 * chunk, grid-stride over chunks, compensated (tdm_group_sum in prelude.clh). The reference sums in double, so its
 * result is NaN for a NaN element or infinities of both signs, else the sign's
 * infinity for infinite elements; a sum of finite elements that overflows on the way
 * is summed again scaled by 2^-64, so it is infinite only if the result is.
 * Tolerance rel 2^-20, linear. */

#define TDM_SQUARES 0
#define TDM_SPECIAL_SUM(special)                                                                   \
    ((special) & 1 || (special) == 6 ? NAN : (special) == 2 ? INFINITY : -INFINITY)
#define TDM_RESCALE 0x1p64f
#define TDM_SCALED(total) (alpha * (total))
#include "chunk_sum.clh"
