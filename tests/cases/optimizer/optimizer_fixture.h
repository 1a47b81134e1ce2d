/* The optimizer case's shared set-up and checks, used by its parts. */
#ifndef TDM_TEST_OPTIMIZER_FIXTURE_H
#define TDM_TEST_OPTIMIZER_FIXTURE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"
#include "optimizer/optimizer_impl.h"

#define MAX_REPLICAS 4
#define E 37 /* elements of the main test variable: not a multiple of 4 */
#define STEPS 5

typedef struct model {
    tdm_optimizer_options o; /* momentum resolved */
    size_t count;
    double w[E], slot[3][E];
    uint64_t t;
} model;

#define EXPECT_MODEL(var, want, count, what) opt_expect_model_(var, want, count, what, __LINE__)

#define EXPECT_STATE(opt, var, m) opt_expect_state_(opt, var, m, __LINE__)

#define CONFIGS 8

extern tdm_context *opt_ctx;
extern tdm_device *opt_devs[MAX_REPLICAS];
extern size_t opt_n; /* replicas of the scenario */

/* The schedule, written again from its definition. */
double opt_model_rate(const tdm_lr_schedule *s, uint64_t step);

void opt_model_init(model *m, const tdm_optimizer_options *o, const float *w0, size_t count);

void opt_model_step(model *m, const float *grad);

/* Gradients that vary in sign and size from step to step and element to element. */
void opt_make_grad(float *g, size_t count, unsigned step, unsigned salt);

void opt_make_init(float *w, size_t count);

tdm_variable *opt_make_var(tdm_strategy *s, const char *name, size_t count, const float *init,
                           tdm_synchronization sync);

int opt_close_to(float got, double want);

/* Every copy of var matches want within the tolerance. */
void opt_expect_model_(tdm_variable *var, const double *want, size_t count, const char *what,
                       int line);

/* The variable and its slots match the model. */
void opt_expect_state_(tdm_optimizer *opt, tdm_variable *var, const model *m, int line);

tdm_strategy *opt_mirrored(int check);

/* Workers on every device; the variables on the last device, then the first. */
tdm_strategy *opt_parameter_server(void);

/* The optimizer configurations every path is tried with. */
tdm_optimizer_options opt_config(size_t i, const char **label);

/* optimizer_replicas.c */
void opt_test_apply_local(tdm_strategy *s);
void opt_test_unwrapped(tdm_strategy *s, tdm_strategy *one);
void opt_test_parameter_server_placement(tdm_strategy *s);
void opt_test_tower(tdm_strategy *s);
void opt_test_default_strategy(void);

#endif
