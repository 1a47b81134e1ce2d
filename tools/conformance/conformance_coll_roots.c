/* The collectives section's reduce (to the root) and broadcast cases: random floats
 * of widely varying magnitude, in place and out of place, the root the last replica;
 * the root's reduction bitwise against the host's fold in replica order (float16 too,
 * each partial rounded), the broadcast's every output against the root's bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance_collectives.h"

static const size_t elements[] = {1, 4097, ((size_t)1 << 20) + 3, (size_t)1 << 22};
#define LARGE_CASES 1 /* the last size: 16 MiB per replica */

typedef struct root_case {
    const conf_coll_set *set;
    size_t n;
    int broadcast, in_place;
    tdm_dtype dtype; /* F16: each float holds two halves */
    tdm_buffer *in_buf[CONF_COLL_MAX_DEVICES], *out_buf[CONF_COLL_MAX_DEVICES];
    tdm_buffer_view in[CONF_COLL_MAX_DEVICES], out[CONF_COLL_MAX_DEVICES];
    float *host[CONF_COLL_MAX_DEVICES];
    float *want, *got;
} root_case;

static void case_free(root_case *c)
{
    for (size_t i = 0; i < c->set->n; i++) {
        tdm_buffer_free(c->in_buf[i]);
        tdm_buffer_free(c->out_buf[i]);
        free(c->host[i]);
    }
    free(c->want);
    free(c->got);
}

static int case_alloc(root_case *c)
{
    size_t bytes = c->n * 4;
    c->want = malloc(bytes);
    c->got = malloc(bytes);
    int ok = c->want && c->got;
    for (size_t i = 0; i < c->set->n && ok; i++) {
        ok = (c->host[i] = malloc(bytes)) != NULL &&
             tdm_buffer_alloc(c->set->dev[i], bytes, &c->in_buf[i]) == TDM_OK &&
             (c->in_place || tdm_buffer_alloc(c->set->dev[i], bytes, &c->out_buf[i]) == TDM_OK);
        if (ok) {
            c->in[i] = tdm_buffer_whole(c->in_buf[i]);
            c->out[i] = c->in_place ? c->in[i] : tdm_buffer_whole(c->out_buf[i]);
        }
    }
    return ok;
}

static void expect(root_case *c, tdm_reduce_op op, size_t root)
{
    size_t r = c->set->n;
    if (c->broadcast) {
        memcpy(c->want, c->host[root], c->n * 4);
        return;
    }
    if (c->dtype == TDM_F16) {
        conf_coll_fold_halves(c->host, r, 2 * c->n, 0, op, c->want);
        return;
    }
    for (size_t e = 0; e < c->n; e++) {
        float acc = c->host[0][e];
        for (size_t i = 1; i < r; i++)
            acc += c->host[i][e];
        c->want[e] = op == TDM_REDUCE_MEAN ? acc * (float)(1.0 / (double)r) : acc;
    }
}

/* Index of the first device whose output differs (the reduce's root alone), set->n
 * if none. */
static size_t first_wrong(root_case *c, size_t root, tdm_status *s)
{
    for (size_t i = 0; i < c->set->n && *s == TDM_OK; i++) {
        if (!c->broadcast && i != root)
            continue;
        *s = tdm_buffer_read(c->out[i].buffer, c->out[i].offset, c->got, c->n * 4);
        if (*s == TDM_OK && memcmp(c->got, c->want, c->n * 4) != 0)
            return i;
    }
    return c->set->n;
}

