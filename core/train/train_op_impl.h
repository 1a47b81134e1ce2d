/* Internal: the train op's struct, shared by its construction, its step and its
 * gradient handling. */
#ifndef TDM_TRAIN_OP_IMPL_H
#define TDM_TRAIN_OP_IMPL_H

#include "tandem/train.h"

/* One replica's flat buffer: every gradient side by side, then the loss, so that
 * one all-reduce sums them all. */
typedef struct tdm_train_replica {
    tdm_tensor *flat;       /* [total + 1] */
    tdm_tensor **grads;     /* slices of flat, one per variable, in its shape */
    tdm_tensor *all;        /* slice of flat: every gradient, [total] */
    tdm_tensor *loss;       /* slice of flat: its last element */
    tdm_tensor *scratch;    /* partial results of checks and norms */
    tdm_buffer_view *views; /* the gradients as views, for the optimizer */
} tdm_train_replica;

struct tdm_train_op {
    tdm_strategy *strategy;
    tdm_train_op_options opts;
    tdm_variable **vars;
    size_t var_count;
    size_t total; /* gradient elements over every variable */
    size_t scratch_count;
    int resync; /* transforms on devices that round differently:
                   replica 0's update is copied to the others */
    tdm_train_replica *replicas;
    uint64_t global_step;
    const tdm_distributed_batch *batch; /* during a step */
    double loss;                        /* the step's, read by replica 0 */
    tdm_gradient_summary *summaries;    /* [var_count], when asked for */
    int have_summaries;
};

/* After the all-reduce, on every replica: TDM_ERR_NUMERIC naming the loss or the
 * first variable whose gradient holds a NaN or an infinity. */
tdm_status tdm_train_check_numerics(tdm_train_op *op, tdm_train_replica *r);

/* Clipping and the user's transform, on every replica. */
tdm_status tdm_train_transform(tdm_train_op *op, tdm_replica_context *rc, tdm_train_replica *r);

/* Replica 0: each variable's gradient norm and histogram, from a host copy. */
tdm_status tdm_train_summarize(tdm_train_op *op, tdm_train_replica *r);

/* Calls fn on every trained variable and each of its slots, in a fixed order. */
typedef tdm_status (*tdm_train_var_fn)(void *ctx, tdm_variable *var);
tdm_status tdm_train_each_variable(const tdm_train_op *op, tdm_train_var_fn fn, void *ctx);

/* Cross-replica, after a step with a clipping norm or a transform computed on
 * devices that round differently: copies replica 0's variables and slots to the
 * other replicas, so the copies stay bitwise identical. */
tdm_status tdm_train_resync(tdm_train_op *op);

#endif
