/* tandem train: the fingerprint of a run that every process of a job compares. */
#include <stdarg.h>
#include <stdio.h>

#include "train_fingerprint.h"
#include "train_texts.h"

#define MAX_ITEMS 32 /* the items below, with room */
#define VALUE_MAX 1024 /* a graph's text */

typedef struct fingerprint {
    tdm_agreement_item items[MAX_ITEMS];
    char values[MAX_ITEMS][VALUE_MAX];
    size_t count;
} fingerprint;

static void add(fingerprint *f, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void add(fingerprint *f, const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->values[f->count], VALUE_MAX, fmt, ap);
    va_end(ap);
    f->items[f->count] = (tdm_agreement_item){name, f->values[f->count]};
    f->count++;
}

static const char *on_off(int on)
{
    return on ? "on" : "off";
}

/* The model and how it computes: layers, activation, dropout, precision, and the seed,
 * which orders the data every epoch. */
static void add_model(fingerprint *f, const train_options *o)
{
    char layers[VALUE_MAX];
    train_layers_text(o, layers, sizeof layers);
    add(f, o->graph ? "--model-file" : "--layers", "%s", layers);
    add(f, "--input-shape", "%zux%zux%zu", o->input_shape[0], o->input_shape[1], o->input_shape[2]);
    tdm_activation act = TDM_ACT_RELU;
    tdm_activation_parse(o->activation, &act);
    add(f, "--activation", "%s", tdm_activation_name(act));
    add(f, "--dropout", "%g", (double)o->dropout);
    add(f, "--seed", "%llu", (unsigned long long)o->seed);
    add(f, "--conv", "%s", tdm_conv_algorithm_name(o->conv));
    add(f, "--mixed-precision", "%s", on_off(o->mixed_precision));
    add(f, "--mixed-products", "%s", tdm_mixed_products_name(o->mixed_products));
    add(f, "--f16-activations", "%s", on_off(o->f16_activations));
}

/* The optimizer and the steps: the rate's schedule over the run is the same text in
 * every process whatever its share of the data (a parameter-server worker's). */
static void add_training(fingerprint *f, const train_options *o)
{
    tdm_optimizer_options oo;
    train_optimizer_options(o, 0, &oo);
    char optimizer[VALUE_MAX];
    train_optimizer_text(o->optimizer, &oo, optimizer, sizeof optimizer);
    add(f, "--optimizer", "%s", optimizer);
    add(f, "--lr", "%g", (double)oo.learning_rate.initial);
    add(f, "--lr-decay", "%s", o->lr_decay);
    add(f, "--loss-scale", "%g", (double)o->loss_scale);
    add(f, "--f16-all-reduce", "%s", on_off(o->f16_all_reduce));
    add(f, "--shard-optimizer", "%s", on_off(o->shard_optimizer));
    add(f, "--batch", "%zu", o->batch);
    add(f, "--epochs", "%u", o->epochs);
    add(f, "--balance", "%s", on_off(o->balance));
    add(f, "--deterministic", "%s", on_off(o->deterministic));
    add(f, "--resume", "%s", on_off(o->resume));
}

int train_fingerprint_check(const train_options *o, const train_data *d, tdm_strategy *strategy)
{
    fingerprint f = {.count = 0};
    add(&f, "--strategy", "%s", tdm_strategy_kind_name(o->strategy));
    add(&f, "--ps-processes", "%zu", o->ps_processes);
    add(&f, "--tolerate-lost-workers", "%s", on_off(o->tolerate_lost_workers));
    add_model(&f, o);
    add_training(&f, o);
    char data[VALUE_MAX];
    train_data_text(o, d, data, sizeof data);
    add(&f, "--data", "%s", data);
    tdm_status s = tdm_strategy_check_agreement(strategy, f.items, f.count);
    if (s == TDM_OK)
        return 0;
    fprintf(stderr, "tandem train: %s\n", tdm_last_error());
    return s == TDM_ERR_INVALID_ARGUMENT ? 2 : 1;
}
