/* tandem train: trains a multi-layer perceptron data-parallel over the chosen
 * devices, the bundled digits by default, and reports how it learns. */
#include <stdio.h>

#include "commands.h"
#include "train_config.h"
#include "train_session.h"
#include "train_texts.h"
#include "platform/tdm_host.h"

/* What was read: which lines and columns of which files. */
static void print_data(const train_data *d)
{
    printf("data     %s: %s\n", d->path, d->used);
    if (d->test_path)
        printf("test     %s: %s\n", d->test_path, d->test_used);
    char what[64];
    if (d->text) {
        printf("         %zu byte values: %zu windows for training, %zu held out for validation\n",
               d->classes, d->train_examples, d->test_examples);
        return;
    }
    if (d->targets)
        snprintf(what, sizeof what, "%zu target%s", d->outputs, d->outputs == 1 ? "" : "s");
    else
        snprintf(what, sizeof what, "%zu classes", d->classes);
    printf("         %s: %zu examples for training, %zu %s\n", what, d->train_examples,
           d->test_examples, d->test_path ? "for testing" : "held out for testing");
}

/* With --conv measured, or mixed precision's products measured: what the first step
 * chose on each replica's device. */
static void print_measured_choices(const train_session *ts)
{
    const train_options *o = ts->opts;
    int convolutions =
        o->conv == TDM_CONV_MEASURED && tdm_layers_need_image(o->hidden, o->hidden_count);
    int products =
        o->mixed_precision && !o->f16_activations && o->mixed_products == TDM_MIXED_MEASURED;
    if (!convolutions && !products)
        return;
    for (size_t r = 0; r < tdm_strategy_num_local_replicas(ts->strategy); r++) {
        tdm_device_desc d = TDM_DEVICE_DESC_INIT;
        tdm_device_describe(tdm_strategy_device(ts->strategy, r), &d);
        printf("measured replica %zu (%s)", r, d.id);
        train_print_choices(ts, r);
        printf("\n");
    }
}

/* Without --devices: the devices worth naming that the default left out (an
 * integrated GPU beside a discrete one, a simulator), and how to use them. */
static void print_left_out(const train_session *ts)
{
    if (ts->opts->devices.count)
        return;
    for (size_t i = 0; i < tdm_context_device_count(ts->ctx); i++) {
        tdm_device *dev = NULL;
        tdm_device_choice choice = TDM_CHOICE_USED;
        tdm_context_device(ts->ctx, i, &dev);
        tdm_context_default_choice(ts->ctx, dev, &choice);
        if (choice != TDM_CHOICE_INTEGRATED_BESIDE_DISCRETE && choice != TDM_CHOICE_SIMULATOR)
            continue;
        tdm_device_desc d = TDM_DEVICE_DESC_INIT;
        tdm_device_describe(dev, &d);
        printf("  left out: %s (%s), %s; --devices %s uses it\n", d.id, d.name,
               tdm_device_choice_description(choice), d.id);
    }
}

static void print_setup(const train_session *ts)
{
    const train_options *o = ts->opts;
    size_t replicas = tdm_strategy_num_local_replicas(ts->strategy),
           all = tdm_strategy_num_replicas(ts->strategy),
           workers = tdm_strategy_num_workers(ts->strategy);
    print_data(&ts->data);
    char layers[1024];
    train_layers_text(o, layers, sizeof layers);
    printf("model    layers %s, %zu outputs: %zu parameters%s%s\n", layers,
           tdm_model_output_count(ts->model), tdm_model_parameter_count(ts->model),
           o->mixed_precision ? train_mixed_precision_text(o->mixed_products, o->f16_activations)
                              : "",
           o->f16_activations ? ", f16 activations" : "");
    char lr[128];
    train_lr_text(ts, lr, sizeof lr);
    printf("         optimizer %s, learning rate %s, global batch %zu\n",
           tdm_optimizer_name(ts->optimizer), lr, o->batch);
    printf("strategy %s over %zu replica%s", tdm_strategy_kind_name(o->strategy), all, all == 1 ? "" : "s");
    size_t servers = tdm_strategy_num_parameter_servers(ts->strategy);
    if (servers)
        printf(" in each of %zu worker processes, %zu parameter server%s; the chief's", workers,
               servers, servers == 1 ? "" : "s");
    else if (workers > 1)
        printf(" in %zu processes; the chief's", workers);
    if (o->f16_all_reduce)
        printf(" (gradients all-reduced in f16)");
    printf(":\n");
    for (size_t r = 0; r < replicas; r++) {
        tdm_device_desc d = TDM_DEVICE_DESC_INIT;
        tdm_device_describe(tdm_strategy_device(ts->strategy, r), &d);
        printf("  replica %zu: %s (%s)", r, d.id, d.name);
        train_print_choices(ts, r);
        printf("\n");
    }
    print_left_out(ts);
    for (size_t i = 0; i < tdm_strategy_num_parameter_devices(ts->strategy); i++) {
        tdm_device_desc d = TDM_DEVICE_DESC_INIT;
        tdm_device_describe(tdm_strategy_parameter_device(ts->strategy, i), &d);
        printf("  parameters %zu: %s (%s)\n", i, d.id, d.name);
    }
    if (ts->eval_strategy) {
        tdm_device_desc d = TDM_DEVICE_DESC_INIT;
        tdm_device_describe(tdm_strategy_device(ts->eval_strategy, 0), &d);
        printf("evaluation on %s (%s)\n", d.id, d.name);
    }
    fflush(stdout);
}

