/* The model_cnn case, its second part (model_cnn.c runs it): gradients against
 * central differences, embeddings, global pooling, graphs of layers, files, batch
 * norm, the op-level API and the options that make no model. */
#include "model_cnn_fixture.h"

/* The mean loss of the batch under the model's current weights. */
static double batch_loss(tdm_model *m, const tdm_dataset *batch)
{
    tdm_evaluation e;
    CHECK_OK(tdm_model_evaluate(m, batch, &e));
    return e.loss;
}

/* m saved and loaded onto s predicts the same bits, and the same counts. */
static void check_saved_predictions(tdm_model *m, tdm_strategy *s)
{
    float x[4 * FEATURES], want[4 * CLASSES], got[4 * CLASSES];
    for (size_t i = 0; i < 4 * FEATURES; i++)
        x[i] = (float)((i * 7) % 13) / 6.0f - 1.0f;
    CHECK_OK(tdm_model_predict(m, x, 4, want));
    char path[4096];
    scratch_root("tdm_cnn");
    scratch_path(path, "model.safetensors", 0);
    CHECK_OK(tdm_model_save(m, path));
    tdm_model *back = NULL;
    CHECK_OK(tdm_model_load(s, path, &back));
    CHECK_OK(tdm_model_predict(back, x, 4, got));
    CHECK(!memcmp(want, got, sizeof got));
    CHECK(tdm_model_parameter_count(back) == tdm_model_parameter_count(m));
    CHECK(tdm_model_state_count(back) == tdm_model_state_count(m));
    CHECK(tdm_model_input_count(back) == FEATURES && tdm_model_output_count(back) == CLASSES);
    tdm_model_destroy(back);
    scratch_remove();
}

/* The batch's loss with weight k of var moved by delta; weights is var's host copy
 * (bytes long), restored after. */
static double loss_moved(tdm_model *m, const tdm_dataset *batch, tdm_variable *var, float *weights,
                         size_t k, double delta, size_t bytes)
{
    float saved = weights[k];
    weights[k] = (float)(saved + delta);
    CHECK_OK(tdm_variable_assign_host(var, TDM_ASSIGN, weights, bytes));
    double loss = batch_loss(m, batch);
    weights[k] = saved;
    CHECK_OK(tdm_variable_assign_host(var, TDM_ASSIGN, weights, bytes));
    return loss;
}

/* Every variable's gradient after one SGD step of rate 1 on ROWS examples (of the
 * digits, raw or standardised) against central differences of the loss, for a model
 * of these layers mirrored over every device; then its saved file predicts the same
 * bits. */
