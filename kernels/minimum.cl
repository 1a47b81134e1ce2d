/* minimum: z[i] = min(x[i], y[i]), NaN if either is NaN; for equal values (and zeros of
 * both signs) x's, as the reference's "y < x ? y : x". Tolerance 0. */

float4 minimum4(float4 a, float4 b)
{
    const float4 r = select(a, b, b < a);
    return select(r, (float4)(NAN), isnan(a) | isnan(b));
}

#define TDM_BINARY minimum4
#include "binary.clh"
