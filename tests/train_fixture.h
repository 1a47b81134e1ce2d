/* A small training run for the reliability tests: a synthetic dataset, an MLP, Adam,
 * the train op, a single-loss step and a monitor. Opening returns the first failure
 * instead of stopping the test, and closing frees whatever was built, so that tests
 * can fail any stage (faults, locks, damaged checkpoints) and check what is left. */
#ifndef TDM_TEST_TRAIN_FIXTURE_H
#define TDM_TEST_TRAIN_FIXTURE_H

#include "tandem/monitor.h"
#include "tandem/tandem.h"

#define FIXTURE_FEATURES 8
#define FIXTURE_CLASSES 4
#define FIXTURE_EXAMPLES 96

typedef struct fixture_options {
    size_t batch;                /* global batch; default 16 */
    int64_t epochs;              /* default 4 */
    size_t hidden;               /* units of the one hidden layer; default 16 */
    const char *checkpoint_dir;  /* NULL: no checkpoints */
    uint64_t checkpoint_every;   /* global steps */
    tdm_monitor_options monitor; /* callbacks and keep; dir and every are set from above */
} fixture_options;

#define FIXTURE_OPTIONS_INIT                                                                       \
    {                                                                                              \
        .batch = 16, .epochs = 4, .hidden = 16, .monitor = TDM_MONITOR_OPTIONS_INIT                \
    }

typedef struct fixture {
    tdm_strategy *strategy;
    tdm_model *model;
    tdm_optimizer *opt;
    tdm_train_op *op;
    tdm_dataset *data;
    tdm_step *step;
    tdm_monitor *monitor;
} fixture;

/* Builds the run on devs (mirrored over n > 1, one device for n = 1); the first
 * failing call's status, with *f holding what was built before it. */
tdm_status fixture_open(fixture *f, tdm_context *ctx, tdm_device *const *devs, size_t n,
                        const fixture_options *o);

/* Frees everything built. */
void fixture_close(fixture *f);

/* Whether every copy of every trained variable and slot holds the same bytes. */
int fixture_copies_identical(const fixture *f);

/* Reads every trained variable (cross-replica) into out, in order, returning the
 * floats written (at most cap). */
size_t fixture_weights(const fixture *f, float *out, size_t cap);

/* The trainer a case builds itself: strategy, model, optimizer and train op. */
typedef struct trainer {
    tdm_strategy *strategy;
    tdm_model *model;
    tdm_optimizer *opt;
    tdm_train_op *op;
} trainer;

/* A trainer of the model mo on devs (mirrored over n > 1, one device for n = 1): an
 * optimizer of that kind and learning rate, the train op of the model's loss; every
 * call checked. */
void trainer_open_on(trainer *t, tdm_context *ctx, tdm_device *const *devs, size_t n,
                     const tdm_model_options *mo, tdm_optimizer_kind kind, float learning_rate);

/* Frees what was built (NULL members are skipped). */
void trainer_close(trainer *t);

/* The largest of |got[i] - want[i]| / max(|want[i]|, 1e-3) over n losses: how far
 * every replica's losses are from one replica's. */
double fixture_worst_relative(const double *got, const double *want, size_t n);

/* A deterministic uniform draw in [-1, 1) from *state (xorshift64, never 0). */
float fixture_draw(uint64_t *state);

/* The digits' training split (80 %) at path, standardised with its own statistics
 * unless raw (the pixel values as they are, whole numbers from 0 to 16), shuffled
 * with seed 7, in batches of `batch`, repeated `epochs` times; every call checked. */
tdm_dataset *fixture_digits_train(const char *path, size_t batch, int64_t epochs, int raw);

/* Runs up to `steps` train-op steps over ds distributed on s, recording each loss;
 * the steps run (a failing step is a failed check and ends the run). */
size_t fixture_train_steps(tdm_strategy *s, tdm_train_op *op, const tdm_dataset *ds, size_t steps,
                           double *losses);

#endif
