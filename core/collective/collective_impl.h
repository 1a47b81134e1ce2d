/* Internal: what the collective algorithms share. Every algorithm reduces into
 * scratch first (or in one pass that reads every input before it writes) and
 * writes the destinations last, so destinations may be the values themselves
 * (all-reduce). Plans are issued, not completed: see docs/modules/collective.md,
 * "Ordering rules". */
#ifndef TDM_CORE_COLLECTIVE_IMPL_H
#define TDM_CORE_COLLECTIVE_IMPL_H

#include "collective/collectives.h"
#include "device/device_impl.h"
#include "device/memory/peer_access.h"
#include "collective/ranks.h"

/* Scratch buffers of one call, from the devices' pools, returned together once the
 * plan is issued (scratch_pool.h says why that is safe). */
typedef struct coll_scratch {
    tdm_buffer **list;
    size_t used, capacity;
} coll_scratch;

/* The devices of one plan and the events around its in-place peer accesses. */
typedef struct coll_order {
    size_t n;
    tdm_device **dev;       /* every device of the values and destinations, once */
    tdm_event **ready;      /* [n]: recorded on first access, or given by the caller */
    unsigned char *given;   /* [n]: ready[i] is the caller's, not freed here */
    unsigned char *touched; /* [a * n + t]: dev[a] accessed dev[t]'s memory in place */
} coll_order;

/* One reduction: values in replica order, the result into every destination. */
typedef struct coll_job {
    const char *func; /* the public entry point, for messages */
    tdm_reduce_op op;
    tdm_dtype dtype; /* TDM_F32, or TDM_F16 (SUM and MEAN) */
    const tdm_buffer_view *values;
    size_t count;
    const tdm_buffer_view *dsts;
    size_t dst_count;
    int reduce_on; /* index of a value, or -1 */
    coll_scratch *scratch;
    coll_order *order;
    tdm_collective_algorithm algorithm; /* resolved options, for the plans that nest */
    tdm_ranks *ranks;                   /* other processes take part; NULL: none */
} coll_job;

/* collective_plan.c: runs the plan `algorithm` (AUTO: the devices' choice) on this
 * process's values of job. */
tdm_status coll_run_plan(const coll_job *job, tdm_collective_algorithm algorithm);
/* Whether every pair of the values' devices copies directly, both ways. */
int coll_all_copy_directly(const tdm_buffer_view *values, size_t count);
/* AUTO's choice for these values. */
tdm_collective_algorithm coll_choose(const tdm_buffer_view *values, size_t count);
/* Whether every value's device shares memory with the first's. */
int coll_all_share(const tdm_buffer_view *values, size_t count);
/* algorithms/across_ranks.c: the job across the ranks too (job->ranks with count > 1). */
tdm_status coll_ranks(const coll_job *job);

/* collective_checks.c: TDM_ERR_INVALID_ARGUMENT naming the argument. */
tdm_status coll_check_op(const char *func, tdm_reduce_op op);
tdm_status coll_check_values(const char *func, const char *name, const tdm_buffer_view *values,
                             size_t count);
tdm_status coll_check_dsts(const char *func, const tdm_buffer_view *dsts, size_t dst_count,
                           size_t size);
/* Fills *out with opts or the defaults. */
tdm_status coll_check_options(const char *func, const tdm_collective_options *opts, size_t count,
                              tdm_collective_options *out);

/* Each kind's checks and run behind tdm_collective_check and tdm_collective_run: the
 * reduction's in reduce.c, the others' checks in shard_checks.c, their runs in
 * all_gather.c, reduce_scatter.c and root_collectives.c. */
tdm_status coll_reduce_check(tdm_collective_call *call, const tdm_collective_options *opts);
tdm_status coll_reduce_run(const tdm_collective_call *call);
tdm_status coll_all_gather_check(tdm_collective_call *call, const tdm_collective_options *opts);
tdm_status coll_reduce_scatter_check(tdm_collective_call *call, const tdm_collective_options *opts);
tdm_status coll_root_reduce_check(tdm_collective_call *call, const tdm_collective_options *opts);
tdm_status coll_root_broadcast_check(tdm_collective_call *call, const tdm_collective_options *opts);
tdm_status coll_all_gather_run(const tdm_collective_call *call);
tdm_status coll_reduce_scatter_run(const tdm_collective_call *call);
tdm_status coll_root_reduce_run(const tdm_collective_call *call);
tdm_status coll_root_broadcast_run(const tdm_collective_call *call);