static void check_gradients_of(const char *what, const tdm_layer *layers, size_t count, int raw)
{
    enum { ROWS = 24 };
    tdm_dataset *all = fixture_digits_train(mc_digits_path, ROWS, 1, raw);
    tdm_dataset_iterator *it = NULL;
    const tdm_batch *first = NULL;
    CHECK_OK(tdm_dataset_iterator_create(all, &it));
    CHECK_OK(tdm_dataset_iterator_next(it, &first));
    tdm_dataset *batch = NULL;
    CHECK_OK(
        tdm_dataset_from_arrays(first->features, first->labels, ROWS, FEATURES, CLASSES, &batch));
    CHECK_OK(tdm_dataset_batch(batch, ROWS, 0));
    trainer t;
    memset(&t, 0, sizeof t);
    CHECK_OK(tdm_strategy_create_mirrored(mc_ctx, mc_devs, mc_n_devs, NULL, &t.strategy));
    tdm_model_options mo = mc_cnn_options();
    mo.layers = layers;
    mo.layer_count = count;
    CHECK_OK(tdm_model_create(t.strategy, &mo, &t.model));
    size_t n_vars = tdm_model_variable_count(t.model);
    float **before = calloc(n_vars, sizeof *before), **after = calloc(n_vars, sizeof *after);
    CHECK(before && after);
    for (size_t v = 0; v < n_vars; v++) {
        tdm_shape shape = tdm_variable_shape(tdm_model_variable(t.model, v));
        size_t n = tdm_shape_count(&shape);
        before[v] = malloc(n * sizeof(float));
        after[v] = malloc(n * sizeof(float));
        CHECK_OK(tdm_variable_read(tdm_model_variable(t.model, v), before[v], n * sizeof(float)));
    }
    double loss0 = batch_loss(t.model, batch);
    /* the step: SGD of rate 1 on the same batch */
    tdm_optimizer_options oo = TDM_OPTIMIZER_OPTIONS_INIT;
    oo.kind = TDM_OPT_SGD;
    oo.learning_rate.initial = 1.0f;
    CHECK_OK(tdm_optimizer_create(t.strategy, &oo, &t.opt));
    tdm_train_op_options to = TDM_TRAIN_OP_OPTIONS_INIT;
    to.loss_fn = tdm_model_loss;
    to.loss_user = t.model;
    to.optimizer = t.opt;
    CHECK_OK(tdm_train_op_create(t.strategy, &to, &t.op));
    double step_loss = 0.0;
    CHECK(mc_train_steps(&t, batch, 1, &step_loss) == 1);
    CHECK(fabs(step_loss - loss0) <= 1e-5 * fabs(loss0));
    /* every variable back to its weights before the step, then one weight at a time */
    for (size_t v = 0; v < n_vars; v++) {
        tdm_variable *var = tdm_model_variable(t.model, v);
        tdm_shape shape = tdm_variable_shape(var);
        size_t bytes = tdm_shape_count(&shape) * sizeof(float);
        CHECK_OK(tdm_variable_read(var, after[v], bytes));
        CHECK_OK(tdm_variable_assign_host(var, TDM_ASSIGN, before[v], bytes));
    }
    double worst = 0.0;
    size_t tested = 0, kinks = 0;
    for (size_t v = 0; v < n_vars; v++) {
        tdm_variable *var = tdm_model_variable(t.model, v);
        tdm_shape shape = tdm_variable_shape(var);
        size_t n = tdm_shape_count(&shape), bytes = n * sizeof(float);
        for (size_t k = 0; k < n; k += n / 5 + 1, tested++) {
            double grad = (double)before[v][k] - after[v][k], h = 2e-3;
            double up = loss_moved(t.model, batch, var, before[v], k, h, bytes);
            double down = loss_moved(t.model, batch, var, before[v], k, -h, bytes);
            double numeric = (up - down) / (2 * h), err = fabs(numeric - grad);
            double tolerance = 3e-2 * fabs(grad) + 2e-4;
            double right = (up - loss0) / h, left = (loss0 - down) / h;
            if (err > tolerance && fabs(right - left) > tolerance) {
                /* A kink at the weight (a ReLU at 0, a max pooling's tie): the
                 * derivatives from either side differ, and the gradient must be one of
                 * them or between. At most one weight in ten. */
                kinks++;
                fprintf(
                    stderr,
                    "  %s[%zu]: gradient %.6g at a kink: from the left %.6g, from the right %.6g\n",
                    tdm_variable_name(var), k, grad, left, right);
                err = grad < fmin(left, right)   ? fmin(left, right) - grad
                      : grad > fmax(left, right) ? grad - fmax(left, right)
                                                 : 0.0;
            } else if (err > tolerance) {
                fprintf(stderr, "  %s[%zu]: gradient %.6g, central difference %.6g\n",
                        tdm_variable_name(var), k, grad, numeric);
            }
            CHECK(err <= tolerance);
            worst = fmax(worst, err / (fabs(grad) + 1e-3));
        }
    }
    CHECK(kinks * 10 <= tested);
    fprintf(stderr,
            "%s: %zu gradients against central differences, worst error %.3g of "
            "|gradient| + 1e-3, %zu at a kink\n",
            what, tested, worst, kinks);
    for (size_t v = 0; v < n_vars; v++) {
        free(before[v]);
        free(after[v]);
    }
    free(before);
    free(after);
    check_saved_predictions(t.model, t.strategy);
    trainer_close(&t);
    tdm_dataset_iterator_destroy(it);
    tdm_dataset_destroy(batch);
    tdm_dataset_destroy(all);
}

/* The CNN without dropout, with layer norms over each position's channels and over a
 * dense layer's units, both after tanh (after relu a position whose channels are all
 * 0 has no variance, and a central difference across that kink means nothing), and
 * two shortcuts, one over a convolution, one over a layer norm and a dense layer. */
