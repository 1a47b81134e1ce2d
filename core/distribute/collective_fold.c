/* The reduction on one device with the table's exact kernels, in replica order. */
#include "collective_impl.h"

#define MAX_INPUTS 7 /* accumulate's inputs */

/* y = kernel(x[0], ..., x[n - 1]); u[1] is accumulate's input count. */
static tdm_status run(tdm_device *dev, tdm_kernel kernel, const tdm_buffer_view *y,
                      const tdm_buffer_view *x, size_t n, float alpha)
{
    tdm_kernel_call call = {.kernel = kernel};
    call.views[0] = *y;
    for (size_t i = 0; i < n; i++)
        call.views[1 + i] = x[i];
    call.u[0] = (uint32_t)(y->size / 4);
    call.u[1] = (uint32_t)n;
    call.f[0] = alpha;
    return tdm_kernel_run(dev, &call);
}

/* ((x0 + x1) + ...) in groups of up to 7 inputs, each group's partial entering the
 * next as its x0 (in place: every element is read before it is written). */
static tdm_status sum(tdm_device *dev, const tdm_buffer_view *acc, const tdm_buffer_view *in,
                      size_t n)
{
    tdm_buffer_view group[MAX_INPUTS];
    size_t done = n < MAX_INPUTS ? n : MAX_INPUTS;
    tdm_status s = run(dev, TDM_KERNEL_accumulate, acc, in, done, 0.0f);
    while (done < n && s == TDM_OK) {
        size_t k = n - done < MAX_INPUTS - 1 ? n - done : MAX_INPUTS - 1;
        group[0] = *acc;
        for (size_t i = 0; i < k; i++)
            group[1 + i] = in[done + i];
        s = run(dev, TDM_KERNEL_accumulate, acc, group, k + 1, 0.0f);
        done += k;
    }
    return s;
}

/* max(max(x0, x1), x2) ... pairwise (NaN wins), likewise min. */
static tdm_status extremum(tdm_device *dev, tdm_kernel kernel, const tdm_buffer_view *acc,
                           const tdm_buffer_view *in, size_t n)
{
    tdm_status s = run(dev, kernel, acc, in, 2, 0.0f);
    for (size_t i = 2; i < n && s == TDM_OK; i++) {
        tdm_buffer_view pair[2] = {*acc, in[i]};
        s = run(dev, kernel, acc, pair, 2, 0.0f);
    }
    return s;
}

tdm_status coll_fold(tdm_device *dev, tdm_reduce_op op, const tdm_buffer_view *acc,
                     const tdm_buffer_view *in, size_t n)
{
    if (n == 1)
        return run(dev, TDM_KERNEL_copy, acc, in, 1, 0.0f);
    if (op == TDM_REDUCE_MAX)
        return extremum(dev, TDM_KERNEL_maximum, acc, in, n);
    if (op == TDM_REDUCE_MIN)
        return extremum(dev, TDM_KERNEL_minimum, acc, in, n);
    return sum(dev, acc, in, n);
}

tdm_status coll_finalize(tdm_device *dev, tdm_reduce_op op, const tdm_buffer_view *acc,
                         size_t count)
{
    if (op != TDM_REDUCE_MEAN)
        return TDM_OK;
    /* 1/count rounded once to float: a host fold computes the same alpha. */
    return run(dev, TDM_KERNEL_scale, acc, acc, 1, (float)(1.0 / (double)count));
}
