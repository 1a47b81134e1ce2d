/* tandem bench train: examples per second of real training steps (the train op over a
 * distributed iterator with prefetch, as tandem train runs them) on every chosen
 * device alone and on all of them together, with where a step's time goes and the
 * cost of distribution: N replicas against the best single device, measured in the
 * same run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_clock.h"
#include "cli_options.h"
#include "bench_json.h"
#include "train_session.h"
#include "platform/tdm_files.h"
#include "platform/tdm_host.h"

#define FASHION_DIR "/usr/share/datasets/fashion-mnist"
#define MAX_ROWS (2 * (MAX_SELECTED + 1))

/* Where a model's examples come from. */
typedef enum bench_data {
    BENCH_DIGITS,  /* the bundled digits */
    BENCH_FASHION, /* Fashion-MNIST from Debian's dataset-fashion-mnist */
    BENCH_TEXT     /* the bundled text as tandem train --text - cuts it */
} bench_data;

typedef struct bench_model {
    const char *name, *description;
    const char *layers; /* --layers of tandem train */
    size_t batch;
    bench_data data;
    unsigned warmup, steps, profiled;
} bench_model;

static const bench_model models[] = {
    {"digits", "MLP 64-128-128-10, batch 64, digits", "128,128", 64, BENCH_DIGITS, 50, 500, 100},
    {"wide", "MLP 784-1024-1024-10, batch 256, Fashion-MNIST", "1024,1024", 256, BENCH_FASHION,
     5, 40, 10},
    {"fashion-cnn", "CNN conv32k3,pool2,conv64k3,pool2,128-10, batch 64, Fashion-MNIST",
     "conv32k3,pool2,conv64k3,pool2,128", 64, BENCH_FASHION, 5, 40, 10},
    /* an example is a window of TRAIN_CONTEXT bytes: tokens/s = ex/s x 128 */
    {"gpt-tiny", "transformer " TRAIN_TEXT_LAYERS ", 128-byte windows, batch 32, the bundled text",
     TRAIN_TEXT_LAYERS, 32, BENCH_TEXT, 3, 20, 5},
};
#define MODEL_COUNT (sizeof models / sizeof models[0])

typedef struct bt_options {
    cli_list devices;
    int model;              /* index into models, or -1: all */
    unsigned steps, warmup; /* 0: the model's own */
    int balance;
    int mixed_precision;
    int f16_all_reduce;
    int shard_optimizer;
    int f16_activations;
    tdm_conv_algorithm conv;
    tdm_mixed_products mixed_products;
    const char *data_dir;
    const char *json_path;
} bt_options;

/* One configuration's figures: throughput from a plain run, the breakdown (seconds
 * per step) from a profiled one. */
typedef struct bt_row {
    const bench_model *model;
    char devices[MAX_SELECTED * 16];
    size_t replicas;
    double examples_per_second, step_seconds;
    double input, loss, all_reduce, update, idle;
    /* Per replica per step, over the timed steps: kernel launches, submissions to the
     * device's queue, and times the host waited for the device (tdm_device_counters). */
    double launches, submissions, host_waits;
    double of_best; /* N replicas: examples/s over the best single device's */
} bt_row;

static const cli_command train_command = {
    .name = "bench train",
    .about = "Trains each model on every chosen device alone, then on all of them (mirrored; "
             "each piece of hardware once, where a card is seen through two APIs), and reports "
             "examples/s, a per-step breakdown, and N replicas against the best single device.",
};

/* The models' names, NULL-terminated. */
static void model_names(const char *names[MODEL_COUNT + 1])
{
    for (size_t i = 0; i < MODEL_COUNT; i++)
        names[i] = models[i].name;
    names[MODEL_COUNT] = NULL;
}

static int parse_model(const char *value, void *target, char *err, size_t err_size)
{
    const char *names[MODEL_COUNT + 1];
    model_names(names);
    int m = cli_parse_choice(value, "model", names, err, err_size);
    if (m < 0)
        return -1;
    *(int *)target = m;
    return 0;
}

