/* tandem predict: its options and their parsing. */
#ifndef TANDEM_CLI_PREDICT_OPTIONS_H
#define TANDEM_CLI_PREDICT_OPTIONS_H

#include "data_source.h"

typedef struct predict_options {
    const char *model;  /* the model file */
    data_source data;   /* the examples; a label column is optional */
    const char *output; /* predictions CSV; NULL: stdout */
    const char *device; /* id or index; NULL: the first default device */
} predict_options;

/* 0 to go on; otherwise 1 with *exit_status set (--help, a bad option). */
int predict_options_parse(int argc, char **argv, predict_options *o, int *exit_status);

#endif
