/* Internal: checks shared by the public operations (ops.c, ops_layers.c,
 * ops_losses.c). */
#ifndef TDM_CORE_OPS_CHECK_H
#define TDM_CORE_OPS_CHECK_H

#include "kernel/kernel.h"
#include "tandem/tensor.h"

/* t is non-NULL, of dtype, on dev (dev NULL: any device); the message names func
 * and what (the argument). */
tdm_status tdm_ops_check(const char *func, const char *what, const tdm_tensor *t, tdm_dtype dtype,
                         const tdm_device *dev);

/* The dtype an activation tensor is stored in: TDM_F16 for f16, else TDM_F32 (which
 * the checks then demand). */
tdm_dtype tdm_ops_storage(const tdm_tensor *t);

/* t is a matrix (rank 2) of rows x cols; cols 0 accepts any column count. */
tdm_status tdm_ops_check_matrix(const char *func, const char *what, const tdm_tensor *t,
                                size_t rows, size_t cols);

/* t holds count elements. */
tdm_status tdm_ops_check_count(const char *func, const char *what, const tdm_tensor *t,
                               size_t count);

/* Runs the call on the device of its first view, naming func on failure. */
tdm_status tdm_ops_run(const char *func, const tdm_tensor *first, const tdm_kernel_call *call);

#endif
