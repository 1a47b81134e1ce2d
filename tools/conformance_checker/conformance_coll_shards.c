/* The collectives section's all-gather and reduce-scatter cases: random floats of
 * widely varying magnitude (a fold in another order gives other bits), in place and
 * out of place, every result bitwise against the host (reduce-scatter: each shard
 * the host's fold of that slice in replica order; and in float16, two halves to a
 * float, each partial rounded to float16). */
#include "conformance_collectives.h"

/* The gather's output on every replica: the inputs one after another; the
 * reduce-scatter's: the fold, of which replica i holds shard i. */
static void expect(conf_coll_case *c, tdm_reduce_op op)
{
    size_t r = c->set->n, n = c->n;
    if (!c->moves_bytes) {
        conf_coll_fold(c->host, r, r * n, c->dtype, op, c->want);
        return;
    }
    for (size_t e = 0; e < r * n; e++)
        c->want[e] = c->host[e / n][e % n];
}

static void check(conf_coll_case *c, tdm_reduce_op op, const tdm_collective_options *o,
                  conf_result *r)
{
    int gather = c->moves_bytes;
    size_t count = c->set->n;
    tdm_status s = conf_coll_upload(c);
    if (s == TDM_OK)
        s = gather ? tdm_all_gather(c->in, c->out, count, o)
                   : tdm_reduce_scatter(op, c->in, c->out, count, o);
    size_t wrong = count;
    for (size_t i = 0; i < count && s == TDM_OK && wrong == count; i++)
        if (conf_coll_differs(c, i, gather ? c->want : c->want + i * c->n, &s))
            wrong = i;
    conf_coll_report(c,
                     gather                 ? "all-gather"
                     : op == TDM_REDUCE_SUM ? "reduce-scatter sum"
                                            : "reduce-scatter mean",
                     s, wrong, r);
}

void conf_coll_run_shards(const conf_coll_set *set, int gather, int large,
                          conf_result *by_algorithm)
{
    conf_coll_op op = {gather, gather ? 1 : set->n, gather ? set->n : 1, 37, expect, check};
    conf_coll_sweep(set, &op, large, by_algorithm);
}