/* 0 to go on; otherwise 1 with *exit_status set (--help, a bad option). */
static int parse(int argc, char **argv, bt_options *o, int *exit_status)
{
    *o = (bt_options){.devices = {.what = "device id", .max = MAX_SELECTED},
                      .model = -1,
                      .data_dir = FASHION_DIR};
    const uint64_t max_steps = 1000000;
    const char *names[MODEL_COUNT + 1];
    model_names(names);
    const cli_option table[] = {
        {CLI_ENTRY("--devices", "-d", CLI_CUSTOM, &o->devices), .parse = cli_parse_list,
         .arg = "LIST", .help = "device ids, comma-separated (default: every usable device)"},
        {CLI_ENTRY("--model", "-m", CLI_CUSTOM, &o->model), .parse = parse_model, .arg = "NAME",
         .help = "digits (64-128-128-10, batch 64), wide (784-1024-1024-10, batch 256, "
                 "Fashion-MNIST), fashion-cnn (conv32k3,pool2,conv64k3,pool2,128, batch 64, "
                 "Fashion-MNIST) or gpt-tiny (the transformer of tandem train --text, batch 32 "
                 "windows of 128 bytes: tokens/s = ex/s x 128); default: all",
         .choices = names},
        {CLI_ENTRY("--steps", "-n", CLI_UNSIGNED, &o->steps), .min = 1, .max = max_steps,
         .arg = "N", .help = "timed steps per configuration (default: 500 digits, 20 gpt-tiny, 40 the "
                 "others)"},
        {CLI_ENTRY("--warmup", "-w", CLI_UNSIGNED, &o->warmup), .max = max_steps, .arg = "N",
         .help = "untimed steps first (default: 50 digits, 3 gpt-tiny, 5 the others)"},
        {CLI_ENTRY("--balance", NULL, CLI_FLAG, &o->balance), .flag_value = 1,
         .help = "N replicas with uneven batch shares by device speed"},
        {CLI_ENTRY("--mixed-precision", NULL, CLI_FLAG, &o->mixed_precision), .flag_value = 1,
         .help = "f16 operands in the matrix products, f32 sums, loss scale 32768 (tandem "
                 "train --mixed-precision)"},
        {CLI_ENTRY("--f16-all-reduce", NULL, CLI_FLAG, &o->f16_all_reduce), .flag_value = 1,
         .help = "gradients summed across replicas in f16, loss scale 32768 (tandem train "
                 "--f16-all-reduce)"},
        {CLI_ENTRY("--shard-optimizer", NULL, CLI_FLAG, &o->shard_optimizer), .flag_value = 1,
         .help = "the optimizer's slots sharded across the replicas (tandem train "
                 "--shard-optimizer)"},
        {CLI_ENTRY("--f16-activations", NULL, CLI_FLAG, &o->f16_activations), .flag_value = 1,
         .help = "activations kept in f16, mixed precision (tandem train --f16-activations)"},
        {CLI_ENTRY("--conv", NULL, CLI_CUSTOM, &o->conv), .parse = train_parse_conv, .arg = "HOW",
         .help = "as tandem train --conv (default auto)", .choices = tdm_conv_algorithm_names()},
        {CLI_ENTRY("--mixed-products", NULL, CLI_CUSTOM, &o->mixed_products),
         .parse = train_parse_mixed_products, .arg = "HOW",
         .help = "as tandem train --mixed-products (default measured)",
         .choices = tdm_mixed_products_names()},
        {CLI_ENTRY("--data-dir", NULL, CLI_STRING, &o->data_dir), .arg = "DIR",
         .help = "Fashion-MNIST's IDX files (default " FASHION_DIR ")"},
        {CLI_ENTRY("--json", NULL, CLI_STRING, &o->json_path), .arg = "FILE",
         .help = BENCH_HELP_JSON},
    };
    return cli_parse_command(&train_command, table, sizeof table / sizeof table[0], argc, argv,
                             exit_status);
}

/* A progress line on a terminal, rewritten in place. */
static void show_progress(const bt_row *r, const char *phase, unsigned done, unsigned total)
{
    if (!tdm_host_is_terminal(stderr))
        return;
    fprintf(stderr, "\r  %-11s %-28.28s %-9s %4u/%-4u", r->model->name, r->devices, phase, done,
            total);
    fflush(stderr);
}

static void clear_progress(void)
{
    if (tdm_host_is_terminal(stderr))
        fprintf(stderr, "\r%*s\r", 60, "");
}

typedef struct bt_run {
    train_session ts;
    tdm_distributed_dataset *dist;
    tdm_distributed_iterator *it;
    double input_seconds; /* in the iterator, over the steps run */
    size_t examples;
} bt_run;

static int failed(const char *what)
{
    clear_progress();
    fprintf(stderr, "tandem bench train: %s: %s\n", what, tdm_last_error());
    return -1;
}