void mc_check_gradients(void)
{
    const tdm_layer layers[] = {mc_cnn[0],        TDM_CONV2D(6, 3, TDM_ACT_TANH),
                                TDM_RESIDUAL(1),  mc_cnn[1],
                                mc_cnn[2],        TDM_LAYER_NORM(),
                                mc_cnn[3],        TDM_DENSE(16, TDM_ACT_TANH, 0.0f),
                                TDM_LAYER_NORM(), TDM_DENSE(16, TDM_ACT_TANH, 0.0f),
                                TDM_RESIDUAL(2),  mc_cnn[5]};
    check_gradients_of("cnn", layers, sizeof layers / sizeof layers[0], 0);
    /* ReLU convolutions under max poolings: the first read by an average pooling too,
     * so it takes its activation's gradient itself; the second by its pooling alone,
     * whose gradient then passes through the ReLU too (relu_grad_by_reader) */
    const tdm_layer pooled[] = {TDM_CONV2D(8, 3, TDM_ACT_RELU),
                                TDM_MAX_POOL2D(2),
                                {.kind = TDM_LAYER_AVG_POOL2D,
                                 .kernel_h = 2,
                                 .kernel_w = 2,
                                 .input_count = 1,
                                 .inputs = {0}},
                                TDM_CONCATENATE(1, 2),
                                TDM_CONV2D(8, 3, TDM_ACT_RELU),
                                TDM_MAX_POOL2D(2),
                                TDM_DENSE(CLASSES, TDM_ACT_LINEAR, 0.0f)};
    check_gradients_of("relu under max pooling", pooled, sizeof pooled / sizeof pooled[0], 0);
}

/* An embedding of the digits' pixel values (ids 0 to 16) as 3 channels each, under a
 * convolution: N replicas train as one, its table's gradient (the rows each id
 * took, summed) matches central differences, and a saved file keeps it. */
void mc_check_embedding(void)
{
    const tdm_layer layers[] = {TDM_EMBEDDING(17, 3), TDM_CONV2D(6, 3, TDM_ACT_TANH),
                                TDM_AVG_POOL2D(2), TDM_DENSE(CLASSES, TDM_ACT_LINEAR, 0.0f)};
    tdm_model_options mo = mc_cnn_options();
    mo.layers = layers;
    mo.layer_count = sizeof layers / sizeof layers[0];
    mc_check_equivalence_of("embedding", &mo, 1, 0.5f); /* small initial rows learn slowly */
    check_gradients_of("embedding", layers, mo.layer_count, 1);
}

/* Global average pooling as the head of a CNN: N replicas train as one, its gradient
 * (each position's share of its channel's mean) matches central differences, a saved
 * file keeps it, and it takes no image after it or a flat input before it. */
void mc_check_global_pooling(void)
{
    /* smooth throughout (tanh, no max pooling), so that no step of the central
     * difference crosses a kink */
    const tdm_layer layers[] = {TDM_CONV2D(6, 3, TDM_ACT_TANH), TDM_CONV2D(8, 3, TDM_ACT_TANH),
                                TDM_GLOBAL_AVG_POOL2D(), TDM_DENSE(CLASSES, TDM_ACT_LINEAR, 0.0f)};
    const tdm_layer head[] = {TDM_CONV2D(16, 3, TDM_ACT_RELU), TDM_MAX_POOL2D(2),
                              TDM_CONV2D(32, 3, TDM_ACT_RELU), TDM_GLOBAL_AVG_POOL2D(),
                              TDM_DENSE(CLASSES, TDM_ACT_LINEAR, 0.0f)};
    tdm_model_options mo = mc_cnn_options();
    mo.layers = head;
    mo.layer_count = sizeof head / sizeof head[0];
    mc_check_equivalence_of("global average pooling", &mo, 0, 0.5f); /* means learn slowly */
    check_gradients_of("global average pooling", layers, sizeof layers / sizeof layers[0], 0);
    tdm_strategy *s = NULL;
    tdm_model *m = NULL;
    CHECK_OK(tdm_strategy_create_one_device(mc_devs[0], NULL, &s));
    tdm_layer bad[] = {TDM_GLOBAL_AVG_POOL2D(), TDM_CONV2D(1, 3, TDM_ACT_RELU),
                       TDM_DENSE(CLASSES, TDM_ACT_LINEAR, 0.0f)};
    mo.layers = bad;
    mo.layer_count = 3;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 1 (conv2d) needs an image: a global_avg_pool2d layer's output is flat");
    mo.input_height = mo.input_width = mo.input_channels = 0;
    mo.input_features = 64;
    mo.layer_count = 1;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 0 (global_avg_pool2d) needs an image: give input_height");
    CHECK(m == NULL);
    tdm_strategy_destroy(s);
}

