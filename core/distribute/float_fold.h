/* Internal: the host's fold of float values, with the kernels' arithmetic (accumulate,
 * maximum, minimum), so that a host fold gives the bits a device plan gives. Header
 * only: the MPI transport plugin folds with it too. */
#ifndef TDM_CORE_FLOAT_FOLD_H
#define TDM_CORE_FLOAT_FOLD_H

#include <math.h>
#include <stddef.h>

#include "tandem/strategy.h" /* tdm_reduce_op */

typedef enum tdm_fold_op { TDM_FOLD_SUM, TDM_FOLD_MAX, TDM_FOLD_MIN } tdm_fold_op;

/* MEAN folds as SUM; the caller divides once at the end. */
static inline tdm_fold_op tdm_fold_op_of(tdm_reduce_op op)
{
    return op == TDM_REDUCE_MAX ? TDM_FOLD_MAX : op == TDM_REDUCE_MIN ? TDM_FOLD_MIN : TDM_FOLD_SUM;
}

/* The loop after it has no dependence between iterations (inlining loses
 * restrict). */
#if defined(__GNUC__) && !defined(__clang__)
#define TDM_INDEPENDENT_ITERATIONS _Pragma("GCC ivdep")
#else
#define TDM_INDEPENDENT_ITERATIONS
#endif

/* The sums go in blocks of a fixed count, which GCC 12 vectorises at -O2 (its
 * cheapest cost model takes no loop that would need a scalar remainder), then the
 * remainder one by one. */
#define TDM_FOLD_BLOCK 16

/* acc[i] becomes earlier op later, where the earlier value is x[i] when x_earlier,
 * else acc[i]; NaN wins MAX and MIN. The operands keep their order, so that even a
 * NaN's payload is the kernels'. */
static inline void tdm_fold_floats(tdm_fold_op op, float *restrict acc, const float *restrict x,
                                   size_t n, int x_earlier)
{
    if (op == TDM_FOLD_SUM) {
        size_t i = 0;
        for (; i + TDM_FOLD_BLOCK <= n; i += TDM_FOLD_BLOCK) {
            if (x_earlier) {
                TDM_INDEPENDENT_ITERATIONS
                for (size_t j = 0; j < TDM_FOLD_BLOCK; j++)
                    acc[i + j] = x[i + j] + acc[i + j];
            } else {
                TDM_INDEPENDENT_ITERATIONS
                for (size_t j = 0; j < TDM_FOLD_BLOCK; j++)
                    acc[i + j] = acc[i + j] + x[i + j];
            }
        }
        for (; i < n; i++)
            acc[i] = x_earlier ? x[i] + acc[i] : acc[i] + x[i];
    } else {
        for (size_t i = 0; i < n; i++) {
            float e = x_earlier ? x[i] : acc[i], l = x_earlier ? acc[i] : x[i];
            int later_wins = op == TDM_FOLD_MAX ? l > e : l < e;
            acc[i] = isnan(e) || isnan(l) ? NAN : (later_wins ? l : e);
        }
    }
}

#endif
