/* The variables case's shared set-up and checks (the case: variables.c). */
#include "variables_fixture.h"

tdm_context *vars_ctx;
tdm_device *vars_devs[MAX_REPLICAS];
size_t vars_n; /* replicas of the scenario */

/* Floats of widely varying magnitude, so that the order of a sum matters. */
void vars_make_data(float *x, size_t count, unsigned seed)
{
    uint32_t *bits = malloc(count * sizeof *bits);
    if (!bits) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    test_random_bytes(bits, count * sizeof *bits, seed);
    for (size_t e = 0; e < count; e++)
        x[e] = ldexpf((float)(bits[e] >> 8) * 0x1p-24f - 0.5f, (int)(bits[e] % 21) - 10);
    free(bits);
}

/* SUM (or MEAN) of `reps` rows of `count` floats, folded in row order in float. */
void vars_fold(const float *rows, size_t reps, size_t count, int mean, float *out)
{
    for (size_t e = 0; e < count; e++) {
        float acc = rows[e];
        for (size_t r = 1; r < reps; r++)
            acc += rows[r * count + e];
        out[e] = mean ? acc * (float)(1.0 / (double)reps) : acc;
    }
}

int vars_same_bits(const float *got, const float *want, size_t count, const char *what, int line)
{
    for (size_t e = 0; e < count; e++)
        if (memcmp(&got[e], &want[e], sizeof(float))) {
            fprintf(stderr, "line %d: %s: element %zu is %a, expected %a\n", line, what, e,
                    (double)got[e], (double)want[e]);
            return 0;
        }
    return 1;
}

/* Copy i of var holds want, bit for bit. */
void vars_expect_copy_(tdm_variable *var, size_t i, const float *want, int line)
{
    size_t count = tdm_tensor_count(tdm_variable_copy(var, i));
    float got[BIG];
    tdm_status s = tdm_tensor_read(tdm_variable_copy(var, i), got, count * sizeof(float));
    char what[96];
    snprintf(what, sizeof what, "variable '%s' copy %zu", tdm_variable_name(var), i);
    if (s != TDM_OK || !vars_same_bits(got, want, count, what, line)) {
        test_failures++;
        fprintf(stderr, "line %d: %s: %s\n", line, what, s ? tdm_last_error() : "wrong value");
    }
}

void vars_expect_all_copies_(tdm_variable *var, const float *want, int line)
{
    for (size_t i = 0; i < tdm_variable_copy_count(var); i++)
        vars_expect_copy_(var, i, want, line);
}

/* A cross-replica read equals want, bit for bit. */
void vars_expect_read_(tdm_variable *var, const float *want, int line)
{
    float got[BIG];
    tdm_shape shape = tdm_variable_shape(var);
    size_t count = tdm_shape_count(&shape);
    tdm_status s = tdm_variable_read(var, got, count * sizeof(float));
    if (s != TDM_OK || !vars_same_bits(got, want, count, "read", line)) {
        test_failures++;
        fprintf(stderr, "line %d: read of '%s': %s\n", line, tdm_variable_name(var),
                s ? tdm_last_error() : "wrong value");
    }
}

tdm_variable *vars_make_var(tdm_strategy *s, const char *name, size_t count,
                            tdm_synchronization sync, tdm_aggregation agg, const float *init)
{
    tdm_variable_options o = TDM_VARIABLE_OPTIONS_INIT;
    o.name = name;
    o.shape = count == COUNT ? TDM_SHAPE(2, 3) : TDM_SHAPE(count);
    o.synchronization = sync;
    o.aggregation = agg;
    o.initial_value = init;
    tdm_variable *var = NULL;
    CHECK_OK(tdm_variable_create(s, &o, &var));
    return var;
}

/* Writes x into copy i directly, behind the variable's back. */
void vars_poke_copy(tdm_variable *var, size_t i, const float *x)
{
    tdm_tensor *c = tdm_variable_copy(var, i);
    CHECK_OK(tdm_tensor_write(c, x, tdm_tensor_bytes(c)));
}

tdm_strategy *vars_mirrored(int check)
{
    tdm_strategy_options o = TDM_STRATEGY_OPTIONS_INIT;
    o.check_mirrored = check;
    tdm_strategy *s = NULL;
    CHECK_OK(tdm_strategy_create_mirrored(vars_ctx, vars_devs, vars_n, &o, &s));
    return s;
}

void vars_job_init(job *j, tdm_variable *var, tdm_assign_op op, const float *values, size_t count)
{
    memset(j, 0, sizeof *j);
    j->var = var;
    for (size_t r = 0; r < MAX_REPLICAS; r++)
        j->op[r] = op;
    j->values = values;
    j->count = count;
}

tdm_status vars_assign_fn(tdm_replica_context *rc, void *user)
{
    job *j = user;
    size_t id = tdm_replica_id(rc);
    const float *x = j->values + (j->same ? 0 : id * j->count);
    tdm_status s;
    if (j->host) {
        s = tdm_variable_assign_host(j->var, j->op[id], x, j->count * sizeof(float));
    } else if (j->use_local) {
        s = tdm_variable_assign(j->var, j->op[id], tdm_variable_local(j->var, rc));
    } else {
        tdm_device *dev = j->foreign_device ? vars_devs[(id + 1) % vars_n] : tdm_replica_device(rc);
        tdm_tensor *t = test_tensor_of(dev, x, j->count);
        s = tdm_variable_assign(j->var, j->op[id], t);
        tdm_tensor_destroy(t);
    }
    j->status[id] = s;
    snprintf(j->message[id], sizeof j->message[id], "%s", s ? tdm_last_error() : "");
    if (s == TDM_OK)
        s = tdm_variable_read(j->var, j->read[id], j->count * sizeof(float));
    return s;
}

/* Runs fn with the job; every replica must end with `expected` and a message
 * containing needle. */
void vars_run_job_(tdm_strategy *s, tdm_replica_fn fn, job *j, tdm_status expected,
                   const char *needle, int line)
{
    tdm_status st = tdm_strategy_run(s, fn, j, NULL, 0, NULL);
    if (st != expected || (expected && !strstr(tdm_last_error(), needle))) {
        test_failures++;
        fprintf(stderr, "line %d: run returned %s (%s), expected %s\n", line, tdm_status_str(st),
                tdm_last_error(), tdm_status_str(expected));
    }
    size_t reps = tdm_strategy_num_replicas(s);
    for (size_t r = 0; r < reps; r++)
        if (j->status[r] != expected || (expected && !strstr(j->message[r], needle))) {
            test_failures++;
            fprintf(stderr, "line %d: replica %zu got %s ('%s'), expected %s mentioning '%s'\n",
                    line, r, tdm_status_str(j->status[r]), j->message[r], tdm_status_str(expected),
                    needle);
        }
}
