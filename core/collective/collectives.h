/* Internal: cross-device collectives over one float32 tensor per device, the data
 * plane of the distribution strategies (TensorFlow's CrossDeviceOps), or one float16
 * tensor per device for SUM and MEAN (the options' dtype), each partial sum rounded
 * to float16 as it is handed on, in every algorithm alike.
 *
 * Determinism: every algorithm reduces each element as ((v0 op v1) op v2) ... in the
 * order of the values given (replica order), with the table's exact kernels
 * (accumulate, maximum, minimum, scale), so for a fixed replica count every
 * algorithm returns the same bits, and so does a host fold of the same order in float.
 * Algorithms differ only in where data moves and where the sums are computed. The
 * strategies (strategy.h) are their public face. */
#ifndef TDM_CORE_COLLECTIVES_H
#define TDM_CORE_COLLECTIVES_H

#include "kernel/kernel.h"
#include "tandem/strategy.h" /* tdm_reduce_op, tdm_collective_algorithm */
#include "tandem/tensor.h"   /* tdm_dtype */

typedef struct tdm_collective_options {
    size_t size;                        /* sizeof(tdm_collective_options) */
    tdm_collective_algorithm algorithm; /* default AUTO */
    int reduce_on;                      /* ONE_DEVICE: index of the value whose device
                                           reduces; -1 (default): the first */
    struct tdm_ranks *ranks;            /* a multi-worker job's processes: the values of
                                           every rank are reduced together; NULL: this
                                           process alone */
    tdm_dtype dtype;                    /* of the values: TDM_F32 (default), or TDM_F16
                                           for SUM and MEAN (pairs of halves: sizes stay
                                           multiples of 4 bytes) */
} tdm_collective_options;

#define TDM_COLLECTIVE_OPTIONS_INIT                                                                \
    {                                                                                              \
        .size = sizeof(tdm_collective_options), .algorithm = TDM_COLLECTIVE_AUTO, .reduce_on = -1  \
    }

/* What a collective call does (the shapes of inputs and outputs: the functions
 * below that make each kind). */
typedef enum tdm_collective_kind {
    TDM_COLL_REDUCE,         /* every output receives op over the inputs: an all-reduce
                                when the outputs are the inputs (tdm_all_reduce,
                                tdm_reduce_to) */
    TDM_COLL_ALL_GATHER,     /* tdm_all_gather */
    TDM_COLL_REDUCE_SCATTER, /* tdm_reduce_scatter */
    TDM_COLL_ROOT_REDUCE,    /* reduce to the root */
    TDM_COLL_ROOT_BROADCAST  /* broadcast from the root */
} tdm_collective_kind;

/* One collective, whatever its kind: checked once by tdm_collective_check and then
 * run by tdm_collective_run, which checks nothing again (as NCCL's ncclEnqueueCheck
 * before its launch), or both by tdm_collective. A caller that checks its own
 * arguments (a strategy, a batch) names itself in every message, as the function the
 * user called. */
typedef struct tdm_collective_call {
    tdm_collective_kind kind;
    const char *func;              /* the function the user called, for messages */
    tdm_reduce_op op;              /* all but all-gather and broadcast */
    const tdm_buffer_view *inputs; /* count >= 1, one per device, in replica order */
    size_t count;
    const tdm_buffer_view *outputs; /* REDUCE: output_count >= 1 on any devices; the
                                       others: count, outputs[i] on inputs[i]'s device */
    size_t output_count;            /* REDUCE alone */
    size_t root;                    /* ROOT_*: the job's index of the root */
    tdm_event *const *ready;        /* NULL, or each input's ready event (the caller keeps
                                       them): in-place accesses wait for these instead of
                                       events recorded now */
    tdm_collective_options opts;    /* resolved by tdm_collective_check */
} tdm_collective_call;

/* Checks every argument of call, naming call->func, and resolves opts (NULL: the
 * defaults) into call->opts. Across processes (opts->ranks of several ranks) the
 * shard and root kinds' sizes are checked by the run, once the ranks have told each
 * other their counts of values. */
tdm_status tdm_collective_check(tdm_collective_call *call, const tdm_collective_options *opts);

/* Runs a checked call by the path its kind, options and devices give. Returns once
 * the plan is issued (see tdm_all_reduce). */
tdm_status tdm_collective_run(const tdm_collective_call *call);

/* Checks and runs: the one entry of every collective. */
tdm_status tdm_collective(tdm_collective_call *call, const tdm_collective_options *opts);

/* TDM_ERR_UNSUPPORTED naming func for a float16 MAX or MIN. */
tdm_status tdm_collective_check_dtype(const char *func, tdm_reduce_op op, tdm_dtype dtype);

