/* Reductions: one result per chunk of `chunk` elements; sums in double. */
#include <math.h>

#include "ref_kernels.h"

typedef double (*fold_fn)(double acc, float x);

static double add(double acc, float x) { return acc + x; }
static double add_square(double acc, float x) { return acc + (double)x * x; }

/* NaN wins; otherwise the larger. */
static double larger(double acc, float x)
{
    return isnan(acc) || isnan(x) ? NAN : (x > acc ? x : acc);
}

static double finite_and(double acc, float x)
{
    return acc != 0.0 && isfinite(x) ? 1.0 : 0.0;
}

static void per_chunk(const tdm_launch *l, fold_fn fold, double start)
{
    float *out = ref_f(l, 0), *x = ref_f(l, 1);
    uint32_t n = l->u[0], chunk = l->u[1];
    for (uint32_t c = 0; (uint64_t)c * chunk < n; c++) {
        double acc = start;
        uint32_t end = n - c * chunk < chunk ? n : c * chunk + chunk;
        for (uint32_t i = c * chunk; i < end; i++)
            acc = fold(acc, x[i]);
        out[c] = (float)acc;
    }
}

void ref_sum(const tdm_launch *l) { per_chunk(l, add, 0.0); }
void ref_sum_squares(const tdm_launch *l) { per_chunk(l, add_square, 0.0); }
void ref_max(const tdm_launch *l) { per_chunk(l, larger, -INFINITY); }
void ref_all_finite(const tdm_launch *l) { per_chunk(l, finite_and, 1.0); }

void ref_sum_axis0(const tdm_launch *l)
{
    float *out = ref_f(l, 0), *x = ref_f(l, 1);
    uint32_t rows = l->u[0], cols = l->u[1];
    for (uint32_t c = 0; c < cols; c++) {
        double acc = 0.0;
        for (uint32_t r = 0; r < rows; r++)
            acc += x[(size_t)r * cols + c];
        out[c] = (float)acc;
    }
}
