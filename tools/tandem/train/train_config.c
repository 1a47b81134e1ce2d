/* tandem train: the configuration recorded in checkpoints and checked on --resume. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_options.h"
#include "train_config.h"

#include "train_session.h"
#include "train_texts.h"

#define RECORD_PREFIX "cli/config/"
#define VALUE_MAX 1024 /* a graph's text */

/* Bit i of the allowed set is item i; "all" sets every bit. */
const char *const train_config_items[] = {"layers", "lr",   "optimizer", "activation", "dropout",
                                          "batch",  "data", "loss",      "all",        NULL};
#define ITEM_COUNT 8 /* before "all" */
#define LOSS_ITEM 7
#define ALL_ITEMS ((1u << ITEM_COUNT) - 1)

int train_config_parse_allowed(const char *list, void *allowed, char *err, size_t err_size)
{
    unsigned *set = allowed;
    for (const char *p = list;; p++) {
        char name[32];
        size_t len = strcspn(p, ",");
        snprintf(name, sizeof name, "%.*s", (int)(len < 31 ? len : 31), p);
        int i = cli_parse_choice(name, "item", train_config_items, err, err_size);
        if (i < 0)
            return -1;
        *set |= i == ITEM_COUNT ? ALL_ITEMS : 1u << i;
        p += len;
        if (!*p)
            return 0;
    }
}

void train_lr_text(const train_session *ts, char *out, size_t size)
{
    tdm_optimizer_options oo = TDM_OPTIMIZER_OPTIONS_INIT;
    tdm_optimizer_get_options(ts->optimizer, &oo);
    const tdm_lr_schedule *lr = &oo.learning_rate;
    if (lr->kind == TDM_LR_WARMUP_COSINE)
        snprintf(out, size, "%g, cosine decay to %g over %llu steps", (double)lr->initial,
                 (double)lr->final_rate, (unsigned long long)lr->total_steps);
    else
        snprintf(out, size, "%g", (double)lr->initial);
}

/* This run's value of each item, in train_config_items order. */
static void current(const train_session *ts, char values[ITEM_COUNT][VALUE_MAX])
{
    const train_options *o = ts->opts;
    train_layers_text(o, values[0], VALUE_MAX);
    train_lr_text(ts, values[1], VALUE_MAX);
    tdm_optimizer_options oo = TDM_OPTIMIZER_OPTIONS_INIT;
    tdm_optimizer_get_options(ts->optimizer, &oo);
    train_optimizer_text(tdm_optimizer_name(ts->optimizer), &oo, values[2], VALUE_MAX);
    tdm_activation act = TDM_ACT_RELU;
    tdm_activation_parse(o->activation, &act);
    snprintf(values[3], VALUE_MAX, "%s", tdm_activation_name(act));
    snprintf(values[4], VALUE_MAX, "%g", (double)o->dropout);
    snprintf(values[5], VALUE_MAX, "%zu", o->batch);
    train_data_text(ts->opts, &ts->data, values[6], VALUE_MAX);
    if (o->loss == TDM_LOSS_HUBER)
        snprintf(values[7], VALUE_MAX, "huber (delta %g)",
                 (double)(o->huber_delta > 0.0f ? o->huber_delta : 1.0f));
    else
        snprintf(values[7], VALUE_MAX, "%s", tdm_loss_kind_alias(o->loss));
}

tdm_status train_config_save(const train_session *ts, tdm_checkpoint_writer *w)
{
    char values[ITEM_COUNT][VALUE_MAX];
    current(ts, values);
    tdm_status s = TDM_OK;
    for (size_t i = 0; i < ITEM_COUNT && s == TDM_OK; i++) {
        int32_t text[VALUE_MAX];
        size_t len = strlen(values[i]);
        for (size_t k = 0; k < len; k++)
            text[k] = (unsigned char)values[i][k];
        char name[64];
        snprintf(name, sizeof name, RECORD_PREFIX "%s", train_config_items[i]);
        s = tdm_checkpoint_add(w, name, TDM_I32, &TDM_SHAPE(len), text);
    }
    return s;
}

/* The recorded text of one item: 1 when found, 0 when the checkpoint lacks it. */
static int recorded(const tdm_checkpoint *c, size_t item, char *out)
{
    char name[64];
    snprintf(name, sizeof name, RECORD_PREFIX "%s", train_config_items[item]);
    tdm_dtype dtype;
    tdm_shape shape;
    int32_t text[VALUE_MAX];
    if (tdm_checkpoint_tensor_shape(c, name, &dtype, &shape) != TDM_OK || dtype != TDM_I32 ||
        shape.rank != 1 || shape.dims[0] >= VALUE_MAX ||
        tdm_checkpoint_read(c, name, TDM_I32, &shape, text, shape.dims[0] * sizeof *text) != TDM_OK)
        return 0;
    for (size_t k = 0; k < shape.dims[0]; k++)
        out[k] = (char)text[k];
    out[shape.dims[0]] = '\0';
    return 1;
}

int train_config_check(const train_session *ts, const tdm_checkpoint *c, char *err, size_t err_size)
{
    char now[ITEM_COUNT][VALUE_MAX], then[VALUE_MAX];
    current(ts, now);
    unsigned allowed = ts->opts->allow_config_change, refused = 0;
    size_t used = 0;
    for (size_t i = 0; i < ITEM_COUNT; i++) {
        /* checkpoints from before the choice of losses trained the one there was */
        if (i == LOSS_ITEM && !recorded(c, i, then))
            snprintf(then, sizeof then, "%s",
                     tdm_loss_kind_alias(TDM_LOSS_SOFTMAX_CROSS_ENTROPY));
        else if (!recorded(c, i, then)) {
            if (allowed == ALL_ITEMS)
                continue;
            snprintf(err, err_size,
                     "the checkpoint records no '%s' of its configuration (an older tandem "
                     "wrote it); --allow-config-change all resumes it as it is",
                     train_config_items[i]);
            return -1;
        }
        if (!strcmp(then, now[i]))
            continue;
        if (allowed & 1u << i) {
            printf("note     --%s changed from %s to %s (--allow-config-change)\n",
                   train_config_items[i], then, now[i]);
            continue;
        }
        refused |= 1u << i;
        if (used < err_size)
            used += (size_t)snprintf(err + used, err_size - used,
                                     "%s--%s: the checkpoint has %s, this run %s",
                                     used ? "; "
                                          : "the checkpoint was written with another "
                                            "configuration: ",
                                     train_config_items[i], then, now[i]);
    }
    char names[128] = "";
    for (size_t i = 0, n = 0; i < ITEM_COUNT; i++)
        if (refused & 1u << i)
            n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", n ? "," : "",
                                  train_config_items[i]);
    if (refused && used < err_size)
        snprintf(err + used, err_size - used,
                 ". Resume with the same options, or change them deliberately with "
                 "--allow-config-change %s",
                 names);
    return refused ? -1 : 0;
}
