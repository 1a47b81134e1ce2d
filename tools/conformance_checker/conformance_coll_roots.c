/* The collectives section's reduce (to the root) and broadcast cases: random floats
 * of widely varying magnitude, in place and out of place, the root the last replica;
 * the root's reduction bitwise against the host's fold in replica order (float16 too,
 * each partial rounded), the broadcast's every output against the root's bytes. */
#include <string.h>

#include "conformance_collectives.h"

static void expect(conf_coll_case *c, tdm_reduce_op op)
{
    if (c->moves_bytes) /* broadcast */
        memcpy(c->want, c->host[c->set->n - 1], c->n * 4);
    else
        conf_coll_fold(c->host, c->set->n, c->n, c->dtype, op, c->want);
}

static void check(conf_coll_case *c, tdm_reduce_op op, const tdm_collective_options *o,
                  conf_result *r)
{
    int broadcast = c->moves_bytes;
    size_t root = c->set->n - 1;
    tdm_collective_call call = {.kind = broadcast ? TDM_COLL_ROOT_BROADCAST : TDM_COLL_ROOT_REDUCE,
                                .func = broadcast ? "broadcast" : "reduce",
                                .op = op,
                                .inputs = c->in,
                                .outputs = c->out,
                                .count = c->set->n,
                                .root = root};
    tdm_status s = conf_coll_upload(c);
    if (s == TDM_OK)
        s = tdm_collective(&call, o);
    size_t wrong = c->set->n; /* of a reduce, the root's output alone counts */
    for (size_t i = 0; i < c->set->n && s == TDM_OK && wrong == c->set->n; i++)
        if ((broadcast || i == root) && conf_coll_differs(c, i, c->want, &s))
            wrong = i;
    conf_coll_report(c,
                     broadcast              ? "broadcast"
                     : op == TDM_REDUCE_SUM ? "reduce sum"
                                            : "reduce mean",
                     s, wrong, r);
}

void conf_coll_run_roots(const conf_coll_set *set, int broadcast, int large,
                         conf_result *by_algorithm)
{
    conf_coll_op op = {broadcast, 1, 1, 41, expect, check};
    conf_coll_sweep(set, &op, large, by_algorithm);
}
