/* The sweep the reduce, broadcast, all-gather and reduce-scatter cases share: the
 * sizes, out of place and in place, float32 and float16, each case's buffers, and
 * how a case is checked and reported. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "conformance_collectives.h"

/* The sizes of conformance_coll_run.c, for the same reasons. */
static const size_t elements[] = {1, 4097, ((size_t)1 << 20) + 3, ((size_t)4 << 20) + 5};
#define LARGE_CASES 1 /* the last size: 16 MiB and 20 bytes per replica */

/* In place, the smaller view is replica i's slice of the larger buffer (all of it
 * when the sizes match). */
static tdm_buffer_view slice(tdm_buffer *larger, size_t i, size_t n, size_t larger_n)
{
    return (tdm_buffer_view){larger, n < larger_n ? i * n * 4 : 0, n * 4};
}

static int case_alloc(conf_coll_case *c, size_t in_n, size_t out_n)
{
    int own_in = !c->in_place || in_n >= out_n, own_out = !c->in_place || out_n > in_n;
    size_t most = in_n > out_n ? in_n : out_n;
    c->want = malloc(most * 4);
    c->got = malloc(most * 4);
    int ok = c->want && c->got;
    for (size_t i = 0; i < c->set->n && ok; i++) {
        tdm_device *dev = c->set->dev[i];
        ok = (c->host[i] = malloc(in_n * 4)) != NULL &&
             (!own_in || tdm_buffer_alloc(dev, in_n * 4, &c->in_buf[i]) == TDM_OK) &&
             (!own_out || tdm_buffer_alloc(dev, out_n * 4, &c->out_buf[i]) == TDM_OK);
        if (ok) {
            c->in[i] =
                own_in ? tdm_buffer_whole(c->in_buf[i]) : slice(c->out_buf[i], i, in_n, out_n);
            c->out[i] =
                own_out ? tdm_buffer_whole(c->out_buf[i]) : slice(c->in_buf[i], i, out_n, in_n);
        }
    }
    return ok;
}

static void case_free(conf_coll_case *c)
{
    for (size_t i = 0; i < c->set->n; i++) {
        tdm_buffer_free(c->in_buf[i]);
        tdm_buffer_free(c->out_buf[i]);
        free(c->host[i]);
    }
    free(c->want);
    free(c->got);
}

static void run_case(conf_coll_case *c, const conf_coll_op *op, size_t in_n, conf_result *r)
{
    static const tdm_reduce_op ops[] = {TDM_REDUCE_SUM, TDM_REDUCE_MEAN};
    for (size_t i = 0; i < c->set->n; i++) {
        conf_coll_generate(c->host[i], in_n, c->n * op->seed + i, 0);
        if (c->dtype == TDM_F16)
            conf_coll_to_halves(c->host[i], in_n);
    }
    for (size_t o = 0; o < (c->moves_bytes ? 1u : 2u); o++) {
        op->expect(c, ops[o]);
        for (int a = 0; a < CONF_COLL_ALGORITHMS; a++) {
            tdm_collective_options options = TDM_COLLECTIVE_OPTIONS_INIT;
            options.algorithm = (tdm_collective_algorithm)a;
            options.dtype = c->dtype;
            if (r[a].supported) {
                double start = tdm_seconds();
                op->check(c, ops[o], &options, &r[a]);
                r[a].seconds += tdm_seconds() - start;
            }
        }
    }
}

static void sweep_case(const conf_coll_set *set, const conf_coll_op *op, size_t n, int in_place,
                       tdm_dtype dtype, conf_result *r)
{
    conf_coll_case c = {
        .set = set, .n = n, .moves_bytes = op->moves_bytes, .in_place = in_place, .dtype = dtype};
    size_t in_n = op->in_parts * n;
    if (case_alloc(&c, in_n, op->out_parts * n))
        run_case(&c, op, in_n, r);
    else
        for (int a = 0; a < CONF_COLL_ALGORITHMS; a++)
            conf_coll_fail(&r[a], tdm_last_error()); /* the allocation's */
    case_free(&c);
}

void conf_coll_sweep(const conf_coll_set *set, const conf_coll_op *op, int large,
                     conf_result *by_algorithm)
{
    size_t sizes = sizeof elements / sizeof elements[0] - (large ? 0 : LARGE_CASES);
    for (int a = 0; a < CONF_COLL_ALGORITHMS; a++)
        by_algorithm[a] = (conf_result){.supported = 1};
    for (size_t s = 0; s < sizes; s++)
        for (int in_place = 0; in_place < 2; in_place++) {
            sweep_case(set, op, elements[s], in_place, TDM_F32, by_algorithm);
            if (!op->moves_bytes) /* moving bytes, float16 is float32's case */
                sweep_case(set, op, elements[s], in_place, TDM_F16, by_algorithm);
        }
}

tdm_status conf_coll_upload(const conf_coll_case *c)
{
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < c->set->n && s == TDM_OK; i++)
        s = tdm_buffer_write(c->in[i].buffer, c->in[i].offset, c->host[i], c->in[i].size);
    return s;
}

int conf_coll_differs(conf_coll_case *c, size_t i, const float *want, tdm_status *s)
{
    const tdm_buffer_view *v = &c->out[i];
    *s = tdm_buffer_read(v->buffer, v->offset, c->got, v->size);
    return *s == TDM_OK && memcmp(c->got, want, v->size) != 0;
}

void conf_coll_report(const conf_coll_case *c, const char *operation, tdm_status s, size_t wrong,
                      conf_result *r)
{
    if (s == TDM_ERR_UNSUPPORTED) {
        conf_not_supported(r, "%s", tdm_last_error());
        return;
    }
    r->cases++;
    if (s == TDM_OK && wrong == c->set->n)
        return;
    char what[200];
    int len = snprintf(what, sizeof what, "%s, %zu %s elements %s: ", operation,
                       c->dtype == TDM_F16 ? 2 * c->n : c->n, tdm_dtype_name(c->dtype),
                       c->in_place ? "in place" : "out of place");
    tdm_device_desc d = TDM_DEVICE_DESC_INIT;
    if (s != TDM_OK)
        snprintf(what + len, sizeof what - (size_t)len, "%s", tdm_last_error());
    else if (tdm_device_describe(c->set->dev[wrong], &d) == TDM_OK)
        snprintf(what + len, sizeof what - (size_t)len, "%s differs from the host", d.id);
    conf_coll_fail(r, what);
}