/* `steps` training steps; 0, or -1 after printing why. */
static int run_steps(bt_run *b, const bt_row *r, const char *phase, unsigned steps)
{
    b->input_seconds = 0.0;
    b->examples = 0;
    for (unsigned k = 0; k < steps; k++) {
        const tdm_distributed_batch *batch;
        double t0 = bench_seconds();
        if (tdm_distributed_iterator_next(b->it, &batch) != TDM_OK)
            return failed("input");
        b->input_seconds += bench_seconds() - t0;
        if (!batch->global_batch_size) {
            clear_progress();
            fprintf(stderr, "tandem bench train: the data ended\n");
            return -1;
        }
        double loss;
        if (tdm_train_op_run(b->ts.op, batch, &loss) != TDM_OK)
            return failed("step");
        b->examples += batch->global_batch_size;
        if (k % 10 == 0 || k + 1 == steps)
            show_progress(r, phase, k + 1, steps);
    }
    return 0;
}

static void options_for(const bt_options *bo, const bench_model *m, const char *const *ids,
                        size_t n, train_options *o, char paths[4][512])
{
    train_options_defaults(o);
    (void)tdm_layers_parse(m->layers, o->hidden, MAX_LAYERS, &o->hidden_count); /* the table's */
    o->batch = m->batch;
    o->epochs = 100000; /* the data repeats for as long as the bench runs */
    o->progress = 0;
    o->balance = bo->balance && n > 1;
    o->mixed_precision = bo->mixed_precision;
    o->f16_all_reduce = bo->f16_all_reduce;
    o->shard_optimizer = bo->shard_optimizer;
    o->f16_activations = bo->f16_activations;
    o->conv = bo->conv;
    o->mixed_products = bo->mixed_products;
    if (m->data == BENCH_TEXT)
        o->text = "-"; /* the bundled text, windows of the default context */
    train_options_imply(o);
    for (size_t i = 0; i < n; i++)
        snprintf(o->devices.item[i], CLI_ITEM_MAX, "%s", ids[i]);
    o->devices.count = n;
    if (m->data == BENCH_FASHION) {
        const char *names[4] = {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                                "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"};
        for (int i = 0; i < 4; i++)
            snprintf(paths[i], 512, "%s/%s", bo->data_dir, names[i]);
        o->data = paths[0];
        o->labels = paths[1];
        o->test_data = paths[2];
        o->test_labels = paths[3];
    }
}

static void breakdown(bt_run *b, bt_row *r, double wall, unsigned steps)
{
    double loss = 0, all_reduce = 0, update = 0;
    for (size_t i = 0; i < r->replicas; i++) {
        tdm_train_profile p;
        tdm_train_op_profile(b->ts.op, i, &p);
        loss += p.loss_seconds;
        all_reduce += p.all_reduce_seconds;
        update += p.update_seconds;
    }
    double per = (double)steps * (double)r->replicas;
    r->input = b->input_seconds / steps;
    r->loss = loss / per;
    r->all_reduce = all_reduce / per;
    r->update = update / per;
    r->idle = wall / steps - r->input - r->loss - r->all_reduce - r->update;
}

/* The counters so far of the strategy's replicas' devices, together. */
static tdm_device_counters counters_so_far(const bt_run *b, size_t replicas)
{
    tdm_device_counters sum = TDM_DEVICE_COUNTERS_INIT;
    for (size_t i = 0; i < replicas; i++) {
        tdm_device_counters c = TDM_DEVICE_COUNTERS_INIT;
        if (tdm_device_read_counters(tdm_strategy_device(b->ts.strategy, i), &c) != TDM_OK)
            continue;
        sum.kernel_launches += c.kernel_launches;
        sum.submissions += c.submissions;
        sum.host_waits += c.host_waits;
    }
    return sum;
}

static void count_per_step(bt_row *r, const tdm_device_counters *before,
                           const tdm_device_counters *after, double replica_steps)
{
    r->launches = (double)(after->kernel_launches - before->kernel_launches) / replica_steps;
    r->submissions = (double)(after->submissions - before->submissions) / replica_steps;
    r->host_waits = (double)(after->host_waits - before->host_waits) / replica_steps;
}

