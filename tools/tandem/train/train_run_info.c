/* tandem train: the record of a run that its metrics file carries: the version, the
 * replicas' devices and every option's effective value. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train_session.h"
#include "train_texts.h"

static void add(run_record *r, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void add(run_record *r, const char *name, const char *fmt, ...)
{
    if (r->run.option_count == RUN_OPTIONS)
        return;
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    char *value = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (value)
        vsnprintf(value, (size_t)n + 1, fmt, again);
    va_end(again);
    va_end(ap);
    size_t i = r->run.option_count++;
    r->names[i] = name;
    r->values[i] = value ? value : "";
    r->owned[i] = value;
}

static void add_layers(run_record *r, const train_options *o)
{
    char text[1024];
    train_layers_text(o, text, sizeof text);
    add(r, "layers", "%s", text);
}

static void add_data(run_record *r, const train_session *ts)
{
    const train_options *o = ts->opts;
    if (o->text) {
        add(r, "text", "%s", ts->data.path);
        add(r, "context", "%zu", o->context);
        add(r, "stride", "%zu", o->stride);
        add(r, "held-out", "%g", TRAIN_TEXT_HELD_OUT);
        return;
    }
    add(r, "data", "%s", ts->data.path);
    if (o->labels)
        add(r, "labels", "%s", o->labels);
    if (o->test_data)
        add(r, "test-data", "%s", o->test_data);
    if (o->test_labels)
        add(r, "test-labels", "%s", o->test_labels);
    if (!o->labels) {
        add(r, "label-column", "%s", o->label_column ? o->label_column : "last");
        add(r, "header", "%s", o->header ? "yes" : "no");
        add(r, "skip-rows", "%zu", o->skip_rows);
    }
    if (!o->test_data)
        add(r, "test-fraction", "%g", o->test_fraction);
    add(r, "standardize", "%s", o->standardize ? "yes" : "no");
}

/* Each replica's layer choices, where there are any: "opencl:0: convolutions conv0
 * lowered; products conv0 f16, dense4 f32". */
static void add_choices(run_record *r, const train_session *ts)
{
    char text[4096] = "";
    size_t used = 0;
    for (size_t i = 0; i < tdm_strategy_num_local_replicas(ts->strategy); i++) {
        char choices[1024];
        train_describe_choices(ts, i, choices, sizeof choices);
        if (!choices[0] || used >= sizeof text)
            continue;
        tdm_device_desc d = TDM_DEVICE_DESC_INIT;
        tdm_device_describe(tdm_strategy_device(ts->strategy, i), &d);
        /* the text starts ", " or "; ": dropped after the device's id */
        int n = snprintf(text + used, sizeof text - used, "%s%s: %s", used ? "; " : "", d.id,
                         choices + 2);
        used += n > 0 ? (size_t)n : 0;
    }
    if (text[0])
        add(r, "layer-choices", "%s", text);
}

void train_run_record(const train_session *ts, run_record *r)
{
    const train_options *o = ts->opts;
    memset(r, 0, sizeof *r);
    snprintf(r->version, sizeof r->version, "%s", tdm_version());
    size_t replicas = tdm_strategy_num_local_replicas(ts->strategy);
    for (size_t i = 0; i < replicas && i < MAX_SELECTED; i++) {
        tdm_device_desc d = TDM_DEVICE_DESC_INIT;
        tdm_device_describe(tdm_strategy_device(ts->strategy, i), &d);
        snprintf(r->device_text[i], sizeof r->device_text[i], "%s (%s)", d.id, d.name);
        r->devices[i] = r->device_text[i];
    }
    add_data(r, ts);
    add_layers(r, o);
    add(r, "activation", "%s", o->activation);
    add(r, "dropout", "%g", (double)o->dropout);
    add(r, "optimizer", "%s", o->optimizer);
    tdm_optimizer_options oo = TDM_OPTIMIZER_OPTIONS_INIT;
    tdm_optimizer_get_options(ts->optimizer, &oo);
    add(r, "lr", "%g", (double)oo.learning_rate.initial);
    add(r, "lr-decay", "%s", o->lr_decay);
    add(r, "batch", "%zu", o->batch);
    add(r, "epochs", "%u", o->epochs);
    add(r, "strategy", "%s", tdm_strategy_kind_name(o->strategy));
    add(r, "seed", "%llu", (unsigned long long)o->seed);
    add(r, "deterministic", "%s", o->deterministic ? "yes" : "no");
    add(r, "balance", "%s", o->balance ? "yes" : "no");
    add(r, "precision", "%s",
        o->f16_activations   ? "mixed f16, f16 activations"
        : o->mixed_precision ? "mixed f16"
                             : "f32");
    add(r, "all-reduce", "%s", o->f16_all_reduce ? "f16" : "f32");
    if (o->shard_optimizer)
        add(r, "optimizer-state", "%s", "sharded");
    add(r, "conv", "%s", tdm_conv_algorithm_name(o->conv));
    if (o->mixed_precision)
        add(r, "mixed-products", "%s", tdm_mixed_products_name(o->mixed_products));
    add_choices(r, ts);
    r->run = (train_run){r->version, r->devices, replicas < MAX_SELECTED ? replicas : MAX_SELECTED,
                         r->names,   r->values,  r->run.option_count};
}

void train_run_record_free(run_record *r)
{
    for (size_t i = 0; i < r->run.option_count; i++)
        free(r->owned[i]);
    memset(r, 0, sizeof *r);
}
