/* The reduction on one device with the table's exact kernels, in replica order:
 * float32 values with accumulate, maximum and minimum; float16 values with
 * accumulate_f16, whose rounding of every partial sum is what a plan that hands
 * partials on between devices does, so every algorithm gives the same bits. */
#include "collective/collective_impl.h"
#include "kernel/kernel_args.h"

#define MAX_INPUTS 7      /* accumulate's inputs */
#define MAX_PAIR_INPUTS 6 /* accumulate_pair's */

static uint32_t floats_in(const tdm_buffer_view *v)
{
    return (uint32_t)(v->size / sizeof(float));
}

static tdm_status copy(tdm_device *dev, const tdm_buffer_view *y, const tdm_buffer_view *x)
{
    const tdm_copy_args a = {.y = *y, .x = *x, .n = floats_in(y)};
    return tdm_copy_run(dev, &a);
}

/* y = ((x[0] + x[1]) + ...) + x[n - 1], 2 <= n <= MAX_INPUTS. */
static tdm_status accumulate(tdm_device *dev, const tdm_buffer_view *y, const tdm_buffer_view *x,
                             size_t n)
{
    tdm_accumulate_args a = {
        .y = *y, .x0 = x[0], .x1 = x[1], .n = floats_in(y), .inputs = (uint32_t)n};
    tdm_buffer_view *optional[] = {&a.x2, &a.x3, &a.x4, &a.x5, &a.x6};
    for (size_t i = 2; i < n; i++)
        *optional[i - 2] = x[i];
    return tdm_accumulate_run(dev, &a);
}

/* y = half(alpha * (((x[0] + x[1]) + ...) + x[n - 1])), each partial rounded to
 * float16, 1 <= n <= MAX_INPUTS. */
static tdm_status accumulate_halves(tdm_device *dev, const tdm_buffer_view *y,
                                    const tdm_buffer_view *x, size_t n, float alpha)
{
    tdm_accumulate_f16_args a = {
        .y = *y, .x0 = x[0], .n = (uint32_t)(y->size / 2), .inputs = (uint32_t)n, .alpha = alpha};
    tdm_buffer_view *optional[] = {&a.x1, &a.x2, &a.x3, &a.x4, &a.x5, &a.x6};
    for (size_t i = 1; i < n; i++)
        *optional[i - 1] = x[i];
    return tdm_accumulate_f16_run(dev, &a);
}

/* z = max(x, y) or min(x, y), element-wise. */
typedef tdm_status (*pairwise_fn)(tdm_device *dev, const tdm_buffer_view *z,
                                  const tdm_buffer_view *x, const tdm_buffer_view *y);

static tdm_status maximum(tdm_device *dev, const tdm_buffer_view *z, const tdm_buffer_view *x,
                          const tdm_buffer_view *y)
{
    const tdm_maximum_args a = {.z = *z, .x = *x, .y = *y, .n = floats_in(z)};
    return tdm_maximum_run(dev, &a);
}

static tdm_status minimum(tdm_device *dev, const tdm_buffer_view *z, const tdm_buffer_view *x,
                          const tdm_buffer_view *y)
{
    const tdm_minimum_args a = {.z = *z, .x = *x, .y = *y, .n = floats_in(z)};
    return tdm_minimum_run(dev, &a);
}

/* One group's sum, with the kernel of the dtype. */
static tdm_status accumulate_as(tdm_device *dev, tdm_dtype dtype, const tdm_buffer_view *y,
                                const tdm_buffer_view *x, size_t n)
{
    return dtype == TDM_F16 ? accumulate_halves(dev, y, x, n, 1.0f) : accumulate(dev, y, x, n);
}

/* ((x0 + x1) + ...) in groups of up to 7 inputs, each group's partial entering the
 * next as its x0 (in place: every element is read before it is written). */
