/* tdm_model_load: a model file read back, every rule of its layout and of the model
 * checked before a variable is created, so that a damaged, truncated or foreign file
 * is refused with the reason. */
#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/checkpoint_format.h"
#include "train/checkpoint_posix.h"
#include "device/error.h"
#include "train/model_file.h"
#include "train/model_impl.h"
#include "train/safetensors.h"

static const char *const func = "tdm_model_load";

typedef struct loader {
    const char *path;
    tdm_st_file f;
    tdm_model_options opts;
    tdm_dense_layer *layers;
    const tdm_st_tensor **vars; /* [2 * layers]: kernel, bias */
    const tdm_st_tensor *mean, *std;
} loader;

static const char *meta(const loader *l, const char *key)
{
    return tdm_st_metadata(&l->f, key);
}

/* A tandem model file of a version this library reads, undamaged. */
static tdm_status check_identity(const loader *l)
{
    const char *format = meta(l, "format"), *version = meta(l, "format_version");
    if (!format || strcmp(format, TDM_MODEL_FORMAT) != 0)
        return tdm_st_corrupt(
            func, l->path,
            "a safetensors file, but not a tandem model (its __metadata__ has format "
            "'%s', not '" TDM_MODEL_FORMAT "')",
            format ? format : "(none)");
    char *end = NULL;
    errno = 0;
    unsigned long long v = version ? strtoull(version, &end, 10) : 0;
    if (!version || !*version || *end || errno || v == 0)
        return tdm_st_corrupt(func, l->path, "format_version '%s' is not a version number",
                              version ? version : "(none)");
    if (v > TDM_MODEL_FORMAT_VERSION)
        return tdm_fail(TDM_ERR_UNSUPPORTED,
                        "%s: %s: model format version %llu is newer than this tandem reads (%d)",
                        func, l->path, v, TDM_MODEL_FORMAT_VERSION);
    const char *crc = meta(l, TDM_MODEL_CRC_KEY);
    unsigned long stored = crc && strlen(crc) == 8 ? strtoul(crc, &end, 16) : 0;
    if (!crc || strlen(crc) != 8 || *end)
        return tdm_st_corrupt(func, l->path,
                              "no " TDM_MODEL_CRC_KEY " of 8 hex digits in its __metadata__");
    uint32_t actual = tdm_ckpt_crc(0, l->f.data, l->f.data_size);
    if (actual != stored)
        return tdm_st_corrupt(func, l->path,
                              "damaged: the weights' CRC-32 is %08" PRIx32 ", the file says %08lx",
                              actual, stored);
    return TDM_OK;
}

/* A float32 tensor of the given rank (and, where non-zero, dimensions). */
static tdm_status check_tensor(const loader *l, const char *name, const tdm_st_tensor *t,
                               size_t rank, uint64_t d0, uint64_t d1)
{
    if (!t)
        return tdm_st_corrupt(func, l->path, "tensor '%s' is missing", name);
    if (strcmp(t->dtype, "F32") != 0 || t->rank != rank || (d0 && t->dims[0] != d0) ||
        (rank == 2 && d1 && t->dims[1] != d1) || t->dims[0] == 0 || t->dims[rank - 1] == 0)
        return tdm_st_corrupt(
            func, l->path,
            "tensor '%s' is %s of rank %zu [%" PRIu64 "%s...]: the model needs float32 "
            "of rank %zu matching the layers around it",
            name, t->dtype, t->rank, t->rank ? t->dims[0] : 0, t->rank > 1 ? ", " : "", rank);
    return TDM_OK;
}

static tdm_status layer(loader *l, size_t i, uint64_t in, locale_t c)
{
    char kernel[48], bias[48], key[48];
    tdm_model_variable_name(2 * i, kernel, sizeof kernel);
    tdm_model_variable_name(2 * i + 1, bias, sizeof bias);
    l->vars[2 * i] = tdm_st_find(&l->f, kernel);
    l->vars[2 * i + 1] = tdm_st_find(&l->f, bias);
    tdm_status s = check_tensor(l, kernel, l->vars[2 * i], 2, in, 0);
    uint64_t units = s == TDM_OK ? l->vars[2 * i]->dims[1] : 0;
    if (s == TDM_OK)
        s = check_tensor(l, bias, l->vars[2 * i + 1], 1, units, 0);
    if (s != TDM_OK)
        return s;
    snprintf(key, sizeof key, "dense%zu/activation", i);
    const char *act = meta(l, key);
    if (!act || tdm_activation_parse(act, &l->layers[i].activation) != TDM_OK)
        return tdm_st_corrupt(func, l->path, "%s is '%s', not an activation tandem knows", key,
                              act ? act : "(none)");
    snprintf(key, sizeof key, "dense%zu/dropout", i);
    const char *rate = meta(l, key);
    char *end = NULL;
    double dropout = rate ? strtod_l(rate, &end, c) : -1.0;
    if (!rate || !*rate || *end || !(dropout >= 0.0 && dropout < 1.0))
        return tdm_st_corrupt(func, l->path, "%s is '%s', not a rate in [0, 1)", key,
                              rate ? rate : "(none)");
    l->layers[i].units = (size_t)units;
    l->layers[i].dropout = (float)dropout;
    return TDM_OK;
}

static size_t count_layers(const loader *l)
{
    size_t n = 0;
    char name[48];
    for (;; n++) {
        tdm_model_variable_name(2 * n, name, sizeof name);
        if (!tdm_st_find(&l->f, name))
            return n;
    }
}

