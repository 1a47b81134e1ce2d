/* The plan of one process's values: the algorithm asked for, or AUTO's choice by
 * which devices share memory. */
#include "base/error.h"
#include "collective/collective_impl.h"

int coll_all_share(const tdm_buffer_view *values, size_t count)
{
    for (size_t i = 1; i < count; i++)
        if (!tdm_device_shares_memory(coll_dev(&values[0]), coll_dev(&values[i])))
            return 0;
    return 1;
}

/* Whether every pair of the values' devices copies directly, both ways. */
int coll_all_copy_directly(const tdm_buffer_view *values, size_t count)
{
    for (size_t i = 0; i < count; i++)
        for (size_t j = 0; j < count; j++)
            if (!tdm_device_copies_directly(coll_dev(&values[i]), coll_dev(&values[j])))
                return 0;
    return 1;
}

/* From this size a CPU device's values fold faster on the host than in its kernels:
 * measured on two PoCL devices of one two-core machine, where both devices' workers
 * share the cores (docs/benchmarks/2026-11-29-fewer-launches.md): DIRECT ahead at
 * 256 KiB, level at 1 MiB, HOST 1.4-2x from 4 MiB. */
#define HOST_FOLDS_FROM ((size_t)2 << 20)

/* Whether every value is on a CPU device whose memory the host reaches. */
static int all_on_host_cpus(const tdm_buffer_view *values, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (coll_dev(&values[i])->desc.type != TDM_DEVICE_CPU || !coll_host_address(&values[i]))
            return 0;
    return 1;
}

/* AUTO: values of 2 MiB and more on CPU devices whose memory the host reaches fold on
 * the host, each worker's part in one pass. Otherwise, with shared memory everywhere,
 * the devices fold their parts in place (no copies at all). Where only some devices
 * share, they reduce locally first (fewer staged transfers). Where none share but
 * all copy directly (cards of one OpenCL context), the ring moves each slice once
 * between devices, never through the host. Otherwise the host folds while it stages:
 * each value crosses to the host once and back once, and not at all where the host
 * reaches it. */
tdm_collective_algorithm coll_choose(const tdm_buffer_view *values, size_t count)
{
    if (values[0].size >= HOST_FOLDS_FROM && all_on_host_cpus(values, count))
        return TDM_COLLECTIVE_HOST;
    if (coll_all_share(values, count))
        return TDM_COLLECTIVE_DIRECT;
    if (coll_group_count(values, count) < count)
        return TDM_COLLECTIVE_TREE;
    if (coll_all_copy_directly(values, count))
        return TDM_COLLECTIVE_RING;
    return TDM_COLLECTIVE_HOST;
}

tdm_status coll_run_plan(const coll_job *job, tdm_collective_algorithm algorithm)
{
    switch (algorithm) {
    case TDM_COLLECTIVE_AUTO: return coll_run_plan(job, coll_choose(job->values, job->count));
    case TDM_COLLECTIVE_ONE_DEVICE: return coll_one_device(job);
    case TDM_COLLECTIVE_RING: return coll_ring(job);
    case TDM_COLLECTIVE_TREE: return coll_tree(job);
    case TDM_COLLECTIVE_DIRECT: return coll_direct(job);
    case TDM_COLLECTIVE_HOST: return coll_host(job);
    }
    return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: no algorithm %d", job->func, (int)algorithm);
}
