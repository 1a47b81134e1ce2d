/* Internal: helpers shared by the variable sources (variable*.c). */
#ifndef TDM_CORE_VARIABLE_IMPL_H
#define TDM_CORE_VARIABLE_IMPL_H

#include "distribute/strategy_impl.h"

/* Whether the variable is distributed in TensorFlow's sense (a MirroredVariable or
 * SyncOnReadVariable of a mirrored strategy), so that an aggregation of NONE cannot
 * combine replicas' writes or copies. One-device and default strategies hold plain
 * variables, for which writes and reads need no aggregation. */
int tdm_variable_distributed(const tdm_variable *var);

/* The bytes of one copy: its elements times its dtype's size. */
size_t tdm_variable_bytes(const tdm_variable *var);

/* TDM_ERR_INVALID_ARGUMENT: func writes float32 variables; int64 ones take
 * tdm_variable_assign_int64. */
tdm_status tdm_variable_int64_only(const tdm_variable *var, const char *func);

/* "assign", "assign_add", "assign_sub". */
const char *tdm_assign_op_name(tdm_assign_op op);

/* Verifies that the copies are bitwise identical; TDM_ERR_INVALID_STATE names func,
 * the variable, the first copy and element that differ and both values. */
tdm_status tdm_variable_check_copies(const tdm_variable *var, const char *func);

#endif
