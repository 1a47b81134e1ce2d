/* tandem train: the run's settings as text and as the library's options. */
#include <stdio.h>
#include <string.h>

#include "train_texts.h"

tdm_status train_optimizer_options(const train_options *o, size_t steps_per_epoch,
                                   tdm_optimizer_options *oo)
{
    *oo = (tdm_optimizer_options)TDM_OPTIMIZER_OPTIONS_INIT;
    tdm_status s = tdm_optimizer_kind_parse(o->optimizer, oo);
    int plain = oo->kind == TDM_OPT_SGD || oo->kind == TDM_OPT_MOMENTUM;
    oo->learning_rate.initial = o->lr > 0.0f ? o->lr : plain ? 0.1f : 0.001f;
    if (s == TDM_OK && strcmp(o->lr_decay, "none") != 0) {
        /* the library's name: a cosine without warm-up ends at 0 on the run's last step */
        s = tdm_lr_kind_parse(o->lr_decay, &oo->learning_rate.kind);
        oo->learning_rate.total_steps = (uint64_t)o->epochs * steps_per_epoch;
    }
    return s;
}

void train_optimizer_text(const char *name, const tdm_optimizer_options *o, char *out, size_t size)
{
    switch (o->kind) {
    case TDM_OPT_SGD: snprintf(out, size, "%s", name); break;
    case TDM_OPT_MOMENTUM: snprintf(out, size, "%s (momentum %g)", name, o->momentum); break;
    case TDM_OPT_ADAGRAD:
        snprintf(out, size, "%s (initial accumulator %g, epsilon %g)", name, o->initial_accumulator,
                 o->epsilon);
        break;
    case TDM_OPT_RMSPROP:
        snprintf(out, size, "%s (rho %g, momentum %g, epsilon %g%s)", name, o->rho, o->momentum,
                 o->epsilon, o->centered ? ", centered" : "");
        break;
    case TDM_OPT_ADAM:
    case TDM_OPT_ADAMW:
        snprintf(out, size, "%s (beta1 %g, beta2 %g, epsilon %g, weight decay %g)", name, o->beta1,
                 o->beta2, o->epsilon, o->kind == TDM_OPT_ADAMW ? o->weight_decay : 0.0f);
        break;
    }
}

void train_data_text(const train_options *o, const train_data *d, char *out, size_t size)
{
    char labels[64];
    if (d->text) {
        snprintf(out, size,
                 "%zu windows of %zu bytes every %zu of a text (content %016llx), the last "
                 "tenth held out",
                 d->examples, o->context + 1, o->stride, (unsigned long long)d->fingerprint);
        return;
    }
    if (d->targets)
        snprintf(labels, sizeof labels, "%zu float targets", d->outputs);
    else
        snprintf(labels, sizeof labels, "%zu classes", d->classes);
    snprintf(out, size,
             "%zu examples of %zu features in %s (content %016llx), test fraction %g, %s",
             d->examples, d->features, labels, (unsigned long long)d->fingerprint,
             o->test_fraction, o->standardize ? "standardized" : "not standardized");
}

void train_layers_text(const train_options *o, char *out, size_t size)
{
    if (!o->graph) {
        tdm_layers_format(o->hidden, o->hidden_count, out, size);
        return;
    }
    if (tdm_graph_format(o->hidden, o->hidden_count, &o->graph_inputs, out, size) != TDM_OK)
        snprintf(out, size, "(a graph of %zu layers, longer than %zu bytes)", o->hidden_count,
                 size);
    for (char *p = out; (p = strchr(p, '\n')) != NULL;)
        *p = ';';
}
