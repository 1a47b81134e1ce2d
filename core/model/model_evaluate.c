/* Evaluation: inference batch by batch, with the loss and the task's metrics computed
 * on the host in double from the outputs. */
#include <math.h>
#include <stdlib.h>

#include "base/error.h"
#include "model/model_impl.h"

typedef struct totals {
    double loss, hits; /* hits: correct examples, or correct outputs (binary), or
                          correct positions (a sequence's) */
    size_t examples;
    size_t positions; /* a sequence's labels: the positions not masked */
    double abs_error, sq_error;    /* regression, over every output */
    double *sum, *sum_sq, *sq_res; /* regression: [outputs] per output, for R^2 */
} totals;

static double log_sum_exp(const float *row, size_t n)
{
    double max = row[0], sum = 0.0;
    for (size_t c = 1; c < n; c++)
        max = row[c] > max ? row[c] : max;
    for (size_t c = 0; c < n; c++)
        sum += exp(row[c] - max);
    return log(sum) + max;
}

static size_t highest(const float *row, size_t n)
{
    size_t best = 0;
    for (size_t c = 1; c < n; c++)
        best = row[c] > row[best] ? c : best;
    return best;
}

/* The elementwise losses of one output against its target. */
static double output_loss(const tdm_model *m, double x, double t)
{
    double d = x - t, delta = tdm_model_huber_delta(m);
    switch (m->opts.loss) {
    case TDM_LOSS_MEAN_ABSOLUTE_ERROR:
        return fabs(d);
    case TDM_LOSS_HUBER:
        return fabs(d) <= delta ? 0.5 * d * d : delta * (fabs(d) - 0.5 * delta);
    case TDM_LOSS_SIGMOID_CROSS_ENTROPY:
        return (x > 0 ? x : 0) - x * t + log1p(exp(-fabs(x)));
    default:
        return d * d;
    }
}

/* Example r against its class label. */
static void score_class(const tdm_model *m, const float *row, size_t n, int32_t label, totals *t)
{
    t->hits += highest(row, n) == (size_t)label;
    if (m->opts.loss == TDM_LOSS_SOFTMAX_CROSS_ENTROPY) {
        t->loss += log_sum_exp(row, n) - row[label];
        return;
    }
    double sum = 0.0;
    for (size_t c = 0; c < n; c++)
        sum += output_loss(m, row[c], c == (size_t)label ? 1.0 : 0.0);
    t->loss += sum / (double)n;
}

/* Example r against its float targets. */
static void score_targets(const tdm_model *m, const float *row, size_t n, const float *target,
                          totals *t)
{
    if (m->opts.loss == TDM_LOSS_CATEGORICAL_CROSS_ENTROPY) {
        double lse = log_sum_exp(row, n), sum = 0.0;
        for (size_t c = 0; c < n; c++)
            sum += target[c] * (lse - row[c]);
        t->loss += sum;
        t->hits += highest(row, n) == highest(target, n);
        return;
    }
    double sum = 0.0;
    for (size_t c = 0; c < n; c++) {
        sum += output_loss(m, row[c], target[c]);
        double d = (double)row[c] - target[c];
        if (m->opts.loss == TDM_LOSS_SIGMOID_CROSS_ENTROPY) {
            t->hits += (row[c] > 0.0f) == (target[c] > 0.5f);
            continue;
        }
        t->abs_error += fabs(d);
        t->sq_error += d * d;
        t->sum[c] += target[c];
        t->sum_sq[c] += (double)target[c] * target[c];
        t->sq_res[c] += d * d;
    }
    t->loss += sum / (double)n;
}

/* Example r against a label per position: each position's channels against its
 * label, the masked (negative) ones passed over, the losses' mean over every
 * position the example's loss as training takes it. */
static void score_positions(const float *row, size_t n, const int32_t *labels, size_t positions,
                            totals *t)
{
    size_t cols = n / positions;
    double sum = 0.0;
    for (size_t p = 0; p < positions; p++) {
        const float *at = row + p * cols;
        if (labels[p] < 0)
            continue;
        sum += log_sum_exp(at, cols) - at[labels[p]];
        t->hits += highest(at, cols) == (size_t)labels[p];
        t->positions++;
    }
    t->loss += sum / (double)positions;
}