/* With --loss-scale: the scale reached and the steps skipped for overflow. */
static void print_loss_scale(const train_session *ts)
{
    float scale = 1.0f;
    uint64_t skipped = 0;
    if (!ts->opts->loss_scale || tdm_train_op_loss_scale(ts->op, &scale, &skipped) != TDM_OK)
        return;
    printf("loss scale %g, %llu step%s skipped for overflow\n", (double)scale,
           (unsigned long long)skipped, skipped == 1 ? "" : "s");
}

static void print_summary(const train_session *ts, double seconds)
{
    const train_epoch *last = ts->epochs_done ? &ts->history[ts->epochs_done - 1] : NULL;
    char score[96];
    if (last && last->text)
        snprintf(score, sizeof score, "val bpb %.4f, accuracy %.2f%%", last->test_loss / TRAIN_LN2,
                 100.0 * last->test_accuracy);
    else if (last && last->regression)
        snprintf(score, sizeof score, "test RMSE %.4g, MAE %.4g, R^2 %.4f", last->test_rmse,
                 last->test_mae, last->test_r2);
    else
        snprintf(score, sizeof score, "test accuracy %.2f%%",
                 last ? 100.0 * last->test_accuracy : 0.0);
    printf("done     %u epochs, %llu steps in %.2f s on %zu replica%s (%s): %s\n",
           ts->epochs_done, (unsigned long long)tdm_train_op_global_step(ts->op), seconds,
           tdm_strategy_num_replicas(ts->strategy),
           tdm_strategy_num_replicas(ts->strategy) == 1 ? "" : "s",
           tdm_strategy_kind_name(ts->opts->strategy), score);
}

/* With --balance: each replica's share of the batch and its measured speed. */
static void print_balance(const train_session *ts)
{
    size_t n = tdm_strategy_num_local_replicas(ts->strategy);
    double shares[MAX_SELECTED];
    if (!ts->opts->balance || n > MAX_SELECTED ||
        tdm_strategy_batch_shares(ts->strategy, shares, n) != TDM_OK)
        return;
    printf("balance ");
    for (size_t i = 0; i < n; i++) {
        tdm_device_desc d = TDM_DEVICE_DESC_INIT;
        double rate = 0.0;
        tdm_device_describe(tdm_strategy_device(ts->strategy, i), &d);
        tdm_train_op_replica_rate(ts->op, i, &rate);
        printf(" %s %.0f%% (%.0f ex/s alone)", d.id, 100.0 * shares[i], rate);
    }
    printf("\n");
}

int cmd_train(int argc, char **argv)
{
    train_options o;
    int exit_status = 0;
    if (train_options_parse(argc, argv, &o, &exit_status))
        return exit_status;
    train_session ts;
    int opened = train_session_open(&o, &ts);
    if (opened != 0)
        return opened;
    if (tdm_strategy_is_parameter_server(ts.strategy)) {
        /* Serves the workers until they are done; they print. */
        int served = tdm_optimizer_serve(ts.optimizer) == TDM_OK;
        if (!served)
            fprintf(stderr, "tandem train: parameter server: %s\n", tdm_last_error());
        train_session_close(&ts);
        return served ? 0 : 1;
    }
    print_setup(&ts);
    uint64_t t0 = tdm_host_now_ns();
    exit_status = train_session_run(&ts);
    uint64_t t1 = tdm_host_now_ns();
    if (exit_status == 0) {
        print_balance(&ts);
        print_measured_choices(&ts);
        print_loss_scale(&ts);
        print_summary(&ts, (double)(t1 - t0) * 1e-9);
    }
    train_session_close(&ts);
    return exit_status;
}