/* A graph of layers (smooth throughout, tanh): a convolution and a 1x1 one of the
 * image concatenated, a shortcut added, a dense branch from the image multiplied with
 * the pooled channels and concatenated with them again. N replicas train as one,
 * every gradient matches central differences, a saved file keeps the graph. */
static const tdm_layer graph[] = {
    TDM_CONV2D(6, 3, TDM_ACT_TANH),
    {.kind = TDM_LAYER_CONV2D,
     .units = 4,
     .activation = TDM_ACT_TANH,
     .kernel_h = 1,
     .kernel_w = 1,
     .input_count = 1,
     .inputs = {TDM_MODEL_INPUT}},
    TDM_CONCATENATE(0, 1),
    TDM_CONV2D(6, 3, TDM_ACT_TANH),
    TDM_ADD(3, 0),
    TDM_GLOBAL_AVG_POOL2D(),
    {.kind = TDM_LAYER_DENSE,
     .units = 6,
     .activation = TDM_ACT_TANH,
     .input_count = 1,
     .inputs = {TDM_MODEL_INPUT}},
    TDM_MULTIPLY(5, 6),
    TDM_CONCATENATE(7, 6),
    TDM_DENSE(CLASSES, TDM_ACT_LINEAR, 0.0f),
};
#define GRAPH_LAYERS (sizeof graph / sizeof graph[0])

/* The stacked CNN written as a graph, each layer naming the one before: the same
 * losses, bit for bit. */
static void check_graph_of_stack(void)
{
    tdm_layer chain[CNN_LAYERS];
    for (size_t l = 0; l < CNN_LAYERS; l++) {
        chain[l] = mc_cnn[l];
        chain[l].input_count = 1;
        chain[l].inputs[0] = l ? (int)l - 1 : TDM_MODEL_INPUT;
    }
    tdm_model_options stacked = mc_cnn_options(), named = mc_cnn_options();
    named.layers = chain;
    tdm_dataset *ds = fixture_digits_train(mc_digits_path, 64, 1, 0);
    trainer a, b;
    double la[STEPS], lb[STEPS];
    mc_trainer_open_model(&a, mc_devs, mc_n_devs, 0.1f, &stacked, 0.0f);
    mc_trainer_open_model(&b, mc_devs, mc_n_devs, 0.1f, &named, 0.0f);
    CHECK(mc_train_steps(&a, ds, 5, la) == 5);
    CHECK(mc_train_steps(&b, ds, 5, lb) == 5);
    CHECK(memcmp(la, lb, 5 * sizeof la[0]) == 0);
    trainer_close(&a);
    trainer_close(&b);
    tdm_dataset_destroy(ds);
}

void mc_check_graph(void)
{
    tdm_model_options mo = mc_cnn_options();
    mo.layers = graph;
    mo.layer_count = GRAPH_LAYERS;
    mc_check_equivalence_of("graph", &mo, 0, 0.1f);
    check_gradients_of("graph", graph, GRAPH_LAYERS, 0);
    check_graph_of_stack();
}

