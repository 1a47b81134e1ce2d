/* Evaluation: inference batch by batch, with the loss and accuracy computed on the
 * host in double from the outputs. */
#include <math.h>
#include <stdlib.h>

#include "base/error.h"
#include "model/model_impl.h"

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
    size_t classes = tdm_model_output_count(m);
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

static tdm_status evaluate(tdm_model *m, tdm_dataset_iterator *it, size_t rows, totals *t)
{
    float *host = malloc(rows * tdm_model_output_count(m) * sizeof *host);
    tdm_status s = host ? TDM_OK : tdm_fail(TDM_ERR_OUT_OF_MEMORY, "out of host memory");
    const tdm_batch *b = NULL;
    while (s == TDM_OK && (s = tdm_dataset_iterator_next(it, &b)) == TDM_OK && b->count) {
        s = b->feature_count == m->opts.input_features
                ? tdm_model_infer(m, b->features, b->count, host)
                : tdm_fail(TDM_ERR_INVALID_ARGUMENT, "the data has %zu features, the model %zu",
                           b->feature_count, m->opts.input_features);
        if (s == TDM_OK)
            score(m, host, b, t);
    }
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
    size_t outputs = tdm_model_output_count(m);
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