/* shard_checks.c: whether a plan applies to an all-gather (gather) or reduce-scatter
 * of these devices, whatever the size: TDM_ERR_UNSUPPORTED naming why not. */
tdm_status coll_check_shard_plan(const tdm_collective_call *call, int gather);
/* Whether the call spans several processes (opts.ranks of more than one). */
int coll_shard_across_ranks(const tdm_collective_call *call);
/* The sizes and in-place layout, for a job of `total` values of which this
 * process's first is number `first`. */
tdm_status coll_check_shard_sizes(const tdm_collective_call *call, int gather, size_t total,
                                  size_t first);
/* The pairs inputs[i], outputs[i] of reduce to the root and broadcast: one size, one
 * device, in place or apart; and the root among the job's `total` values. */
tdm_status coll_check_root_sizes(const tdm_collective_call *call, size_t total);
/* shard_ranks.c: a checked all-gather, reduce-scatter, reduce to the root or
 * broadcast across the ranks. */
tdm_status coll_all_gather_ranks(const tdm_collective_call *call);
tdm_status coll_reduce_scatter_ranks(const tdm_collective_call *call);
tdm_status coll_root_reduce_ranks(const tdm_collective_call *call);
tdm_status coll_root_broadcast_ranks(const tdm_collective_call *call);

/* collective_util.c */
static inline tdm_device *coll_dev(const tdm_buffer_view *v)
{
    return v->buffer->device;
}
tdm_buffer_view coll_slice(const tdm_buffer_view *v, size_t offset, size_t size);
/* Where the host reads and writes the view in place (CPU drivers, host-visible
 * memory), or NULL: only between events (docs/modules/collective.md, "Ordering rules"). */
unsigned char *coll_host_address(const tdm_buffer_view *v);

/* Part i of `parts` nearly equal parts of a tensor of `bytes`, cut on 64-byte
 * boundaries (whole cache lines and vector loads); trailing parts may be empty. */
typedef struct coll_part {
    size_t offset, size; /* bytes, multiples of 4 */
} coll_part;
coll_part coll_part_of(size_t bytes, size_t parts, size_t i);
tdm_status coll_scratch_view(coll_scratch *s, tdm_device *dev, size_t size, tdm_buffer_view *out);
void coll_scratch_release(coll_scratch *s);
/* Copies src to every destination but src itself (asynchronous, like tdm_buffer_copy). */
tdm_status coll_copy_to_all(const tdm_buffer_view *src, const tdm_buffer_view *dsts, size_t count);

/* collective_order.c: ready is NULL, or every value's ready event (the caller keeps
 * them); the others are recorded on first access. */
tdm_status coll_order_init(coll_order *o, const coll_job *job, tdm_event *const *ready);
void coll_order_free(coll_order *o);
/* Before a kernel on `by` reads or writes memory of `owner` in place. */
tdm_status coll_order_access(coll_order *o, tdm_device *by, tdm_device *owner);
/* Before the host reads or writes memory of dev in place: waits on the host for
 * dev's ready event. */
tdm_status coll_order_host_ready(coll_order *o, tdm_device *dev);
/* Once the plan is issued: every owner waits for its accessors' done events. */
tdm_status coll_order_settle(coll_order *o);

/* collective_fold.c: on dev, acc = in[0] op in[1] op ... in order with job's op and
 * dtype (every input readable by dev); then, for MEAN, acc *= 1 / count. */
tdm_status coll_fold(const coll_job *job, tdm_device *dev, const tdm_buffer_view *acc,
                     const tdm_buffer_view *in, size_t n);
tdm_status coll_finalize(const coll_job *job, tdm_device *dev, const tdm_buffer_view *acc,
                         size_t count);
/* On dev, every out[k] = op over in[0..n) in order (MEAN: then scaled by 1 / n), in
 * one pass where the kernels allow (outputs may be inputs), else through scratch.
 * dev reaches every view. */
tdm_status coll_fold_to(const coll_job *job, tdm_device *dev, const tdm_buffer_view *out,
                        size_t n_out, const tdm_buffer_view *in, size_t n);

/* The algorithms, one file each. */
tdm_status coll_one_device(const coll_job *job);
tdm_status coll_ring(const coll_job *job);
tdm_status coll_tree(const coll_job *job);
tdm_status coll_direct(const coll_job *job);
tdm_status coll_host(const coll_job *job);
/* algorithms/tree.c: the number of runs of consecutive values sharing memory. */
size_t coll_group_count(const tdm_buffer_view *values, size_t count);

#endif
