/* tandem predict: a saved model's predictions for every example of a data file,
 * with the accuracy when the file has labels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "device_select.h"
#include "atomic_file.h"
#include "fifo_hold.h"
#include "predict_options.h"
#include "predict_output.h"
#include "train_options.h"

#define PREDICT_ROWS 4096 /* examples read and predicted at a time */

typedef struct predict_run {
    const predict_options *opts;
    tdm_context *ctx;
    tdm_strategy *strategy;
    tdm_model *model;
    tdm_dataset *data;
    int labelled;
    char used[256];
} predict_run;

static int fail(const char *what, const char *why)
{
    fprintf(stderr, "tandem predict: %s: %s\n", what, why);
    return -1;
}

/* The model on the chosen device, or on the first default one (training's choice). */
static int open_model(predict_run *p)
{
    if (!(p->ctx = cli_context()))
        return -1;
    return cli_load_model(p->ctx, "predict", p->opts->device, NULL, p->opts->model, &p->strategy,
                          &p->model);
}

/* The data; without a label column named, a file with one column more than the model
 * has features has its label in the last column. */
static int load_data(predict_run *p)
{
    data_source src = p->opts->data;
    size_t features = tdm_model_input_count(p->model);
    src.no_label = !src.labels && !src.label_column && !src.label_columns;
    src.float_labels = train_loss_takes_floats(tdm_model_loss_kind(p->model));
    tdm_status s = data_source_load(&src, &p->data, p->used, sizeof p->used);
    if (s == TDM_OK && src.no_label && tdm_dataset_feature_count(p->data) == features + 1) {
        tdm_dataset_destroy(p->data);
        src.no_label = 0;
        s = data_source_load(&src, &p->data, p->used, sizeof p->used);
    }
    if (s != TDM_OK)
        return fail(src.path, tdm_last_error());
    p->labelled = !src.no_label;
    if (tdm_dataset_feature_count(p->data) != features) {
        char why[160];
        snprintf(why, sizeof why, "%zu features, but the model takes %zu",
                 tdm_dataset_feature_count(p->data), features);
        return fail(src.path, why);
    }
    return tdm_dataset_batch(p->data, PREDICT_ROWS, 0) == TDM_OK ? 0
                                                                 : fail(src.path, tdm_last_error());
}

/* Every batch: predict, write, count the correct ones. */
static int predict_all(predict_run *p, predict_output *out, size_t *examples, size_t *correct)
{
    size_t classes = tdm_model_output_count(p->model);
    float *outputs = malloc(PREDICT_ROWS * classes * sizeof *outputs);
    int32_t *predicted = malloc(PREDICT_ROWS * sizeof *predicted);
    tdm_dataset_iterator *it = NULL;
    tdm_status s =
        outputs && predicted ? tdm_dataset_iterator_create(p->data, &it) : TDM_ERR_OUT_OF_MEMORY;
    const tdm_batch *b = NULL;
    while (s == TDM_OK && (s = tdm_dataset_iterator_next(it, &b)) == TDM_OK && b->count) {
        s = tdm_model_predict(p->model, b->features, b->count, outputs);
        if (s != TDM_OK)
            break;
        predict_output_rows(out, outputs, b->count, predicted);
        for (size_t r = 0; b->labels && r < b->count; r++)
            *correct += predicted[r] == b->labels[r];
        *examples += b->count;
    }
    tdm_dataset_iterator_destroy(it);
    free(outputs);
    free(predicted);
    return s == TDM_OK ? 0 : fail("prediction", tdm_last_error());
}

/* The scores of float targets: a regression's errors and R^2, binary or categorical
 * accuracy. */
static int print_scores(predict_run *p, FILE *info)
{
    tdm_evaluation ev;
    size_t n = tdm_model_input_count(p->model);
    float *mean = malloc(2 * n * sizeof *mean), *std = mean ? mean + n : NULL;
    /* evaluation reads the data as training did: standardised by the dataset's map */
    tdm_status s = mean ? tdm_model_get_standardization(p->model, mean, std) : TDM_ERR_OUT_OF_MEMORY;
    if (s == TDM_OK)
        s = tdm_dataset_standardize(p->data, mean, std);
    free(mean);
    if ((s != TDM_OK && s != TDM_ERR_NOT_FOUND) ||
        tdm_model_evaluate(p->model, p->data, &ev) != TDM_OK) {
        fputc('\n', info);
        return fail("evaluation", tdm_last_error());
    }
    if (predict_kind_of(p->model) == PREDICT_VALUES)
        fprintf(info, ": RMSE %.6g, MAE %.6g, R^2 %.4f (loss %.6g)\n", ev.rmse, ev.mae, ev.r2,
                ev.loss);
    else
        fprintf(info, ": %saccuracy %.2f%% (loss %.6g)\n",
                predict_kind_of(p->model) == PREDICT_PROBABILITIES ? "binary " : "",
                100.0 * ev.accuracy, ev.loss);
    return 0;
}

static int run(predict_run *p, fifo_holds *fifos)
{
    const predict_options *o = p->opts;
    char err[512];
    if (o->output && atomic_file_check(o->output, TDM_OUTPUT_STREAM, err, sizeof err) != 0)
        return fail("--output", err);
    if (fifo_hold(fifos, "tandem predict", "--output", o->output) != 0)
        return -1;
    if (open_model(p) || load_data(p))
        return -1;
    FILE *info = o->output ? stdout : stderr; /* stdout may carry the predictions */
    fprintf(info, "model    %s: %zu features, %zu outputs, %zu parameters\n", o->model,
            tdm_model_input_count(p->model), tdm_model_output_count(p->model),
            tdm_model_parameter_count(p->model));
    fprintf(info, "data     %s: %s\n", o->data.path, p->used);
    predict_output out;
    if (predict_output_open(&out, o->output, p->model, err, sizeof err) != 0)
        return fail("--output", err);
    size_t examples = 0, correct = 0;
    if (predict_all(p, &out, &examples, &correct) != 0) {
        predict_output_abort(&out);
        return -1;
    }
    if (predict_output_close(&out, err, sizeof err) != 0)
        return fail("--output", err);
    if (o->output) /* as train says of its files, whatever stdout carries */
        fprintf(stderr, "tandem predict: wrote %s (--output)\n", o->output);
    fprintf(info, "done     %zu predictions%s%s", examples, o->output ? " in " : "",
            o->output ? o->output : "");
    if (p->labelled && out.kind == PREDICT_CLASS_PROBABILITIES && out.positions == 1 &&
        tdm_dataset_label_dtype(p->data) == TDM_I32)
        fprintf(info, ": accuracy %.2f%% (%zu of %zu)", 100.0 * (double)correct / (double)examples,
                correct, examples);
    else if (p->labelled)
        return print_scores(p, info);
    fputc('\n', info);
    return 0;
}

int cmd_predict(int argc, char **argv)
{
    predict_options o;
    int exit_status = 0;
    if (predict_options_parse(argc, argv, &o, &exit_status))
        return exit_status;
    predict_run p = {.opts = &o};
    fifo_holds fifos = {0};
    int status = run(&p, &fifos);
    fifo_release(&fifos);
    tdm_dataset_destroy(p.data);
    tdm_model_destroy(p.model);
    tdm_strategy_destroy(p.strategy);
    tdm_context_destroy(p.ctx);
    return status == 0 ? 0 : 1;
}
