/* Model files: a saved model loads back with the same architecture, weights and
 * standardisation; every kind of bad file is refused with its reason: missing,
 * empty, truncated in the header or in the data, damaged, not safetensors, bad JSON,
 * a foreign safetensors file, a newer format version, a tensor the model lacks or
 * does not know, a wrong shape. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "harness.h"
#include "scratch.h"

static tdm_context *ctx;
static tdm_strategy *strategy;
static char dir[SCRATCH_PATH];

static void scratch(char *path, size_t size, const char *name)
{
    if (snprintf(path, size, "%s/%s", dir, name) >= (int)size) {
        fprintf(stderr, "a scratch path is too long\n");
        exit(1);
    }
}

static void write_all(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(data, 1, size, f) == size);
    if (f)
        fclose(f);
}

/* A safetensors file from a header and data; "%CRC%" in the header becomes the
 * data's CRC-32, so a test writes a file that is undamaged but wrong otherwise. */
static void write_safetensors(const char *path, const char *header, const void *data, size_t size)
{
    char text[2048];
    const char *at = strstr(header, "%CRC%");
    if (at)
        snprintf(text, sizeof text, "%.*s%08lx%s", (int)(at - header), header,
                 crc32(0, data, (uInt)size), at + 5);
    else
        snprintf(text, sizeof text, "%s", header);
    size_t n = strlen(text);
    unsigned char length[8];
    for (int i = 0; i < 8; i++)
        length[i] = (unsigned char)((uint64_t)n >> (8 * i));
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(length, 1, 8, f) == 8 && fwrite(text, 1, n, f) == n &&
          fwrite(data, 1, size, f) == size);
    if (f)
        fclose(f);
}

static tdm_model *small_model(uint64_t seed)
{
    tdm_layer layers[] = {TDM_DENSE(5, TDM_ACT_TANH, 0.5f), TDM_DENSE(3, TDM_ACT_LINEAR, 0.0f)};
    tdm_model_options mo = TDM_MODEL_OPTIONS_INIT;
    mo.input_features = 4;
    mo.layers = layers;
    mo.layer_count = 2;
    mo.loss = TDM_LOSS_MEAN_SQUARED_ERROR;
    mo.reduction = TDM_LOSS_SUM;
    mo.seed = seed;
    tdm_model *m = NULL;
    CHECK_OK(tdm_model_create(strategy, &mo, &m));
    return m;
}

static void read_variables(const tdm_model *m, float *out, size_t capacity)
{
    size_t used = 0;
    for (size_t i = 0; i < tdm_model_variable_count(m); i++) {
        tdm_tensor *t = tdm_variable_copy(tdm_model_variable(m, i), 0);
        CHECK(used + tdm_tensor_count(t) <= capacity);
        CHECK_OK(tdm_tensor_read(t, out + used, tdm_tensor_bytes(t)));
        used += tdm_tensor_count(t);
    }
}

/* Save, load: the same weights bit for bit, the same options, the same predictions
 * (which apply the standardisation). */
static void check_round_trip(void)
{
    char path[SCRATCH_PATH];
    scratch(path, sizeof path, "model.safetensors");
    tdm_model *a = small_model(5), *b = NULL;
    const float mean[4] = {1, -2, 0.5f, 0}, std[4] = {2, 0, 0.25f, 1};
    CHECK_OK(tdm_model_set_standardization(a, mean, std));
    CHECK_OK(tdm_model_save(a, path));
    CHECK_OK(tdm_model_load(strategy, path, &b));
    if (!b)
        return;
    CHECK(tdm_model_input_count(b) == 4 && tdm_model_output_count(b) == 3);
    CHECK(tdm_model_parameter_count(b) == tdm_model_parameter_count(a));
    float wa[64], wb[64];
    read_variables(a, wa, 64);
    read_variables(b, wb, 64);
    CHECK(memcmp(wa, wb, (4 * 5 + 5 + 5 * 3 + 3) * sizeof(float)) == 0);
    const float x[2 * 4] = {1, 2, 3, 4, -1, 0.5f, 7, 8};
    float pa[6], pb[6], raw[6];
    CHECK_OK(tdm_model_predict(a, x, 2, pa));
    CHECK_OK(tdm_model_predict(b, x, 2, pb));
    CHECK(memcmp(pa, pb, sizeof pa) == 0);
    CHECK_OK(tdm_model_set_standardization(b, NULL, NULL));
    CHECK_OK(tdm_model_predict(b, x, 2, raw));
    CHECK(memcmp(pa, raw, sizeof pa) != 0); /* the standardisation was applied */
    CHECK_OK(tdm_model_predict(b, NULL, 0, NULL));
    /* Saving over an existing file replaces it. */
    CHECK_OK(tdm_model_save(b, path));
    tdm_model *c = NULL;
    CHECK_OK(tdm_model_load(strategy, path, &c));
    CHECK_OK(tdm_model_predict(c, x, 2, pb));
    CHECK(memcmp(raw, pb, sizeof pb) == 0);
    tdm_model_destroy(c);
    tdm_model_destroy(b);
    tdm_model_destroy(a);
    remove(path);
}

