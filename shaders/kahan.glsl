// Kahan-compensated summation: sum += v with comp keeping what rounding lost, so a
// long float sum stays within a few ulps of its terms' magnitudes instead of an error
// growing with the count. `precise` keeps the compiler from simplifying the
// compensation away. An infinite partial sum resets the compensation, which would
// otherwise turn inf into NaN; a NaN term propagates. The result is sum - comp.
#ifndef TDM_KAHAN_GLSL
#define TDM_KAHAN_GLSL

void tdm_kahan_add(inout float sum, inout float comp, float v)
{
    precise float y = v - comp;
    precise float t = sum + y;
    precise float lost = (t - sum) - y;
    comp = isinf(t) ? 0.0 : lost;
    sum = t;
}

#endif
