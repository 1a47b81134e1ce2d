/* tandem predict: option parsing. The data options are train's, where they apply. */
#include <stdio.h>
#include <string.h>

#include "cli_options.h"
#include "predict_options.h"
#include "train_options.h"

static int usage(FILE *out, int status)
{
    fprintf(out, "usage: tandem predict --model FILE --data FILE [OPTIONS]\n\n"
                 "Predicts the class of every example in --data with a model saved by\n"
                 "'tandem train --save', and reports the accuracy when the data has labels.\n\n"
                 "  --model FILE         the model (architecture, weights, standardisation)\n"
                 "  --data FILE          CSV of features, with or without a label column, or IDX\n"
                 "                       images (with --labels)\n"
                 "  --labels FILE        IDX labels for IDX images in --data\n"
                 "  --label-column C     CSV label column: 0-based index, or a name with --header\n"
                 "                       (default: the last column if there is one more column\n"
                 "                       than the model has features, else none)\n"
                 "  --header             the CSV's first line names its columns\n"
                 "  --skip-rows N        CSV lines to pass over before the header or the data\n"
                 "  --output FILE        the predictions as CSV (default: standard output): the\n"
                 "                       class, then each class's probability\n"
                 "  --device ID          where to run it (default: the first of train's default\n"
                 "                       devices)\n");
    return status;
}

int predict_options_parse(int argc, char **argv, predict_options *o, int *exit_status)
{
    memset(o, 0, sizeof *o);
    const cli_option table[] = {
        {CLI_ENTRY("--model", NULL, CLI_STRING, &o->model)},
        {CLI_ENTRY("--data", NULL, CLI_STRING, &o->data.path)},
        {CLI_ENTRY("--labels", NULL, CLI_STRING, &o->data.labels)},
        {CLI_ENTRY("--label-column", NULL, CLI_CUSTOM, &o->data.label_column),
         .parse = train_parse_label_column},
        {CLI_ENTRY("--header", NULL, CLI_FLAG, &o->data.header), .flag_value = 1},
        {CLI_ENTRY("--skip-rows", NULL, CLI_SIZE, &o->data.skip_rows), .max = TRAIN_MAX_SKIP_ROWS},
        {CLI_ENTRY("--output", NULL, CLI_STRING, &o->output)},
        {CLI_ENTRY("--device", NULL, CLI_STRING, &o->device)},
    };
    if (cli_parse_command("predict", table, sizeof table / sizeof table[0], argc, argv, usage,
                          exit_status))
        return 1;
    if (!o->model || !o->data.path) {
        fprintf(stderr, "tandem predict: --model and --data are required\n\n");
        *exit_status = usage(stderr, 2);
        return 1;
    }
    return 0;
}
