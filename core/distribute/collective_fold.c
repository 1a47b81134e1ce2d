/* The reduction on one device with the table's exact kernels, in replica order. */
#include "collective_impl.h"

#define MAX_INPUTS 7      /* accumulate's inputs */
#define MAX_PAIR_INPUTS 6 /* accumulate_pair's */

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

/* The scale MEAN applies: 1/count rounded once to float, as coll_finalize does. */
static float mean_alpha(tdm_reduce_op op, size_t count)
{
    return op == TDM_REDUCE_MEAN ? (float)(1.0 / (double)count) : 1.0f;
}

/* out[0] = out[1] = alpha * sum(in): one pass that reads every input first. */
static tdm_status sum_pair(tdm_device *dev, const tdm_buffer_view *y0, const tdm_buffer_view *y1,
                           const tdm_buffer_view *in, size_t n, float alpha)
{
    tdm_kernel_call call = {.kernel = TDM_KERNEL_accumulate_pair};
    call.views[0] = *y0;
    call.views[1] = *y1;
    for (size_t i = 0; i < n; i++)
        call.views[2 + i] = in[i];
    call.u[0] = (uint32_t)(y0->size / 4);
    call.u[1] = (uint32_t)n;
    call.f[0] = alpha;
    return tdm_kernel_run(dev, &call);
}

tdm_status coll_fold_to(const coll_job *job, tdm_device *dev, const tdm_buffer_view *out,
                        size_t n_out, const tdm_buffer_view *in, size_t n)
{
    tdm_buffer_view first = out[0];
    tdm_status s = TDM_OK;
    int one_pass = job->op != TDM_REDUCE_MAX && job->op != TDM_REDUCE_MIN && n >= 2 &&
                   n <= MAX_PAIR_INPUTS && tdm_kernel_supported(dev, TDM_KERNEL_accumulate_pair);
    if (one_pass) {
        s = sum_pair(dev, &out[0], n_out > 1 ? &out[1] : &out[0], in, n, mean_alpha(job->op, n));
    } else {
        /* Several kernels in turn: the partials must not overwrite an input. */
        s = coll_scratch_view(job->scratch, dev, out[0].size, &first);
        if (s == TDM_OK)
            s = coll_fold(dev, job->op, &first, in, n);
        if (s == TDM_OK)
            s = coll_finalize(dev, job->op, &first, n);
    }
    /* Further outputs copy a finished one, never an input another pass still reads. */
    for (size_t k = one_pass ? 2 : 0; k < n_out && s == TDM_OK; k++)
        s = run(dev, TDM_KERNEL_copy, &out[k], &first, 1, 0.0f);
    return s;
}