static void score(const tdm_model *m, const float *out, const tdm_batch *b, totals *t)
{
    size_t n = tdm_model_output_count(m);
    for (size_t r = 0; r < b->count; r++) {
        if (b->labels && b->label_width > 1)
            score_positions(out + r * n, n, b->labels + r * b->label_width, b->label_width, t);
        else if (b->targets)
            score_targets(m, out + r * n, n, b->targets + r * n, t);
        else
            score_class(m, out + r * n, n, b->labels[r], t);
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

/* The metrics from the totals: accuracy for classes and sigmoid outputs, MAE, RMSE
 * and R^2 (each output's, then their mean) for a regression. */
static void summarise(const tdm_model *m, const tdm_dataset *ds, const totals *t,
                      tdm_evaluation *out)
{
    size_t n = tdm_model_output_count(m);
    double examples = (double)t->examples, values = examples * (double)n;
    *out = (tdm_evaluation){.examples = t->examples};
    if (!t->examples)
        return;
    out->loss = t->loss / examples;
    int targets = tdm_dataset_label_dtype(ds) == TDM_F32;
    if (m->opts.loss == TDM_LOSS_SIGMOID_CROSS_ENTROPY)
        out->accuracy = t->hits / values;
    else if (tdm_dataset_label_width(ds) > 1 && !targets) /* per position, unmasked */
        out->accuracy = t->positions ? t->hits / (double)t->positions : 0.0;
    else if (!targets || m->opts.loss == TDM_LOSS_CATEGORICAL_CROSS_ENTROPY)
        out->accuracy = t->hits / examples;
    if (!targets || m->opts.loss == TDM_LOSS_SIGMOID_CROSS_ENTROPY ||
        m->opts.loss == TDM_LOSS_CATEGORICAL_CROSS_ENTROPY)
        return;
    out->mae = t->abs_error / values;
    out->rmse = sqrt(t->sq_error / values);
    double r2 = 0.0;
    for (size_t c = 0; c < n; c++) {
        double total = t->sum_sq[c] - t->sum[c] * t->sum[c] / examples;
        /* a constant target: R^2 is 1 for a perfect fit, else 0 (scikit-learn's) */
        r2 += total > 0.0 ? 1.0 - t->sq_res[c] / total : t->sq_res[c] == 0.0 ? 1.0 : 0.0;
    }
    out->r2 = r2 / (double)n;
}

static tdm_status check(const tdm_model *m, const tdm_dataset *ds)
{
    size_t outputs = tdm_model_output_count(m);
    if (tdm_dataset_label_dtype(ds) == TDM_I32 && tdm_dataset_class_count(ds) > outputs)
        return tdm_fail(TDM_ERR_INVALID_ARGUMENT,
                        "tdm_model_evaluate: the data has %zu classes, "
                        "the model %zu outputs",
                        tdm_dataset_class_count(ds), outputs);
    return tdm_model_check_labels(m, tdm_dataset_label_dtype(ds), tdm_dataset_label_width(ds),
                                  "tdm_model_evaluate");
}

tdm_status tdm_model_evaluate(tdm_model *m, const tdm_dataset *ds, tdm_evaluation *out)
{
    TDM_CHECK_ARG(m, "tdm_model_evaluate");
    TDM_CHECK_ARG(ds, "tdm_model_evaluate");
    TDM_CHECK_ARG(out, "tdm_model_evaluate");
    tdm_status s = check(m, ds);
    if (s != TDM_OK)
        return s;
    /* Scratch for the largest batch: none holds more than the data's examples. */
    size_t rows = tdm_dataset_batch_size(ds) ? tdm_dataset_batch_size(ds) : 1;
    if (rows > tdm_dataset_example_count(ds) && tdm_dataset_example_count(ds))
        rows = tdm_dataset_example_count(ds);
    size_t outputs = tdm_model_output_count(m);
    tdm_dataset_iterator *it = NULL;
    totals t = {.sum = calloc(3 * outputs, sizeof(double))};
    if (!t.sum)
        return tdm_fail(TDM_ERR_OUT_OF_MEMORY, "tdm_model_evaluate: out of host memory");
    t.sum_sq = t.sum + outputs;
    t.sq_res = t.sum_sq + outputs;
    s = tdm_dataset_iterator_create(ds, &it);
    if (s == TDM_OK)
        s = evaluate(m, it, rows, &t);
    tdm_dataset_iterator_destroy(it);
    if (s == TDM_OK)
        summarise(m, ds, &t, out);
    free(t.sum);
    return s == TDM_OK ? s : tdm_fail_context(s, "tdm_model_evaluate");
}
