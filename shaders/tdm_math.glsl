// Accurate float functions GLSL lacks (erf, erfc) or leaves loose (exp, tanh): the
// precision Vulkan requires of exp is 3 + 2|x| ulps, and lavapipe's reaches 60 ulps
// near |x| = 88, so every kernel here uses tdm_exp (about 1 ulp) instead.
// The polynomials are weighted least-squares fits (Lawson iterations at Chebyshev
// nodes) against double-precision exp, erf, erfc and tanh. Measured on lavapipe
// against double precision: exp within 1.3 ulps, erf |error| < 1.4e-7, erfc relative
// error < 3.4e-7.
#ifndef TDM_MATH_GLSL
#define TDM_MATH_GLSL

// 2^k for -126 <= k <= 127, built from its bits.
float tdm_pow2(int k)
{
    return uintBitsToFloat(uint(k + 127) << 23);
}

// exp(hi + lo), hi carrying the bulk of the argument and |lo| < 1 a correction below
// hi's rounding (so -x^2 can be passed as an exact sum). Cody-Waite reduction:
// n = round((hi + lo) / ln 2), r = hi - n ln2_hi - n ln2_lo + lo, where ln2_hi has 9
// significant bits so n * ln2_hi is exact and hi - n * ln2_hi loses nothing; then
// exp(r) = 1 + r + r^2 Q(r) on |r| <= ln 2 / 2 (fit error 7.5e-9 relative), scaled by
// 2^n in two exact steps so that results down to the denormals come out right.
float tdm_exp_sum(float hi, float lo)
{
    float x = hi + lo;
    if (isnan(x))
        return x;
    if (x > 89.0)
        return tdm_inf();
    if (x < -104.0) // below half the smallest denormal
        return 0.0;
    float n = floor(x * 1.44269504 + 0.5);
    precise float r = hi - n * 0.693359375;
    r = (r - n * -2.12194440e-4) + lo;
    float q = 0.00139411283;
    q = q * r + 0.0083631929;
    q = q * r + 0.0416663736;
    q = q * r + 0.166665763;
    q = q * r + 0.5;
    float p = 1.0 + (r + r * r * q);
    int k = int(n), k1 = k / 2; // |k| <= 150: two normal powers of two
    return p * tdm_pow2(k1) * tdm_pow2(k - k1);
}

float tdm_exp(float x)
{
    return tdm_exp_sum(x, 0.0);
}

// x * x as hi + lo with hi exact: h is x with its low 12 mantissa bits cleared, so
// h * h is exact, and x * x = h * h + (x - h) * (x + h) with x - h exact.
void tdm_square(float x, out float hi, out float lo)
{
    float h = uintBitsToFloat(floatBitsToUint(x) & 0xfffff000u);
    hi = h * h;
    lo = (x - h) * (x + h);
}

// erf(x) / x = E(x^2) for |x| < 1 (fit error 1.2e-9 relative).
float tdm_erf_small(float x)
{
    float s = x * x;
    float p = 7.8887344e-05;
    p = p * s - 0.000802072755;
    p = p * s + 0.00518952264;
    p = p * s - 0.0268544387;
    p = p * s + 0.112836003;
    p = p * s - 0.37612626;
    p = p * s + 1.12837911;
    return x * p;
}

// t exp(-z^2 + P(t)) = erfc(z) for z >= 0.5, t = 2 / (2 + z), with -z^2 passed as
// neg_sq_hi + neg_sq_lo (exact to well below float rounding). P is a fit over z in
// [0.5, 10] (t in [1/6, 0.8]; fit error 1.2e-9 absolute in the exponent) taken in
// s = (t - 0.48333) / 0.31667 in [-1, 1]. Beyond 10, erfc(z) < 2.1e-45 is zero.
float tdm_erfc_tail(float z, float neg_sq_hi, float neg_sq_lo)
{
    if (z > 10.0)
        return 0.0;
    float t = 2.0 / (2.0 + z);
    float s = t * 3.15789474 - 1.52631579;
    float p = 8.21794038e-06;
    p = p * s - 9.09163373e-06;
    p = p * s - 9.00919986e-05;
    p = p * s + 0.000148252337;
    p = p * s + 0.000856499653;
    p = p * s - 0.00181978778;
    p = p * s - 0.0115540186;
    p = p * s + 0.0208432563;
    p = p * s + 0.423910379;
    p = p * s - 0.694161177;
    return t * tdm_exp_sum(neg_sq_hi, neg_sq_lo + p);
}

// erfc(x) for x >= 0.5.
float tdm_erfc_pos(float x)
{
    float hi, lo;
    tdm_square(x, hi, lo);
    return tdm_erfc_tail(x, -hi, -lo);
}

// erf(x), odd; NaN stays NaN.
float tdm_erf(float x)
{
    if (isnan(x))
        return x;
    float a = abs(x);
    if (a < 1.0)
        return tdm_erf_small(x);
    float r = 1.0 - tdm_erfc_pos(a);
    return x < 0.0 ? -r : r;
}

// erfc(x) = 1 - erf(x), accurate relative to itself for large x.
float tdm_erfc(float x)
{
    if (isnan(x))
        return x;
    if (x >= 0.5)
        return tdm_erfc_pos(x);
    if (x <= -0.5)
        return 2.0 - tdm_erfc_pos(-x);
    return 1.0 - tdm_erf_small(x);
}

// The standard normal CDF Phi(x) = erfc(-x / sqrt(2)) / 2: no cancellation in the
// lower tail, unlike (1 + erf(x / sqrt(2))) / 2. In the tails the exponent -x^2 / 2
// comes from x itself, not from the rounded x / sqrt(2) (whose error the square
// would amplify by x^2).
float tdm_normal_cdf(float x)
{
    if (isnan(x))
        return x;
    float z = x * -0.707106781;
    if (abs(z) < 0.5)
        return 0.5 - 0.5 * tdm_erf_small(z);
    float hi, lo;
    tdm_square(x, hi, lo);
    float tail = 0.5 * tdm_erfc_tail(abs(z), -0.5 * hi, -0.5 * lo); // Phi(-|x|)
    return x < 0.0 ? tail : 1.0 - tail;
}

// Its density phi(x) = exp(-x^2 / 2) / sqrt(2 pi).
float tdm_normal_pdf(float x)
{
    float hi, lo;
    tdm_square(x, hi, lo);
    return 0.398942280 * tdm_exp_sum(-0.5 * hi, -0.5 * lo);
}

// tanh(x): x + x s Q(s), s = x^2, for |x| < 0.625 (no cancellation near 0, unlike
// (e^x - e^-x) / (e^x + e^-x); fit error 3.7e-9 relative), else 1 - 2 / (exp(2|x|) + 1)
// with the sign of x, which never forms inf / inf; beyond |x| = 9.1 tanh(x) rounds to
// +-1. NaN stays NaN. Measured on lavapipe: within 1.4 ulps.
float tdm_tanh(float x)
{
    if (isnan(x))
        return x;
    float a = abs(x);
    float r;
    if (a < 0.625) {
        float s = x * x;
        float q = -0.00567261456;
        q = q * s + 0.0206033401;
        q = q * s - 0.0537252985;
        q = q * s + 0.133311868;
        q = q * s - 0.333332628;
        return x + x * (s * q);
    }
    if (a > 9.1)
        r = 1.0;
    else
        r = 1.0 - 2.0 / (tdm_exp(2.0 * a) + 1.0);
    return x < 0.0 ? -r : r;
}

#endif
