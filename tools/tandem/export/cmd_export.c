/* tandem export: a saved model as an ONNX model, for onnxruntime and other ONNX
 * tools (tdm_model_export_onnx). */
#include <stdio.h>
#include <string.h>

#include "cli_options.h"
#include "commands.h"
#include "device_select.h"

typedef struct export_options {
    const char *model;  /* the model file */
    const char *onnx;   /* the ONNX file to write */
    const char *device; /* where the model is read into; NULL: the reference device */
} export_options;

static const cli_command export_command = {
    .name = "export",
    .synopsis = "--model FILE --onnx FILE [OPTIONS]",
    .about = "Writes a model saved by 'tandem train --save' as an ONNX model (opset 17) that "
             "computes what tandem predicts: inputs [N, features] named input, input1, ...; "
             "output, the model's outputs (a classifier's logits), and for a classifier "
             "probabilities, as 'tandem predict' prints them.",
};

/* 0 to go on; otherwise 1 with *exit_status set (--help, a bad option). */
static int parse(int argc, char **argv, export_options *o, int *exit_status)
{
    memset(o, 0, sizeof *o);
    const cli_option table[] = {
        {CLI_ENTRY("--model", NULL, CLI_STRING, &o->model), .arg = "FILE",
         .help = "the model (architecture, weights, standardisation)"},
        {CLI_ENTRY("--onnx", NULL, CLI_STRING, &o->onnx), .arg = "FILE",
         .help = "the ONNX model to write (replaced whole, never left half written)"},
        {CLI_ENTRY("--device", NULL, CLI_STRING, &o->device), .arg = "ID",
         .help = "where to read the model into: an id or index from 'tandem devices', or a "
                 "backend's name; default: the reference device (exporting computes nothing)"},
    };
    size_t count = sizeof table / sizeof table[0];
    if (cli_parse_command(&export_command, table, count, argc, argv, exit_status))
        return 1;
    if (!o->model || !o->onnx)
        return cli_required(&export_command, table, count, "--model and --onnx", exit_status);
    return 0;
}

static int fail(const char *what, const char *why)
{
    fprintf(stderr, "tandem export: %s: %s\n", what, why);
    return 1;
}

static int run(const export_options *o, tdm_context *ctx)
{
    tdm_strategy *strategy = NULL;
    tdm_model *model = NULL;
    int status = cli_load_model(ctx, "export", o->device, "reference", o->model, &strategy, &model)
                     ? 1
                     : 0;
    if (status == 0 && tdm_model_export_onnx(model, o->onnx) != TDM_OK)
        status = fail("--onnx", tdm_last_error());
    tdm_model_destroy(model);
    tdm_strategy_destroy(strategy);
    return status;
}

int cmd_export(int argc, char **argv)
{
    export_options o;
    int exit_status = 0;
    if (parse(argc, argv, &o, &exit_status))
        return exit_status;
    tdm_context *ctx = cli_context();
    if (!ctx)
        return 1;
    int status = run(&o, ctx);
    tdm_context_destroy(ctx);
    return status;
}
