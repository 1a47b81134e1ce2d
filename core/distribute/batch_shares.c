/* How each global batch is split across the replicas: evenly by default (the first
 * count % N replicas get one more row, TensorFlow's rule), or in proportion to
 * shares set by the user or by the train op's balancing. */
#include <math.h>
#include <stdlib.h>

#include "error.h"
#include "strategy_impl.h"

tdm_status tdm_strategy_set_batch_shares(tdm_strategy *s, const double *shares, size_t count)
{
    static const char func[] = "tdm_strategy_set_batch_shares";
    TDM_CHECK_ARG(s, func);
    TDM_CHECK_ARG(shares, func);
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
    pthread_mutex_lock(&s->lock);
    free(s->shares);
    s->shares = copy;
    pthread_mutex_unlock(&s->lock);
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
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < count; i++)
        shares[i] = s->shares ? s->shares[i] : 1.0 / (double)count;
    pthread_mutex_unlock(&s->lock);
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

void tdm_strategy_split_batch(tdm_strategy *s, size_t count, size_t *rows)
{
    size_t n = s->replica_count;
    pthread_mutex_lock(&s->lock);
    if (s->shares)
        split_by_shares(s->shares, n, count, rows);
    else
        for (size_t i = 0; i < n; i++)
            rows[i] = count / n + (i < count % n);
    pthread_mutex_unlock(&s->lock);
}