static void check_refused(const char *path, tdm_status want, const char *needle)
{
    tdm_model *m = (tdm_model *)1;
    CHECK_FAILS(tdm_model_load(strategy, path, &m), want, needle);
    CHECK(m == NULL);
}

/* Class names: one per output or none, kept in the file; a file whose list names
 * another number of classes is refused. */
static void check_class_names(void)
{
    char path[SCRATCH_PATH];
    scratch(path, sizeof path, "names.safetensors");
    tdm_model *a = small_model(6), *b = NULL;
    static const char *const names[] = {"cat", "dog", "bird"}, *const comma[] = {"a", "b,c", "d"};
    CHECK(tdm_model_class_name(a, 0) == NULL);
    CHECK_FAILS(tdm_model_set_class_names(a, names, 2), TDM_ERR_INVALID_ARGUMENT,
                "2 name(s) for a model of 3 outputs");
    CHECK_FAILS(tdm_model_set_class_names(a, comma, 3), TDM_ERR_INVALID_ARGUMENT,
                "class 1's name holds a comma");
    CHECK_OK(tdm_model_set_class_names(a, names, 3));
    CHECK(!strcmp(tdm_model_class_name(a, 2), "bird") && tdm_model_class_name(a, 3) == NULL);
    CHECK_OK(tdm_model_save(a, path));
    CHECK_OK(tdm_model_load(strategy, path, &b));
    for (size_t i = 0; b && i < 3; i++)
        CHECK(tdm_model_class_name(b, i) && !strcmp(tdm_model_class_name(b, i), names[i]));
    CHECK_OK(tdm_model_set_class_names(b, NULL, 0));
    CHECK(tdm_model_class_name(b, 0) == NULL);
    tdm_model_destroy(b);
    size_t size = 0;
    unsigned char *bytes = scratch_read(path, &size);
    unsigned char *list = NULL;
    for (size_t i = 0; bytes && !list && i + 12 <= size; i++)
        list = memcmp(bytes + i, "cat,dog,bird", 12) ? NULL : bytes + i;
    CHECK(list != NULL);
    if (list) {
        list[7] = ';'; /* two names for three classes */
        write_all(path, bytes, size);
        check_refused(path, TDM_ERR_CORRUPT_DATA, "its class_names are not one name per output");
    }
    free(bytes);
    tdm_model_destroy(a);
    remove(path);
}

/* The first n bytes of a saved model, and one with a flipped bit. */
static void check_damaged(void)
{
    char good[SCRATCH_PATH], bad[SCRATCH_PATH];
    scratch(good, sizeof good, "good.safetensors");
    scratch(bad, sizeof bad, "bad.safetensors");
    tdm_model *m = small_model(9);
    CHECK_OK(tdm_model_save(m, good));
    tdm_model_destroy(m);
    size_t size = 0;
    unsigned char *bytes = scratch_read(good, &size);
    CHECK(bytes && size > 100);
    if (!bytes)
        return;
    scratch(bad, sizeof bad, "missing.safetensors");
    check_refused(bad, TDM_ERR_NOT_FOUND, "missing.safetensors");
    scratch(bad, sizeof bad, "bad.safetensors");
    write_all(bad, bytes, 0);
    check_refused(bad, TDM_ERR_CORRUPT_DATA, "truncated: 0 bytes");
    write_all(bad, bytes, 40);
    check_refused(bad, TDM_ERR_CORRUPT_DATA, "truncated: the header length is");
    write_all(bad, bytes, size - 4);
    check_refused(bad, TDM_ERR_CORRUPT_DATA, "truncated: tensor 'dense1/bias' ends past the end");
    bytes[size - 5] ^= 0x10;
    write_all(bad, bytes, size);
    check_refused(bad, TDM_ERR_CORRUPT_DATA, "damaged: the weights' CRC-32");
    free(bytes);
}

