/* The collectives section's all-gather and reduce-scatter cases: random floats of
 * widely varying magnitude (a fold in another order gives other bits), in place and
 * out of place, every result bitwise against the host (reduce-scatter: each shard
 * the host's fold of that slice in replica order; and in float16, two halves to a
 * float, each partial rounded to float16). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance_collectives.h"

static const size_t elements[] = {1, 4097, ((size_t)1 << 20) + 3, (size_t)1 << 22};
#define LARGE_CASES 1 /* the last size: 16 MiB per replica */

/* Per device: a whole of r * n floats and a part of n (in place: slice i of the
 * whole). Host copies of every input, and a buffer to read results into. */
typedef struct shard_case {
    const conf_coll_set *set;
    size_t n;
    int gather, in_place;
    tdm_dtype dtype; /* F16: each float holds two halves */
    tdm_buffer *whole_buf[CONF_COLL_MAX_DEVICES], *part_buf[CONF_COLL_MAX_DEVICES];
    tdm_buffer_view whole[CONF_COLL_MAX_DEVICES], part[CONF_COLL_MAX_DEVICES];
    float *host[CONF_COLL_MAX_DEVICES]; /* the inputs: n (gather) or r * n floats */
    float *want, *got;                  /* r * n floats */
} shard_case;

static void fail(conf_result *r, const char *message)
{
    if (r->failed_cases++ == 0)
        snprintf(r->first_failure, sizeof r->first_failure, "%s", message);
}

static void case_free(shard_case *c)
{
    for (size_t i = 0; i < c->set->n; i++) {
        tdm_buffer_free(c->whole_buf[i]);
        tdm_buffer_free(c->part_buf[i]);
        free(c->host[i]);
    }
    free(c->want);
    free(c->got);
}

static int case_alloc(shard_case *c)
{
    size_t r = c->set->n, n = c->n, in = c->gather ? n : r * n;
    c->want = malloc(r * n * 4);
    c->got = malloc(r * n * 4);
    int ok = c->want && c->got;
    for (size_t i = 0; i < r && ok; i++) {
        c->host[i] = malloc(in * 4);
        ok = c->host[i] && tdm_buffer_alloc(c->set->dev[i], r * n * 4, &c->whole_buf[i]) == TDM_OK;
        if (ok)
            c->whole[i] = tdm_buffer_whole(c->whole_buf[i]);
        if (ok && c->in_place)
            c->part[i] = (tdm_buffer_view){c->whole_buf[i], i * n * 4, n * 4};
        else if (ok && tdm_buffer_alloc(c->set->dev[i], n * 4, &c->part_buf[i]) == TDM_OK)
            c->part[i] = tdm_buffer_whole(c->part_buf[i]);
        else
            ok = 0;
    }
    return ok;
}

/* The expected outputs: the gather's concatenation, or every shard of the fold. */
static void expect(shard_case *c, tdm_reduce_op op)
{
    size_t r = c->set->n, n = c->n;
    if (!c->gather && c->dtype == TDM_F16) {
        conf_coll_fold_halves(c->host, r, 2 * r * n, 0, op, c->want);
        return;
    }
    float alpha = (float)(1.0 / (double)r);
    for (size_t e = 0; e < r * n; e++) {
        if (c->gather) {
            c->want[e] = c->host[e / n][e % n];
            continue;
        }
        float acc = c->host[0][e];
        for (size_t i = 1; i < r; i++)
            acc += c->host[i][e];
        c->want[e] = op == TDM_REDUCE_MEAN ? acc * alpha : acc;
    }
}

static tdm_status upload(const shard_case *c)
{
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < c->set->n && s == TDM_OK; i++) {
        const tdm_buffer_view *v = c->gather ? &c->part[i] : &c->whole[i];
        s = tdm_buffer_write(v->buffer, v->offset, c->host[i], v->size);
    }
    return s;
}

