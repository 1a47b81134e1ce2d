#include <math.h>

#include "predict_output.h"

int predict_output_open(predict_output *p, const char *path, const tdm_model *model,
                        int probabilities, char *err, size_t err_size)
{
    size_t classes = tdm_model_output_count(model);
    *p = (predict_output){
        .f = stdout, .model = model, .classes = classes, .probabilities = probabilities};
    if (path) {
        if (atomic_file_open(&p->file, path, TDM_OUTPUT_STREAM, err, err_size) != 0)
            return -1;
        p->f = p->file.f;
        p->to_file = 1;
    }
    fputs("class", p->f);
    for (size_t c = 0; c < classes; c++)
        fprintf(p->f, ",%s%zu", probabilities ? "p" : "y", c);
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

void predict_output_rows(predict_output *p, const float *outputs, size_t rows, int32_t *predicted)
{
    for (size_t r = 0; r < rows; r++) {
        const float *row = outputs + r * p->classes;
        size_t best = best_of(row, p->classes);
        double sum = 0.0;
        for (size_t c = 0; c < p->classes; c++)
            sum += exp((double)row[c] - row[best]);
        const char *name = tdm_model_class_name(p->model, best);
        if (name)
            fputs(name, p->f);
        else
            fprintf(p->f, "%zu", best);
        for (size_t c = 0; c < p->classes; c++)
            fprintf(p->f, ",%.6g",
                    p->probabilities ? exp((double)row[c] - row[best]) / sum : (double)row[c]);
        fputc('\n', p->f);
        predicted[r] = (int32_t)best;
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
