/* tandem predict: option parsing. The data options are train's, where they apply. */
#include <stdio.h>
#include <string.h>

#include "cli_options.h"
#include "predict_options.h"
#include "train_options.h"

static const cli_command predict_command = {
    .name = "predict",
    .synopsis = "--model FILE --data FILE [OPTIONS]",
    .about = "Predicts every example in --data with a model saved by 'tandem train --save': "
             "its class, its probabilities (a sigmoid model's) or its values (a "
             "regression's), and reports the accuracy, or the errors and R^2, when the data "
             "has labels.",
};

int predict_options_parse(int argc, char **argv, predict_options *o, int *exit_status)
{
    memset(o, 0, sizeof *o);
    const cli_option table[] = {
        {CLI_ENTRY("--model", NULL, CLI_STRING, &o->model), .arg = "FILE",
         .help = "the model (architecture, weights, standardisation)"},
        {CLI_ENTRY("--data", NULL, CLI_STRING, &o->data.path), .arg = "FILE",
         .help = TRAIN_HELP_DATA ", or CSV of features alone"},
        {CLI_ENTRY("--labels", NULL, CLI_STRING, &o->data.labels), .arg = "FILE",
         .help = TRAIN_HELP_LABELS},
        {CLI_ENTRY("--label-column", NULL, CLI_CUSTOM, &o->data.label_column),
         .parse = train_parse_label_column, .arg = "C",
         .help = TRAIN_HELP_LABEL_COLUMN " (default: the last column if there is one more "
                                         "column than the model has features, else none)"},
        {CLI_ENTRY("--label-columns", NULL, CLI_CUSTOM, &o->data.label_columns),
         .parse = train_parse_label_columns, .arg = "LIST", .help = TRAIN_HELP_LABEL_COLUMNS},
        {CLI_ENTRY("--header", NULL, CLI_FLAG, &o->data.header), .flag_value = 1,
         .help = TRAIN_HELP_HEADER},
        {CLI_ENTRY("--skip-rows", NULL, CLI_SIZE, &o->data.skip_rows), .max = TRAIN_MAX_SKIP_ROWS,
         .arg = "N", .help = TRAIN_HELP_SKIP_ROWS},
        {CLI_ENTRY("--output", NULL, CLI_STRING, &o->output), .arg = "FILE",
         .help = "the predictions as CSV (default: standard output): the class, then each "
                 "class's probability (an output of several positions: each position's class, "
                 "then its probabilities); a sigmoid model's probabilities (p0, p1, ...); a "
                 "regression's values (y0, y1, ...)"},
        {CLI_ENTRY("--device", NULL, CLI_STRING, &o->device), .arg = "ID",
         .help = "where to run it: an id or index from 'tandem devices', or a backend's name "
                 "(its first device); default: the first of train's default devices"},
    };
    size_t count = sizeof table / sizeof table[0];
    if (cli_parse_command(&predict_command, table, count, argc, argv, exit_status))
        return 1;
    if (!o->model || !o->data.path)
        return cli_required(&predict_command, table, count, "--model and --data", exit_status);
    return 0;
}