/* Graphs that make no model, each refused naming the layer. */
static void check_graph_refusals(tdm_strategy *s)
{
    tdm_model *m = NULL;
    tdm_layer layers[GRAPH_LAYERS];
    memcpy(layers, graph, sizeof graph);
    tdm_model_options mo = mc_cnn_options();
    mo.layers = layers;
    mo.layer_count = GRAPH_LAYERS;
    layers[4].inputs[1] = 4;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 4 (add) reads layer 4 as input 1: a layer reads an earlier layer (0 to "
                "3) or the model's input (-1), so the graph has no cycle");
    layers[4].inputs[1] = -7;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 4 (add) reads -7 as input 1, the model's input 6; the model has 1 (-1 to "
                "-1)");
    layers[4].inputs[1] = 1;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 4 (add) merges layer 3, 8 x 8 x 6, with layer 1, 8 x 8 x 4: its inputs "
                "have one shape");
    layers[4].inputs[1] = 0;
    layers[8].inputs[1] = 2;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 8 (concatenate) joins a 1 x 1 image (input 0) with a 8 x 8 one (input 1)");
    layers[8].inputs[1] = 7;
    layers[8].input_count = 1;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 8 (concatenate) merges 1 inputs; a merge takes 2 to 8");
    layers[8].input_count = 2;
    layers[9].input_count = 2;
    layers[9].inputs[0] = 8, layers[9].inputs[1] = 7;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 9 (dense) has 2 inputs; only a merge (add, concatenate, multiply) takes "
                "more than one");
    layers[9].input_count = 1;
    layers[9].inputs[0] = 7;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 8 (concatenate) is read by no later layer: the model's output is its "
                "last layer");
    memcpy(layers, graph, sizeof graph);
    layers[3] = (tdm_layer)TDM_RESIDUAL(1);
    layers[3].input_count = 1;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 3 (residual) names its inputs");
    memcpy(layers, graph, sizeof graph);
    layers[5].input_count = 1, layers[5].inputs[0] = 6;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 5 (global_avg_pool2d) reads layer 6 as input 0");
    memcpy(layers, graph, sizeof graph);
    mo.compute_dtype = mo.activation_dtype = TDM_F16;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_UNSUPPORTED,
                "layer 2 (concatenate) with activation_dtype f16: its kernels take f32");
    CHECK(m == NULL);
}

/* A trained CNN saved and loaded predicts the same bits, and its file names the layers. */
void mc_check_file(void)
{
    tdm_dataset *ds = fixture_digits_train(mc_digits_path, 64, 1, 0);
    trainer t;
    double losses[10];
    mc_trainer_open(&t, mc_devs, mc_n_devs, 0.1f);
    CHECK(mc_train_steps(&t, ds, 10, losses) == 10);
    CHECK(tdm_model_parameter_count(t.model) ==
          6 * 9 + 6 + 8 * 54 + 8 + 8 * 16 + 16 + 16 * 10 + 10);
    check_saved_predictions(t.model, t.strategy);
    trainer_close(&t);
    tdm_dataset_destroy(ds);
}

/* Batch normalisation across replicas (SyncBatchNormalization): 2 or 3 replicas
 * normalise with the global batch's statistics, so every step's loss matches one
 * replica's within 1e-4, including a step of one example where the other replicas
 * hold none; the moving statistics match too, and every replica's copy of them is
 * the same; a saved model predicts the same bits with them after loading. */