/* One configuration: warm-up, timed steps, then profiled steps. */
static int measure(const bt_options *bo, const bench_model *m, const char *const *ids, size_t n,
                   bt_row *r)
{
    train_options o;
    char paths[4][512];
    options_for(bo, m, ids, n, &o, paths);
    bt_run b = {0};
    if (train_session_open(&o, &b.ts) != 0)
        return -1;
    r->replicas = tdm_strategy_num_replicas(b.ts.strategy);
    tdm_distribute_options d = TDM_DISTRIBUTE_OPTIONS_INIT;
    int status = tdm_distribute_dataset(b.ts.strategy, b.ts.data.train, &d, &b.dist) != TDM_OK ||
                         tdm_distributed_iterator_create(b.dist, &b.it) != TDM_OK
                     ? failed("input")
                     : 0;
    unsigned warmup = bo->warmup ? bo->warmup : m->warmup, steps = bo->steps ? bo->steps : m->steps;
    unsigned profiled = m->profiled < steps ? m->profiled : steps;
    if (status == 0 && warmup)
        status = run_steps(&b, r, "warm-up", warmup);
    size_t local = tdm_strategy_num_local_replicas(b.ts.strategy);
    tdm_device_counters before = counters_so_far(&b, local);
    double t0 = bench_seconds();
    if (status == 0)
        status = run_steps(&b, r, "timed", steps);
    double wall = bench_seconds() - t0;
    if (status == 0) {
        tdm_device_counters after = counters_so_far(&b, local);
        count_per_step(r, &before, &after, (double)steps * (double)local);
        r->examples_per_second = (double)b.examples / wall;
        r->step_seconds = wall / steps;
        tdm_train_op_set_profiling(b.ts.op, 1);
        t0 = bench_seconds();
        status = run_steps(&b, r, "profiled", profiled);
        breakdown(&b, r, bench_seconds() - t0, profiled);
    }
    for (size_t i = 0; i < n && status == 0; i++) {
        size_t bytes = 0, slots = 0;
        tdm_model_scratch_bytes(b.ts.model, i, &bytes);
        tdm_train_op_slot_bytes(b.ts.op, &slots);
        printf("# %s: training buffers %.1f MiB, optimizer slots %.3f MiB", ids[i],
               (double)bytes / (1 << 20), (double)slots / (1 << 20));
        train_print_choices(&b.ts, i);
        printf("\n");
    }
    tdm_distributed_iterator_destroy(b.it);
    tdm_distributed_dataset_destroy(b.dist);
    train_session_close(&b.ts);
    return status;
}

static void print_header(void)
{
    printf("#%-11s %8s %-28s %9s %8s %8s %7s %5s | %7s %8s %10s %7s %7s | %9s\n", "model",
           "replicas", "devices", "ex/s", "ms/step", "launches", "submits", "waits", "input",
           "fwd+bwd", "all-reduce", "update", "idle", "of best 1");
}

static void print_row(const bt_row *r)
{
    printf(" %-11s %8zu %-28.28s %9.0f %8.3f %8.1f %7.1f %5.1f | %7.3f %8.3f %10.3f %7.3f %7.3f |",
           r->model->name, r->replicas, r->devices, r->examples_per_second, 1e3 * r->step_seconds,
           r->launches, r->submissions, r->host_waits, 1e3 * r->input, 1e3 * r->loss,
           1e3 * r->all_reduce, 1e3 * r->update, 1e3 * r->idle);
    if (r->of_best > 0.0)
        printf(" %8.0f%%\n", 100.0 * r->of_best);
    else
        printf(" %9s\n", "-");
}

static void json_row(json_writer *w, const void *rows, size_t i)
{
    const bt_row *r = (const bt_row *)rows + i;
    json_begin_object(w, NULL);
    json_string(w, "model", r->model->name);
    json_uint(w, "replicas", r->replicas);
    json_string(w, "devices", r->devices);
    json_double(w, "examples_per_second", r->examples_per_second);
    json_double(w, "ms_per_step", 1e3 * r->step_seconds);
    json_double(w, "launches_per_replica_step", r->launches);
    json_double(w, "submissions_per_replica_step", r->submissions);
    json_double(w, "host_waits_per_replica_step", r->host_waits);
    json_double(w, "input_ms", 1e3 * r->input);
    json_double(w, "forward_backward_ms", 1e3 * r->loss);
    json_double(w, "all_reduce_ms", 1e3 * r->all_reduce);
    json_double(w, "update_ms", 1e3 * r->update);
    json_double(w, "idle_ms", 1e3 * r->idle);
    if (r->of_best > 0.0) {
        json_double(w, "of_best_single", r->of_best);
        json_double(w, "distribution_overhead", 1.0 - r->of_best);
    }
    json_end_object(w);
}

/* The devices, and of them those a strategy can take together: one per piece of
 * hardware. */
typedef struct bt_devices {
    const char *ids[MAX_SELECTED];
    size_t n;
    const char *together[MAX_SELECTED];
    size_t together_n;
} bt_devices;