/* Every values[i] (count >= 1 views of equal size, a multiple of 4 bytes, each on a
 * different device) receives op over all of them. Returns once the plan is issued:
 * every device's later work, and blocking reads, see the result. An algorithm the devices cannot
 * use (DIRECT without shared memory) is TDM_ERR_UNSUPPORTED naming the devices. */
tdm_status tdm_all_reduce(tdm_reduce_op op, const tdm_buffer_view *values, size_t count,
                          const tdm_collective_options *opts);

/* Whether an all-reduce of these values blocks the calling thread (staged
 * transfers, host folds): their devices do not all share memory. */
int tdm_all_reduce_blocks(const tdm_buffer_view *values, size_t count,
                          const tdm_collective_options *opts);

/* Reduces values to every destination view (dst_count >= 1: an empty destination set
 * is TDM_ERR_INVALID_ARGUMENT); MEAN divides by count, the number of contributed
 * values. Destinations may be on any devices, those of the values or others. */
tdm_status tdm_reduce_to(tdm_reduce_op op, const tdm_buffer_view *values, size_t count,
                         const tdm_buffer_view *dsts, size_t dst_count,
                         const tdm_collective_options *opts);

/* Copies src to every destination (dst_count >= 1). */
tdm_status tdm_broadcast(const tdm_buffer_view *src, const tdm_buffer_view *dsts, size_t dst_count);

/* How a batch of tensors is packed into fewer, larger all-reduces. */
typedef struct tdm_packing {
    size_t size;           /* sizeof(tdm_packing) */
    size_t num_packs;      /* > 0: the concatenated tensors are split into this many
                              packs of nearly equal size (tensors are not cut) */
    size_t bytes_per_pack; /* with num_packs 0: greedy packs, a new one starting when the
                              current would pass this bound; 0: one pack for all */
} tdm_packing;

#define TDM_PACKING_INIT                                                                           \
    {                                                                                              \
        .size = sizeof(tdm_packing)                                                                \
    }

/* All-reduces `tensors` tensors at once: values[t * count + i] is tensor t on device
 * i (the same device i for every t). Tensors are packed (packing may be NULL: one
 * tensor per all-reduce), each pack concatenated into scratch on every device,
 * all-reduced with opts, and copied back; the results are those tdm_all_reduce gives
 * each tensor alone. */
tdm_status tdm_batch_all_reduce(tdm_reduce_op op, const tdm_buffer_view *values, size_t tensors,
                                size_t count, const tdm_packing *packing,
                                const tdm_collective_options *opts);

/* All-gather and reduce-scatter over one tensor per device (docs/modules/collective.md,
 * "All-gather and reduce-scatter"). Every replica i contributes inputs[i]:
 *   all-gather:     inputs[i] is N bytes; every outputs[j] (count * N bytes) receives
 *                   inputs[0], inputs[1], ... concatenated in replica order;
 *   reduce-scatter: inputs[i] is count * N bytes; outputs[i] (N bytes) receives
 *                   shard i, op over bytes [i * N, (i + 1) * N) of every input, folded
 *                   in replica order: the bits of slice i of the all-reduce.
 * outputs[i] is on inputs[i]'s device. In place: all-gather's inputs[i] is slice i
 * of outputs[i], reduce-scatter's outputs[i] slice i of inputs[i]; any other
 * overlap is refused. Sizes that do not divide evenly are refused (the caller pads):
 * N is a multiple of 4 bytes (float16: an even number of halves). */
tdm_status tdm_all_gather(const tdm_buffer_view *inputs, const tdm_buffer_view *outputs,
                          size_t count, const tdm_collective_options *opts);
tdm_status tdm_reduce_scatter(tdm_reduce_op op, const tdm_buffer_view *inputs,
                              const tdm_buffer_view *outputs, size_t count,
                              const tdm_collective_options *opts);

/* Reduce to the root and broadcast from it over one tensor per replica, as a
 * call whose inputs[i] and outputs[i] are of one size on one device
 * (docs/modules/collective.md, "Reduce to the root and broadcast"), kinds ROOT_REDUCE
 * and ROOT_BROADCAST of tdm_collective_call:
 *   reduce:    outputs[root] receives op over every input folded in replica order,
 *              the bits of the all-reduce; no other output is written;
 *   broadcast: every outputs[j] receives inputs[root]'s bytes.
 * In place: outputs[i] is inputs[i]; any other overlap is refused. root indexes the
 * job's values: across processes, rank order, then each rank's own. Checks as the
 * shard calls'; a root past the job's values is refused (across processes, by the
 * run, once the ranks have told each other their counts). */

#endif
