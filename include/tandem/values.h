/* tandem: distributed values, one tensor per replica (TensorFlow's PerReplica and
 * Mirrored), and plain values (one tensor, not distributed). */
#ifndef TANDEM_VALUES_H
#define TANDEM_VALUES_H

#include "tandem/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tdm_value tdm_value;

typedef enum tdm_value_kind {
    TDM_VALUE_PLAIN,       /* one tensor, the same for every replica that uses it */
    TDM_VALUE_PER_REPLICA, /* one tensor per replica, each its own */
    TDM_VALUE_MIRRORED     /* one tensor per device, all holding the same values */
} tdm_value_kind;

/* Makes a value of `count` tensors (PLAIN: exactly one), which it takes over: they
 * are released with the value. The components share one dtype and lie on distinct
 * devices; MIRRORED components also share one shape. On failure the caller keeps
 * the tensors. */
TDM_API tdm_status tdm_value_create(tdm_value_kind kind, tdm_tensor *const *components,
                                    size_t count, tdm_value **out);

/* Releases the value and its tensors. NULL-safe. */
TDM_API void tdm_value_destroy(tdm_value *value);

TDM_API tdm_value_kind tdm_value_kind_of(const tdm_value *value);
TDM_API size_t tdm_value_count(const tdm_value *value);
/* Component i (0 <= i < count), or NULL; owned by the value. */
TDM_API tdm_tensor *tdm_value_component(const tdm_value *value, size_t i);

/* TensorFlow's experimental_local_results: the value's components in replica order
 * (a plain value gives a one-element tuple). Stores min(count, capacity) tensors,
 * owned by the value, in out and the count in *count. */
TDM_API tdm_status tdm_local_results(const tdm_value *value, tdm_tensor **out, size_t capacity,
                                     size_t *count);

#ifdef __cplusplus
}
#endif
#endif
