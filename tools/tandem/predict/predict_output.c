#include <math.h>

#include "predict_output.h"

predict_kind predict_kind_of(const tdm_model *model)
{
    switch (tdm_model_loss_kind(model)) {
    case TDM_LOSS_SOFTMAX_CROSS_ENTROPY:
    case TDM_LOSS_CATEGORICAL_CROSS_ENTROPY:
        return PREDICT_CLASS_PROBABILITIES;
    case TDM_LOSS_SIGMOID_CROSS_ENTROPY:
        return PREDICT_PROBABILITIES;
    default:
        return PREDICT_VALUES;
    }
}

int predict_output_open(predict_output *p, const char *path, const tdm_model *model, char *err,
                        size_t err_size)
{
    size_t classes = tdm_model_output_count(model);
    *p = (predict_output){.f = stdout,
                          .model = model,
                          .classes = classes,
                          .positions = 1,
                          .kind = predict_kind_of(model)};
    if (p->kind == PREDICT_CLASS_PROBABILITIES)
        p->positions = tdm_model_output_positions(model);
    if (path) {
        if (atomic_file_open(&p->file, path, TDM_OUTPUT_STREAM, err, err_size) != 0)
            return -1;
        p->f = p->file.f;
        p->to_file = 1;
    }
    int classed = p->kind == PREDICT_CLASS_PROBABILITIES;
    int probabilities = p->kind != PREDICT_VALUES;
    if (p->positions > 1) { /* class0, class1, ..., then p0_0, p0_1, ..., p1_0, ... */
        for (size_t at = 0; at < p->positions; at++)
            fprintf(p->f, "%sclass%zu", at ? "," : "", at);
        for (size_t c = 0; c < classes; c++)
            fprintf(p->f, ",p%zu_%zu", c / (classes / p->positions), c % (classes / p->positions));
        fputc('\n', p->f);
        return 0;
    }
    if (classed)
        fputs("class", p->f);
    for (size_t c = 0; c < classes; c++)
        fprintf(p->f, "%s%s%zu", c || classed ? "," : "", probabilities ? "p" : "y", c);
    fputc('\n', p->f);
    return 0;
}

static size_t best_of(const float *row, size_t classes)
{
    size_t best = 0;
    for (size_t c = 1; c < classes; c++)
        best = row[c] > row[best] ? c : best;
    return best;
}

/* Each output as it is, or its sigmoid. */
static void write_outputs(predict_output *p, const float *row)
{
    for (size_t c = 0; c < p->classes; c++) {
        double x = row[c];
        fprintf(p->f, "%s%.6g", c ? "," : "",
                p->kind == PREDICT_PROBABILITIES ? 1.0 / (1.0 + exp(-x)) : x);
    }
    fputc('\n', p->f);
}

/* Each position's class (its name where the file keeps names), comma-separated. */
static void write_classes(predict_output *p, const float *row, size_t width)
{
    for (size_t at = 0; at < p->positions; at++) {
        size_t best = best_of(row + at * width, width);
        const char *name = tdm_model_class_name(p->model, best);
        if (at)
            fputc(',', p->f);
        if (name)
            fputs(name, p->f);
        else
            fprintf(p->f, "%zu", best);
    }
}

/* Each position's softmax probabilities, each after a comma. */
static void write_probabilities(predict_output *p, const float *row, size_t width)
{
    for (size_t at = 0; at < p->positions; at++) {
        const float *logits = row + at * width;
        size_t best = best_of(logits, width);
        double sum = 0.0;
        for (size_t c = 0; c < width; c++)
            sum += exp((double)logits[c] - logits[best]);
        for (size_t c = 0; c < width; c++)
            fprintf(p->f, ",%.6g", exp((double)logits[c] - logits[best]) / sum);
    }
}

void predict_output_rows(predict_output *p, const float *outputs, size_t rows, int32_t *predicted)
{
    size_t width = p->classes / p->positions;
    for (size_t r = 0; r < rows; r++) {
        const float *row = outputs + r * p->classes;
        if (p->kind != PREDICT_CLASS_PROBABILITIES) {
            write_outputs(p, row);
            continue;
        }
        write_classes(p, row, width);
        write_probabilities(p, row, width);
        fputc('\n', p->f);
        predicted[r] = p->positions > 1 ? -1 : (int32_t)best_of(row, width);
    }
}

int predict_output_close(predict_output *p, char *err, size_t err_size)
{
    if (p->to_file)
        return atomic_file_commit(&p->file, err, err_size);
    return fflush(p->f) == 0 ? 0 : (snprintf(err, err_size, "cannot write the predictions"), -1);
}

void predict_output_abort(predict_output *p)
{
    if (p->to_file)
        atomic_file_abort(&p->file);
}
