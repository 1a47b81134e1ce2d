/* The collectives section's cases: all-reduce of integer-valued data (exact in
 * any order), random floats (bitwise the host's fold in replica order) and random
 * halves, two to a float (bitwise the host's fold with every partial rounded to
 * float16). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance_collectives.h"
#include "base/clock.h"
#include "base/half_bits.h"

/* 4097 is no multiple of a group or a vector; 1 Mi + 3 passes the host algorithm's
 * 1 MiB unit and half the Vulkan staging buffer; the large size passes the whole
 * staging buffer (8 MiB) and a 16 MiB binding range (TDM_VK_TIGHT_LIMITS), by an
 * odd tail. */
static const size_t elements[] = {1, 4097, ((size_t)1 << 20) + 3, ((size_t)4 << 20) + 5};
#define LARGE_CASES 1 /* the last size: 16 MiB and 20 bytes per device */

const char *conf_coll_algorithm_name(tdm_collective_algorithm algorithm)
{
    const char *name = tdm_collective_algorithm_name(algorithm);
    return name ? name : "?";
}

/* One value per device, its host copy, and the expected result. */
typedef struct coll_case {
    const conf_coll_set *set;
    size_t n;
    tdm_buffer *buf[CONF_COLL_MAX_DEVICES];
    tdm_buffer_view view[CONF_COLL_MAX_DEVICES];
    float *host[CONF_COLL_MAX_DEVICES];
    float *want, *got;
    const char *data;
    tdm_dtype dtype; /* F16: each float holds two halves */
} coll_case;

void conf_coll_generate(float *x, size_t n, uint64_t seed, int integer)
{
    uint64_t s = 0x9E3779B97F4A7C15ull * (seed + 1);
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        uint32_t r = (uint32_t)(s >> 16);
        x[i] = integer ? (float)((int)(r % 201) - 100)
                       : ldexpf((float)(r >> 8) * 0x1p-24f - 0.5f, (int)(s % 21) - 10);
    }
}

/* Each float becomes two halves: its own value and -0.75 times it. */
void conf_coll_to_halves(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint16_t pair[2] = {tdm_f16_from_f32(x[i]), tdm_f16_from_f32(-0.75f * x[i])};
        memcpy(&x[i], pair, sizeof pair);
    }
}

/* The fold of halves: each partial rounded to float16. */
static void fold_halves(float *const *host, size_t count, size_t halves, tdm_reduce_op op,
                        float *want)
{
    float alpha = (float)(1.0 / (double)count);
    for (size_t e = 0; e < halves; e++) {
        uint16_t h;
        memcpy(&h, (const char *)host[0] + 2 * e, sizeof h);
        float acc = tdm_f32_from_f16(h);
        for (size_t i = 1; i < count; i++) {
            memcpy(&h, (const char *)host[i] + 2 * e, sizeof h);
            acc = tdm_f32_from_f16(tdm_f16_from_f32(acc + tdm_f32_from_f16(h)));
        }
        h = tdm_f16_from_f32(op == TDM_REDUCE_MEAN ? alpha * acc : acc);
        memcpy((char *)want + 2 * e, &h, sizeof h);
    }
}

void conf_coll_fold(float *const *host, size_t count, size_t n, tdm_dtype dtype, tdm_reduce_op op,
                    float *want)
{
    if (dtype == TDM_F16) {
        fold_halves(host, count, 2 * n, op, want);
        return;
    }
    float alpha = (float)(1.0 / (double)count);
    for (size_t e = 0; e < n; e++) {
        float acc = host[0][e];
        for (size_t i = 1; i < count; i++)
            acc += host[i][e];
        want[e] = op == TDM_REDUCE_MEAN ? acc * alpha : acc;
    }
}

void conf_coll_fail(conf_result *r, const char *message)
{
    if (r->failed_cases++ == 0)
        snprintf(r->first_failure, sizeof r->first_failure, "%s", message);
}

