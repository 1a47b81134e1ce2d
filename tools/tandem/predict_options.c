/* tandem predict: option parsing. The data options are train's, where they apply. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict_options.h"

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
                 "  --device ID          where to run it (default: the first usable device)\n");
    return status;
}

static const char **string_slot(const char *a, predict_options *o)
{
    return !strcmp(a, "--model")          ? &o->model
           : !strcmp(a, "--data")         ? &o->data.path
           : !strcmp(a, "--labels")       ? &o->data.labels
           : !strcmp(a, "--label-column") ? &o->data.label_column
           : !strcmp(a, "--output")       ? &o->output
           : !strcmp(a, "--device")       ? &o->device
                                          : NULL;
}

/* One option with its value; 0 if known and valid. */
static int option_with_value(const char *a, const char *v, predict_options *o)
{
    if (!strcmp(a, "--skip-rows")) {
        char *end;
        o->data.skip_rows = strtoul(v, &end, 10);
        return end == v || *end ? -1 : 0;
    }
    const char **slot = string_slot(a, o);
    if (!slot)
        return -1;
    *slot = v;
    return 0;
}

int predict_options_parse(int argc, char **argv, predict_options *o, int *exit_status)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help")) {
            *exit_status = usage(stdout, 0);
            return 1;
        }
        if (!strcmp(a, "--header")) {
            o->data.header = 1;
            continue;
        }
        if (i + 1 < argc && option_with_value(a, argv[i + 1], o) == 0) {
            i++;
            continue;
        }
        fprintf(stderr, "tandem predict: bad option or value: %s%s%s\n\n", a,
                i + 1 < argc ? " " : "", i + 1 < argc ? argv[i + 1] : "");
        *exit_status = usage(stderr, 2);
        return 1;
    }
    if (!o->model || !o->data.path) {
        fprintf(stderr, "tandem predict: --model and --data are required\n\n");
        *exit_status = usage(stderr, 2);
        return 1;
    }
    return 0;
}
