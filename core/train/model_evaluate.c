/* Evaluation: the forward pass on the first device, batch by batch, with the loss
 * and accuracy computed on the host in double from the outputs. */
#include <math.h>
#include <stdlib.h>

#include "error.h"
#include "model_impl.h"

typedef struct totals {
    double loss;
    size_t correct, examples;
} totals;

static double example_loss(tdm_loss_kind kind, const float *out, size_t classes, int32_t label)
{
    double sum = 0.0, max = out[0];
    for (size_t c = 1; c < classes; c++)
        max = out[c] > max ? out[c] : max;
    for (size_t c = 0; c < classes; c++) {
        double d = out[c] - (c == (size_t)label ? 1.0 : 0.0);
        sum += kind == TDM_LOSS_SOFTMAX_CROSS_ENTROPY ? exp(out[c] - max) : d * d;
    }
    return kind == TDM_LOSS_SOFTMAX_CROSS_ENTROPY ? log(sum) + max - out[label] : sum;
}

static void score(const tdm_model *m, const float *out, const tdm_batch *b, totals *t)
{
    size_t classes = m->layers[m->opts.layer_count - 1].units;
    for (size_t r = 0; r < b->count; r++) {
        const float *row = out + r * classes;
        size_t best = 0;
        for (size_t c = 1; c < classes; c++)
            best = row[c] > row[best] ? c : best;
        t->correct += best == (size_t)b->labels[r];
        t->loss += example_loss(m->opts.loss, row, classes, b->labels[r]);
    }
    t->examples += b->count;
}

/* One batch: upload, forward, read the outputs back into host. */
static tdm_status run_batch(tdm_model *m, tdm_tensor *input, const tdm_batch *b, float *host)
{
    tdm_model_views v;
    tdm_tensor *x = NULL;
    size_t cols = m->opts.input_features, classes = m->layers[m->opts.layer_count - 1].units;
    tdm_status s = tdm_tensor_slice(input, 0, &TDM_SHAPE(b->count, cols), &x);
    if (s == TDM_OK)
        s = tdm_tensor_write(x, b->features, b->count * cols * sizeof(float));
    if (s == TDM_OK)
        s = tdm_model_views_make(m, &m->eval, b->count, 0, &v);
    if (s != TDM_OK) {
        tdm_tensor_destroy(x);
        return s;
    }
    tdm_forward_args fa = {x, 0, 0, 0, 0};
    s = tdm_model_forward(m, &v, &fa);
    if (s == TDM_OK)
        s = tdm_tensor_read(v.out[v.b.layers - 1], host, b->count * classes * sizeof(float));
    tdm_model_views_free(&v);
    tdm_tensor_destroy(x);
    return s;
}

static tdm_status evaluate(tdm_model *m, tdm_dataset_iterator *it, size_t rows, totals *t)
{
    tdm_device *dev = tdm_strategy_device(m->strategy, 0);
    size_t classes = m->layers[m->opts.layer_count - 1].units;
    tdm_tensor *input = NULL;
    float *host = malloc(rows * classes * sizeof *host);
    tdm_status s = host ? tdm_model_scratch_reserve(m, &m->eval, dev, rows)
                        : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "out of host memory");
    if (s == TDM_OK)
        s = tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(rows, m->opts.input_features), &input);
    const tdm_batch *b = NULL;
    while (s == TDM_OK && (s = tdm_dataset_iterator_next(it, &b)) == TDM_OK && b->count) {
        s = b->feature_count == m->opts.input_features
                ? run_batch(m, input, b, host)
                : tdm_fail(TDM_ERR_INVALID_ARGUMENT, "the data has %zu features, the model %zu",
                           b->feature_count, m->opts.input_features);
        if (s == TDM_OK)
            score(m, host, b, t);
    }
    tdm_tensor_destroy(input);
    free(host);
    return s;
}

tdm_status tdm_model_evaluate(tdm_model *m, const tdm_dataset *ds, tdm_evaluation *out)
{
    TDM_CHECK_ARG(m, "tdm_model_evaluate");
    TDM_CHECK_ARG(ds, "tdm_model_evaluate");
    TDM_CHECK_ARG(out, "tdm_model_evaluate");
    /* Scratch for the largest batch: none holds more than the data's examples. */
    size_t rows = tdm_dataset_batch_size(ds) ? tdm_dataset_batch_size(ds) : 1;
    if (rows > tdm_dataset_example_count(ds) && tdm_dataset_example_count(ds))
        rows = tdm_dataset_example_count(ds);
    size_t outputs = m->layers[m->opts.layer_count - 1].units;
    if (tdm_dataset_class_count(ds) > outputs)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "tdm_model_evaluate: the data has %zu classes, "
                        "the model %zu outputs",
                        tdm_dataset_class_count(ds), outputs);
    tdm_dataset_iterator *it = NULL;
    totals t = {0};
    tdm_status s = tdm_dataset_iterator_create(ds, &it);
    if (s == TDM_OK)
        s = evaluate(m, it, rows, &t);
    tdm_dataset_iterator_destroy(it);
    if (s != TDM_OK)
        return tdm_fail_context(s, "tdm_model_evaluate");
    out->examples = t.examples;
    out->loss = t.examples ? t.loss / (double)t.examples : 0.0;
    out->accuracy = t.examples ? (double)t.correct / (double)t.examples : 0.0;
    return TDM_OK;
}
