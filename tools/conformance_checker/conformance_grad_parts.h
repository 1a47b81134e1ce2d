/* Internal to the gradient checks: what their parts share (conformance_grad_checks.c)
 * and the builders each part gives the table. */
#ifndef TDM_CONFORMANCE_GRAD_PARTS_H
#define TDM_CONFORMANCE_GRAD_PARTS_H

#include "conformance_grad_problem.h"

/* The table's case counts of the image checks and of global pooling (their parts'
 * lists, held to these). */
#define GRAD_IMAGE_CASES 4
#define GRAD_GLOBAL_CASES 3

/* A call with random data on the finite-difference grid (labels in range). */
tdm_status grad_make_call(conf_case *c, conf_buffers *b, tdm_kernel kernel, const uint32_t *u,
                          const float *f, unsigned seed);

/* Copies buffer from_buffer of `from` into buffer to_buffer of `to`. */
void grad_copy_view(conf_buffers *to, unsigned to_buffer, const conf_buffers *from,
                    unsigned from_buffer);

/* The loss weighs output o by values[o], or by `constant` where values is NULL. */
tdm_status grad_weigh(grad_problem *p, const float *values, float constant);

/* Every input in one round. */
size_t grad_one_round(const grad_problem *p, size_t j);

/* Rows of fwd.u[1] columns, a round moving one column: input j's round is its column. */
size_t grad_column_round(const grad_problem *p, size_t j);

tdm_status grad_build_attention(tdm_device *dev, const grad_check *g, size_t index,
                                grad_problem *p);
tdm_status grad_build_avg_pool(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p);
tdm_status grad_build_batch_norm(tdm_device *dev, const grad_check *g, size_t index,
                                 grad_problem *p);
tdm_status grad_build_conv_f(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p);
tdm_status grad_build_conv_x(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p);
tdm_status grad_build_gather(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p);
tdm_status grad_build_gemm_a(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p);
tdm_status grad_build_gemm_b(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p);
tdm_status grad_build_global_pool(tdm_device *dev, const grad_check *g, size_t index,
                                  grad_problem *p);
tdm_status grad_build_im2col(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p);
tdm_status grad_build_layer_norm(tdm_device *dev, const grad_check *g, size_t index,
                                 grad_problem *p);
tdm_status grad_build_max_pool(tdm_device *dev, const grad_check *g, size_t index, grad_problem *p);

#endif
