/* How each global batch is split across the replicas: evenly by default (the first
 * count % N replicas get one more row, TensorFlow's rule), or in proportion to
 * shares set by the user or by the train op's balancing. */
#include <math.h>
#include <stdlib.h>

#include "base/error.h"
#include "collective/ranks.h"
#include "distribute/strategy_impl.h"

tdm_status tdm_strategy_set_batch_shares(tdm_strategy *s, const double *shares, size_t count)
{
    static const char func[] = "tdm_strategy_set_batch_shares";
    TDM_CHECK_ARG(s, func);
    TDM_CHECK_ARG(shares, func);
    if (s->global_replicas != s->replica_count)
        return tdm_fail(TDM_ERR_UNSUPPORTED,
                        "%s: shares split a batch within one process; a multi-worker job splits "
                        "it evenly over its workers",
                        func);
    if (count != s->replica_count)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: %zu shares for %zu replicas", func, count,
                        s->replica_count);
    double sum = 0.0;
    for (size_t i = 0; i < count; i++) {
        if (!(shares[i] >= 0.0) || isinf(shares[i]))
            return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                            "%s: shares[%zu] is %g; shares must be finite and >= 0", func, i,
                            shares[i]);
        sum += shares[i];
    }
    if (!(sum > 0.0))
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: every share is 0", func);
    double *copy = malloc(count * sizeof *copy);
    if (!copy)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    for (size_t i = 0; i < count; i++)
        copy[i] = shares[i] / sum;
    tdm_mutex_lock(&s->lock);
    free(s->shares);
    s->shares = copy;
    tdm_mutex_unlock(&s->lock);
    return TDM_OK;
}

tdm_status tdm_strategy_batch_shares(tdm_strategy *s, double *shares, size_t count)
{
    static const char func[] = "tdm_strategy_batch_shares";
    TDM_CHECK_ARG(s, func);
    TDM_CHECK_ARG(shares, func);
    if (count != s->replica_count)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT, "%s: room for %zu shares, %zu replicas", func,
                        count, s->replica_count);
    tdm_mutex_lock(&s->lock);
    for (size_t i = 0; i < count; i++)
        shares[i] = s->shares ? s->shares[i] : 1.0 / (double)count;
    tdm_mutex_unlock(&s->lock);
    return TDM_OK;
}

/* Largest remainders: the rows floor(count * share) leave over go one each to the
 * replicas with the largest fractional parts, the lower replica first on a tie. */
static void split_by_shares(const double *shares, size_t n, size_t count, size_t *rows)
{
    size_t given = 0;
    for (size_t i = 0; i < n; i++) {
        rows[i] = (size_t)floor((double)count * shares[i]);
        rows[i] = rows[i] > count ? count : rows[i];
        given += rows[i];
    }
    while (given < count) {
        size_t best = 0;
        double best_rest = -1.0;
        for (size_t i = 0; i < n; i++) {
            double rest = (double)count * shares[i] - (double)rows[i];
            if (rest > best_rest) {
                best = i;
                best_rest = rest;
            }
        }
        rows[best]++;
        given++;
    }
    while (given > count) /* rounding in the shares' sum: take back from the largest */
        for (size_t i = 0; i < n && given > count; i++)
            if (rows[i]) {
                rows[i]--;
                given--;
            }
}

/* Entry j of worker `worker`'s list in TensorFlow's batch_sizes_for_worker. */
static size_t batch_size_for_worker(size_t global_batch, size_t workers, size_t per_worker,
                                    size_t worker, size_t j)
{
    size_t n = workers * per_worker, k = (j + n - per_worker * worker % n) % n;
    return global_batch / n + (k < global_batch % n);
}

/* TensorFlow's batch_sizes_for_worker: worker w's list is the base list (ceil sizes
 * first) rolled by R*w, and at step `step` its replicas take entries step*R ..
 * step*R + R-1 of it; the workers' rows follow one another in worker order. */
static size_t split_over_workers(const tdm_strategy *s, size_t count, uint64_t step, size_t *rows)
{
    size_t workers = s->ranks->count, r = s->replica_count, skip = 0;
    size_t first = (size_t)(step % workers) * r;
    for (size_t w = 0; w <= s->ranks->rank; w++)
        for (size_t i = 0; i < r; i++) {
            size_t size = batch_size_for_worker(count, workers, r, w, first + i);
            if (w < s->ranks->rank)
                skip += size;
            else
                rows[i] = size;
        }
    return skip;
}

size_t tdm_strategy_split_batch(tdm_strategy *s, size_t count, uint64_t step, size_t *rows)
{
    size_t n = s->replica_count;
    if (s->global_replicas != n)
        return split_over_workers(s, count, step, rows);
    tdm_mutex_lock(&s->lock);
    if (s->shares)
        split_by_shares(s->shares, n, count, rows);
    else
        for (size_t i = 0; i < n; i++)
            rows[i] = count / n + (i < count % n);
    tdm_mutex_unlock(&s->lock);
    return 0;
}