static tdm_status sum(tdm_device *dev, tdm_dtype dtype, const tdm_buffer_view *acc,
                      const tdm_buffer_view *in, size_t n)
{
    tdm_buffer_view group[MAX_INPUTS];
    size_t done = n < MAX_INPUTS ? n : MAX_INPUTS;
    tdm_status s = accumulate_as(dev, dtype, acc, in, done);
    while (done < n && s == TDM_OK) {
        size_t k = n - done < MAX_INPUTS - 1 ? n - done : MAX_INPUTS - 1;
        group[0] = *acc;
        for (size_t i = 0; i < k; i++)
            group[1 + i] = in[done + i];
        s = accumulate_as(dev, dtype, acc, group, k + 1);
        done += k;
    }
    return s;
}

/* max(max(x0, x1), x2) ... pairwise (NaN wins), likewise min. */
static tdm_status extremum(tdm_device *dev, pairwise_fn pairwise, const tdm_buffer_view *acc,
                           const tdm_buffer_view *in, size_t n)
{
    tdm_status s = pairwise(dev, acc, &in[0], &in[1]);
    for (size_t i = 2; i < n && s == TDM_OK; i++)
        s = pairwise(dev, acc, acc, &in[i]);
    return s;
}

tdm_status coll_fold(const coll_job *job, tdm_device *dev, const tdm_buffer_view *acc,
                     const tdm_buffer_view *in, size_t n)
{
    if (n == 1)
        return copy(dev, acc, in); /* bits, whatever the dtype */
    if (job->op == TDM_REDUCE_MAX)
        return extremum(dev, maximum, acc, in, n);
    if (job->op == TDM_REDUCE_MIN)
        return extremum(dev, minimum, acc, in, n);
    return sum(dev, job->dtype, acc, in, n);
}

tdm_status coll_finalize(const coll_job *job, tdm_device *dev, const tdm_buffer_view *acc,
                         size_t count)
{
    if (job->op != TDM_REDUCE_MEAN)
        return TDM_OK;
    /* 1/count rounded once to float: a host fold computes the same alpha. */
    const float alpha = (float)(1.0 / (double)count);
    if (job->dtype == TDM_F16)
        return accumulate_halves(dev, acc, acc, 1, alpha);
    const tdm_scale_args a = {.y = *acc, .x = *acc, .n = floats_in(acc), .alpha = alpha};
    return tdm_scale_run(dev, &a);
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
    tdm_accumulate_pair_args a = {.y0 = *y0,
                                  .y1 = *y1,
                                  .x0 = in[0],
                                  .x1 = in[1],
                                  .n = floats_in(y0),
                                  .inputs = (uint32_t)n,
                                  .alpha = alpha};
    tdm_buffer_view *optional[] = {&a.x2, &a.x3, &a.x4, &a.x5};
    for (size_t i = 2; i < n; i++)
        *optional[i - 2] = in[i];
    return tdm_accumulate_pair_run(dev, &a);
}

tdm_status coll_fold_to(const coll_job *job, tdm_device *dev, const tdm_buffer_view *out,
                        size_t n_out, const tdm_buffer_view *in, size_t n)
{
    tdm_buffer_view first = out[0];
    tdm_status s = TDM_OK;
    int one_pass = job->op != TDM_REDUCE_MAX && job->op != TDM_REDUCE_MIN &&
                   job->dtype == TDM_F32 && n >= 2 && n <= MAX_PAIR_INPUTS &&
                   tdm_kernel_supported(dev, TDM_KERNEL_accumulate_pair);
    if (one_pass) {
        s = sum_pair(dev, &out[0], n_out > 1 ? &out[1] : &out[0], in, n, mean_alpha(job->op, n));
    } else {
        /* Several kernels in turn: the partials must not overwrite an input. */
        s = coll_scratch_view(job->scratch, dev, out[0].size, &first);
        if (s == TDM_OK)
            s = coll_fold(job, dev, &first, in, n);
        if (s == TDM_OK)
            s = coll_finalize(job, dev, &first, n);
    }
    /* Further outputs copy a finished one, never an input another pass still reads. */
    for (size_t k = one_pass ? 2 : 0; k < n_out && s == TDM_OK; k++)
        s = copy(dev, &out[k], &first);
    return s;
}