/* Every device alone, then all of them that are distinct hardware; appends rows. */
static int bench_model_rows(const bt_options *bo, const bench_model *m, const bt_devices *dv,
                            bt_row *rows, size_t *used)
{
    double best = 0.0;
    for (size_t i = 0; i <= dv->n; i++) {
        int together = i == dv->n;
        if (together && dv->together_n < 2)
            break;
        const char *const *ids = together ? dv->together : &dv->ids[i];
        size_t count = together ? dv->together_n : 1;
        bt_row *r = &rows[(*used)++];
        *r = (bt_row){.model = m};
        for (size_t k = 0; k < count; k++)
            snprintf(r->devices + strlen(r->devices), sizeof r->devices - strlen(r->devices),
                     "%s%s", strlen(r->devices) ? "," : "", ids[k]);
        if (measure(bo, m, ids, count, r) != 0)
            return 1;
        clear_progress();
        if (together)
            r->of_best = r->examples_per_second / best;
        else if (r->examples_per_second > best)
            best = r->examples_per_second;
        print_row(r);
        fflush(stdout);
    }
    return 0;
}

static const char *device_id(tdm_device *dev, char name[TDM_DEVICE_ID_MAX])
{
    tdm_device_desc d = TDM_DEVICE_DESC_INIT;
    tdm_device_describe(dev, &d);
    snprintf(name, TDM_DEVICE_ID_MAX, "%s", d.id);
    return name;
}

/* The devices as ids: the ones given, else the CLI's default selection; and those
 * of distinct hardware. */
static int device_ids(const bt_options *o, char names[2][MAX_SELECTED][TDM_DEVICE_ID_MAX],
                      bt_devices *dv)
{
    tdm_context *ctx = cli_context();
    tdm_device *reference, *devices[MAX_SELECTED];
    int status = ctx ? cli_select_devices(ctx, &o->devices, &reference, devices, &dv->n) : -1;
    for (size_t i = 0; status == 0 && i < dv->n; i++)
        dv->ids[i] = device_id(devices[i], names[0][i]);
    dv->together_n = status == 0 ? cli_distinct_hardware(devices, dv->n) : 0;
    for (size_t i = 0; i < dv->together_n; i++)
        dv->together[i] = device_id(devices[i], names[1][i]);
    tdm_context_destroy(ctx);
    return status;
}

int bench_train(int argc, char **argv)
{
    bt_options o;
    int exit_status = 0;
    if (parse(argc, argv, &o, &exit_status))
        return exit_status;
    char names[2][MAX_SELECTED][TDM_DEVICE_ID_MAX];
    bt_devices dv = {.n = 0};
    if (device_ids(&o, names, &dv) != 0)
        return 1;
    bt_row rows[MODEL_COUNT * MAX_ROWS];
    size_t used = 0;
    int status = 0;
    printf("# tandem bench train: Adam, lr 0.001; examples/s, and kernel launches, submissions "
           "and host waits per replica\n# step over timed steps; the breakdown (ms per step) from "
           "profiled steps, which wait "
           "for the devices between phases; "
           "'of best 1': N replicas over the best single device%s%s%s%s%s; convolutions %s\n",
           o.balance ? "; N replicas balanced by device speed" : "",
           o.mixed_precision || o.f16_activations
               ? train_mixed_precision_text(o.mixed_products, o.f16_activations)
               : "",
           o.f16_activations ? "; f16 activations" : "",
           o.f16_all_reduce ? "; gradients all-reduced in f16" : "",
           o.shard_optimizer ? "; optimizer state sharded" : "", tdm_conv_algorithm_name(o.conv));
    if (dv.together_n < dv.n)
        printf("# N replicas on %zu of the %zu devices: the others are the same hardware seen "
               "through another API\n",
               dv.together_n, dv.n);
    print_header();
    for (size_t i = 0; i < MODEL_COUNT && status == 0; i++) {
        const bench_model *m = &models[i];
        if (o.model >= 0 && o.model != (int)i)
            continue;
        char probe[512];
        snprintf(probe, sizeof probe, "%s/train-images-idx3-ubyte.gz", o.data_dir);
        if (m->data == BENCH_FASHION && !tdm_path_readable(probe)) {
            if (o.model >= 0) { /* asked for by name: measuring nothing is a failure */
                fprintf(stderr,
                        "tandem bench train: -m %s needs Fashion-MNIST: no %s (Debian's "
                        "dataset-fashion-mnist, or --data-dir)\n",
                        m->name, probe);
                status = 1;
                break;
            }
            printf("# %s: skipped, no %s (Debian's dataset-fashion-mnist; "
                   "scripts/bench-peers.sh installs it)\n",
                   m->name, probe);
            continue;
        }
        status = bench_model_rows(&o, m, &dv, rows, &used);
    }
    if (status == 0 && o.json_path)
        status = bench_write_rows(o.json_path, json_row, rows, used);
    return status;
}
