/* Reductions: one result per chunk of `chunk` elements; sums in double. */
#include <math.h>

#include "ref_kernels.h"

typedef double (*fold_fn)(double acc, float x);

static double add(double acc, float x)
{
    return acc + x;
}
static double add_square(double acc, float x)
{
    return acc + (double)x * x;
}

/* NaN wins; otherwise the larger. */
static double larger(double acc, float x)
{
    return isnan(acc) || isnan(x) ? NAN : (x > acc ? x : acc);
}

static double finite_and(double acc, float x)
{
    return acc != 0.0 && isfinite(x) ? 1.0 : 0.0;
}

/* out[c] = the fold of chunk c of x, for the per-chunk reductions (which share
 * their arguments: out, x, n, chunk). */
static void per_chunk(float *out, const float *x, uint32_t n, uint32_t chunk, fold_fn fold,
                      double start)
{
    for (uint32_t c = 0; (uint64_t)c * chunk < n; c++) {
        double acc = start;
        uint32_t end = n - c * chunk < chunk ? n : c * chunk + chunk;
        for (uint32_t i = c * chunk; i < end; i++)
            acc = fold(acc, x[i]);
        out[c] = (float)acc;
    }
}

void ref_sum(const ref_sum_args *a)
{
    per_chunk(a->out, a->x, a->n, a->chunk, add, 0.0);
    for (uint32_t c = 0; (uint64_t)c * a->chunk < a->n; c++)
        a->out[c] = a->alpha * a->out[c];
}

void ref_sum_squares(const ref_sum_squares_args *a)
{
    per_chunk(a->out, a->x, a->n, a->chunk, add_square, 0.0);
}

void ref_max(const ref_max_args *a)
{
    per_chunk(a->out, a->x, a->n, a->chunk, larger, -INFINITY);
}

void ref_all_finite(const ref_all_finite_args *a)
{
    per_chunk(a->out, a->x, a->n, a->chunk, finite_and, 1.0);
}

void ref_sum_axis0(const ref_sum_axis0_args *args)
{
    float *out = args->out, *x = args->x;
    uint32_t rows = args->rows, cols = args->cols;
    for (uint32_t c = 0; c < cols; c++) {
        double acc = 0.0;
        for (uint32_t r = 0; r < rows; r++)
            acc += x[(size_t)r * cols + c];
        out[c] = (float)acc;
    }
}