void mc_check_batch_norm(int mixed)
{
    enum { BN_STEPS = 10 };
    static const tdm_layer bn_layers[] = {
        TDM_CONV2D(6, 3, TDM_ACT_RELU),
        TDM_BATCH_NORM(),
        TDM_MAX_POOL2D(2),
        TDM_DENSE(16, TDM_ACT_RELU, 0.0f),
        TDM_BATCH_NORM(),
        TDM_DENSE(CLASSES, TDM_ACT_LINEAR, 0.0f),
    };
    tdm_model_options mo = mc_cnn_options();
    mo.layers = bn_layers;
    mo.layer_count = sizeof bn_layers / sizeof bn_layers[0];
    /* 1437 = 4 * 359 + 1: the fifth step holds one example */
    tdm_dataset *ds = fixture_digits_train(mc_digits_path, 359, 2, 0);
    trainer one, many;
    double a[BN_STEPS], b[BN_STEPS];
    mc_trainer_open_model(&one, mc_devs, 1, 0.1f, &mo, 0.0f);
    mc_trainer_open_model(&many, mc_devs, mc_n_devs, 0.1f, &mo, 0.0f);
    CHECK(tdm_model_variable_count(many.model) == 10);
    CHECK(mc_train_steps(&one, ds, BN_STEPS, a) == BN_STEPS);
    CHECK(mc_train_steps(&many, ds, BN_STEPS, b) == BN_STEPS);
    double worst = 0.0, worst_state = 0.0;
    for (size_t i = 0; i < BN_STEPS; i++)
        worst = fmax(worst, fabs(a[i] - b[i]) / fabs(a[i]));
    const char *names[] = {"batch_norm1/moving_mean", "batch_norm1/moving_variance",
                           "batch_norm4/moving_mean", "batch_norm4/moving_variance"};
    CHECK(tdm_model_state_count(many.model) == 4 && tdm_model_state(many.model, 4) == NULL);
    for (size_t k = 0; k < 4 && tdm_model_state_count(many.model) == 4; k++) {
        float want[16], got[16], copy[16], first[16];
        tdm_variable *v1 = tdm_model_state(one.model, k), *vn = tdm_model_state(many.model, k);
        CHECK(!strcmp(tdm_variable_name(vn), names[k]));
        tdm_shape shape = tdm_variable_shape(vn);
        size_t n = tdm_shape_count(&shape);
        CHECK(n == (k < 2 ? 6u : 16u));
        CHECK_OK(tdm_variable_read(v1, want, n * sizeof(float)));
        CHECK_OK(tdm_variable_read(vn, got, n * sizeof(float)));
        for (size_t i = 0; i < n; i++)
            worst_state = fmax(worst_state,
                               fabs((double)want[i] - got[i]) / fmax(fabs((double)want[i]), 1e-3));
        for (size_t r = 0; r < mc_n_devs; r++) { /* every replica wrote the same statistics */
            CHECK_OK(tdm_tensor_read(tdm_variable_copy(vn, r), copy, n * sizeof(float)));
            if (r == 0)
                memcpy(first, copy, n * sizeof(float));
            for (size_t i = 0; i < n; i++) /* within rounding where backends differ */
                CHECK(mixed ? fabs((double)copy[i] - first[i]) <= 1e-5 * fmax(fabs(first[i]), 1e-3)
                            : copy[i] == first[i]);
        }
    }
    fprintf(stderr,
            "batch norm: %zu replicas against 1: worst relative loss difference %g, "
            "moving statistics %g; loss %.4f -> %.4f\n",
            mc_n_devs, worst, worst_state, a[0], a[BN_STEPS - 1]);
    CHECK(worst <= 1e-4);
    CHECK(worst_state <= 1e-4);
    CHECK(a[BN_STEPS - 1] < a[0]);
    /* a global batch smaller than the replicas: from the first step a replica holds
     * no example and still meets the others in every all-reduce */
    trainer small_one, small_many;
    tdm_dataset *tiny = fixture_digits_train(mc_digits_path, mc_n_devs - 1, 1, 0);
    double c[3], d[3];
    mc_trainer_open_model(&small_one, mc_devs, 1, 0.1f, &mo, 0.0f);
    mc_trainer_open_model(&small_many, mc_devs, mc_n_devs, 0.1f, &mo, 0.0f);
    CHECK(mc_train_steps(&small_one, tiny, 3, c) == 3);
    CHECK(mc_train_steps(&small_many, tiny, 3, d) == 3);
    for (size_t i = 0; i < 3; i++)
        CHECK(fabs(c[i] - d[i]) <= 1e-4 * fabs(c[i]));
    trainer_close(&small_one);
    trainer_close(&small_many);
    tdm_dataset_destroy(tiny);
    /* inference uses the moving statistics, and a file keeps them */
    check_saved_predictions(many.model, one.strategy);
    trainer_close(&one);
    trainer_close(&many);
    tdm_dataset_destroy(ds);
}

/* The public operations on a case worked by hand, SAME's arithmetic, and the
 * arguments they refuse. */
