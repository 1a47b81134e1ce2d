/* Internal: pieces the cross-device operations and Strategy.reduce share. */
#ifndef TDM_CORE_CROSS_DEVICE_H
#define TDM_CORE_CROSS_DEVICE_H

#include "distribute/strategy_impl.h"

tdm_status xd_check_op(tdm_reduce_op op, const char *func);

/* SUM of a plain value over more than one replica is an error. */
tdm_status xd_check_plain(const tdm_strategy *s, tdm_reduce_op op, const tdm_value *v,
                          const char *func);

/* Reduces v's f32 components onto fresh tensors on the n devices (*out, n long). */
tdm_status xd_reduce_onto(tdm_strategy *s, tdm_reduce_op op, const tdm_value *v,
                          tdm_device *const *devs, size_t n, const char *func, tdm_tensor ***out);

/* Wraps n tensors (and the array) into a MIRRORED value; on failure releases them. */
tdm_status xd_mirrored(tdm_tensor **t, size_t n, const char *func, tdm_value **out);

/* Views of n tensors, in a malloc'ed array. */
tdm_status xd_views(tdm_tensor *const *t, size_t n, const char *func, tdm_buffer_view **out);

/* Releases n tensors and the array. */
void xd_destroy_tensors(tdm_tensor **t, size_t n);

#endif