/* Uploads, all-reduces with one algorithm, and checks every device's result. */
static void check(coll_case *c, tdm_reduce_op op, tdm_collective_algorithm algorithm,
                  conf_result *r)
{
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < c->set->n && s == TDM_OK; i++)
        s = tdm_buffer_write(c->buf[i], 0, c->host[i], c->n * 4);
    tdm_collective_options o = TDM_COLLECTIVE_OPTIONS_INIT;
    o.algorithm = algorithm;
    o.dtype = c->dtype;
    s = s == TDM_OK ? tdm_all_reduce(op, c->view, c->set->n, &o) : s;
    if (s == TDM_ERR_UNSUPPORTED) {
        conf_not_supported(r, "%s", tdm_last_error());
        return;
    }
    r->cases++;
    char what[200];
    int len = snprintf(what, sizeof what,
                       "%s, %zu elements, %s data: ", op == TDM_REDUCE_SUM ? "sum" : "mean",
                       c->dtype == TDM_F16 ? 2 * c->n : c->n, c->data);
    size_t differ = c->set->n;
    for (size_t i = 0; i < c->set->n && s == TDM_OK && differ == c->set->n; i++) {
        s = tdm_buffer_read(c->buf[i], 0, c->got, c->n * 4);
        if (s == TDM_OK && memcmp(c->got, c->want, c->n * 4) != 0)
            differ = i;
    }
    tdm_device_desc d = TDM_DEVICE_DESC_INIT;
    if (s != TDM_OK)
        snprintf(what + len, sizeof what - (size_t)len, "%s", tdm_last_error());
    else if (differ < c->set->n && tdm_device_describe(c->set->dev[differ], &d) == TDM_OK)
        snprintf(what + len, sizeof what - (size_t)len, "%s differs from the host fold", d.id);
    if (s != TDM_OK || differ < c->set->n)
        conf_coll_fail(r, what);
}

static int case_alloc(coll_case *c, size_t n)
{
    c->n = n;
    c->want = malloc(n * 4);
    c->got = malloc(n * 4);
    int ok = c->want && c->got;
    for (size_t i = 0; i < c->set->n && ok; i++) {
        c->host[i] = malloc(n * 4);
        ok = c->host[i] && tdm_buffer_alloc(c->set->dev[i], n * 4, &c->buf[i]) == TDM_OK;
        if (ok)
            c->view[i] = tdm_buffer_whole(c->buf[i]);
    }
    return ok;
}

static void case_free(coll_case *c)
{
    for (size_t i = 0; i < c->set->n; i++) {
        tdm_buffer_free(c->buf[i]);
        free(c->host[i]);
    }
    free(c->want);
    free(c->got);
}

static void run_size(const conf_coll_set *set, size_t n, conf_result *r)
{
    static const tdm_reduce_op ops[] = {TDM_REDUCE_SUM, TDM_REDUCE_MEAN};
    coll_case c = {.set = set};
    if (!case_alloc(&c, n)) {
        for (int a = 0; a < CONF_COLL_ALGORITHMS; a++)
            conf_coll_fail(&r[a], tdm_last_error()); /* the allocation's */
        case_free(&c);
        return;
    }
    static const char *const kinds[] = {"integer", "random", "float16"};
    for (int kind = 0; kind < 3; kind++) {
        c.data = kinds[kind];
        c.dtype = kind == 2 ? TDM_F16 : TDM_F32;
        for (size_t i = 0; i < set->n; i++) {
            conf_coll_generate(c.host[i], n, n * 31 + i, kind == 0);
            if (c.dtype == TDM_F16)
                conf_coll_to_halves(c.host[i], n);
        }
        for (size_t o = 0; o < 2; o++) {
            conf_coll_fold(c.host, set->n, n, c.dtype, ops[o], c.want);
            for (int a = 0; a < CONF_COLL_ALGORITHMS; a++)
                if (r[a].supported) {
                    double start = tdm_seconds();
                    check(&c, ops[o], (tdm_collective_algorithm)a, &r[a]);
                    r[a].seconds += tdm_seconds() - start;
                }
        }
    }
    case_free(&c);
}

void conf_coll_run(const conf_coll_set *set, int large, conf_result *by_algorithm)
{
    size_t sizes = sizeof elements / sizeof elements[0] - (large ? 0 : LARGE_CASES);
    for (int a = 0; a < CONF_COLL_ALGORITHMS; a++)
        by_algorithm[a] = (conf_result){.supported = 1};
    for (size_t s = 0; s < sizes; s++)
        run_size(set, elements[s], by_algorithm);
}