/* Loss, reduction and seed. */
static tdm_status training_options(loader *l)
{
    const char *loss = meta(l, "loss"), *reduction = meta(l, "reduction"), *seed = meta(l, "seed");
    int kind = loss ? tdm_model_loss_parse(loss) : -1;
    int red = reduction ? tdm_model_reduction_parse(reduction) : -1;
    char *end = NULL;
    errno = 0;
    unsigned long long v = seed ? strtoull(seed, &end, 10) : 0;
    if (kind < 0 || red < 0 || !seed || !*seed || *end || errno)
        return tdm_st_corrupt(
            func, l->path, "its loss '%s', reduction '%s' or seed '%s' is missing or unknown",
            loss ? loss : "(none)", reduction ? reduction : "(none)", seed ? seed : "(none)");
    l->opts.loss = (tdm_loss_kind)kind;
    l->opts.reduction = (tdm_loss_reduction)red;
    l->opts.seed = v;
    return TDM_OK;
}

/* The layers, the standardisation, and no tensor besides. */
static tdm_status architecture(loader *l)
{
    size_t count = count_layers(l);
    if (!count)
        return tdm_st_corrupt(func, l->path, "no layers: tensor 'dense0/kernel' is missing");
    l->layers = calloc(count, sizeof *l->layers);
    l->vars = calloc(2 * count, sizeof *l->vars);
    if (!l->layers || !l->vars)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    if (!c)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: no memory for the C locale", func);
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < count && s == TDM_OK; i++)
        s = layer(l, i, i ? l->layers[i - 1].units : 0, c);
    freelocale(c);
    if (s != TDM_OK)
        return s;
    size_t features = (size_t)l->vars[0]->dims[0];
    l->mean = tdm_st_find(&l->f, TDM_MODEL_MEAN);
    l->std = tdm_st_find(&l->f, TDM_MODEL_STD);
    if (l->mean || l->std)
        s = check_tensor(l, l->mean ? TDM_MODEL_STD : TDM_MODEL_MEAN, l->mean ? l->std : l->mean, 1,
                         features, 0);
    if (s == TDM_OK && l->mean)
        s = check_tensor(l, TDM_MODEL_MEAN, l->mean, 1, features, 0);
    size_t expected = 2 * count + (l->mean ? 2 : 0);
    for (size_t i = 0; s == TDM_OK && l->f.tensor_count != expected && i < l->f.tensor_count; i++) {
        const tdm_st_tensor *t = &l->f.tensors[i];
        int known = t == l->mean || t == l->std;
        for (size_t v = 0; v < 2 * count && !known; v++)
            known = t == l->vars[v];
        if (!known)
            s = tdm_st_corrupt(func, l->path, "tensor '%s' is not part of a tandem model", t->name);
    }
    l->opts.input_features = features;
    l->opts.layers = l->layers;
    l->opts.layer_count = count;
    return s == TDM_OK ? training_options(l) : s;
}

/* A tensor's little-endian float32 data, in host floats (malloc'd). */
static float *decode(const loader *l, const tdm_st_tensor *t)
{
    size_t n = (size_t)(t->end - t->begin) / 4;
    float *v = malloc(n ? n * sizeof *v : 1);
    for (size_t i = 0; v && i < n; i++) {
        uint32_t bits = tdm_ckpt_load_u32(l->f.data + t->begin + 4 * i);
        memcpy(&v[i], &bits, sizeof bits);
    }
    return v;
}

static tdm_status build(loader *l, tdm_strategy *s, tdm_model **out)
{
    size_t vars = 2 * l->opts.layer_count;
    float **values = calloc(vars + 2, sizeof *values);
    tdm_status st = values ? TDM_OK : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "out of host memory");
    for (size_t i = 0; i < vars + 2 && st == TDM_OK; i++) {
        const tdm_st_tensor *t = i < vars ? l->vars[i] : i == vars ? l->mean : l->std;
        if (t && !(values[i] = decode(l, t)))
            st = tdm_fail(TDM_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    }
    if (st == TDM_OK)
        st = tdm_model_create_with(s, &l->opts, (const float *const *)values, func, out);
    if (st == TDM_OK && l->mean &&
        tdm_model_set_standardization(*out, values[vars], values[vars + 1]) != TDM_OK)
        st = tdm_st_corrupt(
            func, l->path,
            "its input standardisation has a value that is not finite or a negative std");
    if (st != TDM_OK && *out) {
        tdm_model_destroy(*out);
        *out = NULL;
    }
    for (size_t i = 0; values && i < vars + 2; i++)
        free(values[i]);
    free(values);
    return st;
}

tdm_status tdm_model_load(tdm_strategy *s, const char *path, tdm_model **out)
{
    TDM_CHECK_ARG(out, func);
    *out = NULL;
    TDM_CHECK_ARG(s, func);
    TDM_CHECK_ARG(path, func);
    loader l = {.path = path, .opts = TDM_MODEL_OPTIONS_INIT};
    unsigned char *bytes = NULL;
    size_t size = 0;
    tdm_status st = tdm_ckpt_os_read_file(path, func, &bytes, &size);
    if (st == TDM_OK)
        st = tdm_st_parse(bytes, size, func, path, &l.f);
    if (st == TDM_OK)
        st = check_identity(&l);
    if (st == TDM_OK)
        st = architecture(&l);
    if (st == TDM_OK)
        st = build(&l, s, out);
    tdm_st_free(&l.f);
    free(l.layers);
    free(l.vars);
    free(bytes);
    return st;
}
