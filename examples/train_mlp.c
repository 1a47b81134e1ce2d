/* Training a classifier with tandem from start to finish, as an application embeds
 * it: a dataset, a mirrored strategy over the default devices, a model, an
 * optimizer, a train op, a distributed iterator, a monitor whose progress callback
 * reports each epoch while another thread stops the run (as a Stop button would),
 * then evaluation, saving, loading and prediction. docs/GETTING_STARTED.md walks
 * through it.
 *
 *   cc train_mlp.c $(pkg-config --cflags --libs tandem) -o train_mlp
 *   ./train_mlp /usr/local/share/tandem/digits.csv.gz digits.safetensors
 *
 * Exits 0 when the model learned (test accuracy over 90 %) and the loaded model
 * predicts exactly what evaluation scored. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tandem/tandem.h>

#define EPOCHS 8
#define STOP_AFTER_EPOCHS 4 /* the other thread cancels the run here */
#define BATCH 64
#define FEATURES 64
#define CLASSES 10
#define MAX_TEST 512

#define TRY(call)                                                                                  \
    do {                                                                                           \
        tdm_status try_status_ = (call);                                                           \
        if (try_status_ != TDM_OK) {                                                               \
            fprintf(stderr, "%s failed: %s\n", #call, tdm_last_error());                           \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* The data: 80 % to train on, 20 % to test, the features standardised with the
 * training split's statistics. The test split's raw features are kept for
 * prediction, which standardises by itself. */
typedef struct data {
    tdm_dataset *train, *test;
    float mean[FEATURES], std[FEATURES];
    float raw[MAX_TEST * FEATURES];
    int32_t labels[MAX_TEST];
    size_t test_rows;
} data;

static void load_data(const char *path, data *d)
{
    tdm_dataset *all;
    TRY(tdm_dataset_from_csv(path, NULL, &all)); /* 64 pixels, then the digit */
    TRY(tdm_dataset_shuffle_once(all, 1));
    TRY(tdm_dataset_split(all, 0.8, &d->train, &d->test));
    tdm_dataset_destroy(all);

    TRY(tdm_dataset_batch(d->test, MAX_TEST, 0)); /* one batch: the whole split */
    tdm_dataset_iterator *it;
    const tdm_batch *b;
    TRY(tdm_dataset_iterator_create(d->test, &it)); /* before standardising: raw */
    TRY(tdm_dataset_iterator_next(it, &b));
    d->test_rows = b->count;
    memcpy(d->raw, b->features, b->count * FEATURES * sizeof(float));
    memcpy(d->labels, b->labels, b->count * sizeof(int32_t));
    tdm_dataset_iterator_destroy(it);

    TRY(tdm_dataset_feature_stats(d->train, d->mean, d->std));
    TRY(tdm_dataset_standardize(d->train, d->mean, d->std));
    TRY(tdm_dataset_standardize(d->test, d->mean, d->std));
    TRY(tdm_dataset_shuffle(d->train, 7)); /* a new order every epoch */
    TRY(tdm_dataset_batch(d->train, BATCH, 0));
    TRY(tdm_dataset_repeat(d->train, EPOCHS));
}

/* One step of StandardInputStep: the train op on the step's distributed batch. */
static tdm_status train_on_batch(const tdm_distributed_batch *batch, void *train_op, double *loss)
{
    return tdm_train_op_run(train_op, batch, loss);
}

/* What the progress callback and the stopping thread share. */
typedef struct progress {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    uint64_t epoch; /* of the latest step */
    size_t steps;
    double loss_sum;
    int stopped; /* the other thread has cancelled the run */
} progress;

/* Called by the monitor after every step, on the training thread: prints each
 * finished epoch's mean loss and tells the other thread where training is. */
static int on_step(const tdm_step_result *r, void *user)
{
    progress *p = user;
    pthread_mutex_lock(&p->lock);
    if (r->epoch != p->epoch && p->steps) {
        printf("epoch %llu: mean loss %.4f over %zu steps\n", (unsigned long long)p->epoch + 1,
               p->loss_sum / (double)p->steps, p->steps);
        p->steps = 0;
        p->loss_sum = 0.0;
    }
    p->epoch = r->epoch;
    p->steps += r->steps;
    p->loss_sum += r->loss * (double)r->steps;
    pthread_cond_broadcast(&p->changed);
    /* So that the run ends at the same step on a busy machine too, training waits
     * here for the other thread's cancel once it is due (an application would not). */
    while (p->epoch >= STOP_AFTER_EPOCHS && !p->stopped)
        pthread_cond_wait(&p->changed, &p->lock);
    pthread_mutex_unlock(&p->lock);
    return 0; /* non-zero would stop the run from here */
}

typedef struct stopper {
    progress *p;
    tdm_monitor *monitor;
} stopper;

/* Another thread of the application: once training reaches epoch STOP_AFTER_EPOCHS,
 * it cancels the run, which ends after the step in progress. */
static void *stop_later(void *arg)
{
    stopper *s = arg;
    pthread_mutex_lock(&s->p->lock);
    while (s->p->epoch < STOP_AFTER_EPOCHS)
        pthread_cond_wait(&s->p->changed, &s->p->lock);
    tdm_monitor_cancel(s->monitor);
    s->p->stopped = 1;
    pthread_cond_broadcast(&s->p->changed);
    pthread_mutex_unlock(&s->p->lock);
    return NULL;
}

/* Trains until the input ends or the other thread cancels; 1 if it cancelled. */
static int train(tdm_strategy *s, tdm_train_op *op, const tdm_dataset *train_data)
{
    tdm_distributed_dataset *dist; /* each global batch split over the replicas */
    tdm_step *step;
    tdm_monitor *monitor;
    TRY(tdm_distribute_dataset(s, train_data, NULL, &dist));
    TRY(tdm_standard_input_step_create(dist, train_on_batch, op, 1, &step));
    progress p = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0.0, 0};
    tdm_monitor_options mo = TDM_MONITOR_OPTIONS_INIT;
    mo.progress = on_step;
    mo.progress_user = &p;
    TRY(tdm_monitor_create(step, &mo, &monitor));

    stopper stop = {&p, monitor};
    pthread_t thread;
    if (pthread_create(&thread, NULL, stop_later, &stop) != 0) {
        fprintf(stderr, "cannot start a thread\n");
        exit(1);
    }
    uint64_t steps = 0;
    tdm_status status = tdm_monitor_run_steps(monitor, 0, &steps); /* 0: no step limit */
    if (status != TDM_OK && status != TDM_ERR_CANCELLED)
        TRY(status);
    if (status == TDM_OK) { /* ended before the other thread stopped it: release it */
        pthread_mutex_lock(&p.lock);
        p.epoch = STOP_AFTER_EPOCHS;
        pthread_cond_broadcast(&p.changed);
        pthread_mutex_unlock(&p.lock);
    }
    pthread_join(thread, NULL);
    printf("%s after %llu steps (global step %llu)\n",
           status == TDM_ERR_CANCELLED ? "cancelled" : "finished", (unsigned long long)steps,
           (unsigned long long)tdm_monitor_global_step(monitor));
    tdm_monitor_destroy(monitor);
    tdm_step_destroy(step);
    tdm_distributed_dataset_destroy(dist);
    return status == TDM_ERR_CANCELLED;
}

/* The fraction of rows whose highest output is their label. */
static double accuracy(const float *outputs, const int32_t *labels, size_t rows)
{
    size_t correct = 0;
    for (size_t r = 0; r < rows; r++) {
        size_t best = 0;
        for (size_t c = 1; c < CLASSES; c++)
            best = outputs[r * CLASSES + c] > outputs[r * CLASSES + best] ? c : best;
        correct += best == (size_t)labels[r];
    }
    return rows ? (double)correct / (double)rows : 0.0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: train_mlp DIGITS_CSV MODEL_FILE\n");
        return 2;
    }
    static data d;
    load_data(argv[1], &d);

    tdm_context *ctx;
    tdm_strategy *s;
    TRY(tdm_context_create(NULL, &ctx));                       /* every backend */
    TRY(tdm_strategy_create_mirrored(ctx, NULL, 0, NULL, &s)); /* the default devices */
    printf("%zu replicas:", tdm_strategy_num_replicas(s));
    for (size_t r = 0; r < tdm_strategy_num_replicas(s); r++) {
        tdm_device_desc desc = TDM_DEVICE_DESC_INIT;
        TRY(tdm_device_describe(tdm_strategy_device(s, r), &desc));
        printf(" %s", desc.id);
    }
    printf("\n");

    tdm_layer layers[] = {TDM_DENSE(64, TDM_ACT_RELU, 0.0f),
                          TDM_DENSE(CLASSES, TDM_ACT_LINEAR, 0.0f)};
    tdm_model_options mo = TDM_MODEL_OPTIONS_INIT;
    mo.input_features = FEATURES;
    mo.layers = layers;
    mo.layer_count = 2;
    mo.seed = 1;
    tdm_model *model;
    TRY(tdm_model_create(s, &mo, &model));

    tdm_optimizer_options oo = TDM_OPTIMIZER_OPTIONS_INIT;
    oo.kind = TDM_OPT_ADAM;
    oo.learning_rate.initial = 0.005f;
    tdm_optimizer *opt;
    TRY(tdm_optimizer_create(s, &oo, &opt));

    tdm_train_op_options to = TDM_TRAIN_OP_OPTIONS_INIT;
    to.loss_fn = tdm_model_loss; /* forward, softmax cross-entropy, backward */
    to.loss_user = model;
    to.optimizer = opt;
    tdm_train_op *op;
    TRY(tdm_train_op_create(s, &to, &op));

    int cancelled = train(s, op, d.train);

    tdm_evaluation ev;
    TRY(tdm_model_evaluate(model, d.test, &ev));
    printf("evaluate: loss %.4f, accuracy %.2f%% on %zu examples\n", ev.loss, 100 * ev.accuracy,
           ev.examples);

    /* The statistics go with the model, so that it predicts from raw features. */
    TRY(tdm_model_set_standardization(model, d.mean, d.std));
    TRY(tdm_model_save(model, argv[2]));

    tdm_strategy *one; /* a loaded model runs on any strategy: here the first device */
    tdm_model *loaded;
    TRY(tdm_strategy_create_one_device(tdm_strategy_device(s, 0), NULL, &one));
    TRY(tdm_model_load(one, argv[2], &loaded));
    static float outputs[MAX_TEST * CLASSES];
    TRY(tdm_model_predict(loaded, d.raw, d.test_rows, outputs));
    double predicted = accuracy(outputs, d.labels, d.test_rows);
    printf("predict:  accuracy %.2f%% from %s\n", 100 * predicted, argv[2]);

    tdm_model_destroy(loaded);
    tdm_strategy_destroy(one);
    tdm_train_op_destroy(op);
    tdm_optimizer_destroy(opt);
    tdm_model_destroy(model);
    tdm_strategy_destroy(s);
    tdm_context_destroy(ctx);
    tdm_dataset_destroy(d.train);
    tdm_dataset_destroy(d.test);
    return cancelled && ev.accuracy > 0.9 && predicted == ev.accuracy ? 0 : 1;
}
