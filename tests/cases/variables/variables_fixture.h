/* The variables case's shared set-up and checks, used by its parts. */
#ifndef TDM_TEST_VARIABLES_FIXTURE_H
#define TDM_TEST_VARIABLES_FIXTURE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"
#include "scratch.h"

#define MAX_REPLICAS 4
#define COUNT 6 /* elements of most test variables: shape [2, 3] */
#define BIG 4099

#define EXPECT_COPY(var, i, want) vars_expect_copy_(var, i, want, __LINE__)

#define EXPECT_ALL(var, want) vars_expect_all_copies_(var, want, __LINE__)

#define EXPECT_READ(var, want) vars_expect_read_(var, want, __LINE__)

/* One write per replica, with what each replica saw. */
typedef struct job {
    tdm_variable *var;
    tdm_assign_op op[MAX_REPLICAS];
    int host;            /* assign_host instead of a tensor */
    int foreign_device;  /* pass a tensor on the next replica's device */
    int use_local;       /* pass the variable's local copy as the value */
    const float *values; /* row r for replica r, or one row for all (same) */
    int same;
    size_t count;
    tdm_status status[MAX_REPLICAS];
    char message[MAX_REPLICAS][1024];
    float read[MAX_REPLICAS][BIG]; /* what tdm_variable_read gave after the write */
} job;

#define RUN_FN(s, fn, j, expected, needle) vars_run_job_(s, fn, j, expected, needle, __LINE__)

#define RUN_JOB(s, j, expected, needle)                                                            \
    vars_run_job_(s, vars_assign_fn, j, expected, needle, __LINE__)

extern tdm_context *vars_ctx;
extern tdm_device *vars_devs[MAX_REPLICAS];
extern size_t vars_n; /* replicas of the scenario */

/* Floats of widely varying magnitude, so that the order of a sum matters. */
void vars_make_data(float *x, size_t count, unsigned seed);

/* SUM (or MEAN) of `reps` rows of `count` floats, folded in row order in float. */
void vars_fold(const float *rows, size_t reps, size_t count, int mean, float *out);

int vars_same_bits(const float *got, const float *want, size_t count, const char *what, int line);

/* Copy i of var holds want, bit for bit. */
void vars_expect_copy_(tdm_variable *var, size_t i, const float *want, int line);

void vars_expect_all_copies_(tdm_variable *var, const float *want, int line);

/* A cross-replica read equals want, bit for bit. */
void vars_expect_read_(tdm_variable *var, const float *want, int line);

tdm_variable *vars_make_var(tdm_strategy *s, const char *name, size_t count,
                            tdm_synchronization sync, tdm_aggregation agg, const float *init);

/* Writes x into copy i directly, behind the variable's back. */
void vars_poke_copy(tdm_variable *var, size_t i, const float *x);

tdm_strategy *vars_mirrored(int check);

void vars_job_init(job *j, tdm_variable *var, tdm_assign_op op, const float *values, size_t count);

tdm_status vars_assign_fn(tdm_replica_context *rc, void *user);

/* Runs fn with the job; every replica must end with `expected` and a message
 * containing needle. */
void vars_run_job_(tdm_strategy *s, tdm_replica_fn fn, job *j, tdm_status expected,
                   const char *needle, int line);

/* variables_writes.c */
void vars_test_replica_reduce(tdm_strategy *s, tdm_aggregation agg, size_t count);
void vars_test_replica_alias(tdm_strategy *s);
void vars_test_replica_errors(tdm_strategy *s);
void vars_test_replica_plain(tdm_strategy *s);
void vars_test_replica_sync_on_read(tdm_strategy *s);
void vars_test_merge_assign(tdm_strategy *s);
void vars_test_update(tdm_strategy *s, tdm_synchronization sync);
void vars_test_update_errors(tdm_strategy *s, tdm_strategy *other);
void vars_test_check_mirrored(tdm_strategy *plain);
void vars_test_colocate(tdm_strategy *s, tdm_strategy *one);
void vars_test_single_replica(tdm_strategy *one);
void vars_test_default_strategy(void);
void vars_test_int64(tdm_strategy *s);

#endif
