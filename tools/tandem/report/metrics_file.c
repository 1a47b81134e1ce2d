#include <math.h>
#include <string.h>

#include "atomic_file.h"
#include "json_writer.h"
#include "metrics_file.h"

#define FIELD_COUNT 12

/* Every field; a run writes those of its task (task_field). */
static const char *const field_names[FIELD_COUNT] = {
    "train_loss", "test_loss", "test_accuracy", "test_mae", "test_rmse",           "test_r2",
    "val_loss",   "val_bpb",   "val_accuracy",  "seconds",  "examples_per_second", "eval_seconds"};

static void epoch_fields(const train_epoch *e, double out[FIELD_COUNT])
{
    const double v[FIELD_COUNT] = {
        e->train_loss,    e->test_loss, e->test_accuracy,       e->test_mae,
        e->test_rmse,     e->test_r2,   e->test_loss,           e->test_loss / TRAIN_LN2,
        e->test_accuracy, e->seconds,   e->examples_per_second, e->eval_seconds};
    memcpy(out, v, sizeof v);
}

/* Whether field k is one of the task's: accuracy for classes, the errors and R^2
 * for a regression; a text's held-out tenth is its validation split, with bits per
 * byte. */
static int task_field(const train_epoch *e, int k)
{
    if (k >= 6 && k <= 8)
        return e->text;
    if (k == 1 || k == 2)
        return !e->text && (k == 1 || !e->regression);
    return k >= 3 && k <= 5 ? e->regression : 1;
}

/* A finite value with %.9g; else `missing`. */
static void put_number(FILE *f, double v, const char *missing)
{
    if (isfinite(v))
        fprintf(f, "%.9g", v);
    else
        fputs(missing, f);
}

static void write_csv(FILE *f, const train_run *run, const train_epoch *e, size_t n)
{
    fprintf(f, "# tandem %s\n# devices:", run->version);
    for (size_t i = 0; i < run->device_count; i++)
        fprintf(f, "%s %s", i ? ";" : "", run->devices[i]);
    fputs("\n# options:", f);
    for (size_t i = 0; i < run->option_count; i++)
        fprintf(f, " %s=%s", run->option_names[i], run->option_values[i]);
    const train_epoch task = {.regression = n && e[0].regression, .text = n && e[0].text};
    fputs("\nepoch", f);
    for (int k = 0; k < FIELD_COUNT; k++)
        if (task_field(&task, k))
            fprintf(f, ",%s", field_names[k]);
    fputc('\n', f);
    for (size_t i = 0; i < n; i++) {
        double v[FIELD_COUNT];
        epoch_fields(&e[i], v);
        fprintf(f, "%u", e[i].epoch);
        for (int k = 0; k < FIELD_COUNT; k++) {
            if (!task_field(&task, k))
                continue;
            fputc(',', f);
            put_number(f, v[k], "");
        }
        fputc('\n', f);
    }
}

static void write_json(FILE *f, const train_run *run, const train_epoch *e, size_t n)
{
    json_writer w = {f, 0, 0};
    json_begin_object(&w, NULL);
    json_begin_object(&w, "run");
    json_string(&w, "tandem", run->version);
    json_begin_array(&w, "devices");
    for (size_t i = 0; i < run->device_count; i++)
        json_string(&w, NULL, run->devices[i]);
    json_end_array(&w);
    json_begin_object(&w, "options");
    for (size_t i = 0; i < run->option_count; i++)
        json_string(&w, run->option_names[i], run->option_values[i]);
    json_end_object(&w);
    json_end_object(&w);
    json_begin_array(&w, "epochs");
    for (size_t i = 0; i < n; i++) {
        double v[FIELD_COUNT];
        epoch_fields(&e[i], v);
        json_begin_object(&w, NULL);
        json_uint(&w, "epoch", e[i].epoch);
        for (int k = 0; k < FIELD_COUNT; k++)
            if (task_field(&e[i], k))
                json_double(&w, field_names[k], v[k]);
        json_end_object(&w);
    }
    json_end_array(&w);
    json_end_object(&w);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t len = strlen(s), suffix_len = strlen(suffix);
    return len >= suffix_len && strcmp(s + len - suffix_len, suffix) == 0;
}

int metrics_write(const char *path, const train_run *run, const train_epoch *e, size_t n, char *err,
                  size_t err_size)
{
    atomic_file a;
    if (atomic_file_open(&a, path, TDM_OUTPUT_STREAM, err, err_size) != 0)
        return -1;
    if (ends_with(path, ".json"))
        write_json(a.f, run, e, n);
    else
        write_csv(a.f, run, e, n);
    return atomic_file_commit(&a, err, err_size);
}
