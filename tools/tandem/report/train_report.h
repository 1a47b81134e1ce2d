/* One epoch of `tandem train`, as the progress display, the metrics file and the
 * plot see it, and the run it belongs to. */
#ifndef TANDEM_CLI_TRAIN_REPORT_H
#define TANDEM_CLI_TRAIN_REPORT_H

/* ln 2: a loss in nats per byte over it is bits per byte. */
#define TRAIN_LN2 0.693147180559945309417

typedef struct train_epoch {
    unsigned epoch;    /* from 1 */
    double train_loss; /* mean loss over the epoch's steps */
    double test_loss;
    double test_accuracy; /* in [0, 1]: classes', or sigmoid outputs' binary accuracy */
    double seconds;       /* wall time of the epoch's training steps */
    double examples_per_second; /* of those steps: evaluation apart */
    double eval_seconds;        /* wall time of the evaluation after them */
    int regression; /* float targets of a regression: the metrics below, no accuracy */
    double test_mae, test_rmse, test_r2;
    int text; /* --text: the test split is the held-out tenth, its loss per byte also in
                 bits (val_bpb) */
} train_epoch;

/* The run an epoch history belongs to, as a metrics file records it. */
typedef struct train_run {
    const char *version;        /* tandem's, "0.1.0" */
    const char *const *devices; /* one per replica: "opencl:0 (pthread-...)" */
    size_t device_count;
    const char *const *option_names; /* the effective options, with their values */
    const char *const *option_values;
    size_t option_count;
} train_run;

#endif
