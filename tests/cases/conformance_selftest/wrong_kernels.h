/* The conformance self-test's wrong kernels: each a realistic bug in one kernel of
 * the table, run on the host over the reference's argument unpacking. */
#ifndef TDM_TEST_WRONG_KERNELS_H
#define TDM_TEST_WRONG_KERNELS_H

#include <stddef.h>

#include "kernel/kernel.h"

typedef struct wrong_kernel {
    tdm_kernel kernel;
    void (*wrong)(const tdm_launch *);
} wrong_kernel;

/* Wrong formulas: the checker must fail each. */
extern const wrong_kernel wrong_kernels[];
extern const size_t wrong_kernel_count;
/* Kernels that are wrong only in a case or two: each must fail exactly there. */
extern const wrong_kernel subtle_kernels[];
extern const size_t subtle_kernel_count;
/* Derivatives a reference could share with a backend, forward kernels right: each
 * must fail its gradient check. */
extern const wrong_kernel wrong_derivatives[];
extern const size_t wrong_derivative_count;
/* copy writing one element before or after its view of y. */
void copy_underrun(const tdm_launch *l);
void copy_overrun(const tdm_launch *l);

#endif