static void check(root_case *c, tdm_reduce_op op, tdm_collective_algorithm algorithm,
                  conf_result *r)
{
    size_t root = c->set->n - 1;
    tdm_collective_options o = TDM_COLLECTIVE_OPTIONS_INIT;
    o.algorithm = algorithm;
    o.dtype = c->dtype;
    tdm_shard_call call = {.func = c->broadcast ? "broadcast" : "reduce",
                           .op = op,
                           .inputs = c->in,
                           .outputs = c->out,
                           .count = c->set->n,
                           .root = root};
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < c->set->n && s == TDM_OK; i++)
        s = tdm_buffer_write(c->in_buf[i], 0, c->host[i], c->n * 4);
    if (s == TDM_OK)
        s = c->broadcast ? tdm_root_broadcast_check(&call, &o) : tdm_root_reduce_check(&call, &o);
    if (s == TDM_OK)
        s = c->broadcast ? tdm_root_broadcast_run(&call) : tdm_root_reduce_run(&call);
    if (s == TDM_ERR_UNSUPPORTED) {
        r->supported = 0;
        return;
    }
    r->cases++;
    size_t wrong = s == TDM_OK ? first_wrong(c, root, &s) : c->set->n;
    char what[200];
    int len = snprintf(what, sizeof what,
                       "%s%s, %zu %s elements %s: ", c->broadcast ? "broadcast" : "reduce ",
                       c->broadcast           ? ""
                       : op == TDM_REDUCE_SUM ? "sum"
                                              : "mean",
                       c->dtype == TDM_F16 ? 2 * c->n : c->n, tdm_dtype_name(c->dtype),
                       c->in_place ? "in place" : "out of place");
    tdm_device_desc d = TDM_DEVICE_DESC_INIT;
    if (s != TDM_OK)
        snprintf(what + len, sizeof what - (size_t)len, "%s", tdm_last_error());
    else if (wrong < c->set->n && tdm_device_describe(c->set->dev[wrong], &d) == TDM_OK)
        snprintf(what + len, sizeof what - (size_t)len, "%s differs from the host", d.id);
    if ((s != TDM_OK || wrong < c->set->n) && r->failed_cases++ == 0)
        snprintf(r->first_failure, sizeof r->first_failure, "%s", what);
}

static void run_size(const conf_coll_set *set, int broadcast, size_t n, int in_place,
                     tdm_dtype dtype, conf_result *r)
{
    static const tdm_reduce_op ops[] = {TDM_REDUCE_SUM, TDM_REDUCE_MEAN};
    root_case c = {
        .set = set, .n = n, .broadcast = broadcast, .in_place = in_place, .dtype = dtype};
    if (!case_alloc(&c)) {
        for (int a = 0; a < CONF_COLL_ALGORITHMS; a++)
            if (r[a].failed_cases++ == 0)
                snprintf(r[a].first_failure, sizeof r[a].first_failure, "%s", tdm_last_error());
        case_free(&c);
        return;
    }
    for (size_t i = 0; i < set->n; i++) {
        conf_coll_generate(c.host[i], n, n * 41 + i, 0);
        if (dtype == TDM_F16)
            conf_coll_to_halves(c.host[i], n);
    }
    for (size_t o = 0; o < (broadcast ? 1u : 2u); o++) {
        expect(&c, ops[o], set->n - 1);
        for (int a = 0; a < CONF_COLL_ALGORITHMS; a++)
            if (r[a].supported)
                check(&c, ops[o], (tdm_collective_algorithm)a, &r[a]);
    }
    case_free(&c);
}

void conf_coll_run_roots(const conf_coll_set *set, int broadcast, int large,
                         conf_result *by_algorithm)
{
    size_t sizes = sizeof elements / sizeof elements[0] - (large ? 0 : LARGE_CASES);
    for (int a = 0; a < CONF_COLL_ALGORITHMS; a++)
        by_algorithm[a] = (conf_result){.supported = 1};
    for (size_t s = 0; s < sizes; s++)
        for (int in_place = 0; in_place < 2; in_place++) {
            run_size(set, broadcast, elements[s], in_place, TDM_F32, by_algorithm);
            if (!broadcast) /* a broadcast moves bytes: float16 is float32's case */
                run_size(set, broadcast, elements[s], in_place, TDM_F16, by_algorithm);
        }
}