/* Files that are not tandem models at all. */
static void check_foreign(const char *digits)
{
    char bad[SCRATCH_PATH];
    scratch(bad, sizeof bad, "foreign.safetensors");
    check_refused(digits, TDM_ERR_CORRUPT_DATA, "not a safetensors file");
    const char csv[] = "1.0,2.0,3.0,0\n4.0,5.0,6.0,1\n";
    write_all(bad, csv, sizeof csv - 1);
    check_refused(bad, TDM_ERR_CORRUPT_DATA, "not a safetensors file");
    /* Headers over the same 8 bytes of data, each with what its refusal says. */
    static const struct {
        const char *header, *needle;
    } cases[] = {
        {"{\"__metadata__\":{\"format\":\"pt\"},"
         "\"weight\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}",
         "not a tandem model (its __metadata__ has format 'pt'"},
        {"{\"weight\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}",
         "format '(none)'"},
        {"{\"weight\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},}",
         "not valid: expected a string at byte 67"},
        {"{\"weight\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}",
         "'weight': its data_offsets do not span its 12 bytes"},
        {"{\"weight\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}",
         "4 bytes after the last tensor's data"},
        {"{\"weight\":{\"dtype\":\"Q4\",\"shape\":[2],\"data_offsets\":[0,8]}}",
         "unknown dtype 'Q4'"},
        {"{\"weight\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8],\"x\":1}}",
         "an unknown key in a tensor entry"},
    };
    const float w[2] = {1, 2};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_safetensors(bad, cases[i].header, w, sizeof w);
        check_refused(bad, TDM_ERR_CORRUPT_DATA, cases[i].needle);
    }
}

#define META(version)                                                                              \
    "{\"__metadata__\":{\"format\":\"tandem-model\",\"format_version\":\"" version "\","           \
    "\"loss\":\"softmax_cross_entropy\",\"reduction\":\"sum\",\"seed\":\"1\","                     \
    "\"dense0/activation\":\"linear\",\"dense0/dropout\":\"0\",\"data_crc32\":\"%CRC%\"}"
#define KERNEL(shape, end)                                                                         \
    ",\"dense0/kernel\":{\"dtype\":\"F32\",\"shape\":" shape ",\"data_offsets\":[0," end "]}"
#define BIAS(at, end)                                                                              \
    ",\"dense0/bias\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[" at "," end "]}"

#define EXTRA ",\"extra\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[32,36]}"

/* Well-formed safetensors files whose model is wrong. */
static void check_wrong_models(void)
{
    char bad[SCRATCH_PATH];
    scratch(bad, sizeof bad, "wrong.safetensors");
    const float v[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}; /* kernel [3, 2], bias [2], one more */
    const size_t model_bytes = 8 * sizeof(float);
    write_safetensors(bad, META("1") KERNEL("[3,2]", "24") BIAS("24", "32") "}", v, model_bytes);
    tdm_model *m = NULL;
    CHECK_OK(tdm_model_load(strategy, bad, &m)); /* the control: this one is right */
    CHECK(tdm_model_input_count(m) == 3 && tdm_model_output_count(m) == 2);
    tdm_model_destroy(m);
    write_safetensors(bad, META("4") KERNEL("[3,2]", "24") BIAS("24", "32") "}", v, model_bytes);
    check_refused(bad, TDM_ERR_UNSUPPORTED, "format version 4 is newer than this tandem reads (3)");
    write_safetensors(bad, META("1") KERNEL("[3,2]", "24") BIAS("24", "32") EXTRA "}", v, sizeof v);
    check_refused(bad, TDM_ERR_CORRUPT_DATA, "tensor 'extra' is not part of a tandem model");
    write_safetensors(bad, META("1") KERNEL("[4,2]", "32") "}", v, model_bytes);
    check_refused(bad, TDM_ERR_CORRUPT_DATA, "tensor 'dense0/bias' is missing");
    write_safetensors(bad, META("1") KERNEL("[2,3]", "24") BIAS("24", "32") "}", v, model_bytes);
    check_refused(bad, TDM_ERR_CORRUPT_DATA,
                  "tensor 'dense0/bias' is [2], where the layers before it make it [3]");
    write_safetensors(bad,
                      META("1") ",\"input/mean\":{\"dtype\":\"F32\",\"shape\":[2],"
                                "\"data_offsets\":[0,8]}}",
                      v, 2 * sizeof(float));
    check_refused(bad, TDM_ERR_CORRUPT_DATA, "no layers");
}

void test_case_model_file(const test_run *run)
{
    ctx = test_context(TDM_BACKEND_BIT(TDM_BACKEND_REFERENCE));
    tdm_device *dev = NULL;
    CHECK_OK(tdm_context_device(ctx, 0, &dev));
    CHECK_OK(tdm_strategy_create_one_device(dev, NULL, &strategy));
    CHECK(scratch_temp_dir(dir, "tdm_model") == 0);
    check_round_trip();
    check_class_names();
    check_damaged();
    check_foreign(run->argv[0]);
    check_wrong_models();
    CHECK(scratch_remove_tree(dir) == 0);
    tdm_strategy_destroy(strategy);
    tdm_context_destroy(ctx);
}
