/* One epoch of `tandem train`, as the progress display, the metrics file and the
 * plot see it. */
#ifndef TANDEM_CLI_TRAIN_REPORT_H
#define TANDEM_CLI_TRAIN_REPORT_H

typedef struct train_epoch {
    unsigned epoch;    /* from 1 */
    double train_loss; /* mean loss over the epoch's steps */
    double test_loss;
    double test_accuracy; /* in [0, 1] */
    double seconds;       /* wall time of the epoch */
    double examples_per_second;
} train_epoch;

#endif