/* Index of the first device whose output differs, set->n if none. */
static size_t first_wrong(shard_case *c, tdm_status *s)
{
    size_t r = c->set->n, n = c->n;
    for (size_t i = 0; i < r && *s == TDM_OK; i++) {
        const tdm_buffer_view *v = c->gather ? &c->whole[i] : &c->part[i];
        const float *want = c->gather ? c->want : c->want + i * n;
        *s = tdm_buffer_read(v->buffer, v->offset, c->got, v->size);
        if (*s == TDM_OK && memcmp(c->got, want, v->size) != 0)
            return i;
    }
    return r;
}

static void check(shard_case *c, tdm_reduce_op op, tdm_collective_algorithm algorithm,
                  conf_result *r)
{
    tdm_collective_options o = TDM_COLLECTIVE_OPTIONS_INIT;
    o.algorithm = algorithm;
    o.dtype = c->dtype;
    tdm_status s = upload(c);
    if (s == TDM_OK)
        s = c->gather ? tdm_all_gather(c->part, c->whole, c->set->n, &o)
                      : tdm_reduce_scatter(op, c->whole, c->part, c->set->n, &o);
    if (s == TDM_ERR_UNSUPPORTED) {
        r->supported = 0;
        return;
    }
    r->cases++;
    size_t wrong = s == TDM_OK ? first_wrong(c, &s) : c->set->n;
    char what[200];
    int len = snprintf(what, sizeof what,
                       "%s%s, %zu %s elements %s: ", c->gather ? "all-gather" : "reduce-scatter ",
                       c->gather              ? ""
                       : op == TDM_REDUCE_SUM ? "sum"
                                              : "mean",
                       c->dtype == TDM_F16 ? 2 * c->n : c->n, tdm_dtype_name(c->dtype),
                       c->in_place ? "in place" : "out of place");
    tdm_device_desc d = TDM_DEVICE_DESC_INIT;
    if (s != TDM_OK)
        snprintf(what + len, sizeof what - (size_t)len, "%s", tdm_last_error());
    else if (wrong < c->set->n && tdm_device_describe(c->set->dev[wrong], &d) == TDM_OK)
        snprintf(what + len, sizeof what - (size_t)len, "%s differs from the host", d.id);
    if (s != TDM_OK || wrong < c->set->n)
        fail(r, what);
}

static void run_size(const conf_coll_set *set, int gather, size_t n, int in_place, tdm_dtype dtype,
                     conf_result *r)
{
    static const tdm_reduce_op ops[] = {TDM_REDUCE_SUM, TDM_REDUCE_MEAN};
    shard_case c = {.set = set, .n = n, .gather = gather, .in_place = in_place, .dtype = dtype};
    if (!case_alloc(&c)) {
        for (int a = 0; a < CONF_COLL_ALGORITHMS; a++)
            fail(&r[a], tdm_last_error()); /* the allocation's */
        case_free(&c);
        return;
    }
    for (size_t i = 0; i < set->n; i++) {
        conf_coll_generate(c.host[i], gather ? n : set->n * n, n * 37 + i, 0);
        if (dtype == TDM_F16)
            conf_coll_to_halves(c.host[i], gather ? n : set->n * n);
    }
    for (size_t o = 0; o < (gather ? 1u : 2u); o++) {
        expect(&c, ops[o]);
        for (int a = 0; a < CONF_COLL_ALGORITHMS; a++)
            if (r[a].supported)
                check(&c, ops[o], (tdm_collective_algorithm)a, &r[a]);
    }
    case_free(&c);
}

void conf_coll_run_shards(const conf_coll_set *set, int gather, int large,
                          conf_result *by_algorithm)
{
    size_t sizes = sizeof elements / sizeof elements[0] - (large ? 0 : LARGE_CASES);
    for (int a = 0; a < CONF_COLL_ALGORITHMS; a++)
        by_algorithm[a] = (conf_result){.supported = 1};
    for (size_t s = 0; s < sizes; s++)
        for (int in_place = 0; in_place < 2; in_place++) {
            run_size(set, gather, elements[s], in_place, TDM_F32, by_algorithm);
            if (!gather) /* a gather moves bytes: float16 is float32's case */
                run_size(set, gather, elements[s], in_place, TDM_F16, by_algorithm);
        }
}
