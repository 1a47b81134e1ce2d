/* Internal to the reference backend: one C function per kernel of kernels.def,
 * written for obvious correctness. Sums, dot products and single roundings that
 * decide a tolerance (axpy, sgd, sigmoid, gelu, softmax_xent, softmax_xent_soft,
 * sigmoid_xent, gemm) are computed in double and rounded once; chains of updates (the
 * optimizers, tanh and sigmoid gradients, mse, mae, huber) follow their formula in
 * float, as a device does, so that float overflow in intermediate results behaves the
 * same. */
#ifndef TDM_REF_KERNELS_H
#define TDM_REF_KERNELS_H

#include <stdint.h>

#include "device/backend_api.h"
#include "ref_args.h"

#define TDM_KERNEL(name, ...) void ref_##name(const ref_##name##_args *args);
#include "kernel/kernels.def"
#undef TDM_KERNEL

/* Random123's philox4x32 with 10 rounds (ref_philox.c). */
void ref_philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]);

#endif