void mc_check_ops(void)
{
    tdm_device *d = mc_devs[mc_n_devs - 1];
    tdm_tensor *x = NULL, *f = NULL, *y = NULL, *p = NULL, *dx = NULL;
    CHECK_OK(tdm_tensor_create(d, TDM_F32, &TDM_SHAPE(1, 3, 3, 1), &x));
    CHECK_OK(tdm_tensor_create(d, TDM_F32, &TDM_SHAPE(2, 2, 1, 2), &f));
    CHECK_OK(tdm_tensor_create(d, TDM_F32, &TDM_SHAPE(1, 2, 2, 2), &y));
    CHECK_OK(tdm_tensor_create(d, TDM_F32, &TDM_SHAPE(1, 2, 2, 1), &p));
    CHECK_OK(tdm_tensor_create(d, TDM_F32, &TDM_SHAPE(1, 3, 3, 1), &dx));
    const float xv[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, fv[8] = {1, 0, 1, 0, 1, 0, 1, 1};
    CHECK_OK(tdm_tensor_write(x, xv, sizeof xv));
    CHECK_OK(tdm_tensor_write(f, fv, sizeof fv));
    /* a 2x2 window, stride 1, no padding: filter 0 sums the window, filter 1 takes
     * its bottom right */
    tdm_window win = {.height = 2, .width = 2, .stride_h = 1, .stride_w = 1};
    float got[8];
    CHECK_OK(tdm_op_conv2d(y, x, f, &win));
    CHECK_OK(tdm_tensor_read(y, got, sizeof got));
    const float want[8] = {12, 5, 16, 6, 24, 8, 28, 9};
    CHECK(!memcmp(got, want, sizeof want));
    /* max pooling 2x2 stride 2 with SAME padding over 3x3: 2x2 windows, the last row
     * and column padded */
    tdm_window pool = {.height = 2, .width = 2, .stride_h = 2, .stride_w = 2};
    size_t oh = 0, ow = 0;
    tdm_window_same(&pool, 3, 3, &oh, &ow);
    CHECK(oh == 2 && ow == 2 && pool.pad_top == 0 && pool.pad_left == 0);
    CHECK_OK(tdm_op_pool2d(TDM_POOL_MAX, p, x, &pool));
    CHECK_OK(tdm_tensor_read(p, got, 4 * sizeof(float)));
    CHECK(got[0] == 5 && got[1] == 6 && got[2] == 8 && got[3] == 9);
    const float ones[4] = {1, 1, 1, 1};
    CHECK_OK(tdm_tensor_write(p, ones, sizeof ones));
    CHECK_OK(tdm_op_pool2d_grad(TDM_POOL_MAX, dx, p, x, &pool));
    float g[9];
    CHECK_OK(tdm_tensor_read(dx, g, sizeof g));
    CHECK(g[4] == 1 && g[5] == 1 && g[7] == 1 && g[8] == 1 && g[0] == 0 && g[3] == 0);
    tdm_window odd = {.height = 3, .width = 1, .stride_h = 2, .stride_w = 1};
    tdm_window_same(&odd, 4, 5, &oh, &ow);
    CHECK(oh == 2 && ow == 5 && odd.pad_top == 0 && odd.pad_left == 0);
    odd.stride_h = 1;
    tdm_window_same(&odd, 4, 5, &oh, &ow);
    CHECK(oh == 4 && odd.pad_top == 1);
    /* refusals */
    CHECK_FAILS(tdm_op_conv2d(p, x, f, &win), TDM_ERR_INVALID_ARGUMENT,
                "'y' is [1, 2, 2, 1]; with 'x' of batch 1 it must be [1, *, *, 2]");
    win.height = 3;
    CHECK_FAILS(tdm_op_conv2d(y, x, f, &win), TDM_ERR_INVALID_ARGUMENT,
                "the filter is [2, 2, 1, 2]; a 3 x 2 window over 1 channels needs");
    win.height = 2;
    win.stride_w = 0;
    CHECK_FAILS(tdm_op_conv2d(y, x, f, &win), TDM_ERR_INVALID_ARGUMENT, "each must be at least 1");
    win.stride_w = 1;
    win.pad_left = 2;
    CHECK_FAILS(tdm_op_conv2d_grad_input(x, y, f, &win), TDM_ERR_INVALID_ARGUMENT,
                "padding 0 above and 2 left of the image");
    win.pad_left = 0;
    CHECK_FAILS(tdm_op_conv2d_grad_filter(f, f, y, &win), TDM_ERR_INVALID_ARGUMENT,
                "'dy' is [1, 2, 2, 2]; with 'x' of batch 2");
    CHECK_FAILS(tdm_op_pool2d(TDM_POOL_MAX, p, f, NULL), TDM_ERR_INVALID_ARGUMENT,
                "argument 'win' is NULL");
    CHECK_FAILS(tdm_op_pool2d_grad(TDM_POOL_MAX, dx, p, NULL, &pool), TDM_ERR_INVALID_ARGUMENT,
                "argument 'x' is NULL");
    CHECK_FAILS(tdm_op_pool2d((tdm_pooling)7, p, x, &pool), TDM_ERR_INVALID_ARGUMENT,
                "unknown pooling 7");
    tdm_tensor *flat = NULL;
    CHECK_OK(tdm_tensor_create(d, TDM_F32, &TDM_SHAPE(9), &flat));
    CHECK_FAILS(tdm_op_pool2d(TDM_POOL_AVERAGE, p, flat, &pool), TDM_ERR_INVALID_ARGUMENT,
                "'x' has shape [9], expected rank 4");
    tdm_tensor_destroy(flat);
    tdm_tensor_destroy(dx);
    tdm_tensor_destroy(p);
    tdm_tensor_destroy(y);
    tdm_tensor_destroy(f);
    tdm_tensor_destroy(x);
}

/* Options that make no model, each refused with its reason. */
void mc_check_refusals(void)
{
    tdm_strategy *s = NULL;
    CHECK_OK(tdm_strategy_create_one_device(mc_devs[0], NULL, &s));
    tdm_model *m = NULL;
    tdm_layer layers[3] = {TDM_CONV2D(4, 3, TDM_ACT_RELU), TDM_DENSE(3, TDM_ACT_LINEAR, 0.0f)};
    tdm_model_options mo = TDM_MODEL_OPTIONS_INIT;
    mo.layers = layers;
    mo.layer_count = 2;
    mo.input_features = 64;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 0 (conv2d) needs an image: give input_height");
    mo.input_height = mo.input_width = 8;
    mo.input_channels = 2;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "input_features (64) 0 or their product");
    mo.input_channels = 1;
    layers[0].padding = TDM_PADDING_VALID;
    layers[0].kernel_h = 9;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 0: a window of 9 does not fit its input of 8 with VALID padding");
    layers[0] = (tdm_layer)TDM_DENSE(4, TDM_ACT_RELU, 0.0f);
    layers[1] = (tdm_layer)TDM_MAX_POOL2D(2);
    layers[2] = (tdm_layer)TDM_DENSE(3, TDM_ACT_LINEAR, 0.0f);
    mo.layer_count = 3;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 1 (max_pool2d) needs an image: a dense layer's output is flat");
    layers[0] = (tdm_layer)TDM_AVG_POOL2D(2);
    layers[0].units = 3;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 0 (avg_pool2d) takes no units");
    layers[0].units = 0;
    layers[0].kind = (tdm_layer_kind)99;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 0 has an unknown kind 99");
    layers[0] = (tdm_layer)TDM_RESIDUAL(1);
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 0 (residual) has skip 1; a shortcut starts from 1 to the layer's index "
                "layers back");
    layers[0] = (tdm_layer)TDM_AVG_POOL2D(2);
    layers[0].skip = 1;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 0 (avg_pool2d) has skip 1; only a residual layer skips");
    layers[0] = (tdm_layer)TDM_CONV2D(4, 3, TDM_ACT_RELU);
    layers[1] = (tdm_layer)TDM_RESIDUAL(1);
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 1 (residual) adds the input of layer 0, 8 x 8 x 1, to its own, 8 x 8 x "
                "4: a shortcut joins equal shapes");
    layers[1] = (tdm_layer)TDM_EMBEDDING(10, 2);
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 1 (embedding) has vocab 10 and units 2; an embedding is the first layer");
    layers[0] = (tdm_layer)TDM_EMBEDDING((size_t)1 << 24 | 1, 2);
    layers[1] = (tdm_layer)TDM_MAX_POOL2D(2);
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "with a vocabulary of 1 to 2^24 ids");
    layers[0] = (tdm_layer)TDM_AVG_POOL2D(2);
    layers[0].vocab = 3;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "layer 0 (avg_pool2d) has vocab 3 and units 0; only an embedding has a "
                "vocabulary");
    layers[0] = (tdm_layer)TDM_AVG_POOL2D(2);
    mo.compute_dtype = TDM_I32;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "compute_dtype is i32; models compute in f32 or f16");
    mo.compute_dtype = TDM_F32;
    mo.activation_dtype = TDM_F16;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "activation_dtype f16 needs compute_dtype f16");
    mo.compute_dtype = TDM_F16;
    mo.activation_dtype = TDM_I32;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_INVALID_ARGUMENT,
                "activation_dtype is i32; activations are stored in f32 or f16");
    mo.activation_dtype = TDM_F16;
    layers[0] = (tdm_layer)TDM_CONV2D(1, 3, TDM_ACT_RELU);
    layers[1] = (tdm_layer)TDM_MAX_POOL2D(2);
    mo.layer_count = 2;
    CHECK_FAILS(tdm_model_create(s, &mo, &m), TDM_ERR_UNSUPPORTED,
                "layer 1 (max_pool2d) is the output layer: with activation_dtype f16 the output "
                "layer is dense or conv2d");
    CHECK(m == NULL);
    check_graph_refusals(s);
    tdm_strategy_destroy(s);
}
